// Package config loads e2e.config.json, the declarative configuration of the
// MCP host (spec mcp.md, decision 2): targets with an engine (a command to
// spawn, a host:port to dial, or the built-in web engine) and an app (URL,
// optional command with readyUrl), secrets read from environment variables
// or files, and the output directory. The file is validated against a JSON
// Schema embedded in the binary; errors name the JSON pointer.
package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

// FileName is the configuration file discovered from the working directory.
const FileName = "e2e.config.json"

// DefaultOutput is the output directory when the config names none.
const DefaultOutput = ".e2e"

//go:embed e2e.config.schema.json
var schemaJSON []byte

// Schema returns the embedded JSON Schema of e2e.config.json.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// Config is a loaded configuration.
type Config struct {
	// Path is the absolute path of the file; "" for a zero-config session.
	Path string `json:"-"`
	// Root is the project root: the file's directory.
	Root    string            `json:"-"`
	Targets []Target          `json:"targets"`
	Secrets map[string]Secret `json:"secrets,omitempty"`
	Output  string            `json:"output,omitempty"`
	// MaxObservationBytes is the observation byte limit of every listing
	// (0: the host's default).
	MaxObservationBytes int `json:"maxObservationBytes,omitempty"`
	// Trace is the trace mode of the config's attempts; "" is the default
	// of the environment (see TraceMode.Default).
	Trace TraceMode `json:"trace,omitempty"`
}

// TraceMode says which attempts keep a trace (spec mcp.md §3.8): one of
// the Trace* constants.
type TraceMode string

// Trace modes. A retry mode records on retries only; the retain modes
// record and keep the trace of a failed attempt only.
const (
	TraceOff                  TraceMode = "off"
	TraceOn                   TraceMode = "on"
	TraceRetainOnFailure      TraceMode = "retain-on-failure"
	TraceOnFirstRetry         TraceMode = "on-first-retry"
	TraceOnAllRetries         TraceMode = "on-all-retries"
	TraceRetainOnFirstFailure TraceMode = "retain-on-first-failure"
)

// DefaultTrace is the trace mode of a config that sets none: on locally,
// on-first-retry under CI (getenv("CI") set to anything but "", "0" or
// "false").
func DefaultTrace(getenv func(string) string) TraceMode {
	switch strings.ToLower(getenv("CI")) {
	case "", "0", "false":
		return TraceOn
	}
	return TraceOnFirstRetry
}

// Records reports whether an attempt under mode m records a trace: a
// retry mode records only on a retry, the other modes except off on every
// attempt.
func (m TraceMode) Records(retry bool) bool {
	switch m {
	case TraceOn, TraceRetainOnFailure, TraceRetainOnFirstFailure:
		return true
	case TraceOnFirstRetry, TraceOnAllRetries:
		return retry
	}
	return false
}

// Keeps reports whether the trace an attempt under mode m recorded is kept
// once the attempt closed: always under on and the retry modes (which
// record retries only), only after a failure under the retain modes.
func (m TraceMode) Keeps(passed bool) bool {
	switch m {
	case TraceOn, TraceOnFirstRetry, TraceOnAllRetries:
		return true
	case TraceRetainOnFailure, TraceRetainOnFirstFailure:
		return !passed
	}
	return false
}

// Target is one configured target.
type Target struct {
	Name     string          `json:"name"`
	Platform string          `json:"platform,omitempty"`
	Engine   Engine          `json:"engine"`
	Options  json.RawMessage `json:"options,omitempty"`
	App      App             `json:"app,omitempty"`
}

// Engine says how to reach a target's engine: exactly one of Command,
// Connect and Builtin is set.
type Engine struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	Connect string            `json:"connect,omitempty"`
	Builtin string            `json:"builtin,omitempty"`
}

