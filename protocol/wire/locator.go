package wire

import (
	"encoding/json"
	"strconv"
)

// Text pattern kinds (spec §5.6).
const (
	PatternString = "string"
	PatternRegexp = "regexp"
)

// TextPattern is a string or regexp pattern (spec §5.6). Kind "string" uses
// Value and Exact; kind "regexp" uses Source and Flags.
type TextPattern struct {
	Kind   string
	Value  string
	Exact  bool
	Source string
	Flags  string
}

// StringPattern returns a string pattern.
func StringPattern(value string, exact bool) TextPattern {
	return TextPattern{Kind: PatternString, Value: value, Exact: exact}
}

// RegexpPattern returns a regexp pattern.
func RegexpPattern(source, flags string) TextPattern {
	return TextPattern{Kind: PatternRegexp, Source: source, Flags: flags}
}

// MarshalJSON writes the members of the pattern's kind.
func (p TextPattern) MarshalJSON() ([]byte, error) {
	w := newObject()
	w.put("kind", p.Kind)
	switch p.Kind {
	case PatternString:
		w.put("value", p.Value)
		w.put("exact", p.Exact)
	case PatternRegexp:
		w.put("source", p.Source)
		w.put("flags", p.Flags)
	default:
		return nil, unionError(p, "kind", "unknown TextPattern kind %q", p.Kind)
	}
	return w.bytes()
}

// UnmarshalJSON decodes strictly by kind.
func (p *TextPattern) UnmarshalJSON(data []byte) error {
	m, err := members(data, TextPattern{})
	if err != nil {
		return err
	}
	k, err := kindOf(m, TextPattern{})
	if err != nil {
		return err
	}
	out := TextPattern{Kind: k}
	switch k {
	case PatternString:
		err = firstErr(field(m, out, "value", &out.Value, true), field(m, out, "exact", &out.Exact, true))
	case PatternRegexp:
		err = firstErr(field(m, out, "source", &out.Source, true), field(m, out, "flags", &out.Flags, true))
	default:
		return unionError(out, "kind", "unknown TextPattern kind %q", k)
	}
	if err != nil {
		return err
	}
	*p = out
	return nil
}

// QueryStates filters a role query by state (spec §5.6); nil is absent.
type QueryStates struct {
	Checked  *bool `json:"checked,omitempty"`
	Disabled *bool `json:"disabled,omitempty"`
	Selected *bool `json:"selected,omitempty"`
	Expanded *bool `json:"expanded,omitempty"`
	Pressed  *bool `json:"pressed,omitempty"`
}

// Query kinds (spec §5.6).
const (
	QueryRole         = "role"
	QueryLabel        = "label"
	QueryPlaceholder  = "placeholder"
	QueryText         = "text"
	QueryDisplayValue = "displayValue"
	QueryTestID       = "testId"
)

// SemanticQuery is one semantic query (spec §5.6).
type SemanticQuery struct {
	Kind    string       `json:"kind"`
	Value   TextPattern  `json:"value"`
	Name    *TextPattern `json:"name,omitempty"`
	States  *QueryStates `json:"states,omitempty"`
	Level   *int64       `json:"level,omitempty"`
	Visible *bool        `json:"visible,omitempty"`
}

