package session

// What issue 29 added for agents on real apps: the app log in results and
// the trace, native dialogs (reported, and a per-session dialog policy),
// settling before a screen update, wait_for, observe {within}, fill_form,
// and the HTTP status of a navigation.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/mcp/catalog"
	"github.com/e2e-conform/toolkit/mcp/mcperr"
	"github.com/e2e-conform/toolkit/mcp/screen"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Settling defaults (Options.SettleQuiet, Options.SettleLimit): a screen
// update is rendered once two observations DefaultSettleQuiet apart are
// the same and no navigation came between them, or after
// DefaultSettleLimit.
const (
	DefaultSettleQuiet = 150 * time.Millisecond
	DefaultSettleLimit = 2 * time.Second
)

// DialogsMethod is the extension notification that tells an engine the
// session's dialog policy (the reference web engine's "web/dialogs",
// reference-engine/dialogpolicy.go); an engine that does not know it
// ignores it (engine protocol §1.4).
const DialogsMethod = "web/dialogs"

// traceAppLog is the trace record of an attempt/appLog entry.
const traceAppLog = "appLog"

// Result reporting bounds: app log lines per result, bytes per line.
const (
	maxLogLines = 5
	maxLogLine  = 300
)

// agentState is a session's app log and dialog policy. The log is written
// by the connection's reader (attempt/appLog), read by the call holding
// the step; mu guards it.
type agentState struct {
	mu   sync.Mutex
	seq  int // entries received so far
	log  []logged
	navs int // attempt/navigation lines received
	// latched: a dismissed dialog's failure waits in the engine for the
	// next operation (web-engine §2.11).
	latched bool

	// The fields below are used by the call holding the step.
	accept bool
	prompt string
	navURL string // the URL navigate opened in this call
}

// logged is one app log entry, its text redacted.
type logged struct {
	seq    int
	entry  wire.AppLogEntry
	dialog *dialogEvent
}

// dialogEvent is a native dialog an app log line reported.
type dialogEvent struct {
	typ, message string
	accepted     bool
}

// The dialog lines of web-engine §2.11 and the reference web engine's
// dialog policy (DialogsMethod): "unhandled <type> dialog: <message>
// (dismissed; …)" and "accepted <type> dialog: <message>".
var (
	dismissedRe = regexp.MustCompile(`^unhandled (alert|confirm|prompt|beforeunload) dialog: (.*?)(?: \(dismissed[^)]*\))?$`)
	acceptedRe  = regexp.MustCompile(`^accepted (alert|confirm|prompt|beforeunload) dialog: (.*)$`)
)

func parseDialog(e wire.AppLogEntry) *dialogEvent {
	if e.Source != "system" {
		return nil
	}
	if m := dismissedRe.FindStringSubmatch(e.Text); m != nil {
		return &dialogEvent{typ: m[1], message: m[2]}
	}
	if m := acceptedRe.FindStringSubmatch(e.Text); m != nil {
		return &dialogEvent{typ: m[1], message: m[2], accepted: true}
	}
	return nil
}

// onAppLog records an attempt/appLog entry: redacted, in the trace, and
// kept for the result of the call it arrived in.
func (s *Session) onAppLog(e wire.AppLogEntry) {
	e.Text = s.h.red.String(e.Text)
	s.trace.add(traceRecord{Kind: traceAppLog, Text: e.Level + " " + e.Source + ": " + e.Text})
	a := &s.agent
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	d := parseDialog(e)
	if d != nil && !d.accepted {
		a.latched = true
	}
	a.log = append(a.log, logged{seq: a.seq, entry: e, dialog: d})
	if len(a.log) > 256 {
		a.log = append(a.log[:0], a.log[len(a.log)-128:]...)
	}
}

func (s *Session) onNavigation() {
	s.agent.mu.Lock()
	s.agent.navs++
	s.agent.mu.Unlock()
}

// mark is the app log position now.
func (a *agentState) mark() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.seq
}

func (a *agentState) navCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.navs
}

// since returns the entries received after mark.
func (a *agentState) since(mark int) []logged {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []logged
	for _, l := range a.log {
		if l.seq > mark {
			out = append(out, l)
		}
	}
	return out
}

// sawDialog reports whether a native dialog was logged after mark.
func (a *agentState) sawDialog(mark int) bool {
	for _, l := range a.since(mark) {
		if l.dialog != nil {
			return true
		}
	}
	return false
}

// dialogFailure reports whether err is the failure an engine throws at the
// operation after a dialog it dismissed (web-engine §2.11: INVALID_STATE
// "unhandled <type> dialog: <message>").
func dialogFailure(err error) bool {
	var ee *engineerr.EngineError
	return errors.As(err, &ee) && ee.Code == engineerr.InvalidState && dismissedRe.MatchString(ee.Message)
}

