package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/e2e-conform/toolkit/mcp/policy"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Result is the outcome of a catalog tool.
type Result struct {
	Text    string
	Images  []Image
	IsError bool
}

// Image is one image part of a Result.
type Image struct {
	Data     []byte
	MIMEType string
}

// TextResult returns a Result of text alone.
func TextResult(s string) *Result { return &Result{Text: s} }

// Action is one grammar action a tool asks the session to run: what to
// do, the lead of its success, how a failure names it, and whether a
// change of the screen is expected. The session runs Do, re-observes and
// answers with the lead and the screen update, or the failure lead and the
// re-observed screen (spec mcp.md §3.5).
//
// Lead and Attempt are read after Do returns, so Do may set them (fill_form
// reports each field so). Target is the node acted on, "" for the focused
// field or none: a secure one shows no change when typed into.
type Action struct {
	Lead, Attempt string
	Expect        bool
	Target        string
	Do            func(ctx context.Context) error
}

// Driver is what a catalog tool runs on: the session, with its engine
// connection and the newest observation. Each method acts through the
// engine; node ids are checked against the newest observation.
type Driver interface {
	// Manifest is the engine's manifest.
	Manifest() wire.Manifest
	// Perform sends engine/perform on the node id (and la.Target's id).
	Perform(ctx context.Context, id string, la wire.LocatorAction) error
	// Type and Press send keyboard/type and keyboard/press to the
	// focused field; Dismiss sends keyboard/dismiss.
	Type(ctx context.Context, value string, replace bool) error
	Press(ctx context.Context, key string) error
	Dismiss(ctx context.Context) error
	// Navigate opens a URL or a path relative to the app URL, after the
	// navigation policy allowed it; Back goes back in history.
	Navigate(ctx context.Context, raw string) error
	Back(ctx context.Context) error
	// Scroll swipes the node id (the root when "") times, re-observing
	// between swipes; ScrollToText swipes until a node reading text is in
	// view.
	Scroll(ctx context.Context, id, direction string, times int) error
	ScrollToText(ctx context.Context, text, direction string) error
	// Upload sets the files (project-relative paths, after the upload
	// policy) of the file input id.
	Upload(ctx context.Context, id string, files []string) error
	// FillSecret fills the configured secret name into the input id.
	FillSecret(ctx context.Context, id, name string) error
	// Act runs an action and answers with its result.
	Act(ctx context.Context, a *Action) (*Result, error)

	// Observe answers observe, Screenshot screenshot, Locate locate,
	// StartRecording and StopRecording the recording tools, Point the
	// point tools (tap_at, …) of spec §3.
	Observe(ctx context.Context) (*Result, error)
	Screenshot(ctx context.Context) (*Result, error)
	Locate(ctx context.Context, in LocateArgs) (*Result, error)
	StartRecording(ctx context.Context, name string) (*Result, error)
	StopRecording(ctx context.Context) (*Result, error)
	Point(ctx context.Context, tool string, in PointArgs) (*Result, error)

	// This host's additions beside the upstream catalog: ObserveWithin
	// answers observe {within}, WaitFor wait_for, FillForm fill_form and
	// Dialogs dialogs.
	ObserveWithin(ctx context.Context, id string) (*Result, error)
	WaitFor(ctx context.Context, in WaitForArgs) (*Result, error)
	FillForm(ctx context.Context, fields []FormField) (*Result, error)
	Dialogs(ctx context.Context, in DialogsArgs) (*Result, error)
}

// Argument types with the constraints of spec §3.3; the schema of each is
// in argSchemas.
type (
	// NodeID is a node id of the newest observation.
	NodeID string
	// Direction is up, down, left or right.
	Direction string
	// Times is a repeat count, 1 through 20.
	Times int
	// PixelX and PixelY are a point of the latest screenshot.
	PixelX float64
	PixelY float64
	// Key is a key name such as "Enter" or "Control+a".
	Key string
	// ScrollText is a text to scroll to.
	ScrollText string
	// Text is a non-empty string.
	Text string
	// Files are project-relative file paths.
	Files []string
	// RecordingName is the file name part of a recording.
	RecordingName string
	// WaitSeconds is wait_for's bound, more than 0 and at most
	// MaxWaitSeconds.
	WaitSeconds float64
)

// MaxWaitSeconds bounds wait_for; DefaultWaitSeconds is its default.
const (
	MaxWaitSeconds     = 30
	DefaultWaitSeconds = 5
)

// UnmarshalJSON reads a node id, a leading "#" (as listings print it:
// "#n16") dropped.
func (n *NodeID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*n = NodeID(strings.TrimPrefix(s, "#"))
	return nil
}

