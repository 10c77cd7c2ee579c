package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
)

// Capture returns the state of the browser context bc: all its cookies,
// and the localStorage of each of origins (the origins the attempt
// visited; non-http(s) entries such as about:blank are skipped), and its
// IndexedDB databases (see IndexedDB). Origins with nothing stored are
// left out. When IndexedDB records are left out, slog.Default() gets a
// warning with the origin and the count (never a key or a value). pageCtx is any chromedp context of the
// browser; ctx bounds the operation.
//
// Chromium's DOMStorage domain only answers for an origin that a frame of
// the target has loaded ("Frame not found for the given storage id" on
// Chromium 156 otherwise), so Capture reads localStorage in a temporary
// tab of bc that loads each origin's "/" with every request answered by
// an empty document (Fetch interception): no request reaches the app and
// no app script runs.
func Capture(ctx context.Context, pageCtx context.Context, bc cdp.BrowserContextID, origins []string) (State, error) {
	if bc == "" {
		return State{}, errors.New("storage: capture needs a browser context id")
	}
	opCtx, cancel := bound(pageCtx, ctx)
	defer cancel()
	res, err := chromedp.CallBrowser(opCtx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: bc})
	if err != nil {
		return State{}, fmt.Errorf("storage: read cookies: %w", err)
	}
	s := State{Cookies: []Cookie{}, Origins: []Origin{}}
	for _, c := range res.Cookies {
		s.Cookies = append(s.Cookies, fromCDP(c))
	}
	list := originList(origins)
	if len(list) == 0 {
		return s, nil
	}
	err = inOriginTab(ctx, pageCtx, bc, list, func(tctx context.Context, origin string) error {
		raw, err := chromedp.Run(tctx, chromedp.Evaluate[[]byte](readScript, chromedp.EvalAwaitPromise))
		if err != nil {
			return fmt.Errorf("storage: read the storage of %s: %w", origin, err)
		}
		var got struct {
			LocalStorage []NameValue       `json:"localStorage"`
			IndexedDB    []json.RawMessage `json:"indexedDB"`
			Skipped      int               `json:"skipped"`
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			return fmt.Errorf("storage: read the storage of %s: unexpected result", origin)
		}
		if got.Skipped > 0 {
			slog.Default().Warn("storage: IndexedDB records that are not plain JSON were left out", "origin", origin, "records", got.Skipped)
		}
		if len(got.LocalStorage) > 0 || len(got.IndexedDB) > 0 {
			if got.LocalStorage == nil {
				got.LocalStorage = []NameValue{}
			}
			if len(got.IndexedDB) == 0 {
				got.IndexedDB = nil
			}
			s.Origins = append(s.Origins, Origin{Origin: origin, LocalStorage: got.LocalStorage, IndexedDB: got.IndexedDB})
		}
		return nil
	})
	if err != nil {
		return State{}, err
	}
	return s, nil
}

// Restore seeds the browser context bc, which must be fresh (the engine
// creates it; Restore never clears or merges), with the cookies, the
// localStorage and the IndexedDB databases of s. It does not navigate any page of the caller: the
// localStorage is written from a temporary tab of bc, as in Capture.
// pageCtx is any chromedp context of the browser; ctx bounds the
// operation. Call Decode first to check a state that came from outside.
func Restore(ctx context.Context, pageCtx context.Context, bc cdp.BrowserContextID, s State) error {
	if bc == "" {
		return errors.New("storage: restore needs a browser context id")
	}
	if err := s.validate(); err != nil {
		return err
	}
	opCtx, cancel := bound(pageCtx, ctx)
	defer cancel()
	if len(s.Cookies) > 0 {
		params := make([]*network.CookieParam, 0, len(s.Cookies))
		for _, c := range s.Cookies {
			params = append(params, toCDP(c))
		}
		if _, err := chromedp.CallBrowser(opCtx, storage.SetCookies, storage.SetCookiesParams{Cookies: params, BrowserContextID: bc}); err != nil {
			return fmt.Errorf("storage: set %d cookies: %w", len(params), err)
		}
	}
	byOrigin := map[string]*Origin{}
	var list []string
	for _, o := range s.Origins {
		if len(o.LocalStorage) == 0 && len(o.IndexedDB) == 0 {
			continue
		}
		origin, _ := normalizeOrigin(o.Origin) // validated above
		m, ok := byOrigin[origin]
		if !ok {
			m = &Origin{Origin: origin, LocalStorage: []NameValue{}, IndexedDB: []json.RawMessage{}}
			byOrigin[origin] = m
			list = append(list, origin)
		}
		m.LocalStorage = append(m.LocalStorage, o.LocalStorage...)
		m.IndexedDB = append(m.IndexedDB, o.IndexedDB...)
	}
	if len(list) == 0 {
		return nil
	}
	return inOriginTab(ctx, pageCtx, bc, list, func(tctx context.Context, origin string) error {
		arg, err := json.Marshal(byOrigin[origin])
		if err != nil {
			return fmt.Errorf("storage: encode the storage of %s", origin)
		}
		n, err := chromedp.Run(tctx, chromedp.Evaluate[int](writeScript+"("+string(arg)+")", chromedp.EvalAwaitPromise))
		if err != nil {
			return fmt.Errorf("storage: write the storage of %s: %w", origin, err)
		}
		if want := len(byOrigin[origin].LocalStorage); n != want {
			return fmt.Errorf("storage: wrote %d of %d localStorage items of %s", n, want, origin)
		}
		return nil
	})
}

