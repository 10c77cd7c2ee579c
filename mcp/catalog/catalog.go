// Package catalog holds the tools an MCP session offers behind `call`
// (spec mcp.md §3): which ones an engine's manifest allows, in the spec's
// order, each with its closed JSON Schema, its listing line and its detail
// text, and the validation of a call's arguments against the schema.
package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/e2e-conform/toolkit/protocol/wire"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

// Grammar lists the grammar verbs in catalog order (spec §3.1); a name in
// it that a session lacks is UNSUPPORTED_CAPABILITY rather than
// UNKNOWN_TOOL.
var grammar = []string{"observe", "tap", "double_tap", "long_press", "right_click", "hover", "scroll_to", "type", "press",
	"dismiss_keyboard", "select", "check", "drag", "upload", "scroll", "navigate", "back", "screenshot", "tap_at",
	"hover_at", "type_at", "press_at", "select_at", "type_secret", "locate", "start_recording", "stop_recording"}

// IsGrammar reports whether name is a built-in catalog tool name.
func IsGrammar(name string) bool {
	for _, g := range grammar {
		if g == name {
			return true
		}
	}
	return false
}

// Prop is one argument of a tool.
type Prop struct {
	Name     string
	Required bool
	// Schema is the property's JSON Schema.
	Schema string
}

// Tool is one catalog tool.
type Tool struct {
	Name        string
	Description string
	ReadOnly    bool
	Props       []Prop
	schema      *jsonschema.Schema
	raw         json.RawMessage
}

// SchemaJSON is the tool's closed argument schema.
func (t *Tool) SchemaJSON() json.RawMessage { return t.raw }

// Catalog is the ordered set of tools of one session.
type Catalog struct {
	Tools  []*Tool
	byName map[string]*Tool
	target string
}

// Options describe what besides the manifest shapes the catalog.
type Options struct {
	// Target names the session's target, for messages.
	Target string
	// Secrets lists the configured secrets as `"name" (purpose)`; type_secret
	// is offered only when there is at least one.
	Secrets []string
}

const targetSchema = `{"type":"string","minLength":1,"description":"Node id from the newest observation, e.g. \"n42\""}`

func str(desc string, minLen int) string {
	return fmt.Sprintf(`{"type":"string","minLength":%d,"description":%q}`, minLen, desc)
}

const dirSchema = `{"enum":["up","down","left","right"],"description":"Direction of travel through the content"}`
const timesSchema = `{"type":"integer","minimum":1,"maximum":20,"description":"How many times, default 1"}`
const xSchema = `{"type":"number","minimum":0,"description":"Pixels from the left edge of the latest screenshot"}`
const ySchema = `{"type":"number","minimum":0,"description":"Pixels from the top edge of the latest screenshot"}`

