package mutate

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/e2e-conform/toolkit/protocol/schema"
)

// Kind is the kind of engine-to-client message a member operator targets.
type Kind string

// The message kinds.
const (
	// KindResult is the result of a response, by the method of the request
	// it answers.
	KindResult Kind = "result"
	// KindNotification is the params of a server-to-client notification.
	KindNotification Kind = "notification"
	// KindRequest is the params of a server-to-client request
	// (attempt/resolveSecret).
	KindRequest Kind = "request"
	// KindError is the error object of an error response, whatever method
	// it answers.
	KindError Kind = "error"
)

// Site is one place in one kind of message, found by walking the JSON
// Schemas of package schema: the member at Path of the result of Method,
// the params of notification Method, or an error object.
type Site struct {
	Kind   Kind
	Method string // request or notification method; "" for KindError
	// Path is a "/"-separated member path from the payload's root ("" is
	// the root); "*" stands for any array item or any member of a map.
	Path string
	// Def names the schema definition the payload validates against.
	Def string
	// Types lists the JSON types the schema allows at the site (JSON
	// Schema names; "integer" implies "number"); empty means any value.
	Types []string
	// Enum lists the allowed values of an enum or const site.
	Enum []any
	// Member: the site is a named object member (it can be dropped).
	Member bool
	// Required: the member is required in its object.
	Required bool
	// Conditional: the site comes from a union (oneOf, anyOf, if/then);
	// whether a change breaks the schema depends on the form the message
	// takes, so classification asks the schema at run time.
	Conditional bool
	// Closed: an object site refuses unknown members (additionalProperties
	// false, propertyNames, maxProperties).
	Closed bool
	// MinLength is the schema's minLength of a string site.
	MinLength int
	// Bounded: a number site has a minimum, maximum or exclusive bound.
	Bounded bool
}

// allows reports whether the site's schema admits JSON type t.
func (s Site) allows(t string) bool {
	if len(s.Types) == 0 {
		return true
	}
	for _, a := range s.Types {
		if a == t || (a == "number" && t == "integer") {
			return true
		}
	}
	return false
}

// allowsKind is allows for a decoded value (a number that is an integer
// matches "integer").
func (s Site) allowsKind(k jkind, text string) bool {
	if k == jNumber && !strings.ContainsAny(text, ".eE") {
		return s.allows("integer") || s.allows("number")
	}
	return s.allows(k.schemaType())
}

// String is the site's name in mutant IDs: kind:method#path.
func (s Site) String() string {
	return string(s.Kind) + ":" + s.Method + "#" + s.Path
}

// serverMessages maps the server-to-client messages (§6) to their params
// definitions in the types schema; the methods schema's description names
// the definitions, not the method each belongs to.
var serverMessages = []struct {
	method, def string
	kind        Kind
}{
	{"engine/log", "EngineLogParams", KindNotification},
	{"attempt/appLog", "AppLogParams", KindNotification},
	{"attempt/navigation", "NavigationParams", KindNotification},
	{"attempt/environment", "EnvironmentParams", KindNotification},
	{"attempt/screen", "ScreenParams", KindNotification},
	{"attempt/resolveSecret", "ResolveSecretParams", KindRequest},
}

const (
	typesFile    = "engine-types-v1.schema.json"
	methodsFile  = "engine-methods-v1.schema.json"
	manifestFile = "engine-manifest-v1.schema.json"
)

// schemaDocs holds the decoded schema documents by file name.
type schemaDocs map[string]map[string]any

func loadDocs() (schemaDocs, error) {
	docs := schemaDocs{}
	for _, f := range []string{typesFile, methodsFile, manifestFile} {
		data, err := fs.ReadFile(schema.Files(), "schemas/"+f)
		if err != nil {
			return nil, err
		}
		var d map[string]any
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		docs[f] = d
	}
	return docs, nil
}

// resolve follows a $ref relative to file.
func (d schemaDocs) resolve(file, ref string) (string, map[string]any, string) {
	target, frag, _ := strings.Cut(ref, "#")
	if target != "" {
		file = target
	}
	node := any(d[file])
	name := strings.TrimSuffix(file, "-v1.schema.json")
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		m, _ := node.(map[string]any)
		node = m[tok]
		name = tok
	}
	m, _ := node.(map[string]any)
	return file, m, name
}

