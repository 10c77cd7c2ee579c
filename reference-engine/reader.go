package webengine

import (
	"github.com/e2e-conform/toolkit/protocol/wire"
	"github.com/e2e-conform/toolkit/reference-engine/inpage"
)

// The JSON shapes of the in-page reader's arguments and answers (package
// inpage's reader.js), decoded here so that the engine states exactly what
// it relies on.

// readArgs are the arguments of the reader's read method.
type readArgs struct {
	Mode            string `json:"mode"` // inpage.ModeTree (observe and locate) or inpage.ModeFull
	Budget          int    `json:"budget"`
	NextID          int64  `json:"nextId"`
	TestIDAttribute string `json:"testIdAttribute"`
	Prune           bool   `json:"prune,omitempty"`
	// Plan makes the read sparse (engine/locate): inpage.ReadArgs.Plan.
	Plan *inpage.Plan `json:"plan,omitempty"`
}

// readResult is a read's answer: the root node ("root", the <html>
// element) with every reachable document stitched under its iframe nodes.
type readResult struct {
	Root      wire.SemanticNode `json:"root"`
	Count     int               `json:"count"`
	Truncated bool              `json:"truncated"`
	NextID    int64             `json:"nextId"`
	// Selectors and Error answer a sparse read's plan
	// (inpage.ReadResult).
	Selectors map[string][]string `json:"selectors,omitempty"`
	Error     string              `json:"error,omitempty"`
}

// xy is a point in top-viewport CSS pixels.
type xy struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// probeResult is the reader's actionability facts about one element.
type probeResult struct {
	Attached  bool `json:"attached"`
	Visible   bool `json:"visible"`
	Enabled   bool `json:"enabled"`
	Editable  bool `json:"editable"`
	Checkable struct {
		Kind    string `json:"kind"` // checkbox, radio, aria, none
		Checked *bool  `json:"checked"`
	} `json:"checkable"`
	Rect       *wire.Rect `json:"rect"`
	Stable     bool       `json:"stable"`
	InViewport bool       `json:"inViewport"`
	Point      *xy        `json:"point"`
	Hit        struct {
		OK      bool   `json:"ok"`
		Blocker string `json:"blocker"`
	} `json:"hit"`
}

// secureRects are the secure fields' boxes (visible ones) and count (all).
type secureRects struct {
	Rects []wire.Rect `json:"rects"`
	Count int         `json:"count"`
}

// inpageQueryExpr is the reader's query call, answering {ids} or, for a
// selector the page cannot parse, {error}.
func inpageQueryExpr(sel string, scope any) (string, error) {
	expr, err := inpage.Expr("query", sel, scope)
	if err != nil {
		return "", err
	}
	return `(() => { try { return {ids: ` + expr + `}; } catch (e) { return {error: String(e && e.message || e)}; } })()`, nil
}