// readScript resolves to {localStorage: [{name, value}], indexedDB:
// [database], skipped}. A database is {name, version, stores: [{name,
// autoIncrement, keyPath | keyPathArray, indexes: [{name, keyPath |
// keyPathArray, unique, multiEntry}], records: [{key?, value}]}]}; key is
// there only for a store without a key path. Records whose key or value is
// not plain JSON (Date, Blob, Map, typed arrays, ...) are counted in
// skipped and left out.
const readScript = `(async () => {
	const localStorageItems = [];
	for (let i = 0; i < localStorage.length; i++) {
		const name = localStorage.key(i);
		localStorageItems.push({name, value: localStorage.getItem(name)});
	}
	const plain = (v) => {
		if (v === null) return true;
		switch (typeof v) {
		case 'string': case 'boolean': return true;
		case 'number': return Number.isFinite(v);
		case 'object':
			if (Array.isArray(v)) return v.every(plain);
			if (Object.getPrototypeOf(v) !== Object.prototype) return false;
			return Object.values(v).every(plain);
		}
		return false;
	};
	const done = (req) => new Promise((resolve, reject) => {
		req.onsuccess = () => resolve(req.result);
		req.onerror = () => reject(req.error);
	});
	const keyPathOf = (target, kp) => {
		if (typeof kp === 'string') target.keyPath = kp;
		else if (Array.isArray(kp)) target.keyPathArray = Array.from(kp);
	};
	const databases = [];
	let skipped = 0;
	const infos = indexedDB.databases ? await indexedDB.databases() : [];
	for (const info of infos) {
		if (!info.name) continue;
		const db = await done(indexedDB.open(info.name));
		try {
			const stores = [];
			for (const storeName of Array.from(db.objectStoreNames)) {
				const store = db.transaction(storeName, 'readonly').objectStore(storeName);
				const out = {name: storeName, autoIncrement: store.autoIncrement, indexes: [], records: []};
				keyPathOf(out, store.keyPath);
				for (const indexName of Array.from(store.indexNames)) {
					const index = store.index(indexName);
					const ix = {name: indexName, unique: index.unique, multiEntry: index.multiEntry};
					keyPathOf(ix, index.keyPath);
					out.indexes.push(ix);
				}
				const [keys, values] = await Promise.all([done(store.getAllKeys()), done(store.getAll())]);
				for (let i = 0; i < keys.length; i++) {
					if (!plain(keys[i]) || !plain(values[i])) { skipped++; continue; }
					out.records.push(store.keyPath === null ? {key: keys[i], value: values[i]} : {value: values[i]});
				}
				stores.push(out);
			}
			databases.push({name: db.name, version: db.version, stores});
		} finally {
			db.close();
		}
	}
	return {localStorage: localStorageItems, indexedDB: databases, skipped};
})()`