// App is a target's app: its URL and an optional command serving it.
type App struct {
	URL      string            `json:"url,omitempty"`
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	ReadyURL string            `json:"readyUrl,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
}

// Secret is one declared secret: its source and purpose.
type Secret struct {
	Env      string `json:"env,omitempty"`
	File     string `json:"file,omitempty"`
	Purpose  string `json:"purpose,omitempty"`
	Username string `json:"username,omitempty"`
}

// PurposeOrDefault is the secret's purpose, "generic-secret" when unset.
func (s Secret) PurposeOrDefault() string {
	if s.Purpose == "" {
		return "generic-secret"
	}
	return s.Purpose
}

// Loader validates and loads configuration files. It holds the compiled
// schema; safe for concurrent use.
type Loader struct {
	schema *jsonschema.Schema
}

// NewLoader compiles the embedded schema.
func NewLoader() (*Loader, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("config schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	const id = "https://e2e-conform.invalid/schemas/e2e-config-v1.schema.json"
	if err := c.AddResource(id, doc); err != nil {
		return nil, fmt.Errorf("config schema: %w", err)
	}
	s, err := c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("config schema: %w", err)
	}
	return &Loader{schema: s}, nil
}

// Discover finds e2e.config.json from dir upward, stopping after the
// directory holding .git (the repository root) or at the file system root.
func Discover(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(d, FileName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return "", &mcperr.Error{Code: mcperr.ConfigNotFound, Message: fmt.Sprintf("no %s found from %s upward to the repository root", FileName, dir), Err: os.ErrNotExist}
}

// Locate resolves the config path without reading it: path (relative to
// cwd) when given, else discovery from cwd. A missing file is
// CONFIG_NOT_FOUND.
func Locate(cwd, path string) (string, error) {
	if path == "" {
		return Discover(cwd)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", &mcperr.Error{Code: mcperr.ConfigNotFound, Message: fmt.Sprintf("config file %s does not exist", path), Err: os.ErrNotExist}
	}
	return filepath.Clean(path), nil
}

// MaxFileBytes bounds the size of a configuration file.
const MaxFileBytes = 1 << 20

// Load reads, validates and decodes the file at path (absolute). Its
// errors never quote the file's content: a file that is not JSON is
// reported by line and column, a schema violation by JSON pointer and rule
// (see Parse).
func (l *Loader) Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &mcperr.Error{Code: mcperr.ConfigNotFound, Message: fmt.Sprintf("config file %s does not exist", path), Err: err}
		}
		return nil, &mcperr.Error{Code: mcperr.ConfigLoadFailed, Message: fmt.Sprintf("read %s: %v", path, err), Err: err}
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, &mcperr.Error{Code: mcperr.ConfigLoadFailed, Message: fmt.Sprintf("read %s: %v", path, err), Err: err}
	}
	if len(b) > MaxFileBytes {
		return nil, &mcperr.Error{Code: mcperr.ConfigLoadFailed, Message: fmt.Sprintf("%s: larger than %d bytes; a config file is smaller", path, MaxFileBytes)}
	}
	cfg, err := l.Parse(b)
	if err != nil {
		var ce *mcperr.Error
		if errors.As(err, &ce) {
			ce.Message = path + ": " + ce.Message
		}
		return nil, err
	}
	cfg.Path = path
	cfg.Root = filepath.Dir(path)
	return cfg, nil
}

// lineCol is the 1-based line and column (in characters) of byte off of b.
func lineCol(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	line = 1 + bytes.Count(b[:off], []byte{'\n'})
	start := bytes.LastIndexByte(b[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(b[start:off])
}

// checkJSON reports where b stops being one JSON value, without quoting
// any of it (a file that failed to load may be anything, say a key file).
func checkJSON(b []byte) error {
	if !utf8.Valid(b) {
		off := 0
		for off < len(b) {
			r, n := utf8.DecodeRune(b[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		line, col := lineCol(b, off)
		return fmt.Errorf("not UTF-8 at line %d, column %d", line, col)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var v any
	err := dec.Decode(&v)
	first := int(dec.InputOffset())
	var se *json.SyntaxError
	switch {
	case err == nil:
		if _, terr := dec.Token(); terr != io.EOF {
			line, col := lineCol(b, len(b)-len(bytes.TrimLeft(b[first:], " \t\r\n")))
			return fmt.Errorf("not valid JSON: more than one value, the second at line %d, column %d", line, col)
		}
		return nil
	case errors.As(err, &se):
		line, col := lineCol(b, int(se.Offset)-1)
		return fmt.Errorf("not valid JSON at line %d, column %d", line, col)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		line, _ := lineCol(b, len(b))
		return fmt.Errorf("not valid JSON: the file ends (line %d) before its value is complete", line)
	}
	return errors.New("not valid JSON")
}

// Parse validates and decodes a configuration document. Its messages name
// places (line and column, JSON pointers) and the schema's rules, never
// values from the document.
func (l *Loader) Parse(b []byte) (*Config, error) {
	if err := checkJSON(b); err != nil {
		return nil, &mcperr.Error{Code: mcperr.ConfigLoadFailed, Message: err.Error()}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, &mcperr.Error{Code: mcperr.ConfigLoadFailed, Message: "not valid JSON"}
	}
	if err := l.schema.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, &mcperr.Error{Code: mcperr.InvalidConfig, Message: describe(ve)}
		}
		return nil, &mcperr.Error{Code: mcperr.InvalidConfig, Message: "does not match the config schema"}
	}
	var cfg Config
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, &mcperr.Error{Code: mcperr.ConfigLoadFailed, Message: "does not decode as a config"}
	}
	seen := map[string]bool{}
	for i, t := range cfg.Targets {
		if seen[t.Name] {
			return nil, &mcperr.Error{Code: mcperr.InvalidConfig, Message: fmt.Sprintf("/targets/%d/name: the name of an earlier target", i)}
		}
		seen[t.Name] = true
	}
	if cfg.Output == "" {
		cfg.Output = DefaultOutput
	}
	return &cfg, nil
}

// describe renders the leaves of a validation error as
// "<pointer>: <rule>" clauses, sorted. A rule never quotes a value from
// the document (see rule).
func describe(ve *jsonschema.ValidationError) string {
	p := message.NewPrinter(language.English)
	var out []string
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		_, names := e.ErrorKind.(*kind.PropertyNames)
		// A member name's causes are located at the name itself: the
		// object that holds it is the place.
		if len(e.Causes) == 0 || names {
			loc := e.InstanceLocation
			if l, ok := aliasedLocation(e); ok {
				loc = l
			}
			ptr := "/" + strings.Join(escape(loc), "/")
			if len(loc) == 0 {
				ptr = "(root)"
			}
			s := ptr + ": " + rule(e.ErrorKind, p)
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// aliasedLocation gives the instance location of a propertyNames or
// contentSchema error from the schema location it carries.
// santhosh-tekuri/jsonschema v6.0.3 stores its running location slice in
// those two errors without a copy (validator.go: verr.InstanceLocation =
// vd.vloc), so a sibling member validated afterwards overwrites it (a
// secrets error located at /targets). Where the schema path is made of
// properties/NAME steps only, it names the instance location exactly; ok
// is false elsewhere, and the library's location stands.
func aliasedLocation(e *jsonschema.ValidationError) (loc []string, ok bool) {
	var last string
	switch e.ErrorKind.(type) {
	case *kind.PropertyNames:
		last = "propertyNames"
	case *kind.ContentSchema:
		last = "contentSchema"
	default:
		return nil, false
	}
	_, frag, found := strings.Cut(e.SchemaURL, "#")
	if !found || !strings.HasSuffix(frag, "/"+last) {
		return nil, false
	}
	steps := strings.Split(strings.TrimSuffix(frag, "/"+last), "/")[1:]
	if len(steps)%2 != 0 {
		return nil, false
	}
	loc = []string{}
	for i := 0; i < len(steps); i += 2 {
		if steps[i] != "properties" {
			return nil, false
		}
		loc = append(loc, strings.ReplaceAll(strings.ReplaceAll(steps[i+1], "~1", "/"), "~0", "~"))
	}
	return loc, true
}

// rule says which rule of the schema a value broke. The library's own
// wording is kept only for kinds whose message holds nothing of the
// value but its type or length; the others would quote it (a pattern, a
// format) or its member names, and are worded here.
func rule(k jsonschema.ErrorKind, p *message.Printer) string {
	switch k := k.(type) {
	case *kind.Type, *kind.Enum, *kind.Const, *kind.Required, *kind.DependentRequired,
		*kind.MinLength, *kind.MaxLength, *kind.MinItems, *kind.MaxItems, *kind.OneOf, *kind.AnyOf, *kind.FalseSchema:
		return k.LocalizedString(p)
	case *kind.Pattern:
		return fmt.Sprintf("does not match pattern %q", k.Want)
	case *kind.Format:
		return "is not a valid " + k.Want
	case *kind.AdditionalProperties:
		if len(k.Properties) == 1 {
			return "1 member the schema does not allow here"
		}
		return fmt.Sprintf("%d members the schema does not allow here", len(k.Properties))
	case *kind.PropertyNames:
		return "a member name the schema does not allow here"
	}
	return "fails the schema's " + strings.Join(k.KeywordPath(), "/")
}

func escape(segs []string) []string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
	}
	return out
}

// ResolveSecret reads the value of a declared secret: E2E_SECRET_<NAME>
// overrides, then its environment variable or file (relative to root). ok
// is false when no value is available. A value shorter than six code points
// is INVALID_CONFIG.
func ResolveSecret(root, name string, s Secret, getenv func(string) string) (value string, ok bool, err error) {
	if v := getenv("E2E_SECRET_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))); v != "" {
		value = v
	} else if s.Env != "" {
		value = getenv(s.Env)
	} else if s.File != "" {
		p := s.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		b, rerr := os.ReadFile(p)
		if rerr != nil {
			return "", false, nil
		}
		value = strings.TrimRight(string(b), "\r\n")
	}
	if value == "" {
		return "", false, nil
	}
	if utf8.RuneCountInString(value) < 6 {
		return "", false, &mcperr.Error{Code: mcperr.InvalidConfig, Message: fmt.Sprintf("secret %q has a value shorter than 6 characters", name)}
	}
	return value, true, nil
}

// TargetNames lists the target names in order.
func (c *Config) TargetNames() []string {
	out := make([]string, len(c.Targets))
	for i, t := range c.Targets {
		out[i] = t.Name
	}
	return out
}

// SecretNames lists the secret names sorted.
func (c *Config) SecretNames() []string {
	out := make([]string, 0, len(c.Secrets))
	for n := range c.Secrets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
