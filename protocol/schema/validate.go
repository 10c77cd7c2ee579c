package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// target is one validation: a schema, what the instance is called in the
// Error, and where manifests sit in it.
type target struct {
	subject    string
	schema     *jsonschema.Schema
	absent     string   // what a nil raw is missing: "params", "result", "value", "manifest"
	manifestAt []string // pointers of manifests inside the instance: the §3.3 rules run there
}

func (s *Set) validate(t target, raw []byte) error {
	if len(raw) == 0 {
		if t.absent == "params" && t.schema.Validate(nil) == nil {
			return nil
		}
		msg := t.absent + " absent"
		switch t.absent {
		case "params":
			msg = "params absent, want an object"
		case "result":
			msg = "result absent: a response carries its result (null for a void method)"
		}
		return &Error{Subject: t.subject, Violations: []Violation{{Message: msg}}}
	}
	inst, err := decode(raw)
	if err != nil {
		return &Error{Subject: t.subject, Violations: []Violation{{Message: "invalid JSON: " + err.Error()}}}
	}
	return s.check(t, inst)
}

// check validates a decoded instance.
func (s *Set) check(t target, inst any) error {
	err := t.schema.Validate(inst)
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return &Error{Subject: t.subject, Violations: []Violation{{Message: err.Error()}}}
	}
	f := flattener{set: s, inst: inst}
	leaves := f.walk(verr, nil)

	var rules []Violation
	manifests := slices.Clone(t.manifestAt)
	for _, p := range f.manifests {
		if !slices.Contains(manifests, p) {
			manifests = append(manifests, p)
		}
	}
	for _, p := range manifests {
		m, ok := at(inst, tokensOf(p)).(map[string]any)
		if !ok {
			continue
		}
		for _, v := range ManifestRules(m) {
			v.Pointer = p + v.Pointer
			rules = append(rules, v)
		}
	}
	covered := map[string]bool{}
	for _, r := range rules {
		covered[r.Pointer] = true
	}
	vs := rules
	for _, l := range leaves {
		if !covered[l.ptr] {
			vs = append(vs, Violation{Pointer: l.ptr, Message: l.msg})
		}
	}
	if len(vs) == 0 {
		// Every failure came from a branch this package folds into the
		// manifest rules, and the rules found nothing: never expected, but
		// the instance is invalid, so say so.
		vs = append(vs, Violation{Message: "does not validate against " + s.fileOf(t.schema)})
	}
	return &Error{Subject: t.subject, Violations: sortViolations(vs)}
}

func tokensOf(p string) []string {
	toks := splitPointer(p)
	for i, t := range toks {
		toks[i] = unescapeToken(t)
	}
	return toks
}

// fileOf names the schema file and fragment a compiled schema comes from.
func (s *Set) fileOf(sch *jsonschema.Schema) string {
	return strings.TrimPrefix(sch.Location, baseURL)
}

// leaf is one flattened violation.
type leaf struct {
	ptr      string
	msg      string
	typeGot  string   // set for a type mismatch: the description of the value
	typeWant []string // set for a type mismatch
	missing  string   // set for a missing member
}

// flattener turns the library's error tree into leaves.
type flattener struct {
	set       *Set
	inst      any
	manifests []string // pointers at which a manifest's dependency allOf was skipped
}

// scope is the nearest enclosing error node whose instance location is
// trustworthy, and the schema that validated that instance.
type scope struct {
	loc    []string
	schema string
}

func (f *flattener) walk(e *jsonschema.ValidationError, out []leaf) []leaf {
	return f.walkIn(e, scope{}, out)
}

