package schema

import (
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// unionKey names one oneOf or anyOf: the Location of the schema holding it
// (which is the SchemaURL of the library's error for it) and the keyword.
type unionKey struct {
	loc string
	kw  string // "oneOf" or "anyOf"
}

// unionInfo describes the forms of a oneOf or anyOf.
type unionInfo struct {
	name     string               // "LocatorAction", "LocatorExpression index", ...
	disc     string               // the member every form pins with const or enum ("kind", "type"), or ""
	values   [][]any              // per form: the discriminator values it accepts
	branches []*jsonschema.Schema // the forms, $refs followed
}

// branchFor returns the form whose discriminator accepts v, or -1.
func (u *unionInfo) branchFor(v any) int {
	s, ok := v.(string)
	if !ok {
		return -1
	}
	for i, vals := range u.values {
		for _, x := range vals {
			if x == s {
				return i
			}
		}
	}
	return -1
}

// analyze records every oneOf and anyOf reachable from sch.
func (s *Set) analyze(sch *jsonschema.Schema, seen map[*jsonschema.Schema]bool) {
	if sch == nil || seen[sch] {
		return
	}
	seen[sch] = true
	if len(sch.OneOf) > 0 {
		s.unions[unionKey{sch.Location, "oneOf"}] = newUnion(sch.Location, sch.OneOf)
	}
	if len(sch.AnyOf) > 0 {
		s.unions[unionKey{sch.Location, "anyOf"}] = newUnion(sch.Location, sch.AnyOf)
	}
	var subs []*jsonschema.Schema
	subs = append(subs, sch.Ref, sch.Not, sch.If, sch.Then, sch.Else, sch.PropertyNames, sch.Items2020, sch.Contains, sch.UnevaluatedItems, sch.UnevaluatedProperties, sch.ContentSchema)
	subs = append(subs, sch.AllOf...)
	subs = append(subs, sch.AnyOf...)
	subs = append(subs, sch.OneOf...)
	subs = append(subs, sch.PrefixItems...)
	for _, p := range sch.Properties {
		subs = append(subs, p)
	}
	for _, p := range sch.PatternProperties {
		subs = append(subs, p)
	}
	for _, p := range sch.DependentSchemas {
		subs = append(subs, p)
	}
	if ap, ok := sch.AdditionalProperties.(*jsonschema.Schema); ok {
		subs = append(subs, ap)
	}
	switch it := sch.Items.(type) {
	case *jsonschema.Schema:
		subs = append(subs, it)
	case []*jsonschema.Schema:
		subs = append(subs, it...)
	}
	for _, sub := range subs {
		s.analyze(sub, seen)
	}
}

func newUnion(loc string, forms []*jsonschema.Schema) *unionInfo {
	u := &unionInfo{name: unionName(loc)}
	for _, f := range forms {
		u.branches = append(u.branches, followRefs(f))
	}
	for _, disc := range []string{"kind", "type"} {
		values := make([][]any, len(u.branches))
		ok := true
		for i, b := range u.branches {
			p := b.Properties[disc]
			switch {
			case p != nil && p.Const != nil:
				values[i] = []any{*p.Const}
			case p != nil && p.Enum != nil:
				values[i] = p.Enum.Values
			default:
				ok = false
			}
		}
		if ok {
			u.disc, u.values = disc, values
			break
		}
	}
	return u
}

// followRefs returns the schema a bare "$ref" form stands for.
func followRefs(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; i < 16 && s.Ref != nil && s.Properties == nil && s.Types == nil; i++ {
		s = s.Ref
	}
	return s
}

// unionName names a union after the $defs entry holding it, and the member
// when it sits inside one: "LocatorAction", "LocatorExpression index",
// "ErrorObject data".
func unionName(loc string) string {
	_, frag, _ := strings.Cut(loc, "#")
	rest, ok := strings.CutPrefix(frag, "/$defs/")
	if !ok {
		return "the schema"
	}
	parts := strings.Split(rest, "/")
	name := parts[0]
	for i := len(parts) - 2; i >= 1; i-- {
		if parts[i] == "properties" {
			return name + " " + parts[i+1]
		}
	}
	return name
}

// rel returns a schema location relative to the base, e.g.
// "engine-types-v1.schema.json#/$defs/SemanticNode/then".
func rel(loc string) string { return strings.TrimPrefix(loc, baseURL) }

// customNot words the "not" keywords of the types schema.
func (s *Set) customNot(loc string) string {
	switch rel(loc) {
	case typesFile + "#/$defs/SemanticNode/then":
		return "a node with states.secure true carries neither value nor selection"
	case typesFile + "#/$defs/ScreenshotResult/oneOf/0", typesFile + "#/$defs/ScreenshotResult/oneOf/1":
		return "a screenshot result carries path or data, never both"
	case typesFile + "#/$defs/ResolveSecretParams/properties/derivation",
		typesFile + "#/$defs/DeriveSecretParams/properties/derivation":
		return "got null, want a derivation other than null (omit it instead)"
	}
	return ""
}

// customValue words const and enum keywords of conditional branches, where
// the bare "want" would mislead.
func (s *Set) customValue(loc string, got any) string {
	switch rel(loc) {
	case typesFile + "#/$defs/EngineErrorData/then/properties/code":
		return fmt.Sprintf("got %s with retryable true, want code \"NODE_STALE\" or \"FRAME_NOT_FOUND\" (only those may be retryable)", describe(got))
	case typesFile + "#/$defs/SemanticQuery/then/properties/value/properties/kind":
		return fmt.Sprintf("got %s, want \"string\": a role query takes a string pattern", describe(got))
	case typesFile + "#/$defs/EngineSnapshot/properties/treeUnavailable":
		return fmt.Sprintf("got %s, want true (omit treeUnavailable when the tree was read)", describe(got))
	}
	return ""
}

// customRequired explains required keywords of conditional branches.
func (s *Set) customRequired(loc string) string {
	switch rel(loc) {
	case typesFile + "#/$defs/ErrorObject/then":
		return "an error with code -32000 carries data"
	case typesFile + "#/$defs/EngineSnapshot/then":
		return "a snapshot with treeUnavailable carries pixels"
	}
	return ""
}

// customPropertyName words propertyNames keywords.
func (s *Set) customPropertyName(loc, name string) string {
	switch rel(loc) {
	case typesFile + "#/$defs/EngineSnapshot/then/properties/root/propertyNames":
		return fmt.Sprintf("unknown member %q: with treeUnavailable the root holds only ref", name)
	case typesFile + "#/$defs/PlainErrorData/propertyNames":
		return fmt.Sprintf("unknown member %q: the data of an error other than -32000 holds only stack, errno and cause", name)
	case typesFile + "#/$defs/NodeStates/propertyNames":
		return fmt.Sprintf("unknown state %q: states holds only checked, disabled, selected, expanded, pressed, focused, hidden and secure", name)
	case typesFile + "#/$defs/SemanticQuery/properties/states/propertyNames":
		return fmt.Sprintf("unknown state %q: query states are checked, disabled, selected, expanded and pressed", name)
	}
	return ""
}
