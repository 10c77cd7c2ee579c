package wire

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The AppendJSON methods append a value's JSON exactly as encoding/json
// (json.Marshal, HTML escaping on) writes it, without reflection: the rpc
// layer uses them for the hot messages (observe params, snapshots) and
// falls back to encoding/json when one reports false (a value it leaves to
// encoding/json: NaN or an infinity, which encoding/json refuses with its
// own error, or a member it does not write itself, such as an abort
// reason). FuzzAppendJSON holds them to json.Marshal.

// AppendJSON appends p's JSON; false: use encoding/json.
func (p ObserveParams) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"operation":`...)
	b, ok := p.Operation.appendJSON(b)
	if !ok {
		return b, false
	}
	if o := p.Options; o != nil {
		b = append(b, `,"options":{`...)
		sep := false
		if o.Pixels {
			b = append(b, `"pixels":true`...)
			sep = true
		}
		if o.PixelFallback {
			if sep {
				b = append(b, ',')
			}
			b = append(b, `"pixelFallback":true`...)
		}
		b = append(b, '}')
	}
	return append(b, '}'), true
}

// AppendJSON appends p's JSON; false: use encoding/json.
func (p OperationParams) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"operation":`...)
	b, ok := p.Operation.appendJSON(b)
	return append(b, '}'), ok
}

func (o *Operation) appendJSON(b []byte) ([]byte, bool) {
	if o.Signal.Reason != nil {
		return b, false
	}
	b = append(b, `{"signal":{"id":`...)
	if o.Signal.ID.IsString {
		b = appendString(b, o.Signal.ID.Str)
	} else {
		b = strconv.AppendInt(b, o.Signal.ID.Num, 10)
	}
	if o.Signal.Aborted {
		b = append(b, `,"aborted":true`...)
	}
	b = append(b, `},"timeoutMs":`...)
	b, ok := appendFloat(b, o.TimeoutMs)
	b = append(b, `,"runId":`...)
	b = appendString(b, o.RunID)
	b = append(b, `,"attemptId":`...)
	b = appendString(b, o.AttemptID)
	if o.Origin != "" {
		b = append(b, `,"origin":`...)
		b = appendString(b, o.Origin)
	}
	return append(b, '}'), ok
}

// AppendJSON appends s's JSON; false: use encoding/json.
func (s *EngineSnapshot) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, '{')
	if s.Location != "" {
		b = append(b, `"location":`...)
		b = appendString(b, s.Location)
		b = append(b, ',')
	}
	b = append(b, `"root":`...)
	b, ok := s.Root.appendJSON(b)
	b = append(b, `,"viewport":{"width":`...)
	b, ok1 := appendFloat(b, s.Viewport.Width)
	b = append(b, `,"height":`...)
	b, ok2 := appendFloat(b, s.Viewport.Height)
	b = append(b, '}')
	ok = ok && ok1 && ok2
	if s.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	if s.TreeUnavailable {
		b = append(b, `,"treeUnavailable":true`...)
	}
	if p := s.Pixels; p != nil {
		b = append(b, `,"pixels":{"data":`...)
		b = appendString(b, p.Data)
		b = append(b, `,"mediaType":`...)
		b = appendString(b, p.MediaType)
		b = append(b, `,"width":`...)
		b = strconv.AppendInt(b, p.Width, 10)
		b = append(b, `,"height":`...)
		b = strconv.AppendInt(b, p.Height, 10)
		b = append(b, `,"scale":`...)
		var okS bool
		b, okS = appendFloat(b, p.Scale)
		ok = ok && okS
		b = append(b, '}')
	}
	if s.MaskedRegionCount != nil {
		b = append(b, `,"maskedRegionCount":`...)
		b = strconv.AppendInt(b, *s.MaskedRegionCount, 10)
	}
	return append(b, '}'), ok
}

func (n *SemanticNode) appendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"ref":{"id":`...)
	b = appendString(b, n.Ref.ID)
	b = append(b, `,"revision":`...)
	b = appendString(b, n.Ref.Revision)
	b = append(b, '}')
	for _, m := range [...]struct {
		name string
		v    *string
	}{{`,"role":`, n.Role}, {`,"name":`, n.Name}, {`,"text":`, n.Text}, {`,"value":`, n.Value}, {`,"selection":`, n.Selection}, {`,"testId":`, n.TestID}} {
		if m.v != nil {
			b = append(b, m.name...)
			b = appendString(b, *m.v)
		}
	}
	if n.InputPurpose != "" {
		b = append(b, `,"inputPurpose":`...)
		b = appendString(b, n.InputPurpose)
	}
	if st := n.States; st != nil {
		b = append(b, `,"states":{`...)
		sep := false
		for _, m := range [...]struct {
			name string
			v    *bool
		}{{`"checked":`, st.Checked}, {`"disabled":`, st.Disabled}, {`"selected":`, st.Selected}, {`"expanded":`, st.Expanded},
			{`"pressed":`, st.Pressed}, {`"focused":`, st.Focused}, {`"hidden":`, st.Hidden}, {`"secure":`, st.Secure}} {
			if m.v == nil {
				continue
			}
			if sep {
				b = append(b, ',')
			}
			sep = true
			b = append(b, m.name...)
			b = strconv.AppendBool(b, *m.v)
		}
		b = append(b, '}')
	}
	if n.Level != nil {
		b = append(b, `,"level":`...)
		b = strconv.AppendInt(b, *n.Level, 10)
	}
	if len(n.Attributes) > 0 {
		b = append(b, `,"attributes":{`...)
		keys := make([]string, 0, len(n.Attributes))
		for k := range n.Attributes {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendString(b, n.Attributes[k])
		}
		b = append(b, '}')
	}
	ok := true
	if r := n.Rect; r != nil {
		var o1, o2, o3, o4 bool
		b = append(b, `,"rect":{"x":`...)
		b, o1 = appendFloat(b, r.X)
		b = append(b, `,"y":`...)
		b, o2 = appendFloat(b, r.Y)
		b = append(b, `,"width":`...)
		b, o3 = appendFloat(b, r.Width)
		b = append(b, `,"height":`...)
		b, o4 = appendFloat(b, r.Height)
		b = append(b, '}')
		ok = o1 && o2 && o3 && o4
	}
	if n.Selector != nil {
		b = append(b, `,"selector":`...)
		b = appendString(b, *n.Selector)
	}
	if len(n.FramePath) > 0 {
		b = append(b, `,"framePath":[`...)
		for i, s := range n.FramePath {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	}
	if len(n.Children) > 0 {
		b = append(b, `,"children":[`...)
		for i := range n.Children {
			if i > 0 {
				b = append(b, ',')
			}
			var okC bool
			b, okC = n.Children[i].appendJSON(b)
			ok = ok && okC
		}
		b = append(b, ']')
	}
	return append(b, '}'), ok
}

// appendFloat appends f as encoding/json writes a float64; false for NaN
// and the infinities, which encoding/json refuses.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendString appends s as a JSON string the way encoding/json does: a
// string of printable ASCII without the characters it escapes is copied,
// anything else is encoded by encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