// UnmarshalJSON reads any JSON number of integer value (2.0 is one).
func (t *Times) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*t = Times(f)
	return nil
}

func ptr[T any](v T) *T { return &v }

// argSchemas are the JSON Schemas of the argument types.
var argSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[NodeID]():        {Type: "string", MinLength: ptr(1), Description: `Node id from the newest observation, e.g. "n42" (or "#n42")`},
	reflect.TypeFor[WaitSeconds]():   {Type: "number", ExclusiveMinimum: ptr(0.0), Maximum: ptr(float64(MaxWaitSeconds)), Description: "How long to wait at most, in seconds; default 5"},
	reflect.TypeFor[Direction]():     {Enum: []any{wire.DirectionUp, wire.DirectionDown, wire.DirectionLeft, wire.DirectionRight}, Description: "Direction of travel through the content"},
	reflect.TypeFor[Times]():         {Type: "integer", Minimum: ptr(1.0), Maximum: ptr(20.0), Description: "How many times, default 1"},
	reflect.TypeFor[PixelX]():        {Type: "number", Minimum: ptr(0.0), Description: "Pixels from the left edge of the latest screenshot"},
	reflect.TypeFor[PixelY]():        {Type: "number", Minimum: ptr(0.0), Description: "Pixels from the top edge of the latest screenshot"},
	reflect.TypeFor[Key]():           {Type: "string", MinLength: ptr(1), MaxLength: ptr(64), Description: `A key such as "Enter", "Tab", "Control+a" or one character`},
	reflect.TypeFor[ScrollText]():    {Type: "string", MinLength: ptr(1), MaxLength: ptr(200), Description: "Text to scroll to"},
	reflect.TypeFor[Text]():          {Type: "string", MinLength: ptr(1)},
	reflect.TypeFor[Files]():         {Type: "array", MinItems: ptr(1), MaxItems: ptr(64), Items: &jsonschema.Schema{Type: "string", MinLength: ptr(1)}, Description: "Project-relative file paths"},
	reflect.TypeFor[RecordingName](): {Type: "string", Pattern: "^[A-Za-z0-9][A-Za-z0-9_-]*$", MaxLength: ptr(64), Description: "File name part"},
	reflect.TypeFor[FormFields](): {Type: "array", MinItems: ptr(1), MaxItems: ptr(MaxFormFields), Description: "The fields to fill, in order",
		Items: &jsonschema.Schema{Type: "object", Required: []string{"target", "value"}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
			PropertyOrder: []string{"target", "value"},
			Properties: map[string]*jsonschema.Schema{
				"target": {Type: "string", MinLength: ptr(1), Description: `Node id from the newest observation, e.g. "n42"`},
				"value":  {Type: "string", Description: `Text to type; "true" or "false" for a checkbox, radio or switch; the option's label for a select box`},
			}}},
}

// SchemaFor infers the closed JSON Schema of the argument struct In, as
// the MCP SDK's AddTool does (github.com/google/jsonschema-go), with the
// argument types of types: a field without omitempty is required, no
// other member is allowed, and no member may be null.
func SchemaFor[In any](types map[reflect.Type]*jsonschema.Schema) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		return nil, err
	}
	notNull(s)
	return s, nil
}

// notNull drops the "null" type jsonschema-go allows for pointers and
// slices: an absent member is how an argument is left out.
func notNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if i := slices.Index(s.Types, "null"); i >= 0 {
		s.Types = slices.Delete(slices.Clone(s.Types), i, i+1)
		switch len(s.Types) {
		case 0:
			s.Types = nil
		case 1:
			s.Type, s.Types = s.Types[0], nil
		}
	}
	for _, p := range s.Properties {
		notNull(p)
	}
	notNull(s.Items)
}

