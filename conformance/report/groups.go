package report

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// FailureGroup is failed requirements one engine bug likely explains: a
// failure that quotes a frame of another one's exchange (a run-wide
// check's violation "in the answer to initialize (id 0), conn 12" where
// MAN-001's spec read the manifest on conn 12), or failures that got the
// same answer (-32600 "server not initialized" for LIFE-002 and
// LIFE-003). "Likely": the suite cannot know an engine's code, it only
// sees the failures meet.
type FailureGroup struct {
	// Requirements are the failed requirements, in catalog order.
	Requirements []string `json:"requirements"`
	// Connections are the connections whose frames the failures share
	// ("conn 12"), in order; none when they only got the same answer.
	Connections []string `json:"connections,omitempty"`
	// Answer is the answer they got alike, when that joined them.
	Answer string `json:"answer,omitempty"`
}

// String says it for a person: "MAN-001, MAN-005, WIRE-013 fail on the
// same exchange (conn 12, conn 17): one engine bug likely".
func (g FailureGroup) String() string {
	ids := strings.Join(g.Requirements, ", ")
	switch {
	case len(g.Connections) > 0 && g.Answer != "":
		return fmt.Sprintf("%s fail on the same exchange (%s) or with the same answer (%s): one engine bug likely", ids, strings.Join(g.Connections, ", "), ClipRunes(ConsoleLine(g.Answer), 120))
	case len(g.Connections) > 0:
		return fmt.Sprintf("%s fail on the same exchange (%s): one engine bug likely", ids, strings.Join(g.Connections, ", "))
	default:
		return fmt.Sprintf("%s fail with the same answer (%s): one engine bug likely", ids, ClipRunes(ConsoleLine(g.Answer), 120))
	}
}

// connRE finds the connections a text names ("conn 12 (raw)").
var connRE = regexp.MustCompile(`\bconn (\d+)\b`)

// connsIn is the set of connection numbers s names.
func connsIn(s string) map[int]bool {
	out := map[int]bool{}
	for _, m := range connRE.FindAllStringSubmatch(s, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			out[n] = true
		}
	}
	return out
}

// specificAnswer is came when it is an answer particular enough to join
// two failures ("-32600 \"server not initialized\""), "" when it is not:
// silence ("no answer …", "nothing: …") or a frame line, whose
// connection and ids differ between specs anyway.
func specificAnswer(came string) string {
	c := strings.TrimSpace(came)
	switch {
	case len(c) < 6,
		strings.HasPrefix(c, "no "), strings.HasPrefix(c, "nothing"), strings.HasPrefix(c, "an error: no answer"),
		strings.HasPrefix(c, "conn "):
		return ""
	}
	return c
}

// FailureGroups returns the groups of two or more failed requirements one
// cause likely explains (FailureGroup), in catalog order of their first
// requirement. A failure's own exchange joins it to another only through
// what the other cites: two specs' exchanges are their own connections;
// a run-wide check's exchange, whatever connections ended last, joins
// nothing.
func (r *Result) FailureGroups() []FailureGroup {
	type failure struct {
		id            string
		cites, frames map[int]bool
		answer        string
	}
	var fs []failure
	for _, rr := range r.Requirements {
		if rr.Status != Failed {
			continue
		}
		f := failure{id: rr.ID, cites: connsIn(rr.Reason), frames: map[int]bool{}}
		if x := rr.Explanation; x != nil {
			if !r.runWide(x.Spec) { // a run-wide check's exchange is whatever ended last
				f.frames = connsIn(x.Exchange)
			}
			f.answer = specificAnswer(x.Came)
		}
		fs = append(fs, f)
	}
	parent := make([]int, len(fs))
	for i := range parent {
		parent[i] = i
	}
	var root func(int) int
	root = func(i int) int {
		if parent[i] != i {
			parent[i] = root(parent[i])
		}
		return parent[i]
	}
	conns := make([]map[int]bool, len(fs))
	answers := make([]string, len(fs))
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			shared := map[int]bool{}
			for c := range fs[i].cites {
				if fs[j].cites[c] || fs[j].frames[c] {
					shared[c] = true
				}
			}
			for c := range fs[j].cites {
				if fs[i].frames[c] {
					shared[c] = true
				}
			}
			sameAnswer := fs[i].answer != "" && fs[i].answer == fs[j].answer
			if len(shared) == 0 && !sameAnswer {
				continue
			}
			for c := range shared {
				if conns[i] == nil {
					conns[i] = map[int]bool{}
				}
				conns[i][c] = true
			}
			if sameAnswer {
				answers[i] = fs[i].answer
			}
			parent[root(j)] = root(i)
		}
	}
	byRoot := map[int]*FailureGroup{}
	var order []int
	for i := range fs {
		k := root(i)
		g, ok := byRoot[k]
		if !ok {
			g = &FailureGroup{}
			byRoot[k] = g
			order = append(order, k)
		}
		g.Requirements = append(g.Requirements, fs[i].id)
	}
	// The shared connections and the answer, gathered per group.
	gconns := map[int]map[int]bool{}
	for i := range fs {
		k := root(i)
		for c := range conns[i] {
			if gconns[k] == nil {
				gconns[k] = map[int]bool{}
			}
			gconns[k][c] = true
		}
		if answers[i] != "" && byRoot[k].Answer == "" {
			byRoot[k].Answer = answers[i]
		}
	}
	var out []FailureGroup
	for _, k := range order {
		g := byRoot[k]
		if len(g.Requirements) < 2 {
			continue
		}
		var cs []int
		for c := range gconns[k] {
			cs = append(cs, c)
		}
		slices.Sort(cs)
		for _, c := range cs {
			g.Connections = append(g.Connections, "conn "+strconv.Itoa(c))
		}
		out = append(out, *g)
	}
	return out
}

// groupOf is the group holding requirement id, if one does.
func groupOf(groups []FailureGroup, id string) (FailureGroup, bool) {
	for _, g := range groups {
		if slices.Contains(g.Requirements, id) {
			return g, true
		}
	}
	return FailureGroup{}, false
}

// runWide reports whether the spec of text is one of r's run-wide checks.
func (r *Result) runWide(text string) bool {
	for _, s := range r.Specs {
		if s.Text == text {
			return s.RunWide
		}
	}
	return false
}