// methodDef is the methods schema's $defs name of a method's result:
// the method with its group capitalized (§ schema package doc).
func methodDef(method string) string {
	var b strings.Builder
	for _, part := range strings.Split(method, "/") {
		r := []rune(part)
		if len(r) > 0 {
			r[0] = unicode.ToUpper(r[0])
		}
		b.WriteString(string(r))
	}
	return b.String() + "Result"
}

// answeredMethods lists the requests whose results the engine sends: the
// ENGINE_METHODS enum of the manifest schema, and initialize, shutdown and
// attempt/deriveSecret (§1.7).
func (d schemaDocs) answeredMethods() []string {
	_, em, _ := d.resolve(manifestFile, "#/$defs/EngineMethod")
	out := []string{"initialize", "shutdown"}
	for _, m := range em["enum"].([]any) {
		out = append(out, m.(string))
	}
	return append(out, "attempt/deriveSecret")
}

var (
	sitesOnce sync.Once
	sitesAll  []Site
	sitesErr  error
)

// Sites returns every site of every engine-to-client message kind, found by
// walking the schemas: the result of each request the engine answers, the
// params of each server-to-client message, and the error object. Recursive
// definitions (SemanticNode children, ErrorObject cause) are walked once:
// the recursive member is a site, its contents are not walked again.
func Sites() ([]Site, error) {
	sitesOnce.Do(func() {
		docs, err := loadDocs()
		if err != nil {
			sitesErr = err
			return
		}
		w := walker{docs: docs}
		for _, m := range docs.answeredMethods() {
			def := methodDef(m)
			file, node, _ := docs.resolve(methodsFile, "#/$defs/"+def)
			if node == nil {
				sitesErr = fmt.Errorf("methods schema has no %s", def)
				return
			}
			w.walk(Site{Kind: KindResult, Method: m, Def: def}, file, node, []string{file + "#" + def})
		}
		for _, sm := range serverMessages {
			file, node, _ := docs.resolve(typesFile, "#/$defs/"+sm.def)
			if node == nil {
				sitesErr = fmt.Errorf("types schema has no %s", sm.def)
				return
			}
			w.walk(Site{Kind: sm.kind, Method: sm.method, Def: sm.def}, file, node, []string{file + "#" + sm.def})
		}
		file, node, _ := docs.resolve(typesFile, "#/$defs/ErrorObject")
		w.walk(Site{Kind: KindError, Def: "ErrorObject"}, file, node, []string{file + "#ErrorObject"})
		sitesAll = w.merge()
	})
	return sitesAll, sitesErr
}

type walker struct {
	docs  schemaDocs
	sites []Site
}

// walk records the site s described by schema node (in file), then its
// members and items. stack holds the definitions being walked, to stop
// recursion.
func (w *walker) walk(s Site, file string, node map[string]any, stack []string) {
	// Follow $ref chains, collecting the definitions.
	for node != nil {
		ref, ok := node["$ref"].(string)
		if !ok {
			break
		}
		var name string
		f, n, name := w.docs.resolve(file, ref)
		key := f + "#" + name
		for _, st := range stack {
			if st == key {
				w.sites = append(w.sites, s) // a recursive member: the site only
				return
			}
		}
		stack = append(stack, key)
		// Keep siblings of $ref (rare) by merging shallowly.
		merged := map[string]any{}
		for k, v := range n {
			merged[k] = v
		}
		for k, v := range node {
			if k != "$ref" {
				if _, dup := merged[k]; !dup {
					merged[k] = v
				}
			}
		}
		file, node = f, merged
	}
	if node == nil {
		w.sites = append(w.sites, s)
		return
	}
	s.Types = append(s.Types, typesOf(node)...)
	if e, ok := node["enum"].([]any); ok {
		s.Enum = append(s.Enum, e...)
	}
	if c, ok := node["const"]; ok {
		s.Enum = append(s.Enum, c)
		if len(s.Types) == 0 {
			s.Types = append(s.Types, typeOfValue(c))
		}
	}
	if ml, ok := node["minLength"].(float64); ok {
		s.MinLength = int(ml)
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if _, ok := node[k]; ok {
			s.Bounded = true
		}
	}
	if ap, ok := node["additionalProperties"].(bool); ok && !ap {
		s.Closed = true
	}
	if _, ok := node["propertyNames"].(map[string]any); ok {
		if pn := node["propertyNames"].(map[string]any); pn["enum"] != nil {
			s.Closed = true
		}
	}
	if _, ok := node["maxProperties"]; ok {
		s.Closed = true
	}
	// Unions: each form adds to the same site, marked conditional.
	isUnion := false
	for _, u := range []string{"oneOf", "anyOf"} {
		if forms, ok := node[u].([]any); ok {
			isUnion = true
			for _, f := range forms {
				fm, _ := f.(map[string]any)
				sub := s
				sub.Conditional = true
				sub.Types, sub.Enum = nil, nil
				w.walk(sub, file, fm, stack)
			}
		}
	}
	for _, branch := range []string{"then", "else"} {
		if b, ok := node[branch].(map[string]any); ok {
			sub := s
			sub.Conditional = true
			sub.Types, sub.Enum = nil, nil
			w.walkMembers(sub, file, b, stack, true)
		}
	}
	if isUnion && len(s.Types) == 0 && len(s.Enum) == 0 {
		return // the forms recorded the site
	}
	w.sites = append(w.sites, s)
	w.walkMembers(s, file, node, stack, s.Conditional)
}