// UnmarshalJSON checks the query kind.
func (q *SemanticQuery) UnmarshalJSON(data []byte) error {
	type plain SemanticQuery
	var p plain
	m, err := members(data, SemanticQuery{})
	if err != nil {
		return err
	}
	if raw, ok := m["value"]; !ok || string(raw) == "null" {
		return unionError(SemanticQuery{}, "value", "SemanticQuery requires value")
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	switch p.Kind {
	case QueryRole, QueryLabel, QueryPlaceholder, QueryText, QueryDisplayValue, QueryTestID:
	default:
		return unionError(SemanticQuery{}, "kind", "unknown SemanticQuery kind %q", p.Kind)
	}
	*q = SemanticQuery(p)
	return nil
}

// Locator expression kinds (spec §5.7).
const (
	ExprQuery    = "query"
	ExprFilter   = "filter"
	ExprIndex    = "index"
	ExprSelector = "selector"
	ExprFrame    = "frame"
)

// Index is a LocatorExpression index: a number ≥ 0, "first" or "last".
type Index struct {
	// Pos is "first", "last", or "" for a numeric index.
	Pos string
	N   int64
}

// MarshalJSON writes "first", "last" or the number.
func (i Index) MarshalJSON() ([]byte, error) {
	if i.Pos != "" {
		return json.Marshal(i.Pos)
	}
	return []byte(strconv.FormatInt(i.N, 10)), nil
}

// UnmarshalJSON reads "first", "last" or an integer ≥ 0.
func (i *Index) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		if s != "first" && s != "last" {
			return unionError(Index{}, "", "index must be an integer >= 0, \"first\" or \"last\", got %q", s)
		}
		*i = Index{Pos: s}
		return nil
	}
	n, ok := ParseInteger(data)
	if !ok || n < 0 {
		return unionError(Index{}, "", "index must be an integer >= 0, \"first\" or \"last\", got %s", truncate(string(data), 40))
	}
	*i = Index{N: n}
	return nil
}

// LocatorExpression is a locator (spec §5.7). Members used per kind:
// query: Query, Scope; filter: Source, HasText, Has; index: Source, Index;
// selector: Selector; frame: Selector, Source.
type LocatorExpression struct {
	Kind     string
	Query    *SemanticQuery
	Scope    *LocatorExpression
	Source   *LocatorExpression
	HasText  *TextPattern
	Has      *LocatorExpression
	Index    Index
	Selector string
}

// MarshalJSON writes the members of the expression's kind.
func (e LocatorExpression) MarshalJSON() ([]byte, error) {
	w := newObject()
	w.put("kind", e.Kind)
	switch e.Kind {
	case ExprQuery:
		w.put("query", e.Query)
		if e.Scope != nil {
			w.put("scope", e.Scope)
		}
	case ExprFilter:
		w.put("source", e.Source)
		if e.HasText != nil {
			w.put("hasText", e.HasText)
		}
		if e.Has != nil {
			w.put("has", e.Has)
		}
	case ExprIndex:
		w.put("source", e.Source)
		w.put("index", e.Index)
	case ExprSelector:
		w.put("selector", e.Selector)
	case ExprFrame:
		w.put("selector", e.Selector)
		w.put("source", e.Source)
	default:
		return nil, unionError(e, "kind", "unknown LocatorExpression kind %q", e.Kind)
	}
	return w.bytes()
}

// UnmarshalJSON decodes strictly by kind.
func (e *LocatorExpression) UnmarshalJSON(data []byte) error {
	t := LocatorExpression{}
	m, err := members(data, t)
	if err != nil {
		return err
	}
	k, err := kindOf(m, t)
	if err != nil {
		return err
	}
	out := LocatorExpression{Kind: k}
	switch k {
	case ExprQuery:
		err = firstErr(field(m, t, "query", &out.Query, true), field(m, t, "scope", &out.Scope, false))
	case ExprFilter:
		err = firstErr(field(m, t, "source", &out.Source, true), field(m, t, "hasText", &out.HasText, false),
			field(m, t, "has", &out.Has, false))
		if err == nil && out.HasText == nil && out.Has == nil {
			err = unionError(t, "", "filter expression needs hasText or has")
		}
	case ExprIndex:
		err = firstErr(field(m, t, "source", &out.Source, true), field(m, t, "index", &out.Index, true))
	case ExprSelector:
		err = field(m, t, "selector", &out.Selector, true)
	case ExprFrame:
		err = firstErr(field(m, t, "selector", &out.Selector, true), field(m, t, "source", &out.Source, true))
	default:
		return unionError(t, "kind", "unknown LocatorExpression kind %q", k)
	}
	if err != nil {
		return err
	}
	*e = out
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
