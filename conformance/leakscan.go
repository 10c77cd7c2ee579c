package conformance

import (
	"sort"
	"strings"
)

// The run's secret values are searched for (ERR-007) and redacted (every
// frame, trace line, message and report) in every form leakForms knows. A
// search value by value costs values × forms × text length: with thousands
// of values (an engine asking for thousands of secrets) every frame took
// seconds. leakMatcher is one Aho–Corasick automaton over every form of
// every value: one pass over a text finds all of them, whatever their
// number.

// leakPattern is one form of one value the automaton finds.
type leakPattern struct {
	text   string
	secret int    // index of the value in the matcher's values
	form   string // leakForm.name
	// redact: the form is replaced by Redact (a value shorter than
	// minEncodedSecret is redacted raw only: its encoded forms could be
	// ordinary text).
	redact bool
	// rank is the form's place in leakForms' order (raw first): a value
	// found in several forms is named by its first.
	rank int
}

// acEdge is one goto transition of the automaton.
type acEdge struct {
	b    byte
	next int32
}

// acState is one node of the automaton's trie.
type acState struct {
	edges []acEdge // sorted by b
	fail  int32
	// out is the pattern ending here (-1: none), dict the next state on
	// the fail chain with an out (-1: none).
	out, dict int32
}

// leakMatcher finds every form of a set of secret values in a text.
// Immutable once built; safe for concurrent use.
type leakMatcher struct {
	values []string
	pats   []leakPattern
	states []acState
	// root is the complete transition table of the root state (the
	// hottest one: most bytes of a text match nothing).
	root [256]int32
}

// newLeakMatcher builds the automaton over every form of values.
func newLeakMatcher(values []string) *leakMatcher {
	m := &leakMatcher{values: values, states: []acState{{out: -1, dict: -1}}}
	ends := map[string]int32{} // pattern text -> its pattern (one per text)
	for i, v := range values {
		if v == "" {
			continue
		}
		for rank, f := range leakForms(v) {
			redact := f.name == "raw" || len(v) >= minEncodedSecret
			if p, ok := ends[f.text]; ok {
				// Two values share a form: keep the first, redacting when
				// either asks for it.
				m.pats[p].redact = m.pats[p].redact || redact
				continue
			}
			ends[f.text] = int32(len(m.pats))
			m.pats = append(m.pats, leakPattern{text: f.text, secret: i, form: f.name, redact: redact, rank: rank})
		}
	}
	for pi, p := range m.pats {
		cur := int32(0)
		for i := 0; i < len(p.text); i++ {
			cur = m.child(cur, p.text[i])
		}
		m.states[cur].out = int32(pi)
	}
	// Breadth first: fail and dictionary links, then the root's table.
	queue := make([]int32, 0, len(m.states))
	for _, e := range m.states[0].edges {
		queue = append(queue, e.next)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, e := range m.states[s].edges {
			f := m.states[s].fail
			for {
				if nx, ok := m.gotoEdge(f, e.b); ok {
					m.states[e.next].fail = nx
					break
				}
				if f == 0 {
					m.states[e.next].fail = 0
					break
				}
				f = m.states[f].fail
			}
			fl := m.states[e.next].fail
			if m.states[fl].out >= 0 {
				m.states[e.next].dict = fl
			} else {
				m.states[e.next].dict = m.states[fl].dict
			}
			queue = append(queue, e.next)
		}
	}
	for _, e := range m.states[0].edges {
		m.root[e.b] = e.next
	}
	return m
}

// child returns the state reached from s on b, adding it when missing.
func (m *leakMatcher) child(s int32, b byte) int32 {
	edges := m.states[s].edges
	i := sort.Search(len(edges), func(i int) bool { return edges[i].b >= b })
	if i < len(edges) && edges[i].b == b {
		return edges[i].next
	}
	n := int32(len(m.states))
	m.states = append(m.states, acState{out: -1, dict: -1})
	edges = append(edges, acEdge{})
	copy(edges[i+1:], edges[i:])
	edges[i] = acEdge{b, n}
	m.states[s].edges = edges
	return n
}

