// Package screen renders what the MCP host shows an agent of an engine
// observation (spec mcp.md §3.4–§3.6): the node lines of an observation, the
// screen update after an action (a diff against the screen the agent last
// received), and the node lines and code suggestion of locate.
package screen

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
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
	// IDs holds the node id of every node shown for this observation: the
	// listed ones, and those a diff, a subtree (Within) or a locate showed
	// since. A node past a byte cut that was never shown has no valid id.
	IDs map[string]*wire.SemanticNode
	// Snapshot is the observation rendered.
	Snapshot *wire.EngineSnapshot

	opts Options
	// all is every node of the observation in document order: the diff
	// covers the whole screen, not only what a cut listing shows.
	all []item
	// gaps maps a line index to the number of nodes left out before it.
	gaps map[int]int
}

// Show makes the id of n valid for this observation: a node the agent was
// shown outside the listing (by a locate, say).
func (s *Screen) Show(n *wire.SemanticNode) {
	if n.Ref.ID != "" {
		s.IDs[n.Ref.ID] = n
	}
}

// Same reports whether s and o show the same screen: the same path and,
// over the whole observation (not only the listed part), the same nodes
// with the same lines, the focused state aside.
func (s *Screen) Same(o *Screen) bool {
	if s.Unavailable || o.Unavailable || s.Path != o.Path || len(s.all) != len(o.all) {
		return false
	}
	for i := range s.all {
		a, b := s.all[i], o.all[i]
		if a.ID != b.ID || a.Depth != b.Depth || a.key != b.key {
			return false
		}
	}
	return true
}

// Find returns the node of the observation with id, listed or not.
func (s *Screen) Find(id string) *wire.SemanticNode {
	for _, it := range s.all {
		if it.ID == id {
			return it.node
		}
	}
	return nil
}

// Within renders the subtree of the node id (spec: observe {within}): its
// lines in document order under the byte limit, every listed id then
// valid. ok is false when the observation has no such node.
func (s *Screen) Within(id string) (text string, ok bool) {
	start := -1
	for i, it := range s.all {
		if it.ID == id {
			start = i
			break
		}
	}
	if start < 0 {
		return "", false
	}
	limit := s.opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	budget := limit - len(ByteMarker) - 1
	base := s.all[start].Depth
	var b strings.Builder
	used, n, cut := 0, 0, false
	for i := start; i < start+s.all[start].span; i++ {
		it := s.all[i]
		d := it.Depth - base
		sz := min(d, MaxIndent) + len(it.Text)
		if n > 0 {
			sz++
		}
		if n > 0 && used+sz > budget {
			cut = true
			break
		}
		used += sz
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat(" ", min(d, MaxIndent)))
		b.WriteString(it.Text)
		s.IDs[it.ID] = it.node
		n++
	}
	if cut {
		b.WriteString("\n" + ByteMarker)
	}
	return fmt.Sprintf("Subtree of #%s (%s, %d nodes):\n%s", id, s.where(), n, b.String()), true
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

// New renders snap as revision rev. When the listing does not fit the
// byte limit, what an agent needs first is listed before anything the cut
// drops: an open modal (a dialog or alertdialog node, `<dialog open>` or
// `aria-modal="true"` on the web) and the region of the focused node, each
// with the nodes above it; then the rest in document order as far as it
// fits. A line "[… N nodes not listed here …]" stands where nodes were left
// out between listed ones.
func New(snap *wire.EngineSnapshot, rev string, o Options) *Screen {
	redact := o.redact()
	s := &Screen{Revision: rev, Path: redact(PathOf(snap.Location)), Truncated: snap.Truncated,
		Unavailable: snap.TreeUnavailable, IDs: map[string]*wire.SemanticNode{}, Snapshot: snap, opts: o}
	if snap.TreeUnavailable {
		return s
	}
	limit := o.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	s.all = flatten(&snap.Root, o)
	// A cut listing ends with "\n" + ByteMarker: what the lines may use.
	budget := limit - len(ByteMarker) - 1
	total := 0
	for i, it := range s.all {
		total += it.size(i)
	}
	if total <= budget {
		for _, it := range s.all {
			s.IDs[it.ID] = it.node
			s.Lines = append(s.Lines, it.Line)
		}
		return s
	}
	s.ByteCut, s.Truncated = true, true
	regions := priorityRegions(s.all)
	// Each region may leave a gap before and after it, and one follows the
	// nodes listed in document order.
	budget -= (2*len(regions) + 1) * gapMax
	keep := make([]bool, len(s.all))
	used := 0
	take := func(i int) bool {
		if keep[i] {
			return true
		}
		sz := s.all[i].size(i)
		if i > 0 && used+sz > budget {
			return false
		}
		keep[i], used = true, used+sz
		return true
	}
	take(0) // the root is always listed
	// The priority regions, each with the nodes above it, while they fit.
	for _, r := range regions {
		for _, a := range ancestors(s.all, r) {
			take(a)
		}
		for i := r; i < r+s.all[r].span; i++ {
			if !take(i) {
				break
			}
		}
	}
	// Then the rest in document order, as long as it fits.
	for i := range s.all {
		if !take(i) {
			break
		}
	}
	s.gaps = map[int]int{}
	skipped := 0
	for i, it := range s.all {
		if !keep[i] {
			skipped++
			continue
		}
		if skipped > 0 {
			s.gaps[len(s.Lines)] = skipped
			skipped = 0
		}
		s.IDs[it.ID] = it.node
		s.Lines = append(s.Lines, it.Line)
	}
	return s
}

// gapMax is the most bytes a gap line takes, its newline included.
var gapMax = len("\n" + gapLine(9999999))