// takeLatched reports whether err is a dismissed dialog's failure the app
// log announced: the failed operation did nothing and may run again.
func (a *agentState) takeLatched(err error) bool {
	if !dialogFailure(err) {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.latched {
		return false
	}
	a.latched = false
	return true
}

// report renders what the app logged since mark for an action result: a
// sentence per native dialog, then at most maxLogLines other lines. It is
// "" when nothing was logged, else starts with a newline.
func (s *Session) report(mark int) string {
	var b strings.Builder
	var other []string
	for _, l := range s.agent.since(mark) {
		if d := l.dialog; d != nil {
			b.WriteString("\n" + s.dialogSentence(d))
			continue
		}
		t := l.entry.Text
		if len(t) > maxLogLine {
			t = engineerr.CutUTF8(t, maxLogLine) + "…"
		}
		other = append(other, fmt.Sprintf("- %s %s: %s", l.entry.Level, l.entry.Source, t))
	}
	if len(other) > 0 {
		fmt.Fprintf(&b, "\nApp log during this call (%d lines):", len(other))
		for i, o := range other {
			if i == maxLogLines {
				fmt.Fprintf(&b, "\n- and %d more (in the session trace)", len(other)-maxLogLines)
				break
			}
			b.WriteString("\n" + o)
		}
	}
	return b.String()
}

// dialogSentence says what happened to a dialog and how to change it.
func (s *Session) dialogSentence(d *dialogEvent) string {
	head := fmt.Sprintf("A native %s dialog opened: %s.", d.typ, strconv.Quote(d.message))
	answer := map[string][2]string{
		"alert":        {"OK", "OK"},
		"confirm":      {"OK (the app got true)", "Cancel (the app got false)"},
		"prompt":       {"OK", "Cancel (the app got null)"},
		"beforeunload": {"Leave (the page was left)", "Stay (the page was kept)"},
	}[d.typ]
	if d.accepted {
		a := answer[0]
		if d.typ == "prompt" {
			if s.agent.prompt != "" {
				a = fmt.Sprintf("OK with %s", strconv.Quote(s.agent.prompt))
			} else {
				a = "OK with its default text"
			}
		}
		return head + " It was accepted: " + a + ", by this session's dialog policy; dialogs {accept: false} dismisses the next ones."
	}
	if s.agent.accept {
		return head + fmt.Sprintf(" It was dismissed: %s, although this session's dialog policy is accept: engine %s does not take the dialog policy (the %s notification), so dialogs cannot be accepted on this target.", answer[1], s.manifest.Name, DialogsMethod)
	}
	how := `call {tool: "dialogs", args: {accept: true}}`
	if d.typ == "prompt" {
		how = `call {tool: "dialogs", args: {accept: true, promptText: "…"}}`
	}
	return head + fmt.Sprintf(" It was dismissed: %s. To accept dialogs instead, %s, then repeat the action.", answer[1], how)
}

// look sends engine/observe and renders it without a revision. A dismissed
// dialog's failure is taken and the observation sent again.
func (s *Session) look(ctx context.Context, pixels bool) (*screen.Screen, error) {
	var opts *wire.EngineObserveOptions
	if pixels {
		opts = &wire.EngineObserveOptions{Pixels: true}
	}
	snap, err := s.w.Observe(ctx, wire.OriginAgent, opts)
	if err != nil && s.agent.takeLatched(err) {
		snap, err = s.w.Observe(ctx, wire.OriginAgent, opts)
	}
	if err != nil {
		return nil, err
	}
	return screen.New(snap, "", s.screenOptions()), nil
}

// commit makes scr the next revision and records it in the trace.
func (s *Session) commit(scr *screen.Screen) {
	s.rev++
	scr.Revision = fmt.Sprintf("b%d", s.rev)
	s.trace.add(traceRecord{Kind: traceScreen, Source: "observe", Revision: scr.Revision, Text: scr.Full()})
}

func (h *Host) settleQuiet() time.Duration {
	if h.opts.SettleQuiet != 0 {
		return h.opts.SettleQuiet
	}
	return DefaultSettleQuiet
}

func (h *Host) settleLimit() time.Duration {
	if h.opts.SettleLimit > 0 {
		return h.opts.SettleLimit
	}
	return DefaultSettleLimit
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// settle observes after an action until the screen is quiet: two
// observations a quiet interval apart are the same (over the whole tree)
// and no navigation line came between them; when a change was expected and
// nothing changed yet, it goes on looking. Polling is bounded by the settle
// limit; changing reports the screen still moved when it ran out. The
// observations are engine/observe calls compared, never a fixed sleep in
// place of one.
func (s *Session) settle(ctx context.Context, prev *screen.Screen, expect bool) (cur *screen.Screen, changing bool, err error) {
	quiet, limit := s.h.settleQuiet(), s.h.settleLimit()
	start := time.Now()
	nav := s.agent.navCount()
	if cur, err = s.look(ctx, false); err != nil {
		return nil, false, err
	}
	if quiet < 0 {
		return cur, false, nil
	}
	for {
		changed := prev == nil || !cur.Same(prev)
		if time.Since(start)+quiet > limit {
			return cur, changed, nil
		}
		if err := pause(ctx, quiet); err != nil {
			return nil, false, err
		}
		before := s.agent.navCount()
		next, err := s.look(ctx, false)
		if err != nil {
			return nil, false, err
		}
		if next.Same(cur) && s.agent.navCount() == nav && (changed || !expect) {
			return next, false, nil
		}
		cur, nav = next, before
	}
}

// secureTarget reports whether the node acted on (the focused one without
// a target) is a secure field: typing into it shows no change.
func secureTarget(prev *screen.Screen, id string) bool {
	if prev == nil || prev.Snapshot == nil {
		return false
	}
	var n *wire.SemanticNode
	if id != "" {
		n = prev.IDs[id]
	} else {
		prev.Snapshot.Root.Walk(func(x *wire.SemanticNode) bool {
			if x.State("focused") {
				n = x
				return false
			}
			return true
		})
	}
	return n != nil && (n.State("secure") || n.InputPurpose == "password")
}

// httpStatus finds the app log line of a response >= 400 (the reference web
// engine's "404 Not Found <url>", network) for u or the page's location,
// and returns "404 Not Found".
func httpStatus(entries []logged, u, location string) string {
	want := map[string]bool{}
	for _, raw := range []string{u, location} {
		if p, err := url.Parse(raw); err == nil && p.Host != "" {
			path := p.EscapedPath()
			want[p.Scheme+"://"+p.Host+path] = true
			if path == "" {
				want[p.Scheme+"://"+p.Host+"/"] = true
			}
		}
	}
	for _, l := range entries {
		f := strings.Fields(l.entry.Text)
		if l.entry.Source != "network" || len(f) < 2 {
			continue
		}
		code, err := strconv.Atoi(f[0])
		if err != nil || code < 400 || code > 599 {
			continue
		}
		at := strings.TrimSuffix(strings.TrimSuffix(f[len(f)-1], "#…"), "?…")
		if want[at] {
			return strings.Join(f[:len(f)-1], " ")
		}
	}
	return ""
}

// observeWithin answers observe {within}: a new observation, the subtree
// of id listed.
func (s *Session) observeWithin(ctx context.Context, id string) (*Result, error) {
	scr, err := s.observe(ctx, false)
	if err != nil {
		return nil, err
	}
	s.scr = scr
	text, ok := scr.Within(id)
	if !ok {
		return nil, mcperr.New(mcperr.LocatorNotFound, "node #%s is not on the screen (revision %s); observe lists the ids it has", id, scr.Revision)
	}
	return catalog.TextResult(text), nil
}

// waitFor answers wait_for: observations a quiet interval apart until the
// condition holds or the timeout passes; the result is the screen update
// since the screen the agent last received.
func (s *Session) waitFor(ctx context.Context, in catalog.WaitForArgs) (*Result, error) {
	timeout := time.Duration(float64(in.Timeout) * float64(time.Second))
	if in.Timeout == 0 {
		timeout = catalog.DefaultWaitSeconds * time.Second
	}
	what := "text " + strconv.Quote(string(in.Text))
	if in.Role != "" {
		what = "a " + string(in.Role)
		if in.Name != "" {
			what += " named " + strconv.Quote(string(in.Name))
		}
	}
	verb := "appeared"
	if in.Gone {
		verb = "was gone"
	}
	prev, mark, start := s.scr, s.agent.mark(), time.Now()
	interval := max(s.h.settleQuiet(), 50*time.Millisecond)
	for {
		cur, err := s.look(ctx, false)
		if err != nil {
			return nil, err
		}
		met := present(cur.Snapshot, in) != in.Gone
		waited := time.Since(start)
		if met || waited+interval > timeout {
			s.commit(cur)
			s.scr = cur
			var text string
			if met {
				text = fmt.Sprintf("Waited %.1f s: %s %s.", waited.Seconds(), what, verb)
			} else {
				text = fmt.Sprintf("wait_for timed out after %.1f s: %s never %s.", waited.Seconds(), what, verb)
			}
			text += s.report(mark) + "\n\n" + screen.Update(prev, cur, false)
			return &Result{Text: text, IsError: !met}, nil
		}
		if err := pause(ctx, interval); err != nil {
			return nil, err
		}
	}
}

// present reports whether a node of snap (hidden ones aside) matches
// wait_for's text, or role and name.
func present(snap *wire.EngineSnapshot, in catalog.WaitForArgs) bool {
	if snap == nil || snap.TreeUnavailable {
		return false
	}
	found := false
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if n.State("hidden") {
			return true
		}
		name := ""
		if n.Name != nil {
			name = *n.Name
		}
		if in.Role != "" {
			found = n.Role != nil && *n.Role == string(in.Role) && strings.Contains(name, string(in.Name))
		} else {
			t := string(in.Text)
			found = strings.Contains(name, t) || (n.Text != nil && strings.Contains(strings.Join(strings.Fields(*n.Text), " "), t)) ||
				(n.Value != nil && !n.State("secure") && strings.Contains(*n.Value, t))
		}
		return !found
	})
	return found
}

