package wire

import (
	"bytes"
	"encoding/json"

	"github.com/e2e-conform/toolkit/protocol/internal/jsonscan"
)

// EngineObserveOptions are the options of engine/observe (spec §5.4).
type EngineObserveOptions struct {
	Pixels        bool `json:"pixels,omitempty"`
	PixelFallback bool `json:"pixelFallback,omitempty"`
}

// EngineSnapshot is the result of engine/observe (spec §5.4).
type EngineSnapshot struct {
	Location          string             `json:"location,omitempty"`
	Root              SemanticNode       `json:"root"`
	Viewport          ViewportSize       `json:"viewport"`
	Truncated         bool               `json:"truncated,omitempty"`
	TreeUnavailable   bool               `json:"treeUnavailable,omitempty"`
	Pixels            *ObservationPixels `json:"pixels,omitempty"`
	MaskedRegionCount *int64             `json:"maskedRegionCount,omitempty"`
}

// ViewportSize is the viewport in CSS pixels (spec §5.4).
type ViewportSize struct {
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// ObservationPixels is a masked PNG of the viewport (spec §5.4).
type ObservationPixels struct {
	Data      string  `json:"data"`
	MediaType string  `json:"mediaType"`
	Width     int64   `json:"width"`
	Height    int64   `json:"height"`
	Scale     float64 `json:"scale"`
}

// NodeRef names a node: the engine's id and the harness's revision (spec §5.5).
type NodeRef struct {
	ID       string `json:"id"`
	Revision string `json:"revision"`
}

// UnmarshalJSON requires both members, as the schema does.
func (r *NodeRef) UnmarshalJSON(data []byte) error {
	if r.fast(data) {
		return nil
	}
	var p struct {
		ID       *string `json:"id"`
		Revision *string `json:"revision"`
	}
	if len(data) == 0 || data[0] != '{' {
		return unionError(NodeRef{}, "", "NodeRef must be an object, got %s", jsonKind(data))
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	if p.ID == nil || p.Revision == nil {
		return unionError(NodeRef{}, "", "NodeRef requires id and revision")
	}
	*r = NodeRef{ID: *p.ID, Revision: *p.Revision}
	return nil
}

// fast decodes the common NodeRef, an object whose id and revision are
// strings, without a reflective decode; anything else (a member name with
// escapes or differing from id or revision only by case, a value that is
// not a string, a missing member) is left to the reflective path, which
// reads it as encoding/json does and words the error.
func (r *NodeRef) fast(data []byte) bool {
	var id, rev []byte
	ok := true
	if !jsonscan.Object(data, func(key, value []byte) bool {
		k := key[1 : len(key)-1]
		switch string(k) {
		case "id":
			id = value
		case "revision":
			rev = value
		default:
			if bytes.IndexByte(k, '\\') >= 0 || bytes.EqualFold(k, []byte("id")) || bytes.EqualFold(k, []byte("revision")) {
				ok = false
				return false
			}
		}
		return true
	}) || !ok {
		return false
	}
	idStr, ok1 := stringValue(id)
	revStr, ok2 := stringValue(rev)
	if !ok1 || !ok2 {
		return false
	}
	*r = NodeRef{ID: idStr, Revision: revStr}
	return true
}

// NodeStates are the eight reportable node states (spec §5.5); nil is absent.
type NodeStates struct {
	Checked  *bool `json:"checked,omitempty"`
	Disabled *bool `json:"disabled,omitempty"`
	Selected *bool `json:"selected,omitempty"`
	Expanded *bool `json:"expanded,omitempty"`
	Pressed  *bool `json:"pressed,omitempty"`
	Focused  *bool `json:"focused,omitempty"`
	Hidden   *bool `json:"hidden,omitempty"`
	Secure   *bool `json:"secure,omitempty"`
}

// Rect is a node's box in top-level viewport CSS pixels (spec §5.5).
type Rect struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// SemanticNode is one node of an observation (spec §5.5). Optional strings
// are pointers so that an empty string and an absent member stay distinct.
type SemanticNode struct {
	Ref          NodeRef           `json:"ref"`
	Role         *string           `json:"role,omitempty"`
	Name         *string           `json:"name,omitempty"`
	Text         *string           `json:"text,omitempty"`
	Value        *string           `json:"value,omitempty"`
	Selection    *string           `json:"selection,omitempty"`
	TestID       *string           `json:"testId,omitempty"`
	InputPurpose string            `json:"inputPurpose,omitempty"`
	States       *NodeStates       `json:"states,omitempty"`
	Level        *int64            `json:"level,omitempty"`
	Attributes   map[string]string `json:"attributes,omitempty"`
	Rect         *Rect             `json:"rect,omitempty"`
	Selector     *string           `json:"selector,omitempty"`
	FramePath    []string          `json:"framePath,omitempty"`
	Children     []SemanticNode    `json:"children,omitempty"`
}

// Str returns a pointer to s, for optional string members.
func Str(s string) *string { return &s }

// Bool returns a pointer to b, for optional boolean members.
func Bool(b bool) *bool { return &b }

// Int returns a pointer to n, for optional integer members.
func Int(n int64) *int64 { return &n }

// State reports a node state; an absent state reads as false (spec §5.5).
func (n *SemanticNode) State(name string) bool {
	s := n.States
	if s == nil {
		return false
	}
	var p *bool
	switch name {
	case "checked":
		p = s.Checked
	case "disabled":
		p = s.Disabled
	case "selected":
		p = s.Selected
	case "expanded":
		p = s.Expanded
	case "pressed":
		p = s.Pressed
	case "focused":
		p = s.Focused
	case "hidden":
		p = s.Hidden
	case "secure":
		p = s.Secure
	}
	return p != nil && *p
}

// Walk calls fn for n and every node under it in document order (depth-first
// pre-order), stopping early when fn returns false.
func (n *SemanticNode) Walk(fn func(*SemanticNode) bool) bool {
	if !fn(n) {
		return false
	}
	for i := range n.Children {
		if !n.Children[i].Walk(fn) {
			return false
		}
	}
	return true
}

// ViewportPoint is a point in viewport CSS pixels (spec §5.11).
type ViewportPoint struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}