// gapLine stands where n nodes were left out of a cut listing.
func gapLine(n int) string { return fmt.Sprintf("[… %d nodes not listed here …]", n) }

// item is one node of the whole observation in document order.
type item struct {
	Line
	node   *wire.SemanticNode
	parent int // index of the parent item, -1 for the root
	span   int // the item and its descendants
}

// size is the bytes the item's line takes in a listing: indentation, text,
// and the newline before it (none before the first).
func (it item) size(i int) int {
	n := min(it.Depth, MaxIndent) + len(it.Text)
	if i > 0 {
		n++
	}
	return n
}

// flatten lists every node under root in document order.
func flatten(root *wire.SemanticNode, o Options) []item {
	var out []item
	var walk func(n *wire.SemanticNode, depth, parent int)
	walk = func(n *wire.SemanticNode, depth, parent int) {
		text, key := NodeLine(n, o)
		i := len(out)
		out = append(out, item{Line: Line{ID: n.Ref.ID, Depth: depth, Text: text, key: key}, node: n, parent: parent})
		for c := range n.Children {
			walk(&n.Children[c], depth+1, i)
		}
		out[i].span = len(out) - i
	}
	walk(root, 0, -1)
	return out
}

// modalRoles are the roles of a node listed first when a listing is cut
// (an open `<dialog>` or an `aria-modal` one).
var modalRoles = map[string]bool{"dialog": true, "alertdialog": true}

// regionRoles bound the region of the focused node listed first when a
// listing is cut: its nearest ancestor of one of these roles.
var regionRoles = map[string]bool{"dialog": true, "alertdialog": true, "form": true, "group": true, "region": true,
	"search": true, "main": true, "navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"table": true, "grid": true, "list": true, "listbox": true, "menu": true, "menubar": true, "toolbar": true,
	"tablist": true, "tabpanel": true, "tree": true, "radiogroup": true, "row": true}

// priorityRegions are the items listed first in a cut listing: every
// open modal not inside another, then the focused node's region.
func priorityRegions(all []item) []int {
	var out []int
	for i := 0; i < len(all); i++ {
		n := all[i].node
		if n.Role != nil && modalRoles[*n.Role] && !n.State("hidden") {
			out = append(out, i)
			i += all[i].span - 1
		}
	}
	for i, it := range all {
		if !it.node.State("focused") {
			continue
		}
		r := i
		for p := it.parent; p > 0; p = all[p].parent {
			if n := all[p].node; n.Role != nil && regionRoles[*n.Role] {
				r = p
				break
			}
		}
		out = append(out, r)
		break
	}
	return out
}

// ancestors are the indexes of the items above i, root first.
func ancestors(all []item, i int) []int {
	var out []int
	for p := all[i].parent; p >= 0; p = all[p].parent {
		out = append(out, p)
	}
	slices.Reverse(out)
	return out
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
	for i, l := range s.Lines {
		if g := s.gaps[i]; g > 0 {
			b.WriteString("\n" + gapLine(g))
		}
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
// was expected to change the screen (focus-only keys are not). The diff
// covers every node of both observations, also those a byte cut left out
// of a listing; a node it shows gets a valid id. Only a tree the engine
// itself cut short reports no removals and is never called unchanged.
func Update(prev, cur *Screen, expectChange bool) string {
	if prev == nil || prev.Unavailable || cur.Unavailable {
		return cur.Full()
	}
	type entry struct{ line, key string }
	old := map[string]entry{}
	for _, l := range prev.all {
		old[l.ID] = entry{l.Text, l.key}
	}
	engineCut := cur.Snapshot != nil && cur.Snapshot.Truncated
	seen := map[string]bool{}
	var diff []string
	var shown []*wire.SemanticNode
	added, changed, removed := 0, 0, 0
	for _, l := range cur.all {
		seen[l.ID] = true
		o, ok := old[l.ID]
		switch {
		case !ok:
			added++
			diff = append(diff, "added "+l.Text)
			shown = append(shown, l.node)
		case o.key != l.key:
			changed++
			diff = append(diff, fmt.Sprintf("changed %s (was: %s)", l.Text, o.line))
			shown = append(shown, l.node)
		}
	}
	if !engineCut {
		for _, l := range prev.all {
			if !seen[l.ID] {
				removed++
				diff = append(diff, "removed "+l.Text)
			}
		}
	}
	if len(diff) == 0 && !engineCut && prev.Path == cur.Path {
		if expectChange {
			return fmt.Sprintf("The screen did not change within the wait after this action (re-observed as %s); the ids you have stay valid. If a change was expected, the control had no visible effect here: look for another way rather than repeating it.", cur.where())
		}
		return fmt.Sprintf("Screen unchanged since revision %s (re-observed as %s); the ids you have stay valid.", prev.Revision, cur.where())
	}
	if len(diff) >= 60 || float64(len(diff)) > 0.5*float64(max(len(cur.all), 1)) && len(diff) > 2 {
		return fmt.Sprintf("The screen changed substantially since revision %s. %s", prev.Revision, cur.Full())
	}
	for _, n := range shown {
		cur.Show(n)
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
	switch {
	case engineCut:
		assurance = "The listing is truncated, so nothing is reported removed; the ids you have that are not listed stay valid."
	case cur.ByteCut:
		assurance = "Every node not listed as removed is still on screen under the id you have; these changes cover the whole screen, also past the listing's byte cut, and their ids are valid."
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
		b.WriteString("\n- ")
		if id := nodes[i].Ref.ID; id != "" {
			b.WriteString("#" + id + " ")
		}
		b.WriteString(LocateLine(&nodes[i], o))
	}
	return b.String()
}