// New builds the catalog a manifest allows.
func New(m wire.Manifest, o Options) (*Catalog, error) {
	has := m.HasAction
	lists := m.Lists
	keyboard := lists(wire.MethodType) && lists(wire.MethodPress)
	perform := lists(wire.MethodPerform)
	pointer := lists(wire.MethodPerformAt)
	pixels := lists(wire.MethodScreenshot)
	c := &Catalog{byName: map[string]*Tool{}, target: o.Target}
	add := func(name, desc string, ro bool, props ...Prop) {
		c.Tools = append(c.Tools, &Tool{Name: name, Description: desc, ReadOnly: ro, Props: props})
	}
	tgt := Prop{Name: "target", Required: true, Schema: targetSchema}
	node := func(name, kind, desc string) {
		if perform && has(kind) {
			add(name, desc, false, tgt)
		}
	}
	if !lists(wire.MethodObserve) {
		return nil, fmt.Errorf("the engine %q does not list engine/observe: nothing can be shown", m.Name)
	}
	add("observe", "Show the whole current screen: one line per node with its id, role, name, text, value and states. Node ids from it are valid until the next observation.", true)
	node("tap", wire.ActionTap, "Tap or click one node: the gesture for a button, link, menu item, tab, checkbox, row, or field.")
	node("double_tap", wire.ActionDoubleTap, "Double-tap or double-click one node.")
	node("long_press", wire.ActionLongPress, "Long-press one node (press and hold).")
	node("right_click", wire.ActionSecondaryTap, "Right-click (secondary tap) one node, e.g. to open a context menu.")
	node("hover", wire.ActionHover, "Move the pointer over one node without clicking, e.g. to show a tooltip or menu.")
	scrollInto := perform && has(wire.ActionScrollIntoView)
	paging := perform && has(wire.ActionSwipe)
	switch {
	case scrollInto && paging:
		add("scroll_to", "Bring content into view: a listed node by id, or a text by scrolling until a node reading it shows.", false,
			Prop{Name: "target", Schema: targetSchema}, Prop{Name: "text", Schema: `{"type":"string","minLength":1,"maxLength":200,"description":"Text to scroll to"}`},
			Prop{Name: "direction", Schema: dirSchema})
	case scrollInto:
		add("scroll_to", "Scroll a listed node into view.", false, tgt)
	case paging:
		add("scroll_to", "Scroll until a node reading a text is in view.", false,
			Prop{Name: "text", Required: true, Schema: `{"type":"string","minLength":1,"maxLength":200,"description":"Text to scroll to"}`},
			Prop{Name: "direction", Schema: dirSchema})
	}
	fill := perform && has(wire.ActionFill)
	valueProp := Prop{Name: "value", Required: true, Schema: `{"type":"string","description":"Text to type; may be empty"}`}
	switch {
	case fill && keyboard:
		add("type", "Type text into a field: a listed node by id (its content is replaced), or the focused field without a target.", false,
			Prop{Name: "target", Schema: targetSchema}, valueProp, Prop{Name: "replace", Schema: `{"type":"boolean","description":"Without target: replace the focused field's content"}`})
	case fill:
		add("type", "Type text into a field, replacing its content.", false, tgt, valueProp)
	case keyboard:
		add("type", "Type text into the focused field.", false, valueProp, Prop{Name: "replace", Schema: `{"type":"boolean","description":"Replace the focused field's content"}`})
	}
	keyProp := Prop{Name: "key", Required: true, Schema: `{"type":"string","minLength":1,"maxLength":64,"description":"A key such as \"Enter\", \"Tab\", \"Control+a\" or one character"}`}
	pressNode := perform && has(wire.ActionPress)
	switch {
	case pressNode && keyboard:
		add("press", "Press a key on a listed node, or on the focused field without a target.", false,
			Prop{Name: "target", Schema: targetSchema}, keyProp, Prop{Name: "times", Schema: timesSchema})
	case pressNode:
		add("press", "Press a key on a listed node.", false, tgt, keyProp, Prop{Name: "times", Schema: timesSchema})
	case keyboard:
		add("press", "Press a key on the focused field.", false, keyProp, Prop{Name: "times", Schema: timesSchema})
	}
	if lists(wire.MethodDismiss) {
		add("dismiss_keyboard", "Dismiss the on-screen keyboard.", false)
	}
	if perform && has(wire.ActionSelectOption) {
		add("select", "Select an option by its label in a listed select box or list box.", false, tgt,
			Prop{Name: "value", Required: true, Schema: str("The option's label", 1)})
	}
	if perform && has(wire.ActionCheck) && has(wire.ActionUncheck) {
		add("check", "Check a checkbox, radio button or switch (never flips one already checked); checked false unchecks it.", false, tgt,
			Prop{Name: "checked", Schema: `{"type":"boolean","description":"false unchecks; default true"}`})
	}
	if perform && has(wire.ActionDragTo) {
		add("drag", "Drag one listed node onto another.", false, tgt, Prop{Name: "to", Required: true, Schema: targetSchema})
	}
	if perform && has(wire.ActionSetInputFiles) {
		add("upload", "Set the files of a file input, from paths relative to the project root.", false, tgt,
			Prop{Name: "files", Required: true, Schema: `{"type":"array","minItems":1,"maxItems":64,"items":{"type":"string","minLength":1},"description":"Project-relative file paths"}`})
	}
	if paging {
		add("scroll", "Scroll the screen, or a listed scrollable node, by about a screen per time.", false,
			Prop{Name: "direction", Required: true, Schema: dirSchema}, Prop{Name: "target", Schema: targetSchema}, Prop{Name: "times", Schema: timesSchema})
	}
	if lists(wire.MethodOpen) {
		add("navigate", "Open a URL: absolute http(s), about:blank, or a path relative to the app URL.", false,
			Prop{Name: "url", Required: true, Schema: str("URL or path", 1)})
	}
	if lists(wire.MethodBack) {
		add("back", "Go back one step in history.", false)
	}
	if pixels {
		add("screenshot", "Take a masked screenshot of the screen; point tools then take coordinates in its pixels.", true)
		pt := func(name, kind, desc string, extra ...Prop) {
			if (perform && has(kind)) || (pointer && m.HasPointerAction(kind)) {
				add(name, desc, false, append([]Prop{{Name: "x", Required: true, Schema: xSchema}, {Name: "y", Required: true, Schema: ySchema}}, extra...)...)
			}
		}
		pt("tap_at", wire.ActionTap, "Tap at a point of the latest screenshot.")
		pt("hover_at", wire.ActionHover, "Hover at a point of the latest screenshot.")
		if fill || keyboard {
			extra := []Prop{valueProp}
			if keyboard {
				extra = append(extra, Prop{Name: "replace", Schema: `{"type":"boolean","description":"Replace the field's content"}`})
			}
			add("type_at", "Type into the field at a point of the latest screenshot.", false,
				append([]Prop{{Name: "x", Required: true, Schema: xSchema}, {Name: "y", Required: true, Schema: ySchema}}, extra...)...)
		}
		if pressNode || keyboard {
			add("press_at", "Press a key on the control at a point of the latest screenshot.", false,
				Prop{Name: "x", Required: true, Schema: xSchema}, Prop{Name: "y", Required: true, Schema: ySchema}, keyProp)
		}
		if perform && has(wire.ActionSelectOption) {
			add("select_at", "Select an option in the control at a point of the latest screenshot.", false,
				Prop{Name: "x", Required: true, Schema: xSchema}, Prop{Name: "y", Required: true, Schema: ySchema},
				Prop{Name: "value", Required: true, Schema: str("The option's label", 1)})
		}
	}
	if fill && len(o.Secrets) > 0 {
		add("type_secret", "Fill a configured secret into a listed input; you never see the value. Secrets: "+strings.Join(o.Secrets, ", ")+".", false,
			tgt, Prop{Name: "name", Required: true, Schema: str("Secret name from the config", 1)})
	}
	add("locate", "Check which nodes a locator matches before writing it into a test, and get its code. Give exactly one of role, text, label, placeholder or testId; name narrows a role.", true,
		Prop{Name: "role", Schema: str("Role, e.g. \"button\"", 1)}, Prop{Name: "name", Schema: str("Accessible name, with role", 1)},
		Prop{Name: "text", Schema: str("Visible text", 1)}, Prop{Name: "label", Schema: str("Label text", 1)},
		Prop{Name: "placeholder", Schema: str("Placeholder text", 1)}, Prop{Name: "testId", Schema: str("Test id", 1)},
		Prop{Name: "exact", Schema: `{"type":"boolean","description":"false: case-insensitive substring; default true"}`})
	if lists(wire.MethodStartVideo) && lists(wire.MethodStopVideo) {
		add("start_recording", "Start recording a video of the session; stop_recording saves it.", false,
			Prop{Name: "name", Schema: `{"type":"string","pattern":"^[A-Za-z0-9][A-Za-z0-9_-]*$","maxLength":64,"description":"File name part"}`})
		add("stop_recording", "Stop the running recording and save its video.", false)
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	for _, t := range c.Tools {
		t.raw = buildSchema(t.Props)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.raw))
		if err != nil {
			return nil, fmt.Errorf("catalog tool %s: %w", t.Name, err)
		}
		url := "mem:///catalog/" + t.Name + ".json"
		if err := comp.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("catalog tool %s: %w", t.Name, err)
		}
		if t.schema, err = comp.Compile(url); err != nil {
			return nil, fmt.Errorf("catalog tool %s: %w", t.Name, err)
		}
		c.byName[t.Name] = t
	}
	return c, nil
}