// The argument structs of the catalog tools (spec §3.3). Field order is
// the order of the listing's signature.
type (
	// NoArgs is a tool without arguments.
	NoArgs struct{}
	// NodeArgs is a node gesture (tap, hover, …) or scroll_to by id.
	NodeArgs struct {
		Target NodeID `json:"target"`
	}
	// ScrollToArgs is scroll_to by id, text or both.
	ScrollToArgs struct {
		Target    NodeID     `json:"target,omitempty"`
		Text      ScrollText `json:"text,omitempty"`
		Direction Direction  `json:"direction,omitempty"`
	}
	// ScrollToTextArgs is scroll_to by text.
	ScrollToTextArgs struct {
		Text      ScrollText `json:"text"`
		Direction Direction  `json:"direction,omitempty"`
	}
	// TypeArgs is type on a node or the focused field.
	TypeArgs struct {
		Target  NodeID `json:"target,omitempty"`
		Value   string `json:"value" jsonschema:"Text to type; may be empty"`
		Replace bool   `json:"replace,omitempty" jsonschema:"Without target: replace the focused field's content"`
	}
	// TypeNodeArgs is type on a node.
	TypeNodeArgs struct {
		Target NodeID `json:"target"`
		Value  string `json:"value" jsonschema:"Text to type; may be empty"`
	}
	// TypeFocusedArgs is type on the focused field.
	TypeFocusedArgs struct {
		Value   string `json:"value" jsonschema:"Text to type; may be empty"`
		Replace bool   `json:"replace,omitempty" jsonschema:"Replace the focused field's content"`
	}
	// PressArgs is press on a node or the focused field.
	PressArgs struct {
		Target NodeID `json:"target,omitempty"`
		Key    Key    `json:"key"`
		Times  Times  `json:"times,omitempty"`
	}
	// PressNodeArgs is press on a node.
	PressNodeArgs struct {
		Target NodeID `json:"target"`
		Key    Key    `json:"key"`
		Times  Times  `json:"times,omitempty"`
	}
	// PressFocusedArgs is press on the focused field.
	PressFocusedArgs struct {
		Key   Key   `json:"key"`
		Times Times `json:"times,omitempty"`
	}
	// SelectArgs is select.
	SelectArgs struct {
		Target NodeID `json:"target"`
		Value  Text   `json:"value" jsonschema:"The option's label"`
	}
	// CheckArgs is check; Checked nil is true.
	CheckArgs struct {
		Target  NodeID `json:"target"`
		Checked *bool  `json:"checked,omitempty" jsonschema:"false unchecks; default true"`
	}
	// DragArgs is drag.
	DragArgs struct {
		Target NodeID `json:"target"`
		To     NodeID `json:"to"`
	}
	// UploadArgs is upload.
	UploadArgs struct {
		Target NodeID `json:"target"`
		Files  Files  `json:"files"`
	}
	// ScrollArgs is scroll.
	ScrollArgs struct {
		Direction Direction `json:"direction"`
		Target    NodeID    `json:"target,omitempty"`
		Times     Times     `json:"times,omitempty"`
	}
	// NavigateArgs is navigate.
	NavigateArgs struct {
		URL Text `json:"url" jsonschema:"URL or path"`
	}
	// PointArgs are the arguments of every point tool; each tool's own
	// struct below has the ones it takes.
	PointArgs struct {
		X       PixelX
		Y       PixelY
		Value   string
		Key     string
		Replace bool
	}
	// TapAtArgs is tap_at or hover_at.
	TapAtArgs struct {
		X PixelX `json:"x"`
		Y PixelY `json:"y"`
	}
	// TypeAtArgs is type_at with a keyboard.
	TypeAtArgs struct {
		X       PixelX `json:"x"`
		Y       PixelY `json:"y"`
		Value   string `json:"value" jsonschema:"Text to type; may be empty"`
		Replace bool   `json:"replace,omitempty" jsonschema:"Replace the field's content"`
	}
	// TypeAtFillArgs is type_at without a keyboard.
	TypeAtFillArgs struct {
		X     PixelX `json:"x"`
		Y     PixelY `json:"y"`
		Value string `json:"value" jsonschema:"Text to type; may be empty"`
	}
	// PressAtArgs is press_at.
	PressAtArgs struct {
		X   PixelX `json:"x"`
		Y   PixelY `json:"y"`
		Key Key    `json:"key"`
	}
	// SelectAtArgs is select_at.
	SelectAtArgs struct {
		X     PixelX `json:"x"`
		Y     PixelY `json:"y"`
		Value Text   `json:"value" jsonschema:"The option's label"`
	}
	// TypeSecretArgs is type_secret.
	TypeSecretArgs struct {
		Target NodeID `json:"target"`
		Name   Text   `json:"name" jsonschema:"Secret name from the config"`
	}
	// LocateArgs is locate; Exact nil is true.
	LocateArgs struct {
		Role        Text  `json:"role,omitempty" jsonschema:"Role, e.g. \"button\""`
		Name        Text  `json:"name,omitempty" jsonschema:"Accessible name, with role"`
		Text        Text  `json:"text,omitempty" jsonschema:"Visible text"`
		Label       Text  `json:"label,omitempty" jsonschema:"Label text"`
		Placeholder Text  `json:"placeholder,omitempty" jsonschema:"Placeholder text"`
		TestID      Text  `json:"testId,omitempty" jsonschema:"Test id"`
		Exact       *bool `json:"exact,omitempty" jsonschema:"false: case-insensitive substring; default true"`
	}
	// RecordArgs is start_recording.
	RecordArgs struct {
		Name RecordingName `json:"name,omitempty"`
	}
	// ObserveArgs is observe: the whole screen, or one subtree.
	ObserveArgs struct {
		Within NodeID `json:"within,omitempty" jsonschema:"List only the subtree of this node id (e.g. a table or dialog of a long page)"`
	}
	// WaitForArgs is wait_for: exactly one of Text and Role; Name only
	// with Role.
	WaitForArgs struct {
		Text    Text        `json:"text,omitempty" jsonschema:"A text a node's name, text or value contains"`
		Role    Text        `json:"role,omitempty" jsonschema:"A role, e.g. \"dialog\" or \"button\""`
		Name    Text        `json:"name,omitempty" jsonschema:"With role: the node's name contains it"`
		Gone    bool        `json:"gone,omitempty" jsonschema:"true: wait until no such node is on screen"`
		Timeout WaitSeconds `json:"timeout,omitempty"`
	}
	// FormField is one field of fill_form.
	FormField struct {
		Target NodeID `json:"target"`
		Value  string `json:"value" jsonschema:"Text to type; \"true\" or \"false\" for a checkbox, radio or switch; the option's label for a select box"`
	}
	// FillFormArgs is fill_form.
	FillFormArgs struct {
		Fields FormFields `json:"fields"`
	}
	// FormFields are fill_form's fields, 1 to MaxFormFields.
	FormFields []FormField
	// DialogsArgs is dialogs.
	DialogsArgs struct {
		Accept     bool   `json:"accept" jsonschema:"true: accept native dialogs (OK); false: dismiss them (Cancel), the default"`
		PromptText string `json:"promptText,omitempty" jsonschema:"With accept: the text a prompt dialog answers; default the prompt's own default"`
	}
)

