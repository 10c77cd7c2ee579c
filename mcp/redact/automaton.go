package redact

// automaton is an Aho–Corasick automaton over canonical runes: one pass
// over a text finds every occurrence of every pattern, whatever the number
// of secrets and forms, and its final state is the longest end of the text
// that begins a pattern (a cut value). Immutable once built.
type automaton struct {
	nodes []acNode
	pats  []pattern
	// ascii is the complete transition function for ASCII runes:
	// ascii[node*128+r], fail links already followed.
	ascii []int32
}

type pattern struct {
	runes []rune
	name  string
}

type acNode struct {
	next  map[rune]int32
	fail  int32
	depth int32
	// out is the longest pattern ending here (-1: none); dict is the next
	// node on the fail chain with an out (-1: none).
	out, dict int32
	// need is the fewest characters of a pattern through this node that
	// a cut must keep to be masked (spec §6.2: the first 8 characters, or
	// half of a value shorter than 16).
	need int32
	// via is a pattern through this node (the first inserted).
	via int32
}

// cutNeed is how many leading characters of a value of n characters a cut
// text must end with to be masked.
func cutNeed(n int) int32 {
	return int32(min(8, (n+1)/2))
}

func newAutomaton(pats []pattern) *automaton {
	a := &automaton{pats: pats, nodes: []acNode{{fail: 0, out: -1, dict: -1, need: 1 << 30}}}
	for pi, p := range pats {
		cur := int32(0)
		need := cutNeed(len(p.runes))
		for _, r := range p.runes {
			nx, ok := a.nodes[cur].next[r]
			if !ok {
				nx = int32(len(a.nodes))
				a.nodes = append(a.nodes, acNode{depth: a.nodes[cur].depth + 1, out: -1, dict: -1, need: 1 << 30, via: int32(pi)})
				if a.nodes[cur].next == nil {
					a.nodes[cur].next = map[rune]int32{}
				}
				a.nodes[cur].next[r] = nx
			}
			cur = nx
			a.nodes[cur].need = min(a.nodes[cur].need, need)
		}
		if o := a.nodes[cur].out; o < 0 || len(pats[o].runes) < len(p.runes) {
			a.nodes[cur].out = int32(pi)
		}
	}
	// Breadth first: fail links and dictionary links.
	queue := []int32{}
	for _, c := range a.nodes[0].next {
		a.nodes[c].fail = 0
		queue = append(queue, c)
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for r, c := range a.nodes[n].next {
			f := a.nodes[n].fail
			for {
				if nx, ok := a.nodes[f].next[r]; ok && nx != c {
					a.nodes[c].fail = nx
					break
				}
				if f == 0 {
					a.nodes[c].fail = 0
					break
				}
				f = a.nodes[f].fail
			}
			fl := a.nodes[c].fail
			if a.nodes[fl].out >= 0 {
				a.nodes[c].dict = fl
			} else {
				a.nodes[c].dict = a.nodes[fl].dict
			}
			queue = append(queue, c)
		}
	}
	a.ascii = make([]int32, 128*len(a.nodes))
	for n := range a.nodes {
		for r := range rune(128) {
			a.ascii[n*128+int(r)] = a.slowStep(int32(n), r)
		}
	}
	return a
}

func (a *automaton) step(st int32, r rune) int32 {
	if r < 128 {
		return a.ascii[int(st)*128+int(r)]
	}
	return a.slowStep(st, r)
}

func (a *automaton) slowStep(st int32, r rune) int32 {
	for {
		if nx, ok := a.nodes[st].next[r]; ok {
			return nx
		}
		if st == 0 {
			return 0
		}
		st = a.nodes[st].fail
	}
}

// span is an occurrence of a pattern in a text, in bytes.
type span struct {
	start, end int
	name       string
}

// scan runs the automaton over us and appends every occurrence to spans.
// It returns the final state and the state after the first k units.
func (a *automaton) scan(us []unit, spans []span, k int) (_ []span, final, atK int32) {
	st := int32(0)
	for i, u := range us {
		if i == k {
			atK = st
		}
		st = a.step(st, u.r)
		for o := st; o >= 0; o = a.nodes[o].dict {
			p := a.nodes[o].out
			if p < 0 {
				continue
			}
			first := i + 1 - len(a.pats[p].runes)
			spans = append(spans, span{us[first].start, u.end, a.pats[p].name})
		}
	}
	if k >= len(us) {
		atK = st
	}
	return spans, st, atK
}

// tail finds, on the fail chain of the final state st, the longest end of
// us that begins a pattern and starts at or after byte from; with cut, only
// one long enough to be masked as a cut value (see need), or whose bytes
// span at least 8 characters of an encoded form. It returns the byte offset
// where it starts, -1 when there is none, and the name of a value it
// begins.
func (a *automaton) tail(us []unit, st int32, from int, cut bool, s string) (int, string) {
	for ; st > 0; st = a.nodes[st].fail {
		n := a.nodes[st]
		first := us[len(us)-int(n.depth)]
		if first.start < from {
			continue
		}
		if !cut || n.depth >= n.need || charCount(s[first.start:us[len(us)-1].end]) >= 8 {
			return first.start, a.pats[n.via].name
		}
	}
	return -1, ""
}

func charCount(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}
