package wire

import (
	"bytes"
	"strconv"

	"github.com/e2e-conform/toolkit/protocol/internal/jsonscan"
)

// fastSnapshot decodes raw into s as Unmarshal would, without reflection,
// for the snapshots engines send: plain member names (no escapes), each
// known member once, values of the member's type. It returns false, with
// s in an unspecified state, for anything else, which the caller decodes
// with Unmarshal (which merges repeated objects, converts what it can and
// words the error). raw is valid JSON and has passed noNull, which refuses
// a null in a known member and a name that differs from a known one only
// by case. FuzzFastSnapshot holds it to Unmarshal.
func fastSnapshot(raw []byte, s *EngineSnapshot) bool {
	*s = EngineSnapshot{}
	var seen uint32
	ok := true
	jsonscan.Object(raw, func(key, v []byte) bool {
		bit, known := snapshotField(key)
		if !known {
			ok = plainKey(key)
			return ok
		}
		if seen&bit != 0 {
			ok = false
			return false
		}
		seen |= bit
		switch bit {
		case 1 << 0:
			s.Location, ok = stringValue(v)
		case 1 << 1:
			ok = fastNode(v, &s.Root)
		case 1 << 2:
			ok = fastFloats(v, []string{"width", "height"}, &s.Viewport.Width, &s.Viewport.Height)
		case 1 << 3:
			s.Truncated, ok = boolValue(v)
		case 1 << 4:
			s.TreeUnavailable, ok = boolValue(v)
		case 1 << 5:
			s.Pixels = new(ObservationPixels)
			ok = fastPixels(v, s.Pixels)
		case 1 << 6:
			var n int64
			n, ok = intValue(v)
			s.MaskedRegionCount = &n
		}
		return ok
	})
	return ok
}

func snapshotField(key []byte) (uint32, bool) {
	switch string(key[1 : len(key)-1]) {
	case "location":
		return 1 << 0, true
	case "root":
		return 1 << 1, true
	case "viewport":
		return 1 << 2, true
	case "truncated":
		return 1 << 3, true
	case "treeUnavailable":
		return 1 << 4, true
	case "pixels":
		return 1 << 5, true
	case "maskedRegionCount":
		return 1 << 6, true
	}
	return 0, false
}

// plainKey reports whether an unknown key has no escapes (with escapes it
// might decode to a known name).
func plainKey(key []byte) bool { return bytes.IndexByte(key, '\\') < 0 }

// nodeField numbers SemanticNode's members.
func nodeField(key []byte) (int, bool) {
	switch string(key[1 : len(key)-1]) {
	case "ref":
		return 0, true
	case "role":
		return 1, true
	case "name":
		return 2, true
	case "text":
		return 3, true
	case "value":
		return 4, true
	case "selection":
		return 5, true
	case "testId":
		return 6, true
	case "inputPurpose":
		return 7, true
	case "states":
		return 8, true
	case "level":
		return 9, true
	case "attributes":
		return 10, true
	case "rect":
		return 11, true
	case "selector":
		return 12, true
	case "framePath":
		return 13, true
	case "children":
		return 14, true
	}
	return 0, false
}

func fastNode(raw []byte, n *SemanticNode) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var seen uint32
	ok := true
	jsonscan.Object(raw, func(key, v []byte) bool {
		f, known := nodeField(key)
		if !known {
			ok = plainKey(key)
			return ok
		}
		if seen&(1<<f) != 0 {
			ok = false
			return false
		}
		seen |= 1 << f
		switch f {
		case 0:
			ok = n.Ref.fast(v)
		case 1:
			n.Role, ok = optString(v)
		case 2:
			n.Name, ok = optString(v)
		case 3:
			n.Text, ok = optString(v)
		case 4:
			n.Value, ok = optString(v)
		case 5:
			n.Selection, ok = optString(v)
		case 6:
			n.TestID, ok = optString(v)
		case 7:
			n.InputPurpose, ok = stringValue(v)
		case 8:
			n.States = new(NodeStates)
			ok = fastStates(v, n.States)
		case 9:
			var l int64
			l, ok = intValue(v)
			n.Level = &l
		case 10:
			ok = fastAttributes(v, &n.Attributes)
		case 11:
			n.Rect = new(Rect)
			ok = fastFloats(v, []string{"x", "y", "width", "height"}, &n.Rect.X, &n.Rect.Y, &n.Rect.Width, &n.Rect.Height)
		case 12:
			n.Selector, ok = optString(v)
		case 13:
			ok = fastStrings(v, &n.FramePath)
		case 14:
			ok = fastChildren(v, &n.Children)
		}
		return ok
	})
	return ok
}