func (f *flattener) walkIn(e *jsonschema.ValidationError, sc scope, out []leaf) []leaf {
	ptr := pointerOf(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group:
		for _, c := range e.Causes {
			out = f.walkIn(c, scope{e.InstanceLocation, e.SchemaURL}, out)
		}
	case *kind.Reference:
		for _, c := range e.Causes {
			out = f.walkIn(c, scope{e.InstanceLocation, k.URL}, out)
		}
	case *kind.AllOf:
		if e.SchemaURL == f.set.manifestLoc {
			// The manifest's if/then dependency branches: reported by the
			// §3.3 rules instead, in words.
			if !slices.Contains(f.manifests, ptr) {
				f.manifests = append(f.manifests, ptr)
			}
			return out
		}
		for _, c := range e.Causes {
			out = f.walkIn(c, scope{e.InstanceLocation, e.SchemaURL}, out)
		}
	case *kind.OneOf:
		if len(k.Subschemas) >= 2 {
			u := f.set.unions[unionKey{e.SchemaURL, "oneOf"}]
			name := "the schema"
			if u != nil {
				name = u.name
			}
			return append(out, leaf{ptr: ptr, msg: fmt.Sprintf("matches more than one form of %s (forms %d and %d)", name, k.Subschemas[0], k.Subschemas[1])})
		}
		out = f.union(e, ptr, "oneOf", out)
	case *kind.AnyOf:
		out = f.union(e, ptr, "anyOf", out)
	case *kind.Required:
		custom := f.set.customRequired(e.SchemaURL)
		for _, m := range k.Missing {
			msg := fmt.Sprintf("missing member %s", strconv.Quote(m))
			if custom != "" {
				msg += ": " + custom
			}
			out = append(out, leaf{ptr: ptr, msg: msg, missing: m})
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			out = append(out, leaf{ptr: ptr + "/" + escapeToken(p), msg: fmt.Sprintf("unknown member %s", strconv.Quote(p))})
		}
	case *kind.PropertyNames:
		loc := f.propertyNamesLocation(e, k.Property, sc)
		out = append(out, leaf{ptr: pointerOf(loc) + "/" + escapeToken(k.Property), msg: f.propertyNameMessage(e, k.Property)})
	case *kind.UniqueItems:
		arr, _ := at(f.inst, e.InstanceLocation).([]any)
		msg := fmt.Sprintf("duplicate of item %d", k.Duplicates[0])
		if k.Duplicates[1] < len(arr) && scalar(arr[k.Duplicates[1]]) {
			msg += " (" + describe(arr[k.Duplicates[1]]) + ")"
		}
		out = append(out, leaf{ptr: ptr + "/" + strconv.Itoa(k.Duplicates[1]), msg: msg})
	case *kind.Type:
		got := typeAndValue(at(f.inst, e.InstanceLocation))
		out = append(out, leaf{ptr: ptr, msg: fmt.Sprintf("got %s, want %s", got, strings.Join(k.Want, " or ")), typeGot: got, typeWant: k.Want})
	default:
		out = append(out, leaf{ptr: ptr, msg: f.message(e)})
	}
	return out
}