func buildSchema(props []Prop) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","additionalProperties":false,"properties":{`)
	var req []string
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", p.Name, p.Schema)
		if p.Required {
			req = append(req, p.Name)
		}
	}
	b.WriteString("}")
	if len(req) > 0 {
		r, _ := json.Marshal(req)
		b.WriteString(`,"required":`)
		b.Write(r)
	}
	b.WriteString("}")
	return json.RawMessage(b.Bytes())
}

// Names lists the tool names in order.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.Tools))
	for i, t := range c.Tools {
		out[i] = t.Name
	}
	return out
}

// Lookup finds a tool: UNSUPPORTED_CAPABILITY for a grammar verb the
// session lacks, UNKNOWN_TOOL for any other missing name.
func (c *Catalog) Lookup(name string) (*Tool, error) {
	if t, ok := c.byName[name]; ok {
		return t, nil
	}
	if IsGrammar(name) || name == "dismiss_keyboard" {
		return nil, &mcperr.Error{Code: mcperr.UnsupportedCapability, Message: fmt.Sprintf("tool %q is not available in this session: the engine of target %q declares no such action; tools lists what it can do", name, c.target)}
	}
	return nil, &mcperr.Error{Code: mcperr.UnknownTool, Message: fmt.Sprintf("tool %q is not available in this session; tools: %s", name, strings.Join(c.Names(), ", "))}
}