func fastStates(raw []byte, st *NodeStates) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	ok := true
	jsonscan.Object(raw, func(key, v []byte) bool {
		var dst **bool
		switch string(key[1 : len(key)-1]) {
		case "checked":
			dst = &st.Checked
		case "disabled":
			dst = &st.Disabled
		case "selected":
			dst = &st.Selected
		case "expanded":
			dst = &st.Expanded
		case "pressed":
			dst = &st.Pressed
		case "focused":
			dst = &st.Focused
		case "hidden":
			dst = &st.Hidden
		case "secure":
			dst = &st.Secure
		default:
			ok = plainKey(key)
			return ok
		}
		if *dst != nil {
			ok = false // repeated: Unmarshal writes through the pointer
			return false
		}
		var b bool
		b, ok = boolValue(v)
		*dst = &b
		return ok
	})
	return ok
}

// fastFloats decodes an object whose members names[i] are numbers into
// dst[i]; other members are ignored, a repeated one is refused.
func fastFloats(raw []byte, names []string, dst ...*float64) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var seen uint32
	ok := true
	jsonscan.Object(raw, func(key, v []byte) bool {
		k := key[1 : len(key)-1]
		for i, name := range names {
			if string(k) == name {
				if seen&(1<<i) != 0 {
					ok = false
					return false
				}
				seen |= 1 << i
				*dst[i], ok = floatValue(v)
				return ok
			}
		}
		ok = plainKey(key)
		return ok
	})
	return ok
}

func fastPixels(raw []byte, p *ObservationPixels) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var seen uint32
	ok := true
	jsonscan.Object(raw, func(key, v []byte) bool {
		var bit uint32
		switch string(key[1 : len(key)-1]) {
		case "data":
			bit = 1
			p.Data, ok = stringValue(v)
		case "mediaType":
			bit = 2
			p.MediaType, ok = stringValue(v)
		case "width":
			bit = 4
			p.Width, ok = intValue(v)
		case "height":
			bit = 8
			p.Height, ok = intValue(v)
		case "scale":
			bit = 16
			p.Scale, ok = floatValue(v)
		default:
			ok = plainKey(key)
			return ok
		}
		if seen&bit != 0 {
			ok = false
		}
		seen |= bit
		return ok
	})
	return ok
}

func fastAttributes(raw []byte, m *map[string]string) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	out := map[string]string{}
	ok := true
	jsonscan.Object(raw, func(key, v []byte) bool {
		var k, val string
		if k, ok = stringValue(key); !ok {
			return false
		}
		if val, ok = stringValue(v); !ok {
			return false
		}
		out[k] = val
		return true
	})
	*m = out
	return ok
}

func fastStrings(raw []byte, dst *[]string) bool {
	if len(raw) == 0 || raw[0] != '[' {
		return false
	}
	out := []string{}
	ok := true
	jsonscan.Array(raw, func(v []byte) bool {
		var s string
		if s, ok = stringValue(v); ok {
			out = append(out, s)
		}
		return ok
	})
	*dst = out
	return ok
}

func fastChildren(raw []byte, dst *[]SemanticNode) bool {
	if len(raw) == 0 || raw[0] != '[' {
		return false
	}
	count := 0
	jsonscan.Array(raw, func([]byte) bool { count++; return true })
	out := make([]SemanticNode, 0, count)
	ok := true
	jsonscan.Array(raw, func(v []byte) bool {
		out = append(out, SemanticNode{})
		ok = fastNode(v, &out[len(out)-1])
		return ok
	})
	*dst = out
	return ok
}

func optString(v []byte) (*string, bool) {
	s, ok := stringValue(v)
	if !ok {
		return nil, false
	}
	return &s, true
}

func boolValue(v []byte) (bool, bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// intValue reads an int64 as encoding/json does: an integer literal
// without fraction or exponent, within range.
func intValue(v []byte) (int64, bool) {
	if len(v) == 0 || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// floatValue reads a float64 as encoding/json does.
func floatValue(v []byte) (float64, bool) {
	if len(v) == 0 || !(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}