// fillForm answers fill_form: each field in order (type, check or uncheck,
// or select by the node's role), stopping at the first failure; one screen
// update at the end; each field reported.
func (s *Session) fillForm(ctx context.Context, fields []catalog.FormField) (*Result, error) {
	a := &catalog.Action{Attempt: "fill_form", Expect: true}
	var lines []string
	a.Do = func(ctx context.Context) error {
		lines = lines[:0]
		for i, f := range fields {
			id := string(f.Target)
			la, did := s.fieldAction(id, f.Value)
			if err := s.perform(id, la)(ctx); err != nil {
				a.Attempt = fmt.Sprintf("fill_form field %d of %d (#%s)", i+1, len(fields), id)
				lines = append(lines, fmt.Sprintf("- #%s: failed", id))
				for _, rest := range fields[i+1:] {
					lines = append(lines, fmt.Sprintf("- #%s: not filled", string(rest.Target)))
				}
				a.Attempt = strings.Join(lines, "\n") + "\n" + a.Attempt
				return err
			}
			lines = append(lines, "- #"+id+": "+did)
		}
		a.Lead = fmt.Sprintf("Filled %d fields:\n%s", len(fields), strings.Join(lines, "\n"))
		return nil
	}
	return s.act(ctx, a)
}

// fieldAction is the action fill_form takes on node id with value: check
// or uncheck a checkbox, radio or switch ("true"/"false"), select an
// option of a select box, else fill.
func (s *Session) fieldAction(id, value string) (wire.LocatorAction, string) {
	role := ""
	var n *wire.SemanticNode
	if s.scr != nil {
		n = s.scr.IDs[id]
	}
	if n != nil && n.Role != nil {
		role = *n.Role
	}
	switch role {
	case "checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio":
		if b, err := strconv.ParseBool(value); err == nil && !b {
			return wire.LocatorAction{Kind: wire.ActionUncheck}, "unchecked"
		}
		return wire.LocatorAction{Kind: wire.ActionCheck}, "checked"
	case "listbox":
		return wire.LocatorAction{Kind: wire.ActionSelectOption, Option: wire.SelectOption{Text: value}}, "selected " + strconv.Quote(value)
	case "combobox":
		if hasOptions(n) {
			return wire.LocatorAction{Kind: wire.ActionSelectOption, Option: wire.SelectOption{Text: value}}, "selected " + strconv.Quote(value)
		}
	}
	if n != nil && (n.State("secure") || n.InputPurpose == "password") {
		return wire.LocatorAction{Kind: wire.ActionFill, Value: value}, "typed (a secure field: its value is never shown)"
	}
	return wire.LocatorAction{Kind: wire.ActionFill, Value: value}, "typed " + strconv.Quote(value)
}

