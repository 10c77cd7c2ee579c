package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestFiles(t *testing.T) {
	names, err := fs.Glob(Files(), "schemas/*.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"schemas/" + manifestFile, "schemas/" + methodsFile, "schemas/" + typesFile}
	if !slices.Equal(names, want) {
		t.Fatalf("Files: got %v, want %v", names, want)
	}
	for _, name := range names {
		b, err := fs.ReadFile(Files(), name)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc["$id"] != path.Base(name) {
			t.Errorf("%s: $id %v, want %s", name, doc["$id"], path.Base(name))
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema %v", name, doc["$schema"])
		}
	}
}

// TestEverySchemaFileCompiles compiles each file on its own compiler, with
// the other files registered for its references and a loader that refuses
// everything else.
func TestEverySchemaFileCompiles(t *testing.T) {
	for _, file := range []string{manifestFile, typesFile, methodsFile} {
		t.Run(file, func(t *testing.T) {
			c := jsonschema.NewCompiler()
			c.UseLoader(refusingLoader{})
			c.UseRegexpEngine(compileECMARegexp)
			for _, other := range []string{manifestFile, typesFile, methodsFile} {
				b, err := fs.ReadFile(Files(), "schemas/"+other)
				if err != nil {
					t.Fatal(err)
				}
				doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				if err := c.AddResource(baseURL+other, doc); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := c.Compile(baseURL + file); err != nil {
				t.Fatalf("compile %s: %v", file, err)
			}
		})
	}
	if _, err := Load(); err != nil {
		t.Fatalf("Load: %v", err)
	}
	_ = MustLoad()
}

func TestLoaderRefusesNetwork(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.UseLoader(refusingLoader{})
	doc := map[string]any{"$ref": "https://example.com/other.json"}
	if err := c.AddResource(baseURL+"x.json", doc); err != nil {
		t.Fatal(err)
	}
	_, err := c.Compile(baseURL + "x.json")
	if err == nil || !strings.Contains(err.Error(), "refusing to load") {
		t.Fatalf("got %v, want a refusal", err)
	}
}

// TestVerbatim compares the embedded manifest and types schemas with the
// JSON blocks of §3.8 and §5.13 when the specification is at hand.
func TestVerbatim(t *testing.T) {
	spec, err := os.ReadFile("/work/shared/spec/engine-protocol.md")
	if err != nil {
		t.Skip("specification not available:", err)
	}
	for _, c := range []struct{ heading, file string }{
		{"### 3.8 ", manifestFile},
		{"### 5.13 ", typesFile},
	} {
		text := string(spec)
		i := strings.Index(text, "\n"+c.heading)
		if i < 0 {
			t.Fatalf("no %q in the specification", c.heading)
		}
		text = text[i:]
		j := strings.Index(text, "```json\n")
		k := strings.Index(text[j+8:], "\n```")
		block := text[j+8:j+8+k] + "\n"
		got, err := fs.ReadFile(Files(), "schemas/"+c.file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != block {
			t.Errorf("%s differs from the block under %q", c.file, c.heading)
		}
	}
}

func TestConstantsMatchManifestSchema(t *testing.T) {
	b, _ := fs.ReadFile(Files(), "schemas/"+manifestFile)
	var doc struct {
		Properties map[string]any `json:"properties"`
		Defs       map[string]struct {
			Enum []string `json:"enum"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		def  string
		have []string
	}{
		{"EngineMethod", engineMethods()},
		{"LocatorActionKind", locatorActionKinds()},
		{"PointerActionKind", pointerActionKinds()},
	} {
		if !slices.Equal(doc.Defs[c.def].Enum, c.have) {
			t.Errorf("%s: schema %v, package %v", c.def, doc.Defs[c.def].Enum, c.have)
		}
	}
	var members []string
	for k := range doc.Properties {
		members = append(members, k)
	}
	slices.Sort(members)
	have := slices.Clone(manifestMembers())
	slices.Sort(have)
	if !slices.Equal(members, have) {
		t.Errorf("manifest members: schema %v, package %v", members, have)
	}
	if len(engineMethods()) != 23 || len(locatorActionKinds()) != 16 || len(pointerActionKinds()) != 8 {
		t.Errorf("constant sizes %d %d %d", len(engineMethods()), len(locatorActionKinds()), len(pointerActionKinds()))
	}
}

// TestMethodTables checks that every ENGINE_METHODS member has params and a
// result, and that every $defs entry of the methods schema is used.
func TestMethodTables(t *testing.T) {
	s := testSet(t)
	used := map[string]bool{}
	for _, m := range methodTable() {
		used[m.params], used[m.result] = true, true
	}
	for _, m := range engineMethods() {
		info, ok := findMethod(m)
		if !ok || info.params == "" || info.result == "" {
			t.Errorf("%s: no params or result schema", m)
		}
	}
	for def := range s.methods {
		if !used[def] && def != "NullResult" {
			t.Errorf("methods schema $defs/%s is not used", def)
		}
	}
}

// TestValidateTypeReachesEveryDef validates a value against every $defs
// entry of the types schema.
func TestValidateTypeReachesEveryDef(t *testing.T) {
	s := testSet(t)
	b, _ := fs.ReadFile(Files(), "schemas/"+typesFile)
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	defs := defNames(doc)
	if len(defs) != 40 {
		t.Fatalf("types schema has %d $defs, want 40", len(defs))
	}
	for _, def := range defs {
		// null is valid for no def of the types schema.
		err := s.ValidateType(def, json.RawMessage(`null`))
		e := asError(t, err)
		if e == nil || e.Subject != def || len(e.Violations) == 0 {
			t.Errorf("ValidateType(%s, null): got %v", def, err)
		}
	}
	if err := s.ValidateType("NoSuchType", json.RawMessage(`{}`)); err == nil || strings.Contains(err.Error(), "NoSuchType") == false {
		t.Errorf("unknown def: got %v", err)
	} else if _, ok := err.(*Error); ok {
		t.Errorf("unknown def: got *Error, want a plain error")
	}
}

func TestECMARegexp(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		match      bool
	}{
		{`\S`, "a", true},
		{`\S`, "  ", false},
		{`\S`, "\u00a0\u3000\ufeff\u2028\v", false},
		{`\S`, " é ", true},
		{`^[^\r\n]*$`, "one line", true},
		{`^[^\r\n]*$`, "two\nlines", false},
		{`^a\sb$`, "a\u00a0b", true},
		{`[\s]`, "\u2003", true},
		{`^d?g?i?m?s?(?:u|v)?y?$`, "gi", true},
		{`^d?g?i?m?s?(?:u|v)?y?$`, "ig", false},
		{`^d?g?i?m?s?(?:u|v)?y?$`, "uv", false},
	} {
		re, err := compileECMARegexp(c.pattern)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		if re.String() != c.pattern {
			t.Errorf("String() = %q", re.String())
		}
		if got := re.MatchString(c.s); got != c.match {
			t.Errorf("%q on %q: got %v, want %v", c.pattern, c.s, got, c.match)
		}
	}
	if _, err := compileECMARegexp(`[\S]`); err == nil {
		t.Error(`[\S] compiled`)
	}
	if _, err := compileECMARegexp(`(`); err == nil {
		t.Error(`( compiled`)
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Subject: "params of engine/perform", Violations: []Violation{
		{Pointer: "", Message: "missing member \"operation\""},
		{Pointer: "/action/kind", Message: "unknown LocatorAction kind \"teleport\""},
	}}
	want := `params of engine/perform: (root): missing member "operation"; /action/kind: unknown LocatorAction kind "teleport"`
	if e.Error() != want {
		t.Errorf("got %q\nwant %q", e.Error(), want)
	}
}

func TestSortViolations(t *testing.T) {
	got := sortViolations([]Violation{
		{Pointer: "/methods/10", Rule: "M1", Message: "b"},
		{Pointer: "/methods/2", Rule: "M6", Message: "a"},
		{Pointer: "/methods/2", Rule: "M13", Message: "a"},
		{Pointer: "/methods/2", Rule: "M2", Message: "a"},
		{Pointer: "", Rule: "M12", Message: "x"},
		{Pointer: "/a~1b", Message: "y"},
		{Pointer: "/methods/2", Rule: "M2", Message: "a"},
	})
	want := []Violation{
		{Pointer: "", Rule: "M12", Message: "x"},
		{Pointer: "/a~1b", Message: "y"},
		{Pointer: "/methods/2", Rule: "M2", Message: "a"},
		{Pointer: "/methods/2", Rule: "M6", Message: "a"},
		{Pointer: "/methods/2", Rule: "M13", Message: "a"},
		{Pointer: "/methods/10", Rule: "M1", Message: "b"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestPointers(t *testing.T) {
	if p := pointerOf([]string{"a/b", "m~n", "0"}); p != "/a~1b/m~0n/0" {
		t.Errorf("pointerOf: %q", p)
	}
	inst := map[string]any{"a/b": map[string]any{"m~n": []any{"x"}}, "": "empty"}
	if v, ok := resolvePointer(inst, "/a~1b/m~0n/0"); !ok || v != "x" {
		t.Errorf("resolvePointer: %v %v", v, ok)
	}
	if v, ok := resolvePointer(inst, "/"); !ok || v != "empty" {
		t.Errorf("resolvePointer empty key: %v %v", v, ok)
	}
	for _, p := range []string{"/a~1b/m~0n/1", "/a~1b/m~0n/01", "/nope", "/a~1b/m~0n/0/x"} {
		if _, ok := resolvePointer(inst, p); ok {
			t.Errorf("resolvePointer(%q) resolved", p)
		}
	}
}

// TestConcurrentUse runs validations from many goroutines and checks that
// each answers what the same validation answers alone (the data race
// itself shows under -race).
func TestConcurrentUse(t *testing.T) {
	s := testSet(t)
	cases := []struct {
		name    string
		run     func() error
		invalid bool
	}{
		{"perform with an unknown action kind", func() error {
			return s.ValidateParams("engine/perform", json.RawMessage(`{"ref":{"id":"n"},"action":{"kind":"teleport"},"operation":{}}`))
		}, true},
		{"the example manifest", func() error { return s.ValidateManifest([]byte(exampleManifest)) }, false},
		{"observe result with an unknown state", func() error {
			return s.ValidateResult("engine/observe", json.RawMessage(`{"root":{"ref":{"id":"r","revision":""},"states":{"bogus":true}},"viewport":{"width":1,"height":1}}`))
		}, true},
	}
	want := make([]string, len(cases))
	for i, c := range cases {
		err := c.run()
		if (err != nil) != c.invalid {
			t.Fatalf("%s alone: %v", c.name, err)
		}
		want[i] = fmt.Sprint(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				for k, c := range cases {
					if got := fmt.Sprint(c.run()); got != want[k] {
						t.Errorf("%s concurrently: %s; alone: %s", c.name, got, want[k])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestMethodsSchemaMembersTyped checks that every member of every params
// object in the methods schema, at any depth, has a type, $ref, const or
// enum, so that null is refused where the type does not name it.
func TestMethodsSchemaMembersTyped(t *testing.T) {
	b, _ := fs.ReadFile(Files(), "schemas/"+methodsFile)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var check func(where string, sch map[string]any)
	check = func(where string, sch map[string]any) {
		props, _ := sch["properties"].(map[string]any)
		for name, p := range props {
			ps := p.(map[string]any)
			_, hasType := ps["type"]
			_, hasRef := ps["$ref"]
			_, hasConst := ps["const"]
			_, hasEnum := ps["enum"]
			if !hasType && !hasRef && !hasConst && !hasEnum {
				t.Errorf("%s/%s has no type", where, name)
			}
			if types, ok := ps["type"].([]any); ok && slices.Contains(types, any("null")) && name != "initializationOptions" {
				t.Errorf("%s/%s admits null", where, name)
			}
			check(where+"/"+name, ps)
		}
		if ap, ok := sch["additionalProperties"].(map[string]any); ok {
			check(where+"/*", ap)
		}
	}
	for name, def := range doc["$defs"].(map[string]any) {
		if strings.HasSuffix(name, "Params") {
			check(name, def.(map[string]any))
		}
	}
}