// Validate checks args (nil is {}) against the tool's closed schema and
// returns them decoded. A failure is INVALID_ARGUMENT naming each offending
// path.
func (t *Tool) Validate(args json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, t.invalid([]string{"args: not valid JSON"})
	}
	if err := t.schema.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, t.invalid([]string{err.Error()})
		}
		return nil, t.invalid(clauses(ve))
	}
	var out map[string]any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if err := d.Decode(&out); err != nil {
		return nil, t.invalid([]string{"args must be an object"})
	}
	return out, nil
}

func (t *Tool) invalid(cl []string) error {
	return &mcperr.Error{Code: mcperr.InvalidArgument, Message: fmt.Sprintf("call %s: %s; tools {tool: %q} shows its arguments", t.Name, strings.Join(cl, "; "), t.Name)}
}

func clauses(ve *jsonschema.ValidationError) []string {
	p := message.NewPrinter(language.English)
	var out []string
	seen := map[string]bool{}
	addc := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		path := strings.Join(e.InstanceLocation, ".")
		switch k := e.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			for _, name := range k.Properties {
				addc(fmt.Sprintf("Unrecognized key: %q", name))
			}
		case *kind.Required:
			for _, name := range k.Missing {
				addc(joinPath(path, name) + ": required")
			}
		default:
			if path == "" {
				path = "args"
			}
			addc(path + ": " + e.ErrorKind.LocalizedString(p))
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// Signature is the tool's arguments for a listing: `{a, b?}`, or "" when it
// has none.
func (t *Tool) Signature() string {
	if len(t.Props) == 0 {
		return ""
	}
	parts := make([]string, len(t.Props))
	for i, p := range t.Props {
		parts[i] = p.Name
		if !p.Required {
			parts[i] += "?"
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Line is the tool's listing line: `- <name>[ {args}]: <first sentence>[ [read-only]]`.
func (t *Tool) Line() string {
	var b strings.Builder
	b.WriteString("- ")
	b.WriteString(t.Name)
	if s := t.Signature(); s != "" {
		b.WriteString(" " + s)
	}
	b.WriteString(": ")
	fs := FirstSentence(t.Description)
	if fs == "" {
		fs = t.Name
	}
	b.WriteString(fs)
	if t.ReadOnly {
		b.WriteString(" [read-only]")
	}
	return b.String()
}

// Detail is the text of `tools {tool}`.
func (t *Tool) Detail() string {
	var b strings.Builder
	b.WriteString(t.Name)
	if t.ReadOnly {
		b.WriteString(" [read-only]")
	}
	b.WriteString("\n" + t.Description + "\n\nArguments (JSON Schema):\n")
	var out bytes.Buffer
	_ = json.Indent(&out, t.raw, "", "  ")
	b.Write(out.Bytes())
	return b.String()
}

// Lines lists every tool line.
func (c *Catalog) Lines() []string {
	out := make([]string, len(c.Tools))
	for i, t := range c.Tools {
		out[i] = t.Line()
	}
	return out
}

var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs."}

// MaxSentence is the longest first sentence shown in a listing.
const MaxSentence = 160

// FirstSentence returns the description's first sentence (spec §2.9):
// whitespace collapsed, abbreviations protected, cut at the first `.`, `!`
// or `?` followed by whitespace or the end, and shortened to 160 characters
// with `…`.
func FirstSentence(desc string) string {
	s := strings.Join(strings.Fields(desc), " ")
	const mark = "\x00"
	for _, a := range abbreviations {
		s = strings.ReplaceAll(s, a, strings.TrimSuffix(a, ".")+mark)
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == '!' || s[i] == '?' {
			if i+1 == len(s) || s[i+1] == ' ' {
				s = s[:i+1]
				break
			}
		}
	}
	s = strings.ReplaceAll(s, mark, ".")
	if utf8.RuneCountInString(s) > MaxSentence {
		r := []rune(s)[:MaxSentence-1]
		cut := string(r)
		if i := strings.LastIndex(cut, " "); i > 0 {
			cut = cut[:i]
		}
		cut = strings.TrimRight(cut, ",;:")
		s = cut + "…"
	}
	return s
}