// MaxFormFields is the most fields one fill_form call fills.
const MaxFormFields = 50

// caps is what a manifest and the options offer the tool gates.
type caps struct {
	m                                      wire.Manifest
	o                                      Options
	perform, keyboard, pointer, pixels     bool
	fill, pressNode, scrollInto, paging    bool
	observe, dismiss, open, back, recorder bool
}

func capsOf(m wire.Manifest, o Options) caps {
	perform := m.Lists(wire.MethodPerform)
	c := caps{m: m, o: o, perform: perform,
		keyboard:   m.Lists(wire.MethodType) && m.Lists(wire.MethodPress),
		pointer:    m.Lists(wire.MethodPerformAt),
		pixels:     m.Lists(wire.MethodScreenshot),
		observe:    m.Lists(wire.MethodObserve),
		dismiss:    m.Lists(wire.MethodDismiss),
		open:       m.Lists(wire.MethodOpen),
		back:       m.Lists(wire.MethodBack),
		recorder:   m.Lists(wire.MethodStartVideo) && m.Lists(wire.MethodStopVideo),
		fill:       perform && m.HasAction(wire.ActionFill),
		pressNode:  perform && m.HasAction(wire.ActionPress),
		scrollInto: perform && m.HasAction(wire.ActionScrollIntoView),
		paging:     perform && m.HasAction(wire.ActionSwipe),
	}
	return c
}

// acts reports whether engine/perform honors kind.
func (c caps) acts(kind string) bool { return c.perform && c.m.HasAction(kind) }

// atPoint reports whether a point tool can act with kind: on the node
// there, or at the point.
func (c caps) atPoint(kind string) bool {
	return c.pixels && (c.acts(kind) || (c.pointer && c.m.HasPointerAction(kind)))
}

// spec is one row of the tool table: a variant of a catalog tool, offered
// when its gate passes; the first variant of a name whose gate passes is
// the session's.
type spec struct {
	name     string
	desc     func(Options) string
	readOnly bool
	gate     func(caps) bool
	// schema infers the variant's argument schema from its struct.
	schema func() (*jsonschema.Schema, error)
	// run decodes validated arguments into the struct and runs the tool.
	run func(ctx context.Context, d Driver, args json.RawMessage) (*Result, error)
}

// def makes a table row whose arguments are In.
func def[In any](name, desc string, ro bool, gate func(caps) bool, run func(ctx context.Context, d Driver, in In) (*Result, error)) spec {
	return spec{name: name, desc: func(Options) string { return desc }, readOnly: ro, gate: gate,
		schema: func() (*jsonschema.Schema, error) { return SchemaFor[In](argSchemas) },
		run: func(ctx context.Context, d Driver, args json.RawMessage) (*Result, error) {
			var in In
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, fmt.Errorf("decode the arguments of %s: %w", name, err)
			}
			return run(ctx, d, in)
		}}
}

