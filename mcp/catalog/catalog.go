// Package catalog holds the tools an MCP session offers behind `call`
// (spec mcp.md §3): which ones an engine's manifest allows, in the spec's
// order, each with its closed JSON Schema, its listing line and its detail
// text, and the validation of a call's arguments against the schema.
package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// IsGrammar reports whether name is a built-in catalog tool name: a name
// of the tool table, which a session lacking it answers with
// UNSUPPORTED_CAPABILITY rather than UNKNOWN_TOOL.
func IsGrammar(name string) bool {
	return slices.ContainsFunc(table, func(s spec) bool { return s.name == name })
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
	run         func(ctx context.Context, d Driver, args json.RawMessage) (*Result, error)
}

// SchemaJSON is the tool's closed argument schema.
func (t *Tool) SchemaJSON() json.RawMessage { return t.raw }

// Run runs the tool on d with arguments Validate accepted.
func (t *Tool) Run(ctx context.Context, d Driver, args json.RawMessage) (*Result, error) {
	return t.run(ctx, d, normalArgs(args))
}

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

// New builds the catalog a manifest allows: the rows of the tool table
// whose gate passes, the first of each name (spec §3.1, §3.3).
func New(m wire.Manifest, o Options) (*Catalog, error) {
	c := &Catalog{byName: map[string]*Tool{}, target: o.Target}
	if !m.Lists(wire.MethodObserve) {
		return nil, fmt.Errorf("the engine %q does not list engine/observe: nothing can be shown", m.Name)
	}
	cp := capsOf(m, o)
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	for _, sp := range table {
		if c.byName[sp.name] != nil || !sp.gate(cp) {
			continue
		}
		t := &Tool{Name: sp.name, Description: sp.desc(o), ReadOnly: sp.readOnly, run: sp.run}
		inferred, err := sp.schema()
		if err != nil {
			return nil, fmt.Errorf("catalog tool %s: %w", t.Name, err)
		}
		if t.raw, err = json.Marshal(inferred); err != nil {
			return nil, fmt.Errorf("catalog tool %s: %w", t.Name, err)
		}
		for _, name := range inferred.PropertyOrder {
			ps, err := json.Marshal(inferred.Properties[name])
			if err != nil {
				return nil, fmt.Errorf("catalog tool %s: %w", t.Name, err)
			}
			t.Props = append(t.Props, Prop{Name: name, Required: slices.Contains(inferred.Required, name), Schema: string(ps)})
		}
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
		c.Tools = append(c.Tools, t)
		c.byName[t.Name] = t
	}
	return c, nil
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
	if IsGrammar(name) {
		return nil, &mcperr.Error{Code: mcperr.UnsupportedCapability, Message: fmt.Sprintf("tool %q is not available in this session: the engine of target %q declares no such action; tools lists what it can do", name, c.target)}
	}
	return nil, &mcperr.Error{Code: mcperr.UnknownTool, Message: fmt.Sprintf("tool %q is not available in this session; tools: %s", name, strings.Join(c.Names(), ", "))}
}

// Validate checks args (nil is {}) against the tool's closed schema and
// returns them decoded. A failure is INVALID_ARGUMENT naming each offending
// path.
func (t *Tool) Validate(args json.RawMessage) (map[string]any, error) {
	args = normalArgs(args)
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

// normalArgs reads absent and null arguments as {}.
func normalArgs(args json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		return json.RawMessage(`{}`)
	}
	return args
}

func invalidArg(format string, args ...any) error {
	return mcperr.New(mcperr.InvalidArgument, format, args...)
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
