package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/e2e-conform/toolkit/protocol/internal/jsonscan"
)

// DecodeSnapshot decodes an EngineSnapshot and checks it against the rules
// of its schema (spec §5.4, §5.5, §5.13) without a schema validator run:
// no null anywhere, required members present, integers and bounds, enums,
// the pixel and pixel-fallback rules, and secure nodes without value or
// selection. Unknown members are ignored, including unknown state keys,
// which the schema's closed states object refuses (the client ignores them,
// spec §1.6). It is what the client uses on observe results, where a schema
// run over thousands of nodes would cost more than the observation.
func DecodeSnapshot(raw []byte) (*EngineSnapshot, error) {
	s := new(EngineSnapshot)
	if err := DecodeSnapshotInto(raw, s); err != nil {
		return nil, err
	}
	return s, nil
}

// DecodeSnapshotInto is DecodeSnapshot decoding into s (which it resets
// first), for a caller that holds the snapshot already.
func DecodeSnapshotInto(raw []byte, s *EngineSnapshot) error {
	*s = EngineSnapshot{}
	var probe snapshotProbe
	if len(raw) == 0 || raw[0] != '{' {
		return &DecodeError{Msg: "EngineSnapshot must be an object, got " + jsonKind(raw)}
	}
	walked, err := probe.read(raw)
	if err != nil {
		return err
	}
	if err := noNull(raw); err != nil {
		return err
	}
	if probe.Root == nil {
		return &DecodeError{Msg: "EngineSnapshot requires root"}
	}
	if probe.Viewport == nil {
		return &DecodeError{Msg: "EngineSnapshot requires viewport"}
	}
	if !walked || !fastSnapshot(raw, s) {
		*s = EngineSnapshot{}
		if err := Unmarshal(raw, s); err != nil {
			return err
		}
	}
	if !(s.Viewport.Width > 0) || !(s.Viewport.Height > 0) {
		return &DecodeError{Pointer: "/viewport", Msg: "width and height must be > 0"}
	}
	if probe.TU != nil && string(probe.TU) != "true" {
		return &DecodeError{Pointer: "/treeUnavailable", Msg: "treeUnavailable must be the literal true"}
	}
	if s.MaskedRegionCount != nil && *s.MaskedRegionCount < 0 {
		return &DecodeError{Pointer: "/maskedRegionCount", Msg: "must be >= 0"}
	}
	if s.Pixels != nil {
		if err := checkPixels(s.Pixels); err != nil {
			return err
		}
	}
	if s.TreeUnavailable {
		if s.Pixels == nil {
			return &DecodeError{Pointer: "/pixels", Msg: "treeUnavailable requires pixels"}
		}
		var root map[string]json.RawMessage
		_ = json.Unmarshal(probe.Root, &root)
		if len(root) != 1 {
			return &DecodeError{Pointer: "/root", Msg: "with treeUnavailable the root holds ref and nothing else"}
		}
	}
	if err := checkNode(&s.Root, "/root"); err != nil {
		return err
	}
	return nil
}

// snapshotProbe holds the raw top-level members of a snapshot that
// DecodeSnapshot checks before decoding it.
type snapshotProbe struct {
	Root     json.RawMessage `json:"root"`
	Viewport json.RawMessage `json:"viewport"`
	Pixels   json.RawMessage `json:"pixels"`
	TU       json.RawMessage `json:"treeUnavailable"`
}

// read fills the probe from the object raw. Valid JSON whose member names
// are plain is walked without a decode (the members are named exactly:
// noNull refuses a name that differs from a known one only by case);
// anything else goes through encoding/json, which also locates a syntax
// error.
// walked reports the first case (raw is then known to be valid JSON).
func (p *snapshotProbe) read(raw []byte) (walked bool, err error) {
	if jsonscan.Valid(raw) {
		plain := true
		jsonscan.Object(raw, func(key, value []byte) bool {
			k := key[1 : len(key)-1]
			switch string(k) {
			case "root":
				p.Root = value
			case "viewport":
				p.Viewport = value
			case "pixels":
				p.Pixels = value
			case "treeUnavailable":
				p.TU = value
			default:
				if bytes.IndexByte(k, '\\') >= 0 {
					plain = false
					return false
				}
			}
			return true
		})
		if plain {
			return true, nil
		}
		*p = snapshotProbe{}
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return false, locate(err)
	}
	return false, nil
}