// act makes a table row of a grammar action built from In.
func act[In any](name, desc string, gate func(caps) bool, build func(d Driver, in In) (*Action, error)) spec {
	return def(name, desc, false, gate, func(ctx context.Context, d Driver, in In) (*Result, error) {
		a, err := build(d, in)
		if err != nil {
			return nil, err
		}
		return d.Act(ctx, a)
	})
}

// node makes the row of a gesture on one node.
func node(name, kind, desc, lead, attempt string) spec {
	return act(name, desc, func(c caps) bool { return c.acts(kind) }, func(d Driver, in NodeArgs) (*Action, error) {
		id := string(in.Target)
		return perform(d, id, wire.LocatorAction{Kind: kind}, fmt.Sprintf(lead, id), fmt.Sprintf(attempt, id)), nil
	})
}

func perform(d Driver, id string, la wire.LocatorAction, lead, attempt string) *Action {
	return &Action{Lead: lead, Attempt: attempt, Expect: true, Target: id, Do: func(ctx context.Context) error { return d.Perform(ctx, id, la) }}
}

// repeat runs do times times.
func repeat(times Times, do func(ctx context.Context) error) func(ctx context.Context) error {
	n := max(int(times), 1)
	return func(ctx context.Context) error {
		for range n {
			if err := do(ctx); err != nil {
				return err
			}
		}
		return nil
	}
}

// focusOnly reports keys that move focus without a visible change.
func focusOnly(k wire.Key) bool {
	switch k.Name {
	case "Tab", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown":
		return true
	}
	return false
}

func typeAction(d Driver, target NodeID, value string, replace bool) (*Action, error) {
	if id := string(target); id != "" {
		return perform(d, id, wire.LocatorAction{Kind: wire.ActionFill, Value: value}, fmt.Sprintf("Typed into #%s.", id), fmt.Sprintf("type #%s", id)), nil
	}
	if m := d.Manifest(); !m.Lists(wire.MethodType) {
		return nil, invalidArg("call type: target: required; tools {tool: \"type\"} shows its arguments")
	}
	return &Action{Lead: "Typed into the focused field.", Attempt: "type into the focused field", Expect: true,
		Do: func(ctx context.Context) error { return d.Type(ctx, value, replace) }}, nil
}

func pressAction(d Driver, target NodeID, key Key, times Times) (*Action, error) {
	k, err := wire.ParseKey(string(key))
	if err != nil {
		return nil, invalidArg("call press: key: %v; tools {tool: \"press\"} shows its arguments", err)
	}
	expect := !focusOnly(k)
	on := "the focused field"
	var do func(ctx context.Context) error
	if id := string(target); id != "" {
		on = "#" + id
		do = func(ctx context.Context) error {
			return d.Perform(ctx, id, wire.LocatorAction{Kind: wire.ActionPress, Key: string(key)})
		}
	} else {
		if m := d.Manifest(); !m.Lists(wire.MethodType) {
			return nil, invalidArg("call press: target: required; tools {tool: \"press\"} shows its arguments")
		}
		do = func(ctx context.Context) error { return d.Press(ctx, string(key)) }
	}
	lead := fmt.Sprintf("Pressed %s on %s.", key, on)
	if times > 1 {
		lead = fmt.Sprintf("Pressed %s %d times on %s.", key, times, on)
	}
	return &Action{Lead: lead, Attempt: fmt.Sprintf("press %s on %s", key, on), Expect: expect, Do: repeat(times, do)}, nil
}

func scrollToAction(d Driver, target NodeID, text ScrollText, dir Direction) (*Action, error) {
	id := string(target)
	if id == "" && text == "" {
		return nil, invalidArg("scroll_to takes a listed node id as target, a text to reach, or both")
	}
	if m := d.Manifest(); id != "" && m.HasAction(wire.ActionScrollIntoView) {
		return perform(d, id, wire.LocatorAction{Kind: wire.ActionScrollIntoView}, fmt.Sprintf("Scrolled into view #%s.", id), fmt.Sprintf("scroll_to #%s", id)), nil
	}
	if dir == "" {
		dir = wire.DirectionDown
	}
	return &Action{Lead: fmt.Sprintf("Scrolled %s until %q was in view.", dir, text), Attempt: fmt.Sprintf("scroll_to %q", text), Expect: true,
		Do: func(ctx context.Context) error { return d.ScrollToText(ctx, string(text), string(dir)) }}, nil
}

