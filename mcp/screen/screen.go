// Package screen renders what the MCP host shows an agent of an engine
// observation (spec mcp.md §3.4–§3.6): the node lines of an observation, the
// screen update after an action (a diff against the screen the agent last
// received), and the node lines and code suggestion of locate.
package screen

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// MaxIndent caps the indentation of a node line.
const MaxIndent = 10

// Redact is applied to every string taken from the engine before it is
// quoted. Nil leaves strings alone.
type Redact func(string) string

// Line is one node line of an observation.
type Line struct {
	ID    string
	Depth int
	// Text is the line without indentation.
	Text string
	// key is Text without the focused state, for diffs.
	key string
}

// Screen is one rendered observation.
type Screen struct {
	Revision string
	Path     string
	Lines    []Line
	// Truncated: the listing is not the whole screen (the engine stopped
	// listing nodes, or the byte limit cut it).
	Truncated bool
	// ByteCut: the listing was cut at the observation byte limit
	// (Options.MaxBytes); its marker wins over the engine's.
	ByteCut     bool
	Unavailable bool
	// IDs holds the node id of every listed node: a node past a byte cut
	// was never shown, so its id is not valid.
	IDs map[string]*wire.SemanticNode
	// Snapshot is the observation rendered.
	Snapshot *wire.EngineSnapshot
}

// Options configure how an observation is rendered.
type Options struct {
	// Redact is applied to every string taken from the engine; nil leaves
	// strings alone.
	Redact Redact
	// Cut is Redact for a string the engine may have cut at its length
	// limit (name 256, text, value and selection 512 UTF-16 units, engine
	// protocol §observe) or marked cut with a trailing `…` (an href): it
	// also masks the start of a secret the string ends with (spec mcp.md
	// §6.2). Nil uses Redact.
	Cut Redact
	// AppURL is the target's app URL: a link on its origin shows as its
	// path only (spec §3.4); "" shows every link as the engine sent it.
	AppURL string
	// MaxBytes is the resolved observation byte limit: the node lines and
	// the truncation marker of a listing take at most this many bytes
	// (the root's line is always listed). 0 means DefaultMaxBytes.
	MaxBytes int
}

// DefaultMaxBytes is the observation byte limit when none is configured.
const DefaultMaxBytes = 64 << 10

// Truncation markers: the last line of a cut listing (spec mcp.md §3.4).
const (
	ByteMarker   = "[observation truncated at the resolved observation byte limit]"
	EngineMarker = "[observation truncated: the engine stopped listing nodes at its limit]"
)

func (o Options) redact() Redact {
	if o.Redact == nil {
		return func(s string) string { return s }
	}
	return o.Redact
}

// Field length limits of a semantic node, in UTF-16 units (engine protocol
// §observe: a value exactly at its limit may have been cut).
const (
	NameLimit = 256
	TextLimit = 512
)

// field redacts an engine string with a length limit: as possibly cut when
// it is at the limit (one unit less: a cut may drop half a surrogate pair)
// or ends in `…`.
func (o Options) field(s string, limit int) string {
	cut := o.Cut
	if cut == nil || !mayBeCut(s, limit) {
		return o.redact()(s)
	}
	return cut(s)
}

func mayBeCut(s string, limit int) bool {
	if strings.HasSuffix(s, "…") {
		return true
	}
	if len(s) < limit-1 {
		return false // fewer bytes than units: far from the limit
	}
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n >= limit-1
}

// New renders snap as revision rev.
func New(snap *wire.EngineSnapshot, rev string, o Options) *Screen {
	redact := o.redact()
	s := &Screen{Revision: rev, Path: redact(PathOf(snap.Location)), Truncated: snap.Truncated,
		Unavailable: snap.TreeUnavailable, IDs: map[string]*wire.SemanticNode{}, Snapshot: snap}
	if snap.TreeUnavailable {
		return s
	}
	limit := o.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	// A cut listing ends with "\n" + ByteMarker: what the lines may use.
	budget := limit - len(ByteMarker) - 1
	used := 0
	var walk func(n *wire.SemanticNode, depth int) bool
	walk = func(n *wire.SemanticNode, depth int) bool {
		text, key := NodeLine(n, o)
		size := min(depth, MaxIndent) + len(text)
		if len(s.Lines) > 0 {
			size++ // the newline before it
		}
		if len(s.Lines) > 0 && used+size > budget {
			return false
		}
		used += size
		s.IDs[n.Ref.ID] = n
		s.Lines = append(s.Lines, Line{ID: n.Ref.ID, Depth: depth, Text: text, key: key})
		for i := range n.Children {
			if !walk(&n.Children[i], depth+1) {
				return false
			}
		}
		return true
	}
	if !walk(&snap.Root, 0) {
		s.ByteCut, s.Truncated = true, true
	}
	return s
}