// hasOptions reports whether n lists options (a select box, not a text
// combobox).
func hasOptions(n *wire.SemanticNode) bool {
	found := false
	n.Walk(func(c *wire.SemanticNode) bool {
		if c != n && c.Role != nil && *c.Role == "option" {
			found = true
		}
		return !found
	})
	return found
}

// setDialogs answers dialogs: the session's policy, told to the engine.
func (s *Session) setDialogs(in catalog.DialogsArgs) (*Result, error) {
	s.agent.accept, s.agent.prompt = in.Accept, in.PromptText
	if err := s.w.Conn().Notify(DialogsMethod, map[string]any{"attemptId": s.attempt, "accept": in.Accept, "promptText": in.PromptText}); err != nil {
		return nil, mcperr.Wrap(mcperr.EngineFailure, err, "cannot tell the engine the dialog policy: %v", err)
	}
	if !in.Accept {
		return catalog.TextResult("Dialog policy: dismiss (the default). Native dialogs are dismissed (Cancel); each action result says when one opened."), nil
	}
	p := "a prompt answers its default text"
	if in.PromptText != "" {
		p = "a prompt answers " + strconv.Quote(in.PromptText)
	}
	return catalog.TextResult(fmt.Sprintf("Dialog policy: accept (%s). Native dialogs opened from now on are accepted (OK); each action result says when one opened and how it was answered. Engine %s was told with the %s notification; an engine that does not take it goes on dismissing them, and the action result then says so.", p, s.manifest.Name, DialogsMethod)), nil
}
