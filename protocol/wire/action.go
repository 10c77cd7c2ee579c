package wire

import "encoding/json"

// KeyModifier is a modifier key name (spec §5.8, §5.9).
type KeyModifier = string

// Scroll directions and momenta (spec §5.8).
const (
	DirectionUp    = "up"
	DirectionDown  = "down"
	DirectionLeft  = "left"
	DirectionRight = "right"

	MomentumNone = "none"
	MomentumSlow = "slow"
	MomentumFast = "fast"
)

// SelectOption picks an option (spec §5.8): By is "" for a plain string (a
// label), or "label", "value" or "index".
type SelectOption struct {
	By    string
	Text  string
	Index int64
}

// MarshalJSON writes a string or a one-member object.
func (o SelectOption) MarshalJSON() ([]byte, error) {
	switch o.By {
	case "":
		return json.Marshal(o.Text)
	case "label", "value":
		return json.Marshal(map[string]string{o.By: o.Text})
	case "index":
		return json.Marshal(map[string]int64{"index": o.Index})
	}
	return nil, unionError(o, "", "unknown SelectOption form %q", o.By)
}

// UnmarshalJSON reads a string or an object with exactly one of label, value
// and index.
func (o *SelectOption) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*o = SelectOption{Text: s}
		return nil
	}
	m, err := members(data, SelectOption{})
	if err != nil {
		return unionError(SelectOption{}, "", "SelectOption must be a string or an object, got %s", jsonKind(data))
	}
	if len(m) != 1 {
		return unionError(SelectOption{}, "", "SelectOption object must have exactly one of label, value and index")
	}
	out := SelectOption{}
	for k := range m {
		out.By = k
	}
	switch out.By {
	case "label", "value":
		err = field(m, out, out.By, &out.Text, true)
	case "index":
		var n json.RawMessage
		if err = field(m, out, "index", &n, true); err == nil {
			v, ok := ParseInteger(n)
			if !ok || v < 0 {
				return unionError(out, "index", "SelectOption index must be an integer >= 0")
			}
			out.Index = v
		}
	default:
		return unionError(out, out.By, "unknown SelectOption member %q", out.By)
	}
	if err != nil {
		return err
	}
	*o = out
	return nil
}

// LocatorAction is one node action (spec §5.8). Members used per kind:
// tap, doubleTap, secondaryTap: Modifiers; longPress: DurationMs; fill:
// Value, Sensitive; press: Key; selectOption: Option; setInputFiles: Paths;
// dragTo: Target; swipe: Direction, Momentum. The other kinds have no member.
type LocatorAction struct {
	Kind       string
	Modifiers  []KeyModifier
	DurationMs *float64
	Value      string
	Sensitive  bool
	Key        string
	Option     SelectOption
	Paths      []string
	Target     *NodeRef
	Direction  string
	Momentum   string // "" is absent
}

// MarshalJSON writes the members of the action's kind.
func (a LocatorAction) MarshalJSON() ([]byte, error) {
	w := newObject()
	w.put("kind", a.Kind)
	switch a.Kind {
	case ActionTap, ActionDoubleTap, ActionSecondaryTap:
		if a.Modifiers != nil {
			w.put("modifiers", a.Modifiers)
		}
	case ActionCheck, ActionUncheck, ActionClear, ActionFocus, ActionHover, ActionScrollIntoView:
	case ActionLongPress:
		if a.DurationMs != nil {
			w.put("durationMs", *a.DurationMs)
		}
	case ActionFill:
		w.put("value", a.Value)
		w.put("sensitive", a.Sensitive)
	case ActionPress:
		w.put("key", a.Key)
	case ActionSelectOption:
		w.put("value", a.Option)
	case ActionSetInputFiles:
		p := a.Paths
		if p == nil {
			p = []string{}
		}
		w.put("paths", p)
	case ActionDragTo:
		w.put("target", a.Target)
	case ActionSwipe:
		w.put("direction", a.Direction)
		if a.Momentum != "" {
			w.put("momentum", a.Momentum)
		}
	default:
		return nil, unionError(a, "kind", "unknown LocatorAction kind %q", a.Kind)
	}
	return w.bytes()
}