// writeScript is an async function of {localStorage, indexedDB} (the
// shapes of readScript) that writes them and resolves to the number of
// localStorage items written.
const writeScript = `(async (origin) => {
	origin.localStorage = origin.localStorage || [];
	origin.indexedDB = origin.indexedDB || [];
	for (const it of origin.localStorage) localStorage.setItem(it.name, it.value);
	const done = (req) => new Promise((resolve, reject) => {
		req.onsuccess = () => resolve(req.result);
		req.onerror = () => reject(req.error);
	});
	const keyPath = (o) => o.keyPathArray !== undefined ? o.keyPathArray : (o.keyPath !== undefined ? o.keyPath : null);
	for (const database of origin.indexedDB) {
		const req = indexedDB.open(database.name, database.version);
		req.onupgradeneeded = () => {
			const db = req.result;
			for (const s of database.stores) {
				const store = db.createObjectStore(s.name, {keyPath: keyPath(s), autoIncrement: !!s.autoIncrement});
				for (const ix of s.indexes || []) {
					store.createIndex(ix.name, keyPath(ix), {unique: !!ix.unique, multiEntry: !!ix.multiEntry});
				}
			}
		};
		const db = await done(req);
		try {
			const names = database.stores.map((s) => s.name);
			if (names.length === 0) continue;
			const tx = db.transaction(names, 'readwrite');
			for (const s of database.stores) {
				const store = tx.objectStore(s.name);
				for (const r of s.records || []) {
					if (store.keyPath === null && r.key !== undefined) store.put(r.value, r.key);
					else store.put(r.value);
				}
			}
			await new Promise((resolve, reject) => {
				tx.oncomplete = resolve;
				tx.onerror = () => reject(tx.error);
				tx.onabort = () => reject(tx.error || new Error('IndexedDB transaction aborted'));
			});
		} finally {
			db.close();
		}
	}
	return origin.localStorage.length;
})`

// blankDocument is the answer to every request of the temporary tab. Its
// empty data: icon keeps the browser from fetching /favicon.ico from the
// app (that request is the browser's own, out of the tab's Fetch domain).
const blankDocument = `<!DOCTYPE html><html><head><title></title><link rel="icon" href="data:,"></head><body></body></html>`

// inOriginTab opens a temporary tab in bc whose every request is answered
// with an empty HTML document, loads origin + "/" for each origin, calls
// fn in it, and closes the tab.
func inOriginTab(ctx context.Context, pageCtx context.Context, bc cdp.BrowserContextID, origins []string, fn func(tctx context.Context, origin string) error) error {
	tabCtx, closeTab := chromedp.NewContext(pageCtx, chromedp.WithExistingBrowserContext(bc))
	defer closeTab()
	tctx, cancel := bound(tabCtx, ctx)
	defer cancel()

	paused := chromedp.Events(tctx, fetch.RequestPaused)
	if err := chromedp.Do(tctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
		return err
	})); err != nil {
		return fmt.Errorf("storage: open a temporary tab: %w", err)
	}
	// Answer the paused requests from a goroutine (never in a listener).
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range paused {
			if err != nil {
				return
			}
			_, err := chromedp.Call(tctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
				RequestID:    ev.RequestID,
				ResponseCode: 200,
				ResponseHeaders: []*fetch.HeaderEntry{
					{Name: "Content-Type", Value: "text/html; charset=utf-8"},
					{Name: "Cache-Control", Value: "no-store"},
				},
				Body: []byte(blankDocument),
			})
			if err != nil && tctx.Err() != nil {
				return
			}
		}
	}()
	defer func() { cancel(); <-done }()

	for _, origin := range origins {
		if err := chromedp.Do(tctx, chromedp.Navigate(origin+"/")); err != nil {
			return fmt.Errorf("storage: open %s in a temporary tab: %w", origin, err)
		}
		if err := fn(tctx, origin); err != nil {
			return err
		}
	}
	return nil
}

// originList normalizes origins, drops the ones that are not http(s) and
// the duplicates, and keeps the order.
func originList(origins []string) []string {
	var out []string
	for _, o := range origins {
		n, err := normalizeOrigin(o)
		if err != nil || slices.Contains(out, n) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// fromCDP converts a browser cookie.
func fromCDP(c *network.Cookie) Cookie {
	expires := c.Expires
	if c.Session || expires <= 0 {
		expires = -1
	}
	sameSite := string(c.SameSite)
	if sameSite == "" {
		sameSite = "Lax" // Chromium treats a cookie without SameSite as Lax
	}
	return Cookie{
		Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
		Expires: expires, HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: sameSite,
	}
}

// toCDP converts a cookie for Storage.setCookies.
func toCDP(c Cookie) *network.CookieParam {
	p := &network.CookieParam{
		Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
		Secure: c.Secure, HTTPOnly: c.HTTPOnly, SameSite: network.CookieSameSite(c.SameSite),
	}
	if c.Expires > 0 {
		p.Expires = cdp.TimeSinceEpoch(c.Expires)
	}
	return p
}

// bound returns a context that carries base's values and ends when base
// or op ends.
func bound(base, op context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(base)
	stop := context.AfterFunc(op, cancel)
	return ctx, func() { stop(); cancel() }
}