// gotoEdge is the trie transition of s on b, if any.
func (m *leakMatcher) gotoEdge(s int32, b byte) (int32, bool) {
	edges := m.states[s].edges
	if len(edges) < 8 {
		for _, e := range edges {
			if e.b == b {
				return e.next, true
			}
		}
		return 0, false
	}
	i := sort.Search(len(edges), func(i int) bool { return edges[i].b >= b })
	if i < len(edges) && edges[i].b == b {
		return edges[i].next, true
	}
	return 0, false
}

// step is the automaton's transition from s on b.
func (m *leakMatcher) step(s int32, b byte) int32 {
	for s != 0 {
		if nx, ok := m.gotoEdge(s, b); ok {
			return nx
		}
		s = m.states[s].fail
	}
	return m.root[b]
}

// each calls fn with every occurrence of a pattern in text: the pattern
// and the byte offset just past its end.
func (m *leakMatcher) each(text string, fn func(p int32, end int)) {
	if m == nil || len(m.pats) == 0 {
		return
	}
	s := int32(0)
	for i := 0; i < len(text); i++ {
		s = m.step(s, text[i])
		for o := s; o > 0; o = m.states[o].dict {
			if p := m.states[o].out; p >= 0 {
				fn(p, i+1)
			}
		}
	}
}

// leakHit is one value found in a text, in the first form found.
type leakHit struct {
	secret int
	form   string
}

// find returns, for every value the text discloses (raw or encoded; in a
// JSON text also inside its decoded strings), the form it was found in,
// as findLeak names it.
func (m *leakMatcher) find(text string) []leakHit {
	return m.findIn(newLeakText(text))
}

// findIn is find for a text already decoded.
func (m *leakMatcher) findIn(lt *leakText) []leakHit {
	if m == nil || len(m.pats) == 0 {
		return nil
	}
	seen := map[int]bool{}
	var hits []leakHit
	add := func(secret int, form string) {
		if !seen[secret] {
			seen[secret] = true
			hits = append(hits, leakHit{secret, form})
		}
	}
	// In the raw text, the form matched; a value found in several forms
	// is named by its earliest form in leakForms' order (raw first).
	best := map[int]int32{} // secret -> its pattern of lowest rank
	m.each(lt.raw, func(p int32, _ int) {
		sec := m.pats[p].secret
		if b, ok := best[sec]; !ok || m.pats[p].rank < m.pats[b].rank {
			best[sec] = p
		}
	})
	secs := make([]int, 0, len(best))
	for sec := range best {
		secs = append(secs, sec)
	}
	sort.Ints(secs)
	for _, sec := range secs {
		add(sec, m.pats[best[sec]].form)
	}
	for _, s := range lt.decoded {
		m.each(s, func(p int32, _ int) {
			name := m.pats[p].form
			if name == "raw" {
				name = "JSON-escaped" // raw once decoded
			}
			add(m.pats[p].secret, name)
		})
	}
	return hits
}

// redact replaces every redactable form of every value in s with
// "[redacted]"; overlapping occurrences go as one (a derived
// value holding a canary goes whole).
func (m *leakMatcher) redact(s string) string {
	if m == nil || len(m.pats) == 0 {
		return s
	}
	type span struct{ start, end int }
	var spans []span
	m.each(s, func(p int32, end int) {
		if m.pats[p].redact {
			spans = append(spans, span{end - len(m.pats[p].text), end})
		}
	})
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		for i++; i < len(spans) && spans[i].start < end; i++ {
			end = max(end, spans[i].end)
		}
		b.WriteString(s[at:start])
		b.WriteString("[redacted]")
		at = end
	}
	b.WriteString(s[at:])
	return b.String()
}
