package locate

import (
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// query is a compiled SemanticQuery.
type query struct {
	kind    string
	role    string   // role: the role compared exactly
	value   *Matcher // every other kind
	name    *Matcher // role: nil when absent
	states  *wire.QueryStates
	level   *int64
	visible bool
	// innermost: text and label queries keep only their innermost matches.
	innermost bool
}

// compileQuery checks q and compiles its patterns: the value, then (role
// only) the name.
func compileQuery(q *wire.SemanticQuery) (*query, error) {
	if q == nil {
		return nil, engineerr.New(engineerr.EngineFailure, "query expression without a query")
	}
	c := &query{kind: q.Kind, visible: q.Visible != nil && *q.Visible}
	switch q.Kind {
	case wire.QueryRole:
		if q.Value.Kind != wire.PatternString {
			return nil, engineerr.New(engineerr.EngineFailure, "role query value must be a string")
		}
		c.role = q.Value.Value
		if q.Name != nil {
			m, err := Compile(q.Name)
			if err != nil {
				return nil, err
			}
			c.name = m
		}
		c.states = q.States
		c.level = q.Level
		return c, nil
	case wire.QueryLabel, wire.QueryText:
		c.innermost = true
	case wire.QueryPlaceholder, wire.QueryDisplayValue, wire.QueryTestID:
	default:
		return nil, engineerr.New(engineerr.EngineFailure, "unknown query kind %q", q.Kind)
	}
	m, err := Compile(&q.Value)
	if err != nil {
		return nil, err
	}
	c.value = m
	return c, nil
}

// stateMatches reports whether the node's state (absent reads as false)
// equals want, when want is present.
func stateMatches(got *bool, want *bool) bool {
	return want == nil || (got != nil && *got) == *want
}

// matches is matchesQuery of spec §10.2 on a compiled query.
func (q *query) matches(n *wire.SemanticNode) bool {
	if n == nil {
		return false
	}
	hidden := n.States != nil && n.States.Hidden != nil && *n.States.Hidden
	if q.visible && hidden {
		return false
	}
	switch q.kind {
	case wire.QueryRole:
		if n.Role == nil {
			if q.role != "" {
				return false
			}
		} else if *n.Role != q.role {
			return false
		}
		if q.name != nil && !q.name.Match(deref(n.Name)) {
			return false
		}
		if hidden {
			return false
		}
		if s := q.states; s != nil {
			var ns wire.NodeStates
			if n.States != nil {
				ns = *n.States
			}
			if !stateMatches(ns.Checked, s.Checked) || !stateMatches(ns.Disabled, s.Disabled) ||
				!stateMatches(ns.Selected, s.Selected) || !stateMatches(ns.Expanded, s.Expanded) ||
				!stateMatches(ns.Pressed, s.Pressed) {
				return false
			}
		}
		if q.level != nil && (n.Level == nil || *n.Level != *q.level) {
			return false
		}
		return true
	case wire.QueryLabel:
		return n.Name != nil && q.value.Match(*n.Name)
	case wire.QueryPlaceholder:
		p, ok := n.Attributes["placeholder"]
		return ok && q.value.Match(p)
	case wire.QueryText:
		return (n.Name != nil && q.value.Match(*n.Name)) || (n.Text != nil && q.value.Match(*n.Text))
	case wire.QueryDisplayValue:
		return n.Value != nil && q.value.Match(*n.Value)
	case wire.QueryTestID:
		return n.TestID != nil && q.value.Match(*n.TestID)
	}
	return false
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// MatchesQuery is matchesQuery of spec §10.2: whether node matches q. The
// query is checked and its patterns compiled before the node is looked at, so
// a role query with a regexp value fails with ENGINE_FAILURE "role query value
// must be a string" and a bad regexp fails as [Compile] says, whatever the
// node. A nil node matches nothing.
func MatchesQuery(node *wire.SemanticNode, q *wire.SemanticQuery) (bool, error) {
	c, err := compileQuery(q)
	if err != nil {
		return false, err
	}
	return c.matches(node), nil
}