// walkMembers walks the properties, additionalProperties and items of node.
func (w *walker) walkMembers(s Site, file string, node map[string]any, stack []string, cond bool) {
	required := map[string]bool{}
	if rq, ok := node["required"].([]any); ok {
		for _, r := range rq {
			required[r.(string)] = true
		}
	}
	if props, ok := node["properties"].(map[string]any); ok {
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			pm, _ := props[k].(map[string]any)
			if pm == nil {
				continue // "data": true, any value: walked as a bare site
			}
			child := Site{Kind: s.Kind, Method: s.Method, Def: s.Def, Path: s.Path + "/" + k,
				Member: true, Required: required[k], Conditional: cond}
			w.walk(child, file, pm, stack)
		}
		for _, k := range names {
			if b, ok := props[k].(bool); ok && b {
				w.sites = append(w.sites, Site{Kind: s.Kind, Method: s.Method, Def: s.Def, Path: s.Path + "/" + k,
					Member: true, Required: required[k], Conditional: cond})
			}
		}
	}
	if ap, ok := node["additionalProperties"].(map[string]any); ok {
		w.walk(Site{Kind: s.Kind, Method: s.Method, Def: s.Def, Path: s.Path + "/*", Member: true, Conditional: cond}, file, ap, stack)
	}
	if it, ok := node["items"].(map[string]any); ok {
		w.walk(Site{Kind: s.Kind, Method: s.Method, Def: s.Def, Path: s.Path + "/*", Conditional: cond}, file, it, stack)
	}
}

// merge folds sites recorded more than once (the forms of a union) into
// one per path, uniting their types and enums; a member is required only
// when every record says so.
func (w *walker) merge() []Site {
	var order []string
	by := map[string]*Site{}
	for _, s := range w.sites {
		key := s.String()
		m, ok := by[key]
		if !ok {
			c := s
			by[key] = &c
			order = append(order, key)
			continue
		}
		m.Types = union(m.Types, s.Types)
		m.Enum = append(m.Enum, s.Enum...)
		m.Required = m.Required && s.Required
		m.Conditional = m.Conditional || s.Conditional
		m.Closed = m.Closed || s.Closed
		m.Bounded = m.Bounded || s.Bounded
		if s.MinLength > m.MinLength {
			m.MinLength = s.MinLength
		}
		m.Member = m.Member || s.Member
	}
	out := make([]Site, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out
}

func union(a, b []string) []string {
	if len(a) == 0 || len(b) == 0 {
		return nil // one form allows any type
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range append(append([]string{}, a...), b...) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func typesOf(node map[string]any) []string {
	switch t := node["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			out = append(out, x.(string))
		}
		return out
	}
	if not, ok := node["not"].(map[string]any); ok && len(node) <= 2 {
		if not["type"] == "null" {
			return []string{"string", "number", "boolean", "object", "array"}
		}
	}
	return nil
}

func typeOfValue(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}