// DecodeNodes decodes a SemanticNode array (the engine/locate result) with
// the checks of DecodeSnapshot.
func DecodeNodes(raw []byte) ([]SemanticNode, error) {
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' {
		return nil, &DecodeError{Msg: "SemanticNode list must be an array, got " + jsonKind(raw)}
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, locate(err)
	}
	for i, it := range items {
		sc := nullScanner{b: it}
		if err := sc.value(ctxNode); err != nil {
			return nil, &DecodeError{Pointer: "/" + strconv.Itoa(i), Msg: err.(*DecodeError).Msg}
		}
	}
	out := make([]SemanticNode, len(items))
	for i, it := range items {
		p := "/" + strconv.Itoa(i)
		if err := Unmarshal(it, &out[i]); err != nil {
			if de, ok := err.(*DecodeError); ok {
				de.Pointer = p + de.Pointer
			}
			return nil, err
		}
		if err := checkNode(&out[i], p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

var base64Padded = regexp.MustCompile(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`)

func checkPixels(p *ObservationPixels) error {
	switch {
	case len(p.Data) < 4 || !base64Padded.MatchString(p.Data):
		return &DecodeError{Pointer: "/pixels/data", Msg: "must be padded standard base64"}
	case p.MediaType != "image/png":
		return &DecodeError{Pointer: "/pixels/mediaType", Msg: "must be image/png"}
	case p.Width < 1 || p.Height < 1:
		return &DecodeError{Pointer: "/pixels", Msg: "width and height must be integers >= 1"}
	case !(p.Scale > 0) || math.IsInf(p.Scale, 0):
		return &DecodeError{Pointer: "/pixels/scale", Msg: "must be > 0"}
	}
	if _, err := base64.StdEncoding.DecodeString(p.Data); err != nil {
		return &DecodeError{Pointer: "/pixels/data", Msg: "is not base64"}
	}
	return nil
}

func checkNode(n *SemanticNode, p string) error {
	if n.Ref.ID == "" {
		return &DecodeError{Pointer: p + "/ref/id", Msg: "must be non-empty"}
	}
	switch n.InputPurpose {
	case "", "username", "password", "one-time-code", "generic-secret", "none":
	default:
		return &DecodeError{Pointer: p + "/inputPurpose", Msg: fmt.Sprintf("unknown inputPurpose %q", n.InputPurpose)}
	}
	if n.State("secure") && (n.Value != nil || n.Selection != nil) {
		return &DecodeError{Pointer: p, Msg: "a secure node carries no value or selection"}
	}
	if n.Level != nil && *n.Level < 1 {
		return &DecodeError{Pointer: p + "/level", Msg: "must be >= 1"}
	}
	if r := n.Rect; r != nil && (r.Width < 0 || r.Height < 0) {
		return &DecodeError{Pointer: p + "/rect", Msg: "width and height must be >= 0"}
	}
	for i := range n.Children {
		if err := checkNode(&n.Children[i], fmt.Sprintf("%s/children/%d", p, i)); err != nil {
			return err
		}
	}
	return nil
}

// noNull reports a JSON null in a known member of a snapshot or node (a
// null in an unknown member is ignored with the member, spec §1.6). raw is
// syntactically valid JSON.
func noNull(raw []byte) error {
	sc := nullScanner{b: raw}
	sc.skipSpace()
	return sc.value(ctxSnapshot)
}

// Contexts of the null scan: which members are known where.
type nullCtx int

const (
	ctxUnknown nullCtx = iota
	ctxSnapshot
	ctxNode
	ctxNodes // an array of nodes
	ctxObject
	ctxStrings // an array or map of strings: no null element
)

func (c nullCtx) member(key string) (nullCtx, bool) {
	switch c {
	case ctxSnapshot:
		switch key {
		case "root":
			return ctxNode, true
		case "viewport", "pixels":
			return ctxObject, true
		case "location", "truncated", "treeUnavailable", "maskedRegionCount":
			return ctxObject, true
		}
	case ctxNode:
		switch key {
		case "children":
			return ctxNodes, true
		case "attributes", "framePath":
			return ctxStrings, true
		case "ref", "states", "rect":
			return ctxObject, true
		case "role", "name", "text", "value", "selection", "testId", "inputPurpose", "level", "selector":
			return ctxObject, true
		}
	case ctxObject:
		// Members of ref, states, rect, viewport, pixels: all known members
		// are typed scalars; unknown ones are ignored, so only the shape
		// matters and every member is checked.
		return ctxObject, true
	case ctxStrings:
		return ctxStrings, true
	}
	return ctxUnknown, false
}

// knownMember holds the member names of a snapshot's objects.
var knownMember = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`root viewport pixels location truncated treeUnavailable maskedRegionCount
		ref id revision role name text value selection testId inputPurpose states level attributes rect
		selector framePath children x y width height data mediaType scale
		checked disabled selected expanded pressed focused hidden secure`) {
		m[k] = true
	}
	return m
}()

func knownFold(key string) bool {
	for k := range knownMember {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

type nullScanner struct {
	b []byte
	i int
}

func (s *nullScanner) skipSpace() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// str scans a string and returns its text (a sub-slice of the input
// when it has no escapes, so that a key costs no allocation).
func (s *nullScanner) str() []byte {
	start := s.i + 1
	esc := false
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			esc = true
			s.i++
		case '"':
			out := s.b[start:s.i]
			s.i++
			if esc {
				var v string
				_ = json.Unmarshal(s.b[start-1:s.i], &v)
				return []byte(v)
			}
			return out
		}
	}
	return nil
}

// value scans one value at s.i whose context is c.
func (s *nullScanner) value(c nullCtx) error {
	if s.i >= len(s.b) {
		return nil
	}
	switch s.b[s.i] {
	case 'n':
		if c != ctxUnknown {
			return &DecodeError{Msg: fmt.Sprintf("null at byte %d where the member may not be null", s.i)}
		}
		s.i += 4
	case '"':
		s.str()
	case '{':
		s.i++
		for {
			s.skipSpace()
			if s.b[s.i] == '}' {
				s.i++
				return nil
			}
			if s.b[s.i] == ',' {
				s.i++
				s.skipSpace()
			}
			key := s.str()
			s.skipSpace()
			s.i++ // ':'
			s.skipSpace()
			if c != ctxUnknown && c != ctxStrings && !knownMember[string(key)] && knownFold(string(key)) {
				// encoding/json matches member names without regard to case,
				// so it would read this one as a known member: refuse it.
				return &DecodeError{Msg: fmt.Sprintf("member %q differs from a known member only by case", key)}
			}
			inner := ctxUnknown
			if c != ctxUnknown {
				if m, known := c.member(string(key)); known {
					inner = m
				}
			}
			if err := s.value(inner); err != nil {
				return err
			}
		}
	case '[':
		s.i++
		elem := ctxUnknown
		switch c {
		case ctxNodes:
			elem = ctxNode
		case ctxStrings, ctxObject:
			elem = ctxStrings
		}
		for {
			s.skipSpace()
			if s.b[s.i] == ']' {
				s.i++
				return nil
			}
			if s.b[s.i] == ',' {
				s.i++
				s.skipSpace()
			}
			if err := s.value(elem); err != nil {
				return err
			}
		}
	default: // number, true, false
		for s.i < len(s.b) && !strings.ContainsRune(",]} \t\r\n", rune(s.b[s.i])) {
			s.i++
		}
	}
	return nil
}