func pointRow[In any](name, desc string, gate func(caps) bool, args func(In) PointArgs) spec {
	return def(name, desc, false, gate, func(ctx context.Context, d Driver, in In) (*Result, error) {
		return d.Point(ctx, name, args(in))
	})
}

// table is every catalog tool in catalog order (spec §3.1), each name's
// variants together.
var table = []spec{
	def("observe", "Show the whole current screen: one line per node with its id, role, name, text, value and states. Node ids from it are valid until the next observation. within lists one subtree only (this host's addition), e.g. a table or dialog of a long page.", true,
		func(c caps) bool { return true }, func(ctx context.Context, d Driver, in ObserveArgs) (*Result, error) {
			if in.Within != "" {
				return d.ObserveWithin(ctx, string(in.Within))
			}
			return d.Observe(ctx)
		}),
	node("tap", wire.ActionTap, "Tap or click one node: the gesture for a button, link, menu item, tab, checkbox, row, or field.", "Tapped #%s.", "tap #%s"),
	node("double_tap", wire.ActionDoubleTap, "Double-tap or double-click one node.", "Double-tapped #%s.", "double_tap #%s"),
	node("long_press", wire.ActionLongPress, "Long-press one node (press and hold).", "Long-pressed #%s.", "long_press #%s"),
	node("right_click", wire.ActionSecondaryTap, "Right-click (secondary tap) one node, e.g. to open a context menu.", "Right-clicked #%s.", "right_click #%s"),
	node("hover", wire.ActionHover, "Move the pointer over one node without clicking, e.g. to show a tooltip or menu.", "Hovered over #%s.", "hover #%s"),
	act("scroll_to", "Bring content into view: a listed node by id, or a text by scrolling until a node reading it shows.",
		func(c caps) bool { return c.scrollInto && c.paging }, func(d Driver, in ScrollToArgs) (*Action, error) {
			return scrollToAction(d, in.Target, in.Text, in.Direction)
		}),
	act("scroll_to", "Scroll a listed node into view.", func(c caps) bool { return c.scrollInto }, func(d Driver, in NodeArgs) (*Action, error) {
		return scrollToAction(d, in.Target, "", "")
	}),
	act("scroll_to", "Scroll until a node reading a text is in view.", func(c caps) bool { return c.paging }, func(d Driver, in ScrollToTextArgs) (*Action, error) {
		return scrollToAction(d, "", in.Text, in.Direction)
	}),
	act("type", "Type text into a field: a listed node by id (its content is replaced), or the focused field without a target.",
		func(c caps) bool { return c.fill && c.keyboard }, func(d Driver, in TypeArgs) (*Action, error) {
			return typeAction(d, in.Target, in.Value, in.Replace)
		}),
	act("type", "Type text into a field, replacing its content.", func(c caps) bool { return c.fill }, func(d Driver, in TypeNodeArgs) (*Action, error) {
		return typeAction(d, in.Target, in.Value, false)
	}),
	act("type", "Type text into the focused field.", func(c caps) bool { return c.keyboard }, func(d Driver, in TypeFocusedArgs) (*Action, error) {
		return typeAction(d, "", in.Value, in.Replace)
	}),
	act("press", "Press a key on a listed node, or on the focused field without a target.", func(c caps) bool { return c.pressNode && c.keyboard },
		func(d Driver, in PressArgs) (*Action, error) { return pressAction(d, in.Target, in.Key, in.Times) }),
	act("press", "Press a key on a listed node.", func(c caps) bool { return c.pressNode },
		func(d Driver, in PressNodeArgs) (*Action, error) { return pressAction(d, in.Target, in.Key, in.Times) }),
	act("press", "Press a key on the focused field.", func(c caps) bool { return c.keyboard },
		func(d Driver, in PressFocusedArgs) (*Action, error) { return pressAction(d, "", in.Key, in.Times) }),
	act("dismiss_keyboard", "Dismiss the on-screen keyboard.", func(c caps) bool { return c.dismiss }, func(d Driver, _ NoArgs) (*Action, error) {
		return &Action{Lead: "Dismissed the keyboard.", Attempt: "dismiss_keyboard", Expect: true, Do: d.Dismiss}, nil
	}),
	act("select", "Select an option by its label in a listed select box or list box.", func(c caps) bool { return c.acts(wire.ActionSelectOption) },
		func(d Driver, in SelectArgs) (*Action, error) {
			id, v := string(in.Target), string(in.Value)
			return perform(d, id, wire.LocatorAction{Kind: wire.ActionSelectOption, Option: wire.SelectOption{Text: v}},
				fmt.Sprintf("Selected %q in #%s.", v, id), fmt.Sprintf("select %q in #%s", v, id)), nil
		}),
	act("check", "Check a checkbox, radio button or switch (never flips one already checked); checked false unchecks it.",
		func(c caps) bool { return c.acts(wire.ActionCheck) && c.acts(wire.ActionUncheck) }, func(d Driver, in CheckArgs) (*Action, error) {
			id := string(in.Target)
			lead, kind := "Checked #%s.", wire.ActionCheck
			if in.Checked != nil && !*in.Checked {
				lead, kind = "Unchecked #%s.", wire.ActionUncheck
			}
			return perform(d, id, wire.LocatorAction{Kind: kind}, fmt.Sprintf(lead, id), fmt.Sprintf("check #%s", id)), nil
		}),
	act("drag", "Drag one listed node onto another.", func(c caps) bool { return c.acts(wire.ActionDragTo) }, func(d Driver, in DragArgs) (*Action, error) {
		id, to := string(in.Target), string(in.To)
		return perform(d, id, wire.LocatorAction{Kind: wire.ActionDragTo, Target: &wire.NodeRef{ID: to}},
			fmt.Sprintf("Dragged #%s to #%s.", id, to), fmt.Sprintf("drag #%s to #%s", id, to)), nil
	}),
	act("upload", "Set the files of a file input, from paths relative to the project root.", func(c caps) bool { return c.acts(wire.ActionSetInputFiles) },
		func(d Driver, in UploadArgs) (*Action, error) {
			id, files := string(in.Target), []string(in.Files)
			q := make([]string, len(files))
			for i, f := range files {
				q[i] = strconv.Quote(f)
			}
			first := ""
			if len(q) > 0 {
				first = q[0]
			}
			return &Action{Lead: fmt.Sprintf("Uploaded %s to #%s.", strings.Join(q, ", "), id), Attempt: fmt.Sprintf("upload %s to #%s", first, id), Expect: true,
				Do: func(ctx context.Context) error { return d.Upload(ctx, id, files) }}, nil
		}),
	act("scroll", "Scroll the screen, or a listed scrollable node, by about a screen per time.", func(c caps) bool { return c.paging },
		func(d Driver, in ScrollArgs) (*Action, error) {
			dir, id, times := string(in.Direction), string(in.Target), max(int(in.Times), 1)
			lead := fmt.Sprintf("Scrolled %s.", dir)
			if times > 1 {
				lead = fmt.Sprintf("Scrolled %s %d screens.", dir, times)
			}
			attempt := "scroll " + dir
			if id != "" {
				attempt += " #" + id
			}
			return &Action{Lead: lead, Attempt: attempt, Expect: true, Do: func(ctx context.Context) error { return d.Scroll(ctx, id, dir, times) }}, nil
		}),
	act("navigate", "Open a URL: absolute http(s), about:blank, or a path relative to the app URL.", func(c caps) bool { return c.open },
		func(d Driver, in NavigateArgs) (*Action, error) {
			raw := string(in.URL)
			if err := policy.NavigateArg(raw); err != nil {
				return nil, err
			}
			return &Action{Lead: fmt.Sprintf("Navigated to %s.", raw), Attempt: "navigate " + raw, Expect: true,
				Do: func(ctx context.Context) error { return d.Navigate(ctx, raw) }}, nil
		}),
	act("back", "Go back one step in history.", func(c caps) bool { return c.back }, func(d Driver, _ NoArgs) (*Action, error) {
		return &Action{Lead: "Navigated back.", Attempt: "back", Expect: true, Do: d.Back}, nil
	}),
	def("screenshot", "Take a masked screenshot of the screen; point tools then take coordinates in its pixels.", true,
		func(c caps) bool { return c.pixels }, func(ctx context.Context, d Driver, _ NoArgs) (*Result, error) { return d.Screenshot(ctx) }),
	pointRow("tap_at", "Tap at a point of the latest screenshot.", func(c caps) bool { return c.atPoint(wire.ActionTap) },
		func(in TapAtArgs) PointArgs { return PointArgs{X: in.X, Y: in.Y} }),
	pointRow("hover_at", "Hover at a point of the latest screenshot.", func(c caps) bool { return c.atPoint(wire.ActionHover) },
		func(in TapAtArgs) PointArgs { return PointArgs{X: in.X, Y: in.Y} }),
	pointRow("type_at", "Type into the field at a point of the latest screenshot.", func(c caps) bool { return c.pixels && c.keyboard },
		func(in TypeAtArgs) PointArgs {
			return PointArgs{X: in.X, Y: in.Y, Value: in.Value, Replace: in.Replace}
		}),
	pointRow("type_at", "Type into the field at a point of the latest screenshot.", func(c caps) bool { return c.pixels && c.fill },
		func(in TypeAtFillArgs) PointArgs { return PointArgs{X: in.X, Y: in.Y, Value: in.Value} }),
	pointRow("press_at", "Press a key on the control at a point of the latest screenshot.", func(c caps) bool { return c.pixels && (c.pressNode || c.keyboard) },
		func(in PressAtArgs) PointArgs { return PointArgs{X: in.X, Y: in.Y, Key: string(in.Key)} }),
	pointRow("select_at", "Select an option in the control at a point of the latest screenshot.", func(c caps) bool { return c.pixels && c.acts(wire.ActionSelectOption) },
		func(in SelectAtArgs) PointArgs { return PointArgs{X: in.X, Y: in.Y, Value: string(in.Value)} }),
	typeSecret,
	def("locate", "Check which nodes a locator matches before writing it into a test, and get its code. Give exactly one of role, text, label, placeholder or testId; name narrows a role.", true,
		func(c caps) bool { return true }, func(ctx context.Context, d Driver, in LocateArgs) (*Result, error) { return d.Locate(ctx, in) }),
	def("start_recording", "Start recording a video of the session; stop_recording saves it.", false,
		func(c caps) bool { return c.recorder }, func(ctx context.Context, d Driver, in RecordArgs) (*Result, error) {
			return d.StartRecording(ctx, string(in.Name))
		}),
	def("stop_recording", "Stop the running recording and save its video.", false,
		func(c caps) bool { return c.recorder }, func(ctx context.Context, d Driver, _ NoArgs) (*Result, error) { return d.StopRecording(ctx) }),
	// This host's additions beside the upstream catalog (mcp/README.md).
	def("fill_form", "Fill several fields in one call: each {target, value} types into a text field, checks (\"true\") or unchecks (\"false\") a checkbox, radio or switch, or selects the option labelled value in a select box; each field is reported. This host's addition.", false,
		func(c caps) bool { return c.fill }, func(ctx context.Context, d Driver, in FillFormArgs) (*Result, error) {
			return d.FillForm(ctx, in.Fields)
		}),
	def("wait_for", "Wait until a text or a node of a role (and name) appears, or with gone: true disappears, at most timeout seconds (default 5, at most 30). Answers with what changed on screen; this host's addition.", true,
		func(c caps) bool { return true }, func(ctx context.Context, d Driver, in WaitForArgs) (*Result, error) {
			n := 0
			for _, v := range []Text{in.Text, in.Role} {
				if v != "" {
					n++
				}
			}
			if n != 1 {
				return nil, invalidArg("call wait_for: give exactly one of text or role; tools {tool: \"wait_for\"} shows its arguments")
			}
			if in.Name != "" && in.Role == "" {
				return nil, invalidArg("call wait_for: name only narrows a role; tools {tool: \"wait_for\"} shows its arguments")
			}
			return d.WaitFor(ctx, in)
		}),
	def("dialogs", "Set how this session answers native dialogs (alert, confirm, prompt, beforeunload): accept true accepts each one from now on (OK; a prompt answers promptText, else its default), false dismisses them (Cancel), the default. This host's addition; it needs an engine that takes the dialog policy (the built-in web engine does).", false,
		func(c caps) bool { return c.perform }, func(ctx context.Context, d Driver, in DialogsArgs) (*Result, error) {
			if in.PromptText != "" && !in.Accept {
				return nil, invalidArg("call dialogs: promptText goes with accept: true; tools {tool: \"dialogs\"} shows its arguments")
			}
			return d.Dialogs(ctx, in)
		}),
}

// typeSecret is offered with a fill action and at least one secret; its
// description lists the secrets.
var typeSecret = func() spec {
	s := act("type_secret", "", func(c caps) bool { return c.fill && len(c.o.Secrets) > 0 }, func(d Driver, in TypeSecretArgs) (*Action, error) {
		id, name := string(in.Target), string(in.Name)
		return &Action{Lead: fmt.Sprintf("Filled secret %q into #%s; its value is masked in every observation.", name, id),
			Attempt: fmt.Sprintf("type_secret %q into #%s", name, id), Expect: true,
			Do: func(ctx context.Context) error { return d.FillSecret(ctx, id, name) }}, nil
	})
	s.desc = func(o Options) string {
		return "Fill a configured secret into a listed input; you never see the value. Secrets: " + strings.Join(o.Secrets, ", ") + "."
	}
	return s
}()
