// Package inpage holds the reference web engine's in-page reader: one
// clean-room JavaScript file (reader.js) that installs a non-enumerable
// global window.__e2eConform in a document, plus the Go bindings the engine
// uses to call it with Runtime.evaluate.
//
// The reader implements section 2.3 of the web-engine spec (what becomes a
// node, roles, accessible names, states, values, rects, attribute and href
// projection, secure fields, frames and shadow roots) and the page-side
// halves of actionability (probe), focus, text selection, direct value
// setting, select options, the focused-editable check and secure-field rects.
// Where the spec's decisions 8–10 overrule section 2.3, they win: options
// carry no value, text under aria-hidden is not text, tables follow HTML-AAM
// and svg titles SVG-AAM as Playwright computes them (the package doc of
// the engine, package webengine, spells each out).
//
// A read walks under one node budget, NodeBudget, for observe and locate
// alike. A read with a Plan (engine/locate) is sparse: it walks and counts
// exactly as a tree read, but builds only the nodes the plan may match, with
// their subtrees, and computes a name only for them (and, as any read, for
// elements without a role, whose name decides whether they are nodes).
//
// Every method returns plain JSON-serialisable values; evaluate with
// ReturnByValue (and AwaitPromise for probe), except element, which returns
// the Element itself for a RemoteObject.
package inpage

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

//go:embed reader.js
var readerJS string // never written: the embedded reader

// Source is reader.js: one JavaScript function expression
// `function install(hookShadow) {…}`. Calling it installs
// window.__e2eConform when missing; hookShadow also wraps
// Element.prototype.attachShadow to record closed shadow roots.
func Source() string { return readerJS }

// InitScript is the script for Page.addScriptToEvaluateOnNewDocument: it
// installs the reader and, before page scripts run, wraps
// Element.prototype.attachShadow so closed shadow roots are recorded
// (WeakMap host→root kept privately by the reader). It runs in every frame.
func InitScript() string {
	return "(" + strings.TrimSpace(readerJS) + ")(true);\n"
}

// Method names of window.__e2eConform.
const (
	MethodRead            = "read"
	MethodReadNodes       = "readNodes"
	MethodElement         = "element"
	MethodIsLive          = "isLive"
	MethodQuery           = "query"
	MethodQueryStamp      = "queryStamp"
	MethodProbe           = "probe"
	MethodScrollIntoView  = "scrollIntoView"
	MethodFocus           = "focus"
	MethodSelectText      = "selectText"
	MethodSetValue        = "setValue"
	MethodSelectOption    = "selectOption"
	MethodFocusedEditable = "focusedEditable"
	MethodSecureRects     = "secureRects"
	MethodHitInfo         = "hitInfo"
	MethodLabels          = "labels"
	MethodJSON            = "json"
)

// Expr returns one JS expression that installs the reader when missing (so
// it also works in a document loaded before the init script was added) and
// then calls window.__e2eConform[method](args...) with args JSON-encoded.
// The expression's value is the method's result (a Promise for probe: set
// AwaitPromise). A late install cannot see closed shadow roots created
// before it.
func Expr(method string, args ...any) (string, error) {
	if !validMethod(method) {
		return "", fmt.Errorf("inpage: invalid method name %q", method)
	}
	var b strings.Builder
	b.Grow(len(readerJS) + 128)
	b.WriteString("(()=>{if(!Object.getOwnPropertyDescriptor(globalThis,'__e2eConform')){(")
	b.WriteString(strings.TrimSpace(readerJS))
	b.WriteString(")(false);}return globalThis.__e2eConform.")
	b.WriteString(method)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		data, err := json.Marshal(a)
		if err != nil {
			return "", fmt.Errorf("inpage: argument %d of %s: %w", i, method, err)
		}
		b.Write(data)
	}
	b.WriteString(");})()")
	return b.String(), nil
}