// UnmarshalJSON decodes strictly by kind.
func (a *LocatorAction) UnmarshalJSON(data []byte) error {
	t := LocatorAction{}
	m, err := members(data, t)
	if err != nil {
		return err
	}
	k, err := kindOf(m, t)
	if err != nil {
		return err
	}
	out := LocatorAction{Kind: k}
	switch k {
	case ActionTap, ActionDoubleTap, ActionSecondaryTap:
		err = field(m, t, "modifiers", &out.Modifiers, false)
	case ActionCheck, ActionUncheck, ActionClear, ActionFocus, ActionHover, ActionScrollIntoView:
	case ActionLongPress:
		err = field(m, t, "durationMs", &out.DurationMs, false)
	case ActionFill:
		err = firstErr(field(m, t, "value", &out.Value, true), field(m, t, "sensitive", &out.Sensitive, true))
	case ActionPress:
		err = field(m, t, "key", &out.Key, true)
	case ActionSelectOption:
		err = field(m, t, "value", &out.Option, true)
	case ActionSetInputFiles:
		err = field(m, t, "paths", &out.Paths, true)
	case ActionDragTo:
		err = field(m, t, "target", &out.Target, true)
	case ActionSwipe:
		err = firstErr(field(m, t, "direction", &out.Direction, true), field(m, t, "momentum", &out.Momentum, false))
	default:
		return unionError(t, "kind", "unknown LocatorAction kind %q", k)
	}
	if err != nil {
		return err
	}
	*a = out
	return nil
}

// PointerAction is one pointer action at a viewport point (spec §5.11).
// Members used per kind: longPress: DurationMs; dragTo: Target; swipe:
// Direction, Momentum; swipeTo: Target, DurationMs.
type PointerAction struct {
	Kind       string
	DurationMs *float64
	Target     *ViewportPoint
	Direction  string
	Momentum   string
}

// MarshalJSON writes the members of the action's kind.
func (a PointerAction) MarshalJSON() ([]byte, error) {
	w := newObject()
	w.put("kind", a.Kind)
	switch a.Kind {
	case ActionTap, ActionDoubleTap, ActionSecondaryTap, ActionHover:
	case ActionLongPress:
		if a.DurationMs != nil {
			w.put("durationMs", *a.DurationMs)
		}
	case ActionDragTo:
		w.put("target", a.Target)
	case ActionSwipe:
		w.put("direction", a.Direction)
		if a.Momentum != "" {
			w.put("momentum", a.Momentum)
		}
	case ActionSwipeTo:
		w.put("target", a.Target)
		if a.DurationMs != nil {
			w.put("durationMs", *a.DurationMs)
		}
	default:
		return nil, unionError(a, "kind", "unknown PointerAction kind %q", a.Kind)
	}
	return w.bytes()
}

// UnmarshalJSON decodes strictly by kind.
func (a *PointerAction) UnmarshalJSON(data []byte) error {
	t := PointerAction{}
	m, err := members(data, t)
	if err != nil {
		return err
	}
	k, err := kindOf(m, t)
	if err != nil {
		return err
	}
	out := PointerAction{Kind: k}
	switch k {
	case ActionTap, ActionDoubleTap, ActionSecondaryTap, ActionHover:
	case ActionLongPress:
		err = field(m, t, "durationMs", &out.DurationMs, false)
	case ActionDragTo:
		err = field(m, t, "target", &out.Target, true)
	case ActionSwipe:
		err = firstErr(field(m, t, "direction", &out.Direction, true), field(m, t, "momentum", &out.Momentum, false))
	case ActionSwipeTo:
		err = firstErr(field(m, t, "target", &out.Target, true), field(m, t, "durationMs", &out.DurationMs, false))
	default:
		return unionError(t, "kind", "unknown PointerAction kind %q", k)
	}
	if err != nil {
		return err
	}
	*a = out
	return nil
}

// SwipeDistance is how far a swipe carries over an extent (spec §5.8's
// informative defaults): half of it, three quarters with momentum "slow",
// one and a half with "fast".
func SwipeDistance(extent float64, momentum string) float64 {
	switch momentum {
	case MomentumSlow:
		return extent * 0.75
	case MomentumFast:
		return extent * 1.5
	}
	return extent * 0.5
}

// SwipeDelta is the scroll change of a swipe in direction over a box of
// w x h CSS pixels: "down" grows the vertical offset (D46), "right" the
// horizontal one.
func SwipeDelta(direction, momentum string, w, h float64) (dx, dy float64) {
	switch direction {
	case DirectionDown:
		dy = SwipeDistance(h, momentum)
	case DirectionUp:
		dy = -SwipeDistance(h, momentum)
	case DirectionRight:
		dx = SwipeDistance(w, momentum)
	case DirectionLeft:
		dx = -SwipeDistance(w, momentum)
	}
	return dx, dy
}
