// reader.js: the clean-room in-page reader of the e2e-conform reference web
// engine. Written from the behaviour description in the toolkit's web-engine
// spec (section 2.3) and the public HTML-AAM, accname 1.2 and WAI-ARIA 1.2
// specifications.
//
// This file is one function expression. Calling it with hookShadow = true
// (the init script, before page scripts run) also wraps
// Element.prototype.attachShadow so closed shadow roots are recorded.
// It installs window.__e2eConform (non-enumerable, read-only) once per
// document; a second call is a no-op.
(function install(hookShadow) {
  'use strict';
  var G = globalThis;
  if (Object.getOwnPropertyDescriptor(G, '__e2eConform')) return;

  // ---- builtins captured at install time -----------------------------------
  var R = Reflect;
  var apply = R.apply;
  var gopd = Object.getOwnPropertyDescriptor;
  var defProp = Object.defineProperty;
  var O_freeze = Object.freeze;
  var M_round = Math.round, M_max = Math.max, M_min = Math.min, M_abs = Math.abs;
  var N_parseInt = parseInt, N_parseFloat = parseFloat;
  var S_fromCharCode = String.fromCharCode;
  var SymbolFor = Symbol.for;
  var ErrorCtor = Error;
  var PromiseCtor = Promise, P_then = Promise.prototype.then, P_resolve = Promise.resolve;
  var WeakMapCtor = WeakMap, MapCtor = Map, WeakRefCtor = G.WeakRef;
  var WM = WeakMap.prototype, MP = Map.prototype;
  var WM_get = WM.get, WM_set = WM.set, WM_has = WM.has;
  var MP_get = MP.get, MP_set = MP.set;
  var WR_deref = WeakRefCtor ? WeakRefCtor.prototype.deref : null;
  var SP = String.prototype;
  var S_slice = SP.slice, S_charCodeAt = SP.charCodeAt, S_toLowerCase = SP.toLowerCase,
    S_indexOf = SP.indexOf, S_trim = SP.trim;
  var setTimeoutFn = G.setTimeout, rafFn = G.requestAnimationFrame;

  function method(proto, name) { var d = proto && gopd(proto, name); return d ? d.value : undefined; }
  function getter(proto, name) { var d = proto && gopd(proto, name); return d ? d.get : undefined; }
  function setter(proto, name) { var d = proto && gopd(proto, name); return d ? d.set : undefined; }

  var NodeP = Node.prototype, ElP = Element.prototype, HElP = HTMLElement.prototype,
    DocP = Document.prototype, SRP = ShadowRoot.prototype;
  var n_nodeType = getter(NodeP, 'nodeType'), n_firstChild = getter(NodeP, 'firstChild'),
    n_nextSibling = getter(NodeP, 'nextSibling'), n_parentNode = getter(NodeP, 'parentNode'),
    n_textContent = getter(NodeP, 'textContent'), n_isConnected = getter(NodeP, 'isConnected'),
    n_ownerDocument = getter(NodeP, 'ownerDocument'), n_getRootNode = method(NodeP, 'getRootNode'),
    n_nodeValue = getter(NodeP, 'nodeValue'), n_compare = method(NodeP, 'compareDocumentPosition');
  var e_getAttribute = method(ElP, 'getAttribute'), e_hasAttribute = method(ElP, 'hasAttribute'),
    e_bcr = method(ElP, 'getBoundingClientRect'), e_matches = method(ElP, 'matches'),
    e_localName = getter(ElP, 'localName'), e_shadowRoot = getter(ElP, 'shadowRoot'),
    e_attributes = getter(ElP, 'attributes'), e_firstElementChild = getter(ElP, 'firstElementChild'),
    e_nextElementSibling = getter(ElP, 'nextElementSibling'), e_clientLeft = getter(ElP, 'clientLeft'),
    e_clientTop = getter(ElP, 'clientTop'), e_scrollIntoView = method(ElP, 'scrollIntoView'),
    e_checkVisibility = method(ElP, 'checkVisibility'), e_attachShadow = method(ElP, 'attachShadow'),
    e_querySelectorAll = method(ElP, 'querySelectorAll');
  var h_innerText = getter(HElP, 'innerText'), h_isContentEditable = getter(HElP, 'isContentEditable'),
    h_focus = method(HElP, 'focus'), h_title = getter(HElP, 'title');
  var d_activeElement = getter(DocP, 'activeElement'), d_title = getter(DocP, 'title'),
    d_documentElement = getter(DocP, 'documentElement'), d_defaultView = getter(DocP, 'defaultView'),
    d_elementFromPoint = method(DocP, 'elementFromPoint'), d_evaluate = method(DocP, 'evaluate'),
    d_getElementById = method(DocP, 'getElementById'), d_querySelectorAll = method(DocP, 'querySelectorAll'),
    d_createRange = method(DocP, 'createRange'), d_getSelection = method(DocP, 'getSelection'),
    d_URL = getter(DocP, 'URL');
  var sr_host = getter(SRP, 'host'), sr_activeElement = getter(SRP, 'activeElement'),
    sr_elementFromPoint = method(SRP, 'elementFromPoint'), sr_mode = getter(SRP, 'mode');
  var df_getElementById = method(DocumentFragment.prototype, 'getElementById');
  var nnm_length = getter(NamedNodeMap.prototype, 'length'), nnm_item = method(NamedNodeMap.prototype, 'item');
  var attr_name = getter(Attr.prototype, 'name'), attr_value = getter(Attr.prototype, 'value');
  var rect_left = getter(DOMRectReadOnly.prototype, 'left'), rect_top = getter(DOMRectReadOnly.prototype, 'top'),
    rect_width = getter(DOMRectReadOnly.prototype, 'width'), rect_height = getter(DOMRectReadOnly.prototype, 'height');
  var cs_get = method(CSSStyleDeclaration.prototype, 'getPropertyValue');
  var w_getComputedStyle = G.getComputedStyle;
  var rng_selectNodeContents = method(Range.prototype, 'selectNodeContents'),
    rng_bcr = method(Range.prototype, 'getBoundingClientRect');
  var sel_toString = method(Selection.prototype, 'toString'), sel_anchorNode = getter(Selection.prototype, 'anchorNode'),
    sel_isCollapsed = getter(Selection.prototype, 'isCollapsed'), sel_removeAllRanges = method(Selection.prototype, 'removeAllRanges'),
    sel_addRange = method(Selection.prototype, 'addRange');
  var IP = HTMLInputElement.prototype, TAP = HTMLTextAreaElement.prototype, SelP = HTMLSelectElement.prototype,
    OptP = HTMLOptionElement.prototype, IfP = HTMLIFrameElement.prototype, SlotP = HTMLSlotElement.prototype,
    AP = HTMLAnchorElement.prototype, AreaP = HTMLAreaElement.prototype;
  var in_value = getter(IP, 'value'), in_setValue = setter(IP, 'value'), in_checked = getter(IP, 'checked'),
    in_type = getter(IP, 'type'), in_labels = getter(IP, 'labels'), in_selStart = getter(IP, 'selectionStart'),
    in_selEnd = getter(IP, 'selectionEnd'), in_select = method(IP, 'select');
  var ta_value = getter(TAP, 'value'), ta_selStart = getter(TAP, 'selectionStart'), ta_selEnd = getter(TAP, 'selectionEnd'),
    ta_select = method(TAP, 'select');
  var se_value = getter(SelP, 'value'), se_options = getter(SelP, 'options'), se_multiple = getter(SelP, 'multiple');
  var op_value = getter(OptP, 'value'), op_label = getter(OptP, 'label'), op_selected = getter(OptP, 'selected'),
    op_setSelected = setter(OptP, 'selected'), op_disabled = getter(OptP, 'disabled');
  var if_contentDocument = getter(IfP, 'contentDocument'), if_src = getter(IfP, 'src');
  var slot_assigned = method(SlotP, 'assignedNodes');
  var a_href = getter(AP, 'href'), area_href = getter(AreaP, 'href');
  var hc_length = getter(HTMLCollection.prototype, 'length'), hc_item = method(HTMLCollection.prototype, 'item');
  var nl_length = getter(NodeList.prototype, 'length'), nl_item = method(NodeList.prototype, 'item');
  var w_frameElement = getter(Window.prototype, 'frameElement') || function () { return this.frameElement; };
  var EventCtor = Event;
  var et_dispatch = method(EventTarget.prototype, 'dispatchEvent');
  var URLCtor = URL;
  var u_protocol = getter(URLCtor.prototype, 'protocol'), u_origin = getter(URLCtor.prototype, 'origin'),
    u_pathname = getter(URLCtor.prototype, 'pathname'), u_search = getter(URLCtor.prototype, 'search'),
    u_hash = getter(URLCtor.prototype, 'hash'), u_hostname = getter(URLCtor.prototype, 'hostname');

  function call0(fn, self) { return apply(fn, self, []); }
  function call1(fn, self, a) { return apply(fn, self, [a]); }

  // ---- small helpers (no Array/String prototype lookups) --------------------
  function push(arr, v) { arr[arr.length] = v; }
  function slice(s, a, b) { return apply(S_slice, s, b === undefined ? [a] : [a, b]); }
  function code(s, i) { return apply(S_charCodeAt, s, [i]); }
  function lower(s) { return apply(S_toLowerCase, s, []); }
  function indexOf(s, t) { return apply(S_indexOf, s, [t]); }
  function trim(s) { return apply(S_trim, s, []); }
  function round2(v) { return M_round(v * 100) / 100; }

  function isWS(c) {
    return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 0xa0 || c === 0x200b ||
      (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f ||
      c === 0x3000 || c === 0x1680 || c === 0xfeff || c === 11;
  }

  // norm collapses white space, trims, and (names only) turns private-use
  // glyphs (icon fonts) into spaces.
  function norm(s, pua) {
    if (!s) return '';
    var out = '', n = s.length, start = -1, pendingSpace = false;
    for (var i = 0; i < n; i++) {
      var c = code(s, i), ws = isWS(c);
      if (pua && !ws) {
        if (c >= 0xe000 && c <= 0xf8ff) ws = true;
        else if (c >= 0xdb80 && c <= 0xdbff && i + 1 < n) {
          var d = code(s, i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) {
            if (start >= 0) { out += slice(s, start, i); start = -1; }
            pendingSpace = out.length > 0; i++; continue;
          }
        }
      }
      if (ws) {
        if (start >= 0) { out += slice(s, start, i); start = -1; }
        pendingSpace = out.length > 0;
      } else if (start < 0) {
        if (pendingSpace) { out += ' '; pendingSpace = false; }
        start = i;
      }
    }
    if (start >= 0) out += slice(s, start);
    return out;
  }

  // cut keeps the first n UTF-16 units without splitting a surrogate pair.
  function cut(s, n) {
    if (s.length <= n) return s;
    var k = n, c = code(s, n - 1);
    if (c >= 0xd800 && c <= 0xdbff) k = n - 1;
    return slice(s, 0, k);
  }

  function toList(coll, lenGetter, itemFn) {
    var out = [];
    if (!coll) return out;
    var n = call0(lenGetter, coll);
    for (var i = 0; i < n; i++) push(out, call1(itemFn, coll, i));
    return out;
  }

  // ---- private state --------------------------------------------------------
  var closedRoots = new WeakMapCtor(); // host -> closed ShadowRoot
  var stamps = new WeakMapCtor(); // element -> id
  var registry = new MapCtor(); // id -> WeakRef(element)
  var CLOSED_KEY = SymbolFor('e2e-conform.closedShadowRoot');

  if (hookShadow && e_attachShadow) {
    var wrapped = {
      attachShadow: function attachShadow(init) {
        var root = apply(e_attachShadow, this, arguments);
        try { if (root && call0(sr_mode, root) === 'closed') apply(WM_set, closedRoots, [this, root]); } catch (e) { /* ignore */ }
        return root;
      }
    }.attachShadow;
    defProp(ElP, 'attachShadow', { value: wrapped, writable: true, configurable: true, enumerable: false });
  }

  function nodeType(n) { return call0(n_nodeType, n); }
  function firstChild(n) { return call0(n_firstChild, n); }
  function nextSibling(n) { return call0(n_nextSibling, n); }
  function parentNode(n) { return call0(n_parentNode, n); }
  function localName(el) { return call0(e_localName, el) || ''; }
  function attr(el, n) { return call1(e_getAttribute, el, n); }
  function hasAttr(el, n) { return call1(e_hasAttribute, el, n); }
  function ownerDoc(n) { return call0(n_ownerDocument, n); }
  function isHTML(el) { return el instanceof ownerWin(el).HTMLElement || el instanceof HTMLElement; }
  function ownerWin(el) { var d = ownerDoc(el); return (d && call0(d_defaultView, d)) || G; }
  function isTag(el, proto) { try { call0(proto, el); return true; } catch (e) { return false; } }
  function isInput(el) { return localName(el) === 'input' && isTag(el, in_type); }
  function isTextArea(el) { return localName(el) === 'textarea' && isTag(el, ta_value); }
  function isSelect(el) { return localName(el) === 'select' && isTag(el, se_value); }
  function inputType(el) { return lower(call0(in_type, el) || 'text'); }

  function shadowOf(el) {
    var sr = call0(e_shadowRoot, el);
    if (sr) return sr;
    var w = ownerWin(el);
    if (w === G) return apply(WM_get, closedRoots, [el]) || null;
    try {
      var api = w.__e2eConform;
      var f = api && api[CLOSED_KEY];
      return (typeof f === 'function' && f(el)) || null;
    } catch (e) { return null; }
  }

  // composed parent: DOM parent, or the host of a shadow root.
  function composedParent(n) {
    var p = parentNode(n);
    if (p && nodeType(p) === 11) {
      try { var h = call0(sr_host, p); if (h) return h; } catch (e) { /* plain fragment */ }
    }
    return p && nodeType(p) === 1 ? p : null;
  }

  function cssOf(el) { return apply(w_getComputedStyle, G, [el]); }
  function prop(cs, name) { return apply(cs_get, cs, [name]); }

  function rawRect(el) {
    var r = call0(e_bcr, el);
    return { x: call0(rect_left, r), y: call0(rect_top, r), w: call0(rect_width, r), h: call0(rect_height, r) };
  }
  function rangeRect(el) {
    var d = ownerDoc(el);
    var rg = call0(d_createRange, d);
    call1(rng_selectNodeContents, rg, el);
    var r = call0(rng_bcr, rg);
    return { x: call0(rect_left, r), y: call0(rect_top, r), w: call0(rect_width, r), h: call0(rect_height, r) };
  }

  // ---- ids ----------------------------------------------------------------
  function stampOf(el) { return apply(WM_get, stamps, [el]); }
  function stamp(el, ctx) {
    var id = apply(WM_get, stamps, [el]);
    if (id) return id;
    id = 'n' + ctx.nextId;
    ctx.nextId++;
    apply(WM_set, stamps, [el, id]);
    apply(MP_set, registry, [id, WeakRefCtor ? new WeakRefCtor(el) : { deref: function () { return el; } }]);
    return id;
  }
  function lookup(id) {
    if (id === 'root') return call0(d_documentElement, document);
    var ref = apply(MP_get, registry, [id]);
    if (!ref) return null;
    var el = WR_deref ? call0(WR_deref, ref) : ref.deref();
    return el || null;
  }
  function live(id) {
    var el = lookup(id);
    return !!el && call0(n_isConnected, el);
  }
  function need(id) {
    var el = lookup(id);
    if (!el || !call0(n_isConnected, el)) throw new ErrorCtor('node reference ' + id + ' is stale');
    return el;
  }

  // ---- tables -------------------------------------------------------------
  function set(list) { var o = {}; for (var i = 0; i < list.length; i++) o[list[i]] = true; return o; }
  var SKIP = set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base', 'param',
    'source', 'track', 'col', 'colgroup', 'frame', 'frameset', 'object', 'embed']);
  var OPAQUE = set(['svg', 'math', 'canvas', 'video', 'audio']);
  var NOT_HOST = set(['svg', 'math', 'canvas', 'video', 'audio', 'iframe', 'img', 'hr', 'br', 'wbr', 'area', 'a',
    'button', 'input', 'textarea', 'select']);
  var LANDMARK_SCOPE = 'article, aside, main, nav, section';
  var NAME_FROM_CONTENT = set(['button', 'link', 'heading', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'treeitem', 'tooltip', 'option', 'listitem', 'status', 'alert', 'row', 'figure',
    'cell', 'gridcell', 'columnheader', 'rowheader', 'checkbox', 'radio', 'switch']);
  var TEXTLIKE = set(['text', 'password', 'number', 'search', 'tel', 'email', 'url']);
  var SET_DIRECT = set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);
  var SIMPLE = {
    button: 'button', textarea: 'textbox', nav: 'navigation', main: 'main', aside: 'complementary',
    article: 'article', figure: 'figure', hr: 'separator', progress: 'progressbar', meter: 'meter', menu: 'list',
    fieldset: 'group', details: 'group', optgroup: 'group', address: 'group', option: 'option',
    h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
    li: 'listitem', ul: 'list', ol: 'list', table: 'table', thead: 'rowgroup', tbody: 'rowgroup',
    tfoot: 'rowgroup', tr: 'row', td: 'cell', dialog: 'dialog', output: 'status', iframe: 'iframe'
  };
  var INPUT_ROLE = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox', radio: 'radio',
    range: 'slider', number: 'spinbutton', search: 'searchbox', hidden: 'none'
  };
  var CHECK_ROLES = set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
  var SECURE = 'input[type="password" i]';

  function isSecure(el) { return localName(el) === 'input' && call1(e_matches, el, SECURE); }

  function firstToken(s) {
    s = norm(s, false);
    var i = indexOf(s, ' ');
    return lower(i < 0 ? s : slice(s, 0, i));
  }

  function isEditingHost(el, tag) {
    if (NOT_HOST[tag] || !h_isContentEditable) return false;
    var ce;
    try { ce = call0(h_isContentEditable, el); } catch (e) { return false; }
    if (!ce) return false;
    var p = composedParent(el);
    if (!p) return true;
    try { return !call0(h_isContentEditable, p); } catch (e) { return true; }
  }

  function hasOwnName(el) {
    var lb = attr(el, 'aria-labelledby'), al = attr(el, 'aria-label'), ti = attr(el, 'title');
    return !!((lb && norm(lb)) || (al && norm(al)) || (ti && norm(ti)));
  }

  // roleOf: explicit role (first token; img spelled image), else the
  // HTML-AAM mapping of the spec, else null.
  function roleOf(el, tag) {
    var explicit = attr(el, 'role');
    if (explicit) {
      var t = firstToken(explicit);
      if (t) return t === 'img' ? 'image' : t;
    }
    if (isEditingHost(el, tag)) return 'textbox';
    var r = SIMPLE[tag];
    if (r) return r;
    switch (tag) {
      case 'a': case 'area': return hasAttr(el, 'href') ? 'link' : null;
      case 'select':
        if (hasAttr(el, 'multiple')) return 'listbox';
        var size = N_parseInt(attr(el, 'size') || '', 10);
        return size > 1 ? 'listbox' : 'combobox';
      case 'img': return attr(el, 'alt') === '' ? 'presentation' : 'image';
      case 'header': case 'footer':
        if (closestOther(el, LANDMARK_SCOPE)) return null;
        return tag === 'header' ? 'banner' : 'contentinfo';
      case 'section': return hasOwnName(el) ? 'region' : null;
      case 'form': return hasOwnName(el) ? 'form' : null;
      case 'th':
        var sc = lower(attr(el, 'scope') || '');
        return sc === 'row' || sc === 'rowgroup' ? 'rowheader' : 'columnheader';
      case 'input':
        var ty = lower(attr(el, 'type') || 'text');
        return INPUT_ROLE[ty] || 'textbox';
    }
    return null;
  }
  var e_closest = method(ElP, 'closest');
  function closestOther(el, sel) {
    var p = composedParent(el);
    return p ? call1(e_closest, p, sel) : null;
  }

  // ---- visibility -----------------------------------------------------------
  function styleInfo(ctx, el) {
    var c = ctx && ctx.styles ? apply(MP_get, ctx.styles, [el]) : undefined;
    if (c) return c;
    var cs = cssOf(el);
    c = { cs: cs, display: prop(cs, 'display'), visibility: prop(cs, 'visibility') };
    if (ctx && ctx.styles) apply(MP_set, ctx.styles, [el, c]);
    return c;
  }

  // contentsVisible: a display:contents element is visible iff something
  // under it is (non-blank text or a visible box).
  function contentsVisible(ctx, el, depth) {
    if (depth > 32) return false;
    for (var c = firstChild(el); c; c = nextSibling(c)) {
      var t = nodeType(c);
      if (t === 3) { if (norm(call0(n_nodeValue, c))) return true; continue; }
      if (t !== 1) continue;
      if (SKIP[localName(c)]) continue;
      var si = styleInfo(ctx, c);
      if (si.display === 'none') continue;
      if (si.display === 'contents') { if (contentsVisible(ctx, c, depth + 1)) return true; continue; }
      if (si.visibility !== 'visible') continue;
      var r = rawRect(c);
      if (r.w > 0 && r.h > 0) return true;
    }
    return false;
  }

  function isClosedDetailsChild(parent, child) {
    if (!parent || localName(parent) !== 'details' || hasAttr(parent, 'open')) return false;
    if (localName(child) !== 'summary') return true;
    // only the first summary child stays visible
    for (var c = call0(e_firstElementChild, parent); c; c = call0(e_nextElementSibling, c)) {
      if (localName(c) === 'summary') return c !== child;
    }
    return true;
  }

  // ---- accessible names -----------------------------------------------------
  function rootGetById(el, id) {
    var root = call0(n_getRootNode, el);
    try {
      if (nodeType(root) === 9) return call1(d_getElementById, root, id);
      if (nodeType(root) === 11) return call1(df_getElementById, root, id);
    } catch (e) { /* ignore */ }
    return null;
  }

  function splitIds(s) {
    var out = [], cur = '';
    for (var i = 0; i < s.length; i++) {
      var c = code(s, i);
      if (isWS(c)) { if (cur) push(out, cur); cur = ''; } else cur += S_fromCharCode(c);
    }
    if (cur) push(out, cur);
    return out;
  }

  function hiddenForName(ctx, el) {
    if (attr(el, 'aria-hidden') === 'true') return true;
    var si = styleInfo(ctx, el);
    return si.display === 'none' || si.visibility === 'hidden' || si.visibility === 'collapse';
  }

  function deepHidden(ctx, el) {
    for (var e = el; e; e = composedParent(e)) {
      if (hiddenForName(ctx, e)) return true;
    }
    return false;
  }

  // pseudoText returns a ::before/::after element's generated string.
  function pseudoText(el, which) {
    var cs = w_getComputedStyle(el, which);
    var v = prop(cs, 'content');
    if (!v || v === 'none' || v === 'normal') return '';
    var d = prop(cs, 'display');
    if (d === 'none') return '';
    var out = '', alt = null, i = 0, n = v.length;
    while (i < n) {
      var c = code(v, i);
      if (c === 34 || c === 39) {
        var q = c, s = '';
        i++;
        while (i < n && code(v, i) !== q) {
          var ch = code(v, i);
          if (ch === 92 && i + 1 < n) {
            i++;
            var hex = '', j = i;
            while (j < n && j - i < 6 && isHex(code(v, j))) { hex += slice(v, j, j + 1); j++; }
            if (hex) {
              var cp = N_parseInt(hex, 16);
              s += cpToString(cp);
              i = j;
              if (i < n && code(v, i) === 32) i++;
              continue;
            }
            s += slice(v, i, i + 1); i++; continue;
          }
          s += slice(v, i, i + 1); i++;
        }
        i++;
        if (alt !== null) alt += s; else out += s;
        continue;
      }
      if (c === 47) { alt = ''; i++; continue; }
      if (slice(v, i, i + 5) === 'attr(') {
        var end = indexOf(slice(v, i), ')');
        if (end > 0) {
          var an = trim(slice(v, i + 5, i + end));
          var av = attr(el, an) || '';
          if (alt !== null) alt += av; else out += av;
          i += end + 1; continue;
        }
      }
      i++;
    }
    var txt = alt !== null ? alt : out;
    if (txt && !isInlineDisplay(d)) txt = ' ' + txt + ' ';
    return txt;
  }
  // isInlineDisplay: inline-level boxes are concatenated, block-level ones
  // padded with spaces.
  function isInlineDisplay(d) { return d === 'contents' || slice(d || '', 0, 6) === 'inline'; }
  function isHex(c) { return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70); }
  function cpToString(cp) {
    if (cp <= 0xffff) return S_fromCharCode(cp);
    cp -= 0x10000;
    return S_fromCharCode(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
  }

  function isControl(el, tag) {
    return tag === 'input' || tag === 'select' || tag === 'textarea';
  }

  // contentText: the name-from-content text of el's subtree (flat tree: a
  // shadow host contributes its shadow tree, slots their assigned nodes).
  function contentText(ctx, el, opts) {
    var s = opts.pseudo ? pseudoText(el, '::before') : '';
    var sr = shadowOf(el);
    s += childrenText(ctx, sr || el, opts);
    if (opts.pseudo) s += pseudoText(el, '::after');
    return s;
  }
  function childrenText(ctx, parent, opts) {
    var s = '';
    if (localName(parent) === 'slot' && nodeType(parent) === 1) {
      var assigned = call1(slot_assigned, parent, { flatten: true });
      if (assigned && assigned.length) {
        for (var i = 0; i < assigned.length; i++) s += nodeText(ctx, assigned[i], opts);
        return s;
      }
    }
    for (var c = firstChild(parent); c; c = nextSibling(c)) s += nodeText(ctx, c, opts);
    return s;
  }
  function nodeText(ctx, c, opts) {
    var t = nodeType(c);
    if (t === 3) return call0(n_nodeValue, c) || '';
    if (t !== 1) return '';
    return contribution(ctx, c, opts);
  }

  function contribution(ctx, el, opts) {
    var tag = localName(el);
    if (SKIP[tag]) return '';
    if (!opts.includeHidden && hiddenForName(ctx, el)) return '';
    if (tag === 'br') return ' ';
    if (isControl(el, tag)) return '';
    var t = '';
    if (!opts.noLabelledby) {
      var lb = attr(el, 'aria-labelledby');
      if (lb) { var r = labelledbyText(ctx, el, lb); if (r) t = r; }
    }
    if (!t) { var al = attr(el, 'aria-label'); if (al && norm(al)) t = al; }
    if (!t && (tag === 'img' || tag === 'area')) { var alt = attr(el, 'alt'); if (alt && norm(alt)) t = alt; }
    if (!t && !OPAQUE[tag]) t = contentText(ctx, el, opts);
    if (!norm(t, true)) { var ti = attr(el, 'title'); if (ti && norm(ti)) t = ti; }
    var si = styleInfo(ctx, el);
    if (t && !isInlineDisplay(si.display)) t = ' ' + t + ' ';
    return t;
  }

  // labelledbyText returns the joined names of the targets, or null when no
  // id names an element.
  function labelledbyText(ctx, el, lb) {
    var ids = splitIds(lb), parts = '', found = 0;
    for (var i = 0; i < ids.length; i++) {
      var tgt = rootGetById(el, ids[i]);
      if (!tgt) continue;
      found++;
      var p = targetText(ctx, tgt);
      if (p) parts += (parts ? ' ' : '') + p;
    }
    return found ? norm(parts, true) : null;
  }

  function targetText(ctx, tgt) {
    var tag = localName(tgt);
    var al = attr(tgt, 'aria-label');
    if (al && norm(al)) return norm(al, true);
    if (isControl(tgt, tag)) { var ti0 = attr(tgt, 'title'); return ti0 ? norm(ti0, true) : ''; }
    if (tag === 'img') { var alt = attr(tgt, 'alt'); if (alt && norm(alt)) return norm(alt, true); }
    var inc = deepHidden(ctx, tgt);
    var t = norm(contentText(ctx, tgt, { includeHidden: inc, noLabelledby: true, pseudo: true }), true);
    if (t) return t;
    var ti = attr(tgt, 'title');
    return ti ? norm(ti, true) : '';
  }

  function labelsOf(el, tag) {
    if (tag === 'input' && isInput(el)) return toList(call0(in_labels, el), nl_length, nl_item);
    var lab = null;
    try { lab = el.labels; } catch (e) { lab = null; }
    if (!lab) return [];
    var out = [];
    for (var i = 0; i < lab.length; i++) push(out, lab[i]);
    return out;
  }

  function labelText(ctx, label, pseudo) {
    return norm(contentText(ctx, label, { includeHidden: false, pseudo: pseudo }), true);
  }

  function childByTag(el, tag, last) {
    var found = null;
    for (var c = call0(e_firstElementChild, el); c; c = call0(e_nextElementSibling, c)) {
      if (localName(c) === tag) { found = c; if (!last) break; }
    }
    return found;
  }

  function placeholderOf(el, tag, role) {
    var textlike;
    if (tag === 'input') textlike = !!TEXTLIKE[lower(attr(el, 'type') || 'text')];
    else textlike = tag === 'textarea' || role === 'textbox' || role === 'searchbox';
    if (!textlike) return '';
    var p = attr(el, 'placeholder');
    if (p && norm(p)) return norm(p, true);
    p = attr(el, 'aria-placeholder');
    if (p && norm(p)) return norm(p, true);
    p = attr(el, 'data-placeholder');
    if (p && norm(p)) return norm(p, true);
    // editor placeholder on the first empty block (ProseMirror/TipTap style)
    var first = call0(e_firstElementChild, el);
    if (first) {
      p = attr(first, 'data-placeholder');
      if (p && norm(p) && !norm(call0(n_textContent, first))) return norm(p, true);
    }
    return '';
  }

  // accName computes the accessible name by the spec's ordered sources.
  function accName(ctx, el, tag, role) {
    var lb = attr(el, 'aria-labelledby');
    if (lb && norm(lb)) {
      var r = labelledbyText(ctx, el, lb);
      if (r !== null) return r;
    }
    var al = attr(el, 'aria-label');
    if (al && norm(al)) return norm(al, true);
    if (tag === 'input' || tag === 'textarea' || tag === 'select' || tag === 'button' || tag === 'meter' ||
      tag === 'output' || tag === 'progress') {
      var labs = labelsOf(el, tag);
      if (labs.length) {
        var s = '';
        for (var i = 0; i < labs.length; i++) {
          var lt = labelText(ctx, labs[i], true);
          if (lt) s += (s ? ' ' : '') + lt;
        }
        if (s) return s;
      }
    }
    var ty = tag === 'input' ? lower(attr(el, 'type') || 'text') : '';
    if (tag === 'img' || tag === 'area' || ty === 'image') {
      var alt = attr(el, 'alt');
      if (alt && norm(alt)) return norm(alt, true);
    }
    var child = null;
    if (tag === 'fieldset') child = childByTag(el, 'legend');
    else if (tag === 'figure') child = childByTag(el, 'figcaption') ;
    else if (tag === 'table') child = childByTag(el, 'caption');
    if (child && !hiddenForName(ctx, child)) {
      var ct = norm(contentText(ctx, child, { pseudo: true }), true);
      if (ct) return ct;
    }
    if (role && NAME_FROM_CONTENT[role] && !isControl(el, tag) && !OPAQUE[tag]) {
      var c = norm(contentText(ctx, el, { pseudo: true }), true);
      if (c) return c;
    }
    if (ty === 'button' || ty === 'submit' || ty === 'reset') {
      var v = attr(el, 'value');
      if (v !== null && norm(v)) return norm(v, true);
      if (v === null && ty !== 'button') return ty === 'submit' ? 'Submit' : 'Reset';
    }
    var title = attr(el, 'title');
    if (title && norm(title)) return norm(title, true);
    if (ty === 'image') return 'Submit';
    if (ty === 'checkbox' || ty === 'radio') return '';
    return placeholderOf(el, tag, role);
  }

  // labelList: the label texts used by exact label queries.
  function labelList(ctx, el) {
    var out = [], tag = localName(el);
    var al = attr(el, 'aria-label');
    if (al && norm(al)) push(out, norm(al, true));
    var lb = attr(el, 'aria-labelledby');
    if (lb) {
      var ids = splitIds(lb);
      for (var i = 0; i < ids.length; i++) {
        var t = rootGetById(el, ids[i]);
        if (t) { var s = targetText(ctx, t); if (s) push(out, s); }
      }
    }
    var labs = labelsOf(el, tag);
    for (var j = 0; j < labs.length; j++) {
      var lt = labelText(ctx, labs[j], false);
      if (lt) push(out, lt);
    }
    return out;
  }

  // ---- other fields ---------------------------------------------------------
  function directText(el) {
    var s = '';
    for (var c = firstChild(el); c; c = nextSibling(c)) {
      if (nodeType(c) === 3) s += call0(n_nodeValue, c);
    }
    return norm(s, false);
  }

  function effectiveDisabled(el, tag, ariaChain) {
    if (ariaChain) return true;
    try { if (call1(e_matches, el, ':disabled')) return true; } catch (e) { /* non-HTML */ }
    if (tag === 'option') {
      var p = composedParent(el);
      while (p && localName(p) !== 'select') p = composedParent(p);
      if (p) { try { if (call1(e_matches, p, ':disabled')) return true; } catch (e) { /* ignore */ } }
    }
    return false;
  }

  // ariaDisabledChain walks up the composed ancestors (crossing shadow roots):
  // the nearest aria-disabled attribute decides.
  function ariaDisabledChain(el) {
    for (var e = el; e; e = composedParent(e)) {
      var v = attr(e, 'aria-disabled');
      if (v === 'true') return true;
      if (v === 'false') return false;
    }
    return false;
  }

  function inputPurpose(el, secure) {
    if (secure) return 'password';
    var ac = attr(el, 'autocomplete');
    if (!ac) return 'none';
    var toks = splitIds(lower(ac));
    for (var i = 0; i < toks.length; i++) {
      var t = toks[i];
      if (t === 'username') return 'username';
      if (t === 'current-password' || t === 'new-password') return 'password';
      if (t === 'one-time-code') return 'one-time-code';
    }
    return 'none';
  }

  function projectHref(el, raw) {
    var u;
    try { u = new URLCtor(raw, call0(d_URL, ownerDoc(el))); } catch (e) { return raw; }
    var proto = call0(u_protocol, u);
    if (proto === 'data:') return 'data:…';
    if (proto === 'javascript:') return 'javascript:…';
    if (proto === 'tel:') return raw;
    if (proto === 'mailto:') return 'mailto:' + call0(u_pathname, u) + (call0(u_search, u) ? '?…' : '');
    if (proto === 'blob:') {
      var rest = slice(raw, 5);
      return slice(rest, 0, 5) === 'null/' ? 'blob:…' : raw;
    }
    var origin = call0(u_origin, u);
    var base = origin && origin !== 'null' ? origin + call0(u_pathname, u) : proto + call0(u_pathname, u);
    if (call0(u_search, u)) base += '?…';
    if (call0(u_hash, u)) base += '#…';
    return base;
  }

  function attributesOf(el, full, secure, tid) {
    var out = null, list = call0(e_attributes, el), n = call0(nnm_length, list);
    for (var i = 0; i < n; i++) {
      var a = call1(nnm_item, list, i), name = call0(attr_name, a), v = call0(attr_value, a);
      if (name === tid) continue;
      if (secure && name === 'value') continue;
      if (!full) {
        var keep = name === 'type' || name === 'autocomplete' || name === 'href' || name === 'role' ||
          name === 'placeholder' || slice(name, 0, 5) === 'aria-';
        if (!keep) continue;
        if (name === 'href') v = projectHref(el, v);
        else v = cut(v, 512);
      }
      if (!out) out = {};
      out[name] = v;
    }
    return out;
  }

  function valueOf(el, tag, role, secure, editingHost) {
    if (secure) return undefined;
    if (tag === 'input' && isInput(el)) {
      var ty = inputType(el);
      if (ty === 'checkbox' || ty === 'radio') return undefined;
      return call0(in_value, el);
    }
    if (tag === 'textarea' && isTextArea(el)) return call0(ta_value, el);
    if (tag === 'select' && isSelect(el)) return call0(se_value, el);
    if (tag === 'option' && isTag(el, op_value)) return call0(op_value, el);
    if (editingHost) return trim(call0(h_innerText, el) || '');
    return undefined;
  }

  function selectionOf(el, tag, secure, editingHost) {
    if (secure) return undefined;
    try {
      if (tag === 'input' && isInput(el)) {
        var a = call0(in_selStart, el), b = call0(in_selEnd, el);
        if (a === null || a === b) return undefined;
        return slice(call0(in_value, el), a, b);
      }
      if (tag === 'textarea' && isTextArea(el)) {
        var c = call0(ta_selStart, el), d = call0(ta_selEnd, el);
        if (c === d) return undefined;
        return slice(call0(ta_value, el), c, d);
      }
      if (editingHost) {
        var sel = call0(d_getSelection, ownerDoc(el));
        if (!sel || call0(sel_isCollapsed, sel)) return undefined;
        var an = call0(sel_anchorNode, sel);
        if (!an || !call1(NodeP.contains, el, an)) return undefined;
        return call0(sel_toString, sel) || undefined;
      }
    } catch (e) { /* types without selection */ }
    return undefined;
  }

  function paintedBox(el, si, r) {
    if (r.w < 12 || r.h < 12) return false;
    if (call0(e_firstElementChild, el)) return false;
    if (norm(call0(n_textContent, el))) return false;
    var cs = si.cs;
    var bg = prop(cs, 'background-color');
    if (bg && bg !== 'transparent' && bg !== 'rgba(0, 0, 0, 0)') return true;
    if (prop(cs, 'background-image') !== 'none') return true;
    var sides = ['top', 'right', 'bottom', 'left'];
    for (var i = 0; i < 4; i++) {
      var w = N_parseFloat(prop(cs, 'border-' + sides[i] + '-width'));
      var st = prop(cs, 'border-' + sides[i] + '-style');
      if (w > 0 && st !== 'none' && st !== 'hidden') return true;
    }
    var os = prop(cs, 'outline-style');
    if (os && os !== 'none' && N_parseFloat(prop(cs, 'outline-width')) > 0) return true;
    return false;
  }

  // ---- frames ---------------------------------------------------------------
  function frameDoc(el) {
    try { return call0(if_contentDocument, el) || null; } catch (e) { return null; }
  }
  function cssString(s) {
    var out = '';
    for (var i = 0; i < s.length; i++) {
      var c = code(s, i);
      if (c === 34 || c === 92) out += '\\' + S_fromCharCode(c);
      else if (c < 32 || c === 127) out += '\\' + c.toString(16) + ' ';
      else out += S_fromCharCode(c);
    }
    return '"' + out + '"';
  }
  function frameSelector(el, tid) {
    var v = attr(el, tid);
    if (v !== null) return 'iframe[' + tid + '=' + cssString(v) + ']';
    v = attr(el, 'name');
    if (v) return 'iframe[name=' + cssString(v) + ']';
    var parts = '';
    for (var e = el; e && nodeType(e) === 1; e = parentNode(e)) {
      var tag = localName(e);
      var p = parentNode(e);
      if (!p || nodeType(p) !== 1) { parts = tag + (parts ? ' > ' + parts : ''); break; }
      var k = 1;
      for (var s = call0(e_firstElementChild, p); s && s !== e; s = call0(e_nextElementSibling, s)) k++;
      parts = tag + ':nth-child(' + k + ')' + (parts ? ' > ' + parts : '');
    }
    return parts;
  }
  function contentBox(el, r) {
    var cs = cssOf(el);
    var x = r.x + call0(e_clientLeft, el) + (N_parseFloat(prop(cs, 'padding-left')) || 0);
    var y = r.y + call0(e_clientTop, el) + (N_parseFloat(prop(cs, 'padding-top')) || 0);
    var w = r.w - call0(e_clientLeft, el) - (N_parseFloat(prop(cs, 'padding-left')) || 0) -
      (N_parseFloat(prop(cs, 'padding-right')) || 0) - (N_parseFloat(prop(cs, 'border-right-width')) || 0);
    var h = r.h - call0(e_clientTop, el) - (N_parseFloat(prop(cs, 'padding-top')) || 0) -
      (N_parseFloat(prop(cs, 'padding-bottom')) || 0) - (N_parseFloat(prop(cs, 'border-bottom-width')) || 0);
    return { x: x, y: y, w: M_max(0, w), h: M_max(0, h) };
  }
  function intersect(a, b) {
    if (!b) return a;
    var x1 = M_max(a.x, b.x), y1 = M_max(a.y, b.y);
    var x2 = M_min(a.x + a.w, b.x + b.w), y2 = M_min(a.y + a.h, b.y + b.h);
    return { x: x1, y: y1, w: x2 - x1, h: y2 - y1 };
  }
  function siteOf(host) {
    var parts = splitDots(host);
    if (parts.length <= 2) return host;
    return parts[parts.length - 2] + '.' + parts[parts.length - 1];
  }
  function splitDots(s) {
    var out = [], cur = '';
    for (var i = 0; i < s.length; i++) {
      var c = slice(s, i, i + 1);
      if (c === '.') { push(out, cur); cur = ''; } else cur += c;
    }
    push(out, cur);
    return out;
  }
  // onSite approximates "same site" without a public-suffix list: same host,
  // or the same last two labels.
  function onSite(src) {
    var u;
    try { u = new URLCtor(src, call0(d_URL, document)); } catch (e) { return false; }
    var p = call0(u_protocol, u);
    if (p === 'about:') return true;
    if (p === 'data:' || (p !== 'http:' && p !== 'https:')) return false;
    var top;
    try { top = call0(u_hostname, new URLCtor(call0(d_URL, document))); } catch (e) { return false; }
    var h = call0(u_hostname, u);
    return h === top || siteOf(h) === siteOf(top);
  }

  // frameChain returns the geometry of el's document relative to the top
  // document: offsets, clip and framePath, or null when a frame is cut off.
  function frameChain(el, tid) {
    var doc = ownerDoc(el), offX = 0, offY = 0, clip = null, path = [], depth = 0;
    var chain = [];
    for (var w = call0(d_defaultView, doc); w && w !== G; ) {
      var fe;
      try { fe = call0(w_frameElement, w); } catch (e) { return null; }
      if (!fe) return null;
      push(chain, fe);
      w = call0(d_defaultView, ownerDoc(fe));
    }
    for (var i = chain.length - 1; i >= 0; i--) {
      var f = chain[i], r = rawRect(f);
      r.x += offX; r.y += offY;
      var cb = contentBox(f, r);
      clip = intersect(cb, clip);
      offX = cb.x; offY = cb.y;
      push(path, frameSelector(f, tid));
      depth++;
    }
    return { offX: offX, offY: offY, clip: clip, path: path, depth: depth, frames: chain };
  }

  function deepActive(doc) {
    var a = call0(d_activeElement, doc);
    for (var guard = 0; a && guard < 64; guard++) {
      var sr = shadowOf(a);
      if (sr) {
        var inner = call0(sr_activeElement, sr);
        if (inner && inner !== a) { a = inner; continue; }
      }
      if (localName(a) === 'iframe') {
        var d = frameDoc(a);
        if (d) {
          var inner2 = call0(d_activeElement, d);
          var body = inner2 && localName(inner2);
          if (inner2 && body !== 'body' && body !== 'html') { a = inner2; continue; }
        }
      }
      break;
    }
    return a;
  }

  // ---- the walk -------------------------------------------------------------
  function mkRect(r, st) {
    var x = r.x + st.offX, y = r.y + st.offY;
    var rr = { x: x, y: y, w: r.w, h: r.h };
    if (st.clip) {
      rr = intersect(rr, st.clip);
      if (rr.w <= 0 || rr.h <= 0) return null;
    }
    return { x: round2(rr.x), y: round2(rr.y), width: round2(rr.w), height: round2(rr.h) };
  }

  function copyPath(p) { var o = []; for (var i = 0; i < p.length; i++) push(o, p[i]); return o; }

  function addChild(parent, node) {
    if (!parent.children) parent.children = [];
    push(parent.children, node);
  }

  function budgetOK(ctx) {
    if (ctx.count >= ctx.budget) { ctx.truncated = true; ctx.stop = true; return false; }
    return true;
  }

  // readElement fills a node with the fields of one element.
  function fillNode(ctx, node, el, tag, role, name, st, hidden, ariaOnly, rect, editingHost, ariaDis) {
    var full = ctx.full, secure = isSecure(el);
    if (role) node.role = role;
    if (name) node.name = full ? name : cut(name, 256);
    var text;
    if (secure) text = '';
    else if (full) {
      text = hidden ? norm(call0(n_textContent, el), false) : (h_innerText && isHTML(el) ? trim(call0(h_innerText, el) || '') : norm(call0(n_textContent, el), false));
    } else text = directText(el);
    if (text) node.text = full ? text : cut(text, 512);
    var value = valueOf(el, tag, role, secure, editingHost);
    if (value !== undefined && !(tag === 'option' && st.inSelect && !full)) node.value = full ? value : cut(value, 512);
    if (el === ctx.active) {
      var sel = selectionOf(el, tag, secure, editingHost);
      if (sel) node.selection = full ? sel : cut(sel, 512);
    }
    var tidv = attr(el, ctx.tid);
    if (tidv !== null) node.testId = tidv;
    node.inputPurpose = inputPurpose(el, secure);
    var states = {}, any = false;
    if (tag === 'input' && isInput(el)) {
      var ty = inputType(el);
      if (ty === 'checkbox' || ty === 'radio') { states.checked = call0(in_checked, el); any = true; }
    }
    var ac = attr(el, 'aria-checked');
    if (ac !== null && (CHECK_ROLES[role] || states.checked !== undefined)) { states.checked = ac === 'true'; any = true; }
    // A checkbox, radio or switch role without aria-checked exposes no
    // checked state (the fixture contract's stateless switch); it is not
    // read as false.
    if (tag === 'option' && isTag(el, op_selected)) { states.selected = call0(op_selected, el); any = true; }
    var as = attr(el, 'aria-selected');
    if (as !== null) { states.selected = as === 'true'; any = true; }
    var ae = attr(el, 'aria-expanded');
    if (ae !== null) { states.expanded = ae === 'true'; any = true; }
    var ap = attr(el, 'aria-pressed');
    if (ap !== null) { states.pressed = ap === 'true'; any = true; }
    if (effectiveDisabled(el, tag, ariaDis)) { states.disabled = true; any = true; }
    if (el === ctx.active) { states.focused = true; any = true; }
    if (hidden) {
      states.hidden = true; any = true;
      if (ariaOnly) push(ctx.ariaHidden, node.ref.id);
    } else if (st.inSelect) { states.hidden = false; any = true; }
    if (secure) { states.secure = true; any = true; }
    if (any) node.states = states;
    if (role === 'heading') {
      var lv = N_parseInt(attr(el, 'aria-level') || '', 10);
      if (!(lv > 0)) lv = tag.length === 2 && tag[0] === 'h' ? N_parseInt(tag[1], 10) : 2;
      if (!(lv > 0)) lv = 2;
      node.level = lv;
    }
    var attrs = attributesOf(el, full, secure, ctx.tid);
    if (attrs) node.attributes = attrs;
    if (rect && rect.w > 0 && rect.h > 0) {
      var rr = mkRect(rect, st);
      if (rr) node.rect = rr;
    }
    if (st.path.length) node.framePath = copyPath(st.path);
  }

  function visitChildren(ctx, parentEl, out, st) {
    var isSlot = localName(parentEl) === 'slot';
    if (isSlot) {
      var assigned = call1(slot_assigned, parentEl, undefined);
      if (assigned && assigned.length) return; // slotted nodes are walked as the host's light children
    }
    for (var c = firstChild(parentEl); c; c = nextSibling(c)) {
      if (ctx.stop) return;
      if (nodeType(c) === 1) visitElement(ctx, c, out, st, parentEl);
    }
    var sr = shadowOf(parentEl);
    if (sr) {
      for (var d = firstChild(sr); d; d = nextSibling(d)) {
        if (ctx.stop) return;
        if (nodeType(d) === 1) visitElement(ctx, d, out, st, null);
      }
    }
  }

  function visitElement(ctx, el, out, st, parentEl) {
    var tag = localName(el);
    if (SKIP[tag]) return;
    var si = styleInfo(ctx, el);
    var display = si.display;
    var ahAttr = attr(el, 'aria-hidden') === 'true';
    var paintHidden = st.paintHidden || display === 'none' || si.visibility !== 'visible' ||
      isClosedDetailsChild(parentEl, el);
    var ariaHidden = st.ariaHidden || ahAttr;
    // Pruning (tree mode, and locate's full reads): a hidden element is
    // reported (states.hidden, no rect) but what is under it is not walked.
    if (ctx.prune && (st.paintHidden || st.ariaHidden)) return;
    var rect, zero;
    if (display === 'contents') {
      zero = !contentsVisible(ctx, el, 0);
      rect = zero ? null : rangeRect(el);
    } else {
      rect = paintHidden ? null : rawRect(el);
      zero = !rect || rect.w === 0 || rect.h === 0;
    }
    var hidden = paintHidden || ariaHidden || zero;
    var ariaOnly = hidden && !paintHidden && !zero;
    var aDisAttr = attr(el, 'aria-disabled');
    var ariaDis = aDisAttr === 'true' ? true : aDisAttr === 'false' ? false : st.ariaDis;
    var editingHost = isEditingHost(el, tag);
    var role = roleOf(el, tag);
    var name = '';
    if (role === 'iframe') name = norm(attr(el, 'title') || '', true);
    else name = accName(ctx, el, tag, role);
    var hasTid = hasAttr(el, ctx.tid);
    var include = hasTid || (role && role !== 'presentation' && role !== 'none') || !!name;
    var hasText = !!directText(el);
    if (hasText) include = true;
    var boxRole = false;
    if (!hidden && !role && !name && !hasText && display !== 'contents' && paintedBox(el, si, rect)) { include = true; boxRole = true; }
    if (ctx.prune && zero && !paintHidden && !ariaHidden) include = false; // zero-size: not listed, children still walked
    var node = null;
    if (include) {
      if (!budgetOK(ctx)) return;
      ctx.count++;
      node = { ref: { id: stamp(el, ctx), revision: '' } };
      fillNode(ctx, node, el, tag, boxRole ? 'box' : role, name, st, hidden, ariaOnly, rect, editingHost, ariaDis);
      addChild(out, node);
    }
    var target = node || out;
    var cst = {
      paintHidden: paintHidden, ariaHidden: ariaHidden, ariaDis: ariaDis, offX: st.offX, offY: st.offY,
      clip: st.clip, path: st.path, depth: st.depth, inSelect: false
    };
    if (OPAQUE[tag] || editingHost) return;
    if (tag === 'select' && isSelect(el)) { visitOptions(ctx, el, target, cst, hidden); return; }
    if (tag === 'iframe') { if (node || ctx.full || !hidden) enterFrame(ctx, el, target, cst, rect, hidden); return; }
    visitChildren(ctx, el, target, cst);
  }

  function visitOptions(ctx, sel, target, st, hidden) {
    var opts = toList(call0(se_options, sel), hc_length, hc_item);
    var max = ctx.full ? opts.length : M_min(60, opts.length);
    st.inSelect = true;
    for (var i = 0; i < max; i++) {
      if (!budgetOK(ctx)) return;
      var o = opts[i];
      ctx.count++;
      var node = { ref: { id: stamp(o, ctx), revision: '' } };
      var nm = norm(call0(op_label, o), true);
      var r = rawRect(o);
      fillNode(ctx, node, o, 'option', roleOf(o, 'option') || 'option', nm, st, hidden, false,
        r.w > 0 && r.h > 0 ? r : null, false, st.ariaDis);
      addChild(target, node);
    }
  }

  function enterFrame(ctx, el, target, st, rect, hidden) {
    if (!rect || rect.w === 0 || rect.h === 0) return; // zero-size frame: document not listed
    var doc = frameDoc(el);
    if (!doc) {
      var src = call0(if_src, el) || '';
      var site = onSite(src || 'about:blank') && slice(src, 0, 5) !== 'data:';
      if (site) ctx.truncated = true;
      push(ctx.unread, { id: stampOf(el) || '', src: src, onSite: site, framePath: copyPath(st.path) });
      return;
    }
    var url = call0(d_URL, doc) || '';
    if (slice(url, 0, 5) === 'data:') return;
    if (st.depth + 1 > 4) { ctx.truncated = true; return; }
    var abs = { x: rect.x + st.offX, y: rect.y + st.offY, w: rect.w, h: rect.h };
    var cb = contentBox(el, abs);
    var path = copyPath(st.path);
    push(path, frameSelector(el, ctx.tid));
    var cst = {
      paintHidden: st.paintHidden, ariaHidden: st.ariaHidden, ariaDis: false, offX: cb.x, offY: cb.y,
      clip: intersect(cb, st.clip), path: path, depth: st.depth + 1, inSelect: false
    };
    var de = call0(d_documentElement, doc);
    if (de) visitElement(ctx, de, target, cst, null);
  }

  function newCtx(opts) {
    opts = opts || {};
    var full = opts.mode === 'full';
    var budget = opts.budget > 0 ? opts.budget : (full ? 20000 : 3000);
    return {
      full: full, prune: !full || !!opts.prune, budget: budget, count: 0, truncated: false, stop: false,
      nextId: opts.nextId > 0 ? opts.nextId : 1, tid: opts.testIdAttribute || 'data-testid',
      active: deepActive(document), ariaHidden: [], unread: [], styles: new MapCtor()
    };
  }

  function read(opts) {
    var ctx = newCtx(opts);
    var de = call0(d_documentElement, document);
    var root = { ref: { id: 'root', revision: '' }, role: 'document' };
    var title = norm(call0(d_title, document) || '', false);
    if (title) root.name = ctx.full ? title : cut(title, 256);
    ctx.count = 1;
    if (de) {
      var st = { paintHidden: false, ariaHidden: false, ariaDis: false, offX: 0, offY: 0, clip: null, path: [], depth: 0, inSelect: false };
      var ah = attr(de, 'aria-hidden') === 'true';
      st.ariaHidden = ah;
      if (!ah || !ctx.prune) visitChildren(ctx, de, root, st);
    }
    var res = { root: root, count: ctx.count, truncated: ctx.truncated, nextId: ctx.nextId };
    if (ctx.ariaHidden.length) res.ariaHidden = ctx.ariaHidden;
    if (ctx.unread.length) res.unread = ctx.unread;
    return res;
  }

  // contextOf computes, for a single element, what the walk inherits.
  function contextOf(ctx, el) {
    var fc = frameChain(el, ctx.tid);
    var st = { paintHidden: false, ariaHidden: false, ariaDis: false, offX: 0, offY: 0, clip: null, path: [], depth: 0, inSelect: false };
    if (fc) { st.offX = fc.offX; st.offY = fc.offY; st.clip = fc.clip; st.path = fc.path; st.depth = fc.depth; }
    var prev = el;
    for (var p = composedParent(el); p; prev = p, p = composedParent(p)) {
      var si = styleInfo(ctx, p);
      if (si.display === 'none' || isClosedDetailsChild(p, prev)) st.paintHidden = true;
      if (attr(p, 'aria-hidden') === 'true') st.ariaHidden = true;
      if (localName(p) === 'select') st.inSelect = true;
    }
    if (fc) {
      for (var i = 0; i < fc.frames.length; i++) {
        var f = fc.frames[i];
        for (var q = f; q; q = composedParent(q)) {
          var s2 = styleInfo(ctx, q);
          if (s2.display === 'none') st.paintHidden = true;
          if (attr(q, 'aria-hidden') === 'true') st.ariaHidden = true;
        }
      }
    }
    var pa = composedParent(el);
    st.ariaDis = pa ? ariaDisabledChain(pa) : false;
    return st;
  }

  // readOne reads one element in full mode (no children).
  function readOne(ctx, el) {
    var tag = localName(el), st = contextOf(ctx, el), si = styleInfo(ctx, el);
    var parent = composedParent(el);
    var paintHidden = st.paintHidden || si.display === 'none' || si.visibility !== 'visible' ||
      (parent ? isClosedDetailsChild(parent, el) : false);
    var ariaHidden = st.ariaHidden || attr(el, 'aria-hidden') === 'true';
    var rect, zero;
    if (si.display === 'contents') { zero = !contentsVisible(ctx, el, 0); rect = zero ? null : rangeRect(el); }
    else { rect = paintHidden ? null : rawRect(el); zero = !rect || rect.w === 0 || rect.h === 0; }
    if (tag === 'option' && st.inSelect) { zero = false; }
    var hidden = paintHidden || ariaHidden || zero;
    var aDisAttr = attr(el, 'aria-disabled');
    var ariaDis = aDisAttr === 'true' ? true : aDisAttr === 'false' ? false : st.ariaDis;
    var editingHost = isEditingHost(el, tag);
    var role = roleOf(el, tag);
    var name = role === 'iframe' ? norm(attr(el, 'title') || '', true) : tag === 'option' ? norm(call0(op_label, el), true) : accName(ctx, el, tag, role);
    var box = !role && !hidden && si.display !== 'contents' && rect && paintedBox(el, si, rect);
    var node = { ref: { id: stamp(el, ctx), revision: '' } };
    fillNode(ctx, node, el, tag, box ? 'box' : role, name, st, hidden, hidden && !paintHidden && !zero, rect, editingHost, ariaDis);
    return node;
  }

  function readNodes(ids, opts) {
    var ctx = newCtx({ mode: 'full', nextId: opts && opts.nextId, testIdAttribute: opts && opts.testIdAttribute });
    var nodes = [];
    for (var i = 0; i < ids.length; i++) {
      var el = lookup(ids[i]);
      push(nodes, el && call0(n_isConnected, el) ? readOne(ctx, el) : null);
    }
    return { nodes: nodes, ariaHidden: ctx.ariaHidden, nextId: ctx.nextId };
  }

  // ---- query ----------------------------------------------------------------
  function forEachElement(root, fn) {
    // composed pre-order over a document or shadow root: light children, then
    // the shadow root (same order as the walk).
    var stack = [];
    for (var c = lastChild(root); c; c = prevSibling(c)) push(stack, c);
    while (stack.length) {
      var n = stack[stack.length - 1];
      stack.length--;
      if (nodeType(n) !== 1) continue;
      if (fn(n) === false) return;
      var sr = shadowOf(n);
      if (sr) for (var s = lastChild(sr); s; s = prevSibling(s)) push(stack, s);
      for (var k = lastChild(n); k; k = prevSibling(k)) push(stack, k);
    }
  }
  var n_lastChild = getter(NodeP, 'lastChild'), n_previousSibling = getter(NodeP, 'previousSibling');
  function lastChild(n) { return call0(n_lastChild, n); }
  function prevSibling(n) { return call0(n_previousSibling, n); }

  function parseSelector(selector) {
    var s = trim(selector);
    if (slice(s, 0, 4) === 'css=') return { kind: 'css', expr: slice(s, 4) };
    if (slice(s, 0, 6) === 'xpath=') return { kind: 'xpath', expr: slice(s, 6) };
    if (slice(s, 0, 1) === '/' || slice(s, 0, 1) === '(' || slice(s, 0, 2) === './' || slice(s, 0, 2) === '..') return { kind: 'xpath', expr: s };
    return { kind: 'css', expr: s };
  }

  function scopeDocs(scopeIds) {
    if (scopeIds === null || scopeIds === undefined) return [document];
    var docs = [];
    for (var i = 0; i < scopeIds.length; i++) {
      var el = need(scopeIds[i]);
      var d = localName(el) === 'iframe' ? frameDoc(el) : null;
      if (!d) throw new ErrorCtor('frame ' + scopeIds[i] + ' has no readable document');
      push(docs, d);
    }
    return docs;
  }

  function matchElements(selector, scopeIds) {
    var p = parseSelector(selector), docs = scopeDocs(scopeIds), out = [];
    for (var i = 0; i < docs.length; i++) {
      var doc = docs[i];
      if (p.kind === 'xpath') {
        var res;
        try { res = apply(d_evaluate, doc, [p.expr, doc, null, 7, null]); } catch (e) {
          throw new ErrorCtor('invalid selector ' + JSON_quote(selector) + ': ' + (e && e.message));
        }
        var n = res.snapshotLength;
        for (var k = 0; k < n; k++) { var it = res.snapshotItem(k); if (it && nodeType(it) === 1) push(out, it); }
      } else {
        try { call1(d_querySelectorAll, doc, p.expr); } catch (e2) {
          throw new ErrorCtor('invalid selector ' + JSON_quote(selector) + ': ' + (e2 && e2.message));
        }
        forEachElement(doc, function (el) { if (call1(e_matches, el, p.expr)) push(out, el); });
      }
    }
    return out;
  }
  function JSON_quote(s) { return '"' + s + '"'; }

  function query(selector, scopeIds) {
    var els = matchElements(selector, scopeIds), ids = [];
    for (var i = 0; i < els.length; i++) { var id = stampOf(els[i]); if (id) push(ids, id); }
    return ids;
  }

  function queryStamp(selector, scopeIds, nextId) {
    var ctx = { nextId: nextId > 0 ? nextId : 1 };
    var els = matchElements(selector, scopeIds), ids = [];
    for (var i = 0; i < els.length; i++) push(ids, stamp(els[i], ctx));
    return { ids: ids, nextId: ctx.nextId };
  }

  // ---- actionability ------------------------------------------------------
  function describe(el) {
    if (!el) return 'nothing';
    var tag = localName(el), s = '<' + tag;
    var id = attr(el, 'id');
    if (id) s += ' id=' + cssString(cut(id, 60));
    var cls = attr(el, 'class');
    if (cls && norm(cls)) s += ' class=' + cssString(cut(norm(cls), 80));
    var tid = attr(el, 'data-testid');
    if (tid) s += ' data-testid=' + cssString(cut(tid, 60));
    var role = attr(el, 'role');
    if (role) s += ' role=' + cssString(cut(role, 40));
    return s + '>';
  }

  function topRect(ctx, el) {
    var si = styleInfo(null, el);
    var r = si.display === 'contents' ? rangeRect(el) : rawRect(el);
    var fc = frameChain(el, ctx.tid);
    if (!fc) return null;
    var rr = { x: r.x + fc.offX, y: r.y + fc.offY, w: r.w, h: r.h };
    return { rect: rr, clip: fc.clip, frames: fc.frames };
  }

  function isVisible(ctx, el) {
    var si = styleInfo(null, el);
    if (si.display === 'contents') return contentsVisible(null, el, 0);
    if (e_checkVisibility) {
      if (!apply(e_checkVisibility, el, [{ visibilityProperty: true, contentVisibilityAuto: true }])) return false;
    } else if (si.display === 'none' || si.visibility !== 'visible') return false;
    var r = rawRect(el);
    if (!(r.w > 0 && r.h > 0)) return false;
    var fc = frameChain(el, ctx.tid);
    if (!fc) return false;
    for (var i = 0; i < fc.frames.length; i++) if (!isVisible(ctx, fc.frames[i])) return false;
    return true;
  }

  function editableOf(el, tag, enabled) {
    if (!enabled) return false;
    if (tag === 'input' && isInput(el)) {
      var ty = inputType(el);
      if (ty === 'checkbox' || ty === 'radio' || ty === 'button' || ty === 'submit' || ty === 'reset' ||
        ty === 'image' || ty === 'file' || ty === 'hidden') return false;
      return !hasAttr(el, 'readonly') && attr(el, 'aria-readonly') !== 'true';
    }
    if (tag === 'textarea') return !hasAttr(el, 'readonly') && attr(el, 'aria-readonly') !== 'true';
    if (tag === 'select') return false;
    try { if (call0(h_isContentEditable, el)) return attr(el, 'aria-readonly') !== 'true'; } catch (e) { /* not HTML */ }
    var role = roleOf(el, tag);
    if (role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'spinbutton') return attr(el, 'aria-readonly') !== 'true';
    return false;
  }

  function checkableOf(el, tag) {
    if (tag === 'input' && isInput(el)) {
      var ty = inputType(el);
      if (ty === 'checkbox' || ty === 'radio') return { kind: ty, checked: !!call0(in_checked, el) };
    }
    var role = roleOf(el, tag);
    if (CHECK_ROLES[role] && attr(el, 'aria-checked') !== null) return { kind: 'aria', checked: attr(el, 'aria-checked') === 'true' };
    return { kind: 'none', checked: false };
  }

  function composedContains(el, t) {
    for (var n = t; n; ) {
      if (n === el) return true;
      var p = parentNode(n);
      if (p && nodeType(p) === 11) { try { p = call0(sr_host, p); } catch (e) { p = null; } }
      n = p;
    }
    return false;
  }

  // deepHit returns the topmost element at a top-viewport point, through
  // shadow roots and same-origin frames.
  function deepHit(doc, x, y, depth) {
    var top = apply(d_elementFromPoint, doc, [x, y]);
    for (var guard = 0; top && guard < 32; guard++) {
      var sr = shadowOf(top);
      if (sr) {
        var inner = apply(sr_elementFromPoint, sr, [x, y]);
        if (inner && inner !== top && composedContains(top, inner)) { top = inner; continue; }
      }
      break;
    }
    if (top && localName(top) === 'iframe' && depth < 5) {
      var cd = frameDoc(top);
      if (cd) {
        var cb = contentBox(top, rawRect(top));
        var inner2 = deepHit(cd, x - cb.x, y - cb.y, depth + 1);
        if (inner2) return inner2;
      }
    }
    return top;
  }

  function rafTwice(win, timeoutMs) {
    return new PromiseCtor(function (resolve) {
      var done = false;
      function fin() { if (!done) { done = true; resolve(); } }
      var raf = (win && win.requestAnimationFrame) ? function (f) { try { win.requestAnimationFrame(f); } catch (e) { fin(); } } : null;
      if (rafFn && win === G) raf = function (f) { apply(rafFn, G, [f]); };
      if (raf) raf(function () { raf(fin); });
      apply(setTimeoutFn, G, [fin, timeoutMs]);
    });
  }

  function probeNow(ctx, el, opts) {
    var tag = localName(el);
    var attached = call0(n_isConnected, el);
    var res = { attached: attached };
    if (!attached) {
      res.visible = false; res.enabled = false; res.editable = false; res.checkable = { kind: 'none', checked: false };
      res.inViewport = false; res.hit = { ok: false, blocker: 'element is not attached' };
      return res;
    }
    var visible = isVisible(ctx, el);
    var enabled = !effectiveDisabled(el, tag, ariaDisabledChain(el));
    res.visible = visible;
    res.enabled = enabled;
    res.editable = editableOf(el, tag, enabled);
    res.checkable = checkableOf(el, tag);
    var tr = topRect(ctx, el);
    if (!tr) { res.inViewport = false; res.hit = { ok: false, blocker: 'element is in an unreadable frame' }; return res; }
    var r = tr.rect;
    res.rect = { x: round2(r.x), y: round2(r.y), width: round2(r.w), height: round2(r.h) };
    var vw = G.innerWidth, vh = G.innerHeight;
    var vis = intersect(intersect(r, tr.clip), { x: 0, y: 0, w: vw, h: vh });
    var inView = vis.w > 0 && vis.h > 0;
    res.inViewport = inView;
    var px, py;
    if (opts && opts.point && typeof opts.point.x === 'number') { px = r.x + opts.point.x; py = r.y + opts.point.y; }
    else if (inView) { px = vis.x + vis.w / 2; py = vis.y + vis.h / 2; }
    else { px = r.x + r.w / 2; py = r.y + r.h / 2; }
    res.point = { x: round2(px), y: round2(py) };
    if (!visible) res.hit = { ok: false, blocker: 'element is not visible' };
    else if (px < 0 || py < 0 || px >= vw || py >= vh) res.hit = { ok: false, blocker: 'element is outside of the viewport' };
    else {
      var hit = deepHit(document, px, py, 0);
      if (hit && composedContains(el, hit)) res.hit = { ok: true };
      else res.hit = { ok: false, blocker: describe(hit) + ' intercepts pointer events' };
    }
    return res;
  }

  function probe(id, opts) {
    var el = lookup(id);
    if (!el) return apply(P_resolve, PromiseCtor, [{ attached: false, visible: false, enabled: false, editable: false,
      checkable: { kind: 'none', checked: false }, stable: false, inViewport: false,
      hit: { ok: false, blocker: 'element is not attached' } }]);
    var ctx = { tid: (opts && opts.testIdAttribute) || 'data-testid' };
    var before = call0(n_isConnected, el) ? topRect(ctx, el) : null;
    return apply(P_then, rafTwice(ownerWin(el), 250), [function () {
      var res = probeNow(ctx, el, opts);
      var after = res.attached ? topRect(ctx, el) : null;
      res.stable = !!(before && after && before.rect.x === after.rect.x && before.rect.y === after.rect.y &&
        before.rect.w === after.rect.w && before.rect.h === after.rect.h);
      return res;
    }]);
  }

  function fullyInView(el) {
    var r = rawRect(el), w = ownerWin(el);
    return r.x >= 0 && r.y >= 0 && r.x + r.w <= w.innerWidth && r.y + r.h <= w.innerHeight;
  }

  function scrollIntoView(id) {
    var el = need(id), scrolled = false;
    var chain = [el], fc = frameChain(el, 'data-testid');
    if (fc) for (var i = 0; i < fc.frames.length; i++) push(chain, fc.frames[i]);
    for (var j = 0; j < chain.length; j++) {
      if (!fullyInView(chain[j])) {
        call1(e_scrollIntoView, chain[j], { block: 'center', inline: 'center', behavior: 'instant' });
        scrolled = true;
      }
    }
    var tr = topRect({ tid: 'data-testid' }, el);
    var out = { scrolled: scrolled };
    if (tr) out.rect = { x: round2(tr.rect.x), y: round2(tr.rect.y), width: round2(tr.rect.w), height: round2(tr.rect.h) };
    return out;
  }

  function focus(id) {
    var el = need(id);
    if (h_focus && isHTML(el)) call0(h_focus, el); else el.focus();
    return deepActive(document) === el;
  }

  function selectText(id) {
    var el = need(id), tag = localName(el);
    if (h_focus && isHTML(el)) call0(h_focus, el); else el.focus();
    if (tag === 'input' && isInput(el)) { call0(in_select, el); return true; }
    if (tag === 'textarea' && isTextArea(el)) { call0(ta_select, el); return true; }
    var ce = false;
    try { ce = call0(h_isContentEditable, el); } catch (e) { ce = false; }
    if (!ce) throw new ErrorCtor('element is not an <input>, <textarea> or [contenteditable] element');
    var doc = ownerDoc(el), sel = call0(d_getSelection, doc), rg = call0(d_createRange, doc);
    call1(rng_selectNodeContents, rg, el);
    call0(sel_removeAllRanges, sel);
    call1(sel_addRange, sel, rg);
    return true;
  }

  function fire(el, type) {
    var w = ownerWin(el);
    var E = (w && w.Event) || EventCtor;
    call1(et_dispatch, el, new E(type, { bubbles: true, composed: type === 'input' }));
  }

  function setValue(id, value) {
    var el = need(id);
    if (!(localName(el) === 'input' && isInput(el))) throw new ErrorCtor('element is not an <input> element');
    var ty = inputType(el);
    if (!SET_DIRECT[ty]) throw new ErrorCtor('input of type "' + ty + '" cannot be set directly');
    if (h_focus) call0(h_focus, el);
    call1(in_setValue, el, value);
    if (value !== '' && call0(in_value, el) !== value) throw new ErrorCtor('malformed value "' + value + '" for input type ' + ty);
    fire(el, 'input');
    fire(el, 'change');
    return call0(in_value, el);
  }

  function selectOption(id, spec) {
    var el = need(id);
    if (!(localName(el) === 'select' && isSelect(el))) throw new ErrorCtor('element is not a <select> element');
    spec = spec || {};
    var opts = toList(call0(se_options, el), hc_length, hc_item), chosen = null, what;
    if (typeof spec.index === 'number') {
      what = 'index ' + spec.index;
      chosen = opts[spec.index] || null;
    } else if (typeof spec.value === 'string') {
      what = 'value "' + spec.value + '"';
      for (var i = 0; i < opts.length && !chosen; i++) if (call0(op_value, opts[i]) === spec.value) chosen = opts[i];
    } else if (typeof spec.label === 'string') {
      what = 'label "' + spec.label + '"';
      var want = norm(spec.label, false);
      for (var j = 0; j < opts.length && !chosen; j++) if (norm(call0(op_label, opts[j]), false) === want) chosen = opts[j];
    } else throw new ErrorCtor('selectOption needs a label, value or index');
    if (!chosen) throw new ErrorCtor('no option matches ' + what);
    if (call0(op_disabled, chosen)) throw new ErrorCtor('option matching ' + what + ' is disabled');
    for (var k = 0; k < opts.length; k++) call1(op_setSelected, opts[k], opts[k] === chosen);
    fire(el, 'input');
    fire(el, 'change');
    return call0(op_value, chosen);
  }

  function focusedEditable() {
    var a = deepActive(document);
    if (!a) return false;
    var tag = localName(a);
    if (tag === 'body' || tag === 'html' || tag === 'iframe') return false;
    if (tag === 'button' || tag === 'a' || tag === 'select' || tag === 'option' || tag === 'summary') return false;
    if (tag === 'input') {
      var ty = lower(attr(a, 'type') || 'text');
      if (!TEXTLIKE[ty]) return false;
      return !hasAttr(a, 'readonly') && !effectiveDisabled(a, tag, false);
    }
    if (tag === 'textarea') return !hasAttr(a, 'readonly') && !effectiveDisabled(a, tag, false);
    try { if (call0(h_isContentEditable, a)) return true; } catch (e) { /* ignore */ }
    var role = attr(a, 'role') ? firstToken(attr(a, 'role')) : '';
    if (role === 'button' || role === 'link') return false;
    return true;
  }

  function allDocs(doc, depth, out) {
    push(out, doc);
    if (depth >= 8) return;
    forEachElement(doc, function (el) {
      if (localName(el) === 'iframe') { var d = frameDoc(el); if (d) allDocs(d, depth + 1, out); }
    });
  }

  function secureRects() {
    var docs = [];
    allDocs(document, 0, docs);
    var ctx = { tid: 'data-testid' }, rects = [], count = 0;
    for (var i = 0; i < docs.length; i++) {
      forEachElement(docs[i], function (el) {
        if (!isSecure(el)) return;
        count++;
        if (!isVisible(ctx, el)) return;
        var tr = topRect(ctx, el);
        if (!tr) return;
        var r = tr.clip ? intersect(tr.rect, tr.clip) : tr.rect;
        if (r.w > 0 && r.h > 0) push(rects, { x: round2(r.x), y: round2(r.y), width: round2(r.w), height: round2(r.h) });
      });
    }
    return { rects: rects, count: count };
  }

  function hitInfo(x, y) {
    var el = deepHit(document, x, y, 0);
    if (!el) return { description: 'nothing' };
    var out = { description: describe(el) };
    var id = stampOf(el);
    if (id) out.id = id;
    return out;
  }

  function labels(id) {
    var el = need(id);
    return labelList({ styles: new MapCtor() }, el);
  }

  function element(id) { return lookup(id); }

  // json serialises a result with the JSON.stringify captured at install,
  // so that the engine can take a large answer back as one string (cheaper
  // than a by-value transfer) whatever the page did to JSON since.
  var J_stringify = JSON.stringify, JSONObj = JSON;
  function json(v) { return apply(J_stringify, JSONObj, [v]); }

  // ---- install --------------------------------------------------------------
  var api = {};
  function def(name, fn) { defProp(api, name, { value: fn, enumerable: true }); }
  def('version', 1);
  def('read', read);
  def('readNodes', readNodes);
  def('element', element);
  def('isLive', live);
  def('query', query);
  def('queryStamp', queryStamp);
  def('probe', probe);
  def('scrollIntoView', scrollIntoView);
  def('focus', focus);
  def('selectText', selectText);
  def('setValue', setValue);
  def('selectOption', selectOption);
  def('focusedEditable', focusedEditable);
  def('secureRects', secureRects);
  def('hitInfo', hitInfo);
  def('labels', labels);
  def('json', json);
  defProp(api, CLOSED_KEY, {
    value: function (host) { return apply(WM_get, closedRoots, [host]) || null; }
  });
  O_freeze(api);
  defProp(G, '__e2eConform', { value: api, enumerable: false, configurable: false, writable: false });
})