// union reports a failed oneOf or anyOf (none of the forms matched).
func (f *flattener) union(e *jsonschema.ValidationError, ptr, kw string, out []leaf) []leaf {
	u := f.set.unions[unionKey{e.SchemaURL, kw}]
	inst := at(f.inst, e.InstanceLocation)
	branches := e.Causes
	if u != nil && len(branches) != len(u.branches) {
		u = nil // never expected: every form failed, so every form has an error
	}
	obj, isObj := inst.(map[string]any)
	if u != nil && u.disc != "" && isObj {
		kv, has := obj[u.disc]
		if !has {
			return append(out, leaf{ptr: ptr, msg: fmt.Sprintf("missing member %s (the %s %s)", strconv.Quote(u.disc), u.name, u.disc), missing: u.disc})
		}
		if i := u.branchFor(kv); i >= 0 {
			return f.walkIn(branches[i], scope{e.InstanceLocation, e.SchemaURL + "/" + kw + "/" + strconv.Itoa(i)}, out)
		}
		return append(out, leaf{ptr: ptr + "/" + escapeToken(u.disc), msg: fmt.Sprintf("unknown %s %s %s", u.name, u.disc, describe(kv))})
	}

	per := make([][]leaf, len(branches))
	for i, b := range branches {
		per[i] = f.walkIn(b, scope{e.InstanceLocation, e.SchemaURL + "/" + kw + "/" + strconv.Itoa(i)}, nil)
	}
	// Pick the form the instance most resembles: most members it declares,
	// then fewest failures at the union's own location, then fewest
	// failures, then the first.
	best, bestOverlap, bestShallow, bestTotal := -1, 0, 0, 0
	for i, ls := range per {
		overlap := 0
		if u != nil && isObj {
			for name := range obj {
				if _, ok := u.branches[i].Properties[name]; ok {
					overlap++
				}
			}
		}
		shallow := 0
		for _, l := range ls {
			if l.ptr == ptr {
				shallow++
			}
		}
		if best < 0 || overlap > bestOverlap ||
			(overlap == bestOverlap && (shallow < bestShallow || (shallow == bestShallow && len(ls) < bestTotal))) {
			best, bestOverlap, bestShallow, bestTotal = i, overlap, shallow, len(ls)
		}
	}
	if best >= 0 && isObj && bestOverlap > 0 {
		return append(out, per[best]...)
	}

	name := "the schema"
	if u != nil {
		name = u.name
	}
	// Every form wants another type: one message naming them all.
	allType, allMissing := true, true
	var wants, missing []string
	got := ""
	for _, ls := range per {
		if len(ls) != 1 || ls[0].ptr != ptr || ls[0].typeWant == nil {
			allType = false
		} else {
			got = ls[0].typeGot
			for _, w := range ls[0].typeWant {
				if !slices.Contains(wants, w) {
					wants = append(wants, w)
				}
			}
		}
		if len(ls) != 1 || ls[0].ptr != ptr || ls[0].missing == "" {
			allMissing = false
		} else {
			missing = append(missing, strconv.Quote(ls[0].missing))
		}
	}
	if allType && len(per) > 0 {
		return append(out, leaf{ptr: ptr, msg: fmt.Sprintf("got %s, want %s", got, strings.Join(wants, " or ")), typeGot: got, typeWant: wants})
	}
	if allMissing && len(per) > 0 {
		return append(out, leaf{ptr: ptr, msg: fmt.Sprintf("missing member %s (%s needs one of them)", strings.Join(missing, " or "), name)})
	}
	parts := make([]string, 0, len(per))
	for _, ls := range per {
		msgs := make([]string, 0, len(ls))
		for _, l := range ls {
			m := l.msg
			if l.ptr != ptr {
				m = strings.TrimPrefix(l.ptr, ptr) + ": " + m
			}
			if !slices.Contains(msgs, m) {
				msgs = append(msgs, m)
			}
		}
		slices.Sort(msgs)
		parts = append(parts, strings.Join(msgs, ", "))
	}
	return append(out, leaf{ptr: ptr, msg: fmt.Sprintf("matches no form of %s (%s)", name, strings.Join(parts, " | "))})
}

// propertyNamesLocation finds the object a propertyNames error is about.
// The library records that location without copying it, so later sibling
// validations may have overwritten it; it is rebuilt from the enclosing
// scope and the schema path from the scope's schema to the propertyNames
// keyword, and checked against the instance.
func (f *flattener) propertyNamesLocation(e *jsonschema.ValidationError, name string, sc scope) []string {
	holds := func(loc []string) bool {
		obj, ok := at(f.inst, loc).(map[string]any)
		if !ok {
			return false
		}
		_, ok = obj[name]
		return ok
	}
	objSchema := strings.TrimSuffix(e.SchemaURL, "/propertyNames")
	if rest, ok := strings.CutPrefix(objSchema, sc.schema); ok && sc.schema != "" && (rest == "" || rest[0] == '/') {
		loc := slices.Clone(sc.loc)
		toks := splitPointer(rest)
		good := true
		for i := 0; i < len(toks) && good; i++ {
			switch toks[i] {
			case "properties":
				if i+1 < len(toks) {
					i++
					loc = append(loc, unescapeToken(toks[i]))
				} else {
					good = false
				}
			case "then", "else", "if", "not":
			case "allOf", "anyOf", "oneOf":
				i++ // the branch index
			default:
				good = false
			}
		}
		if good && holds(loc) {
			return loc
		}
	}
	if holds(e.InstanceLocation) {
		return e.InstanceLocation
	}
	return sc.loc
}

// propertyNameMessage words a failed propertyNames check.
func (f *flattener) propertyNameMessage(e *jsonschema.ValidationError, name string) string {
	if m := f.set.customPropertyName(e.SchemaURL, name); m != "" {
		return m
	}
	var cause jsonschema.ErrorKind
	if len(e.Causes) == 1 {
		cause = e.Causes[0].ErrorKind
	}
	switch c := cause.(type) {
	case *kind.Enum, *kind.Const:
		return fmt.Sprintf("unknown member %s", strconv.Quote(name))
	case *kind.MinLength:
		if c.Want == 1 {
			return "got an empty member name, want a non-empty one"
		}
	}
	return fmt.Sprintf("member name %s is not allowed", strconv.Quote(name))
}

