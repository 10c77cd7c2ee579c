package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/message"
)

//go:embed schemas/*.json
var files embed.FS

// Schema file names, as published and as their "$id".
const (
	manifestFile = "engine-manifest-v1.schema.json"
	typesFile    = "engine-types-v1.schema.json"
	methodsFile  = "engine-methods-v1.schema.json"
)

// baseURL is the absolute base the embedded resources are registered under.
// Their "$id"s are relative and resolve against it, so the relative "$ref"s
// between the files resolve to the registered resources. The .invalid
// top-level domain never resolves, and the loader refuses every URL anyway.
const baseURL = "https://e2e-conform.invalid/schemas/"

// Set holds the compiled schemas. Safe for concurrent use. No package-level
// mutable state: callers keep a *Set.
type Set struct {
	manifest *jsonschema.Schema
	types    map[string]*jsonschema.Schema // $defs name of the types schema -> schema
	methods  map[string]*jsonschema.Schema // $defs name of the methods schema -> schema
	roots    map[string]*jsonschema.Schema // file name -> compiled root

	manifestLoc string                  // Location of the compiled manifest root
	unions      map[unionKey]*unionInfo // schema holding oneOf/anyOf -> analysis
	english     *message.Printer
}

// Files returns the embedded schema files, for publishing. Paths are
// "schemas/engine-manifest-v1.schema.json",
// "schemas/engine-types-v1.schema.json" and
// "schemas/engine-methods-v1.schema.json".
func Files() fs.FS { return files }

// MustLoad is like Load but panics when the embedded schemas do not compile.
func MustLoad() *Set {
	s, err := Load()
	if err != nil {
		panic(err)
	}
	return s
}

// Load compiles the embedded schemas. It never touches the network or the
// file system: the compiler's loader refuses every URL that is not one of the
// embedded resources (the draft 2020-12 meta-schema is built into the
// validator library).
func Load() (*Set, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(refusingLoader{})
	c.UseRegexpEngine(compileECMARegexp)

	docs := map[string]any{}
	for _, name := range []string{manifestFile, typesFile, methodsFile} {
		b, err := files.ReadFile(path.Join("schemas", name))
		if err != nil {
			return nil, fmt.Errorf("schema: read embedded %s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("schema: parse embedded %s: %w", name, err)
		}
		if id, _ := doc.(map[string]any)["$id"].(string); id != name {
			return nil, fmt.Errorf("schema: embedded %s has $id %q", name, id)
		}
		if err := c.AddResource(baseURL+name, doc); err != nil {
			return nil, fmt.Errorf("schema: register %s: %w", name, err)
		}
		docs[name] = doc
	}

	s := &Set{
		types:   map[string]*jsonschema.Schema{},
		methods: map[string]*jsonschema.Schema{},
		roots:   map[string]*jsonschema.Schema{},
		unions:  map[unionKey]*unionInfo{},
		english: newPrinter(),
	}
	for _, name := range []string{manifestFile, typesFile, methodsFile} {
		sch, err := c.Compile(baseURL + name)
		if err != nil {
			return nil, fmt.Errorf("schema: compile %s: %w", name, err)
		}
		s.roots[name] = sch
	}
	s.manifest = s.roots[manifestFile]
	s.manifestLoc = s.manifest.Location
	for file, dst := range map[string]map[string]*jsonschema.Schema{typesFile: s.types, methodsFile: s.methods} {
		for _, def := range defNames(docs[file]) {
			sch, err := c.Compile(baseURL + file + "#/$defs/" + def)
			if err != nil {
				return nil, fmt.Errorf("schema: compile %s#/$defs/%s: %w", file, def, err)
			}
			dst[def] = sch
		}
	}
	for _, m := range methodTable() {
		for _, def := range []string{m.params, m.result} {
			if def != "" && s.methods[def] == nil {
				return nil, fmt.Errorf("schema: %s has no $defs/%s for %s", methodsFile, def, m.name)
			}
		}
	}
	for _, m := range serverMessageTable() {
		if s.types[m.def] == nil {
			return nil, fmt.Errorf("schema: %s has no $defs/%s for %s", typesFile, m.def, m.name)
		}
	}
	seen := map[*jsonschema.Schema]bool{}
	for _, sch := range s.roots {
		s.analyze(sch, seen)
	}
	for _, defs := range []map[string]*jsonschema.Schema{s.types, s.methods} {
		for _, sch := range defs {
			s.analyze(sch, seen)
		}
	}
	return s, nil
}

// defNames lists the $defs names of a decoded schema document, sorted.
func defNames(doc any) []string {
	obj, _ := doc.(map[string]any)
	defs, _ := obj["$defs"].(map[string]any)
	names := make([]string, 0, len(defs))
	for k := range defs {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// refusingLoader refuses every URL: everything the schemas need is
// registered up front, and nothing may be fetched.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema: refusing to load %q: only the embedded schemas are available", url)
}

// ecmaRegexp is a pattern compiled for Go's RE2 with ECMAScript meanings of
// \s and \S (JSON Schema patterns are ECMA-262 regular expressions).
type ecmaRegexp struct {
	src string
	re  *regexp.Regexp
}

func (r ecmaRegexp) String() string            { return r.src }
func (r ecmaRegexp) MatchString(s string) bool { return r.re.MatchString(s) }

// ecmaSpace is the ECMAScript \s set (§10.3) as RE2 class contents.
const ecmaSpace = `\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`

// compileECMARegexp translates \s and \S to the ECMAScript sets (RE2's \s is
// ASCII only, so "\S" would accept a name of only no-break spaces) and
// compiles the rest unchanged; the patterns of these schemas use no other
// construct whose meaning differs between the two dialects.
func compileECMARegexp(src string) (jsonschema.Regexp, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		ch := src[i]
		switch {
		case ch == '\\' && i+1 < len(src):
			next := src[i+1]
			i++
			switch {
			case next == 's' && inClass:
				b.WriteString(ecmaSpace)
			case next == 's':
				b.WriteString("[" + ecmaSpace + "]")
			case next == 'S' && inClass:
				return nil, fmt.Errorf("schema: pattern %q: \\S inside a class is not supported", src)
			case next == 'S':
				b.WriteString("[^" + ecmaSpace + "]")
			default:
				b.WriteByte('\\')
				b.WriteByte(next)
			}
		case ch == '[' && !inClass:
			inClass = true
			b.WriteByte(ch)
			// A leading ']' or '^]' is literal in RE2 but not in ECMAScript;
			// the schemas have none, so nothing special is needed.
		case ch == ']' && inClass:
			inClass = false
			b.WriteByte(ch)
		default:
			b.WriteByte(ch)
		}
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, err
	}
	return ecmaRegexp{src: src, re: re}, nil
}

// decode parses raw JSON the way the validator needs it: numbers stay
// json.Number, so integers and fractions are judged exactly.
func decode(raw []byte) (any, error) {
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("content is not valid UTF-8")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%v (at byte %d)", se, se.Offset)
		}
		return nil, err
	}
	return v, nil
}