// PathOf is the path shown for a location: pathname, search and hash of a
// URL, the location itself otherwise, "" when there is none.
func PathOf(loc string) string {
	if loc == "" {
		return ""
	}
	u, err := url.Parse(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return loc
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		p += "#" + u.EscapedFragment()
	}
	return p
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	// json.Marshal escapes <, > and & for HTML; keep them readable.
	r := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")
	return r.Replace(string(b))
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// stateNames lists the true states in a fixed order.
func stateNames(n *wire.SemanticNode) []string {
	var out []string
	for _, st := range []string{"checked", "disabled", "selected", "expanded", "pressed", "focused", "hidden", "secure"} {
		if n.State(st) {
			out = append(out, st)
		}
	}
	return out
}

// Href is the link target shown for an engine's href projection h (origin
// and path with markers, spec web-engine §2.3): the path alone when h is on
// the origin of appURL, h itself otherwise.
func Href(h, appURL string) string {
	if appURL == "" {
		return h
	}
	u, err := url.Parse(appURL)
	if err != nil || u.Host == "" {
		return h
	}
	origin := u.Scheme + "://" + u.Host
	if len(h) < len(origin) || !strings.EqualFold(h[:len(origin)], origin) {
		return h
	}
	rest := h[len(origin):]
	switch {
	case rest == "":
		return "/"
	case rest[0] == '/':
		return rest
	case rest[0] == '?' || rest[0] == '#':
		return "/" + rest
	}
	return h // e.g. a longer port or host sharing the prefix
}

// NodeLine renders one node as an observation line without indentation,
// and the same line without the focused state (the diff key).
func NodeLine(n *wire.SemanticNode, o Options) (line, key string) {
	redact := o.redact()
	var parts []string
	parts = append(parts, "#"+n.Ref.ID)
	if r := deref(n.Role); r != "" {
		parts = append(parts, r)
	}
	name := o.field(deref(n.Name), NameLimit)
	if name != "" {
		parts = append(parts, quote(name))
	}
	if t := collapse(o.field(deref(n.Text), TextLimit)); t != "" && t != name {
		parts = append(parts, "text="+quote(t))
	}
	if tid := deref(n.TestID); tid != "" {
		parts = append(parts, "testid="+quote(redact(tid)))
	}
	if h := n.Attributes["href"]; h != "" {
		parts = append(parts, "href="+quote(o.field(Href(h, o.AppURL), NameLimit)))
	}
	if p := n.Attributes["placeholder"]; p != "" && name == "" {
		parts = append(parts, "placeholder="+quote(o.field(p, NameLimit)))
	}
	secure := n.State("secure") || n.InputPurpose == "password"
	if secure {
		if n.State("secure") || n.Value != nil {
			parts = append(parts, "value=<secure>")
		}
	} else if n.Value != nil {
		parts = append(parts, "value="+quote(o.field(*n.Value, TextLimit)))
	}
	if n.Selection != nil && !secure {
		parts = append(parts, "selection="+quote(o.field(*n.Selection, TextLimit)))
	}
	if n.InputPurpose != "" && n.InputPurpose != "none" {
		parts = append(parts, "purpose="+n.InputPurpose)
	}
	states := stateNames(n)
	var keyStates []string
	for _, s := range states {
		if s != "focused" {
			keyStates = append(keyStates, s)
		}
	}
	base := strings.Join(parts, " ")
	line, key = base, base
	if len(states) > 0 {
		line += " [" + strings.Join(states, " ") + "]"
	}
	if len(keyStates) > 0 {
		key += " [" + strings.Join(keyStates, " ") + "]"
	}
	return line, key
}

// header is "revision <rev>[, path <p>]".
func (s *Screen) where() string {
	if s.Path != "" {
		return fmt.Sprintf("revision %s, path %s", s.Revision, s.Path)
	}
	return "revision " + s.Revision
}

// Full renders the whole screen: header and every node line.
func (s *Screen) Full() string {
	var b strings.Builder
	if s.Unavailable {
		fmt.Fprintf(&b, "Current screen (%s, semantic capture unavailable):\n", s.where())
		b.WriteString("[semantic capture unavailable: no nodes were read; previous node ids are no longer valid. Use the screenshot, never infer absence from this listing]")
		return b.String()
	}
	fmt.Fprintf(&b, "Current screen (%s, %d nodes):", s.where(), len(s.Lines))
	s.writeLines(&b)
	return b.String()
}

func (s *Screen) writeLines(b *strings.Builder) {
	for _, l := range s.Lines {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", min(l.Depth, MaxIndent)))
		b.WriteString(l.Text)
	}
	switch {
	case s.ByteCut:
		b.WriteString("\n" + ByteMarker)
	case s.Truncated:
		b.WriteString("\n" + EngineMarker)
	}
}

// Update renders the screen update of an action: what changed since prev,
// the screen the agent last received. expectChange says whether the action
// was expected to change the screen (focus-only keys are not).
func Update(prev, cur *Screen, expectChange bool) string {
	if prev == nil || prev.Unavailable || cur.Unavailable {
		return cur.Full()
	}
	type entry struct{ line, key string }
	old := map[string]entry{}
	for _, l := range prev.Lines {
		old[l.ID] = entry{l.Text, l.key}
	}
	seen := map[string]bool{}
	var diff []string
	added, changed, removed := 0, 0, 0
	for _, l := range cur.Lines {
		seen[l.ID] = true
		o, ok := old[l.ID]
		switch {
		case !ok:
			added++
			diff = append(diff, "added "+l.Text)
		case o.key != l.key:
			changed++
			diff = append(diff, fmt.Sprintf("changed %s (was: %s)", l.Text, o.line))
		}
	}
	if !cur.Truncated {
		for _, l := range prev.Lines {
			if !seen[l.ID] {
				removed++
				diff = append(diff, "removed "+l.Text)
			}
		}
	}
	if len(diff) == 0 && !cur.Truncated && prev.Path == cur.Path {
		if expectChange {
			return fmt.Sprintf("The screen did not change within the wait after this action (re-observed as %s); the ids you have stay valid. If a change was expected, the control had no visible effect here: look for another way rather than repeating it.", cur.where())
		}
		return fmt.Sprintf("Screen unchanged since revision %s (re-observed as %s); the ids you have stay valid.", prev.Revision, cur.where())
	}
	if len(diff) >= 60 || float64(len(diff)) > 0.5*float64(max(len(cur.Lines), 1)) && len(diff) > 2 {
		return fmt.Sprintf("The screen changed substantially since revision %s. %s", prev.Revision, cur.Full())
	}
	var counts []string
	if added > 0 {
		counts = append(counts, fmt.Sprintf("%d added", added))
	}
	if changed > 0 {
		counts = append(counts, fmt.Sprintf("%d changed", changed))
	}
	if removed > 0 {
		counts = append(counts, fmt.Sprintf("%d removed", removed))
	}
	c := strings.Join(counts, ", ")
	if c == "" {
		c = "no listed node changed"
	}
	assurance := "Every node not listed as removed is still on screen under the id you have."
	if cur.Truncated {
		assurance = "The listing is truncated, so nothing is reported removed; the ids you have that are not listed stay valid."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Screen changes since revision %s (now %s, %d nodes): %s. %s", prev.Revision, cur.where(), len(cur.Lines), c, assurance)
	for _, d := range diff {
		b.WriteString("\n")
		b.WriteString(d)
	}
	return b.String()
}

// LocateLine renders a located node: `<role or "node"> ["<name>"] [text
// "<text>"] [value "<value>"] [[state, state]]`, its strings redacted as o
// says.
func LocateLine(n *wire.SemanticNode, o Options) string {
	role := deref(n.Role)
	if role == "" {
		role = "node"
	}
	parts := []string{role}
	name := o.field(deref(n.Name), NameLimit)
	if name != "" {
		parts = append(parts, quote(name))
	}
	if t := collapse(o.field(deref(n.Text), TextLimit)); t != "" && t != name {
		parts = append(parts, "text "+quote(t))
	}
	if n.Value != nil && !n.State("secure") {
		parts = append(parts, "value "+quote(o.field(*n.Value, TextLimit)))
	}
	if st := stateNames(n); len(st) > 0 {
		parts = append(parts, "["+strings.Join(st, ", ")+"]")
	}
	return strings.Join(parts, " ")
}

// Query is a locate query as the agent gave it: exactly one of Role, Text,
// Label, Placeholder and TestID; Name only with Role.
type Query struct {
	Role, Name, Text, Label, Placeholder, TestID string
	Exact                                        bool
}

// Code is the test code for q in the positional form (decision 4), e.g.
// `screen.getByRole("button", "Increment")`.
func (q Query) Code() string {
	opt := ""
	if !q.Exact {
		opt = ", { exact: false }"
	}
	switch {
	case q.Role != "":
		if q.Name == "" {
			return fmt.Sprintf("screen.getByRole(%s)", quote(q.Role))
		}
		return fmt.Sprintf("screen.getByRole(%s, %s%s)", quote(q.Role), quote(q.Name), opt)
	case q.Text != "":
		return fmt.Sprintf("screen.getByText(%s%s)", quote(q.Text), opt)
	case q.Label != "":
		return fmt.Sprintf("screen.getByLabel(%s%s)", quote(q.Label), opt)
	case q.Placeholder != "":
		return fmt.Sprintf("screen.getByPlaceholder(%s%s)", quote(q.Placeholder), opt)
	default:
		return fmt.Sprintf("screen.getByTestId(%s)", quote(q.TestID))
	}
}

// Describe is the expression description of the result's first line.
func (q Query) Describe() string {
	ex := ""
	if !q.Exact {
		ex = " (case-insensitive substring)"
	}
	switch {
	case q.Role != "" && q.Name != "":
		return fmt.Sprintf("role %s named %s%s", quote(q.Role), quote(q.Name), ex)
	case q.Role != "":
		return "role " + quote(q.Role)
	case q.Text != "":
		return "text " + quote(q.Text) + ex
	case q.Label != "":
		return "label " + quote(q.Label) + ex
	case q.Placeholder != "":
		return "placeholder " + quote(q.Placeholder) + ex
	default:
		return "test id " + quote(q.TestID)
	}
}

// Expression is the engine locator expression of q.
func (q Query) Expression() wire.LocatorExpression {
	var sq wire.SemanticQuery
	switch {
	case q.Role != "":
		sq = wire.SemanticQuery{Kind: wire.QueryRole, Value: wire.StringPattern(q.Role, true)}
		if q.Name != "" {
			p := wire.StringPattern(q.Name, q.Exact)
			sq.Name = &p
		}
	case q.Text != "":
		sq = wire.SemanticQuery{Kind: wire.QueryText, Value: wire.StringPattern(q.Text, q.Exact)}
	case q.Label != "":
		sq = wire.SemanticQuery{Kind: wire.QueryLabel, Value: wire.StringPattern(q.Label, q.Exact)}
	case q.Placeholder != "":
		sq = wire.SemanticQuery{Kind: wire.QueryPlaceholder, Value: wire.StringPattern(q.Placeholder, q.Exact)}
	default:
		sq = wire.SemanticQuery{Kind: wire.QueryTestID, Value: wire.StringPattern(q.TestID, true)}
	}
	return wire.LocatorExpression{Kind: wire.ExprQuery, Query: &sq}
}

// MaxLocated is how many located nodes are listed.
const MaxLocated = 10

// Located renders the locate result for q and its matches, their strings
// redacted as o says.
func Located(q Query, nodes []wire.SemanticNode, o Options) string {
	var b strings.Builder
	k := len(nodes)
	if k == 1 {
		fmt.Fprintf(&b, "1 node matches %s.\n", q.Describe())
	} else {
		fmt.Fprintf(&b, "%d nodes match %s.\n", k, q.Describe())
	}
	switch {
	case k == 1:
		b.WriteString("Use: " + q.Code())
	case k == 0:
		b.WriteString("A test using this locator would fail with LOCATOR_NOT_FOUND. Check the accessible name in the observation (observe), or loosen the match with exact: false.")
	default:
		fmt.Fprintf(&b, "A test action on %s would fail with LOCATOR_AMBIGUOUS. Narrow it with a name, getByRole(role, name), .filter({ hasText }), .first(), or .nth(i), or scope it under a container.", q.Code())
	}
	for i := range nodes {
		if i == MaxLocated {
			fmt.Fprintf(&b, "\n- and %d more", k-MaxLocated)
			break
		}
		b.WriteString("\n- " + LocateLine(&nodes[i], o))
	}
	return b.String()
}