func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for i, r := range m {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_', r == '$':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Read modes.
const (
	// ModeTree is the read of observe and of locate (which resolve over the
	// same nodes and fields, web-engine spec decision 8): hidden subtrees
	// pruned, direct text, cuts at 256/512 UTF-16 units, projected
	// attributes.
	ModeTree = "tree"
	// ModeFull is the detailed read (readNodes, tests): hidden elements
	// included (states.hidden), full text (innerText), no cuts, all
	// attributes. The engine's locate does not use it.
	ModeFull = "full"
)

// Cut limits of tree mode, in UTF-16 code units.
const (
	NameLimit = 256
	TextLimit = 512
)

// DefaultTestIDAttribute is the test-id attribute when none is configured.
const DefaultTestIDAttribute = "data-testid"

// ReadArgs are the arguments of read.
type ReadArgs struct {
	// Mode is ModeTree or ModeFull.
	Mode string `json:"mode"`
	// Budget is the maximum number of nodes, counting the root.
	Budget int `json:"budget"`
	// NextID is the next free n<k> integer.
	NextID int64 `json:"nextId"`
	// TestIDAttribute defaults to DefaultTestIDAttribute.
	TestIDAttribute string `json:"testIdAttribute,omitempty"`
	// Prune, in full mode, leaves out what tree mode leaves out (hidden
	// subtrees, zero-size elements), so that a full read holds exactly the
	// nodes an observation can hold. Tree mode always prunes.
	Prune bool `json:"prune,omitempty"`
	// Plan, when set, makes the read sparse (engine/locate): the walk, its
	// budget and every node's fields are the read's, but only the nodes the
	// plan may match are emitted, with everything under them.
	Plan *Plan `json:"plan,omitempty"`
}

// Plan is what a sparse read keeps: every node that may match one of its
// queries, has-text patterns or selectors (a superset of the matches; the
// engine resolves the expression over the sparse tree with protocol/locate,
// which answers there what it answers over the whole read, since a node left
// out matches nothing of the expression).
type Plan struct {
	Queries   []PlanQuery    `json:"queries,omitempty"`
	HasText   []*PlanPattern `json:"hasText,omitempty"`
	Selectors []string       `json:"selectors,omitempty"`
}

// PlanQuery is one query of a plan: its kind and what the page can test
// cheaply (the role, the name or value pattern).
type PlanQuery struct {
	Kind  string       `json:"kind"`
	Role  string       `json:"role,omitempty"`
	Value *PlanPattern `json:"value,omitempty"`
	Name  *PlanPattern `json:"name,omitempty"`
}

// PlanPattern is a text pattern as the page prefilters it: a string
// pattern (compared as §10.3 says, keeping what it cannot decide), or a
// regular expression (Re: every subject is kept).
type PlanPattern struct {
	Re    bool   `json:"re,omitempty"`
	Value string `json:"value,omitempty"`
	Exact bool   `json:"exact,omitempty"`
}

// UnreadFrame is an iframe whose document the reader could not enter
// (cross-origin or otherwise inaccessible).
type UnreadFrame struct {
	// ID is the iframe node's id ("" when the iframe is not a node).
	ID string `json:"id"`
	// Src is the iframe's src URL.
	Src string `json:"src"`
	// OnSite reports the reader's approximation of "same site" (same host
	// or same last two host labels); an on-site unread frame sets truncated.
	OnSite bool `json:"onSite"`
	// FramePath is the frame path of the document holding the iframe.
	FramePath []string `json:"framePath,omitempty"`
}

// ReadResult is the result of read.
type ReadResult struct {
	// Root is the <html> node (id "root", role document, name = title).
	Root wire.SemanticNode `json:"root"`
	// Count is the number of nodes, counting the root.
	Count int `json:"count"`
	// Truncated is set when the budget ran out, a frame was deeper than 4,
	// or an on-site frame was unreadable.
	Truncated bool `json:"truncated"`
	// NextID is the updated next free n<k> integer.
	NextID int64 `json:"nextId"`
	// AriaHidden lists ids (full mode) whose only hiding reason is
	// aria-hidden: they are painted, so they count as visible for the
	// locator's visible filter.
	AriaHidden []string `json:"ariaHidden,omitempty"`
	// Unread lists iframes whose document was not entered.
	Unread []UnreadFrame `json:"unread,omitempty"`
	// Selectors (sparse reads) maps each selector of the plan to the ids
	// of the stamped elements it matches in the top document.
	Selectors map[string][]string `json:"selectors,omitempty"`
	// Error (sparse reads) is set, and nothing else, when a selector of
	// the plan does not parse.
	Error string `json:"error,omitempty"`
}

// ReadNodesArgs are the options of readNodes(ids, opts).
type ReadNodesArgs struct {
	NextID          int64  `json:"nextId,omitempty"`
	TestIDAttribute string `json:"testIdAttribute,omitempty"`
}

// ReadNodesResult is the result of readNodes: one full-mode node (no
// children) per id, nil where the id is stale.
type ReadNodesResult struct {
	Nodes      []*wire.SemanticNode `json:"nodes"`
	AriaHidden []string             `json:"ariaHidden,omitempty"`
	NextID     int64                `json:"nextId"`
}

// QueryStampResult is the result of queryStamp(selector, scopeIds, nextId):
// every match, stamped with an id when it had none.
type QueryStampResult struct {
	IDs    []string `json:"ids"`
	NextID int64    `json:"nextId"`
}

// ProbeArgs are the options of probe.
type ProbeArgs struct {
	// Point, when set, is an offset from the element's top-left corner to
	// hit-test instead of the centre of its visible rect.
	Point *wire.ViewportPoint `json:"point,omitempty"`
	// TestIDAttribute names the test-id attribute used in frame paths.
	TestIDAttribute string `json:"testIdAttribute,omitempty"`
}

// Checkable kinds.
const (
	CheckableCheckbox = "checkbox"
	CheckableRadio    = "radio"
	CheckableARIA     = "aria"
	CheckableNone     = "none"
)

// Checkable says whether and how an element can be checked.
type Checkable struct {
	Kind    string `json:"kind"`
	Checked bool   `json:"checked"`
}

// Hit is the result of hit-testing the probe point.
type Hit struct {
	OK bool `json:"ok"`
	// Blocker names why not: "element is not visible", "element is outside
	// of the viewport", or "<div class=\"overlay\"> intercepts pointer events".
	Blocker string `json:"blocker,omitempty"`
}

// Probe is the result of probe: the actionability facts of one element,
// read in one round trip (stable spans two animation frames).
type Probe struct {
	Attached   bool                `json:"attached"`
	Visible    bool                `json:"visible"`
	Enabled    bool                `json:"enabled"`
	Editable   bool                `json:"editable"`
	Checkable  Checkable           `json:"checkable"`
	Rect       *wire.Rect          `json:"rect,omitempty"`
	Stable     bool                `json:"stable"`
	InViewport bool                `json:"inViewport"`
	Point      *wire.ViewportPoint `json:"point,omitempty"`
	Hit        Hit                 `json:"hit"`
}

// ScrollResult is the result of scrollIntoView.
type ScrollResult struct {
	Scrolled bool       `json:"scrolled"`
	Rect     *wire.Rect `json:"rect,omitempty"`
}

// SelectOptionArgs picks one option: exactly one of Label, Value, Index.
type SelectOptionArgs struct {
	Label *string `json:"label,omitempty"`
	Value *string `json:"value,omitempty"`
	Index *int    `json:"index,omitempty"`
}

// SecureRects is the result of secureRects: rects of visible secure fields
// in top-viewport CSS px, and the count of all of them (hidden included).
type SecureRects struct {
	Rects []wire.Rect `json:"rects"`
	Count int         `json:"count"`
}

// HitInfo describes the topmost element at a point.
type HitInfo struct {
	Description string `json:"description"`
	// ID is the element's stamped id, when it has one.
	ID string `json:"id,omitempty"`
}