// message words one leaf error.
func (f *flattener) message(e *jsonschema.ValidationError) string {
	v := at(f.inst, e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Const:
		if m := f.set.customValue(e.SchemaURL, v); m != "" {
			return m
		}
		return fmt.Sprintf("got %s, want %s", describe(v), describe(k.Want))
	case *kind.Enum:
		if m := f.set.customValue(e.SchemaURL, v); m != "" {
			return m
		}
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = describe(w)
		}
		if len(want) == 1 {
			return fmt.Sprintf("got %s, want %s", describe(v), want[0])
		}
		return fmt.Sprintf("got %s, want one of %s", describe(v), strings.Join(want, ", "))
	case *kind.Not:
		if m := f.set.customNot(e.SchemaURL); m != "" {
			return m
		}
		return fmt.Sprintf("got %s, which is a form not allowed here", describe(v))
	case *kind.FalseSchema:
		return "not allowed here"
	case *kind.MinLength:
		if k.Want == 1 {
			return fmt.Sprintf("got %s, want a non-empty string", describe(v))
		}
		return fmt.Sprintf("got %s (%d characters), want at least %d", describe(v), k.Got, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("got %d characters, want at most %d", k.Got, k.Want)
	case *kind.MinItems:
		if k.Got == 0 {
			return fmt.Sprintf("got an empty array, want at least %d item(s)", k.Want)
		}
		return fmt.Sprintf("got %d items, want at least %d", k.Got, k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("got %d items, want at most %d", k.Got, k.Want)
	case *kind.MinProperties:
		return fmt.Sprintf("got %d members, want at least %d", k.Got, k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("got %d members, want at most %d", k.Got, k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("got %s, want at least %s", describe(v), ratString(k.Want))
	case *kind.Maximum:
		return fmt.Sprintf("got %s, want at most %s", describe(v), ratString(k.Want))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("got %s, want more than %s", describe(v), ratString(k.Want))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("got %s, want less than %s", describe(v), ratString(k.Want))
	case *kind.Pattern:
		return fmt.Sprintf("got %s, want %s", describe(v), patternWords(k.Want))
	case *kind.Format:
		if k.Want == "date-time" {
			return fmt.Sprintf("got %s, want an RFC 3339 date-time such as \"2026-03-01T12:00:00.000Z\"", describe(v))
		}
		return fmt.Sprintf("got %s, want format %s", describe(v), k.Want)
	case *kind.Contains:
		return "no item matches"
	}
	return e.ErrorKind.LocalizedString(f.set.printer())
}

// printer renders the library's messages for the error kinds this package
// does not word itself, in English. A message.Printer is safe for
// concurrent use.
func (s *Set) printer() *message.Printer { return s.english }

func newPrinter() *message.Printer { return message.NewPrinter(language.English) }

// patternWords says in words what a pattern of the schemas demands.
func patternWords(p string) string {
	switch p {
	case `\S`:
		return "a string with a non-whitespace character"
	case `^[^\r\n]*$`:
		return "one line, without CR or LF"
	case `^d?g?i?m?s?(?:u|v)?y?$`:
		return `regexp flags from "dgimsuvy" in that order, each at most once, never both u and v`
	case `^https?://`:
		return "an http: or https: URL"
	case `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`:
		return "standard base64 with padding"
	}
	return "a match of the pattern " + strconv.Quote(p)
}

// ratString renders a schema bound.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// scalar reports whether v is a JSON scalar.
func scalar(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return false
	}
	return true
}

// describe renders a value for a message: scalars as JSON (long strings
// cut), containers by their kind.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return string(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		return quoteCut(v)
	case []any:
		if len(v) == 0 {
			return "an empty array"
		}
		return "an array"
	case map[string]any:
		if len(v) == 0 {
			return "an empty object"
		}
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}

// typeAndValue renders a value with its JSON type, for type mismatches.
func typeAndValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case json.Number, float64:
		return "number " + describe(v)
	case string:
		return "string " + quoteCut(v)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// quoteCut quotes s, keeping at most 64 characters.
func quoteCut(s string) string {
	const max = 64
	if utf8.RuneCountInString(s) <= max {
		return strconv.Quote(s)
	}
	i, n := 0, 0
	for i = range s {
		if n == max {
			break
		}
		n++
	}
	return strconv.Quote(s[:i]) + "…"
}
