package session

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/mcp/catalog"
	"github.com/e2e-conform/toolkit/mcp/policy"
	"github.com/e2e-conform/toolkit/mcp/screen"
	"github.com/e2e-conform/toolkit/protocol/wire"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

// MaxImageSide is the longest side of an image given to the agent.
const MaxImageSide = 768

// run executes a validated catalog tool inside the session's step.
//
// Calls of one session run one at a time, in the order they queued. A call
// whose ctx ends (the client's notifications/cancelled) while it waits for
// the previous one never runs; one that ends while it runs aborts the
// engine operation through its signal. Both answer CANCELLED.
func (s *Session) run(ctx context.Context, t *catalog.Tool, args json.RawMessage) (*Result, error) {
	tool := t.Name
	step := s.h.opts.OnStep
	select {
	case s.step <- struct{}{}:
	default:
		s.h.log.Info(fmt.Sprintf("session %s: call %s waits for the session's previous call", s.id, tool))
		if step != nil {
			step(StepQueued, s.id, tool)
		}
		select {
		case s.step <- struct{}{}:
		case <-ctx.Done():
			return nil, mcperr.New(mcperr.Cancelled, "call %s was cancelled while it waited for the session's previous call; it did not run", tool)
		case <-s.stepCtx.Done():
			return nil, context.Cause(s.stepCtx)
		}
	case <-ctx.Done():
		return nil, mcperr.New(mcperr.Cancelled, "call %s was cancelled while it waited for the session's previous call; it did not run", tool)
	case <-s.stepCtx.Done():
		return nil, context.Cause(s.stepCtx)
	}
	defer func() { <-s.step }()
	// Both may have ended while the step was free: never run then.
	if ctx.Err() != nil {
		return nil, mcperr.New(mcperr.Cancelled, "call %s was cancelled while it waited for the session's previous call; it did not run", tool)
	}
	if s.stepCtx.Err() != nil {
		return nil, context.Cause(s.stepCtx)
	}
	if step != nil {
		step(StepRun, s.id, tool)
	}
	s.trace.add(traceRecord{Kind: traceCall, Tool: tool})
	mcpCtx := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(s.stepCtx, func() { cancel(context.Cause(s.stepCtx)) })
	defer stop()
	res, err := t.Run(ctx, driver{s}, args)
	if mcpCtx.Err() != nil && s.stepCtx.Err() == nil {
		return nil, mcperr.New(mcperr.Cancelled, "call %s was cancelled while it ran; its engine operation was aborted through its signal", tool)
	}
	if err != nil {
		return nil, err
	}
	res.Text = s.h.red.String(res.Text)
	return res, nil
}

// driver is the session as the catalog tools drive it (catalog.Driver).
type driver struct{ s *Session }

func (d driver) Manifest() wire.Manifest { return d.s.manifest }

func (d driver) Perform(ctx context.Context, id string, la wire.LocatorAction) error {
	return d.s.perform(id, la)(ctx)
}

func (d driver) Type(ctx context.Context, value string, replace bool) error {
	return d.s.w.Type(ctx, wire.OriginAgent, value, replace)
}

func (d driver) Press(ctx context.Context, key string) error {
	return d.s.w.Press(ctx, wire.OriginAgent, key)
}

func (d driver) Dismiss(ctx context.Context) error { return d.s.w.Dismiss(ctx, wire.OriginAgent) }

func (d driver) Navigate(ctx context.Context, raw string) error {
	u, err := policy.ResolveURL(raw, d.s.appURL)
	if err != nil {
		return err
	}
	d.s.agent.navURL = u
	return d.s.w.Open(ctx, wire.OriginAgent, u)
}

func (d driver) Back(ctx context.Context) error { return d.s.w.Back(ctx, wire.OriginAgent) }

func (d driver) Scroll(ctx context.Context, id, dir string, times int) error {
	s := d.s
	for i := 0; i < times; i++ {
		t := id
		if t == "" {
			t = s.scr.Snapshot.Root.Ref.ID
		}
		if err := s.perform(t, wire.LocatorAction{Kind: wire.ActionSwipe, Direction: dir})(ctx); err != nil {
			return err
		}
		if i+1 < times {
			scr, err := s.observe(ctx, false)
			if err != nil {
				return err
			}
			s.scr = scr
		}
	}
	return nil
}

func (d driver) ScrollToText(ctx context.Context, text, dir string) error {
	return d.s.scrollToText(ctx, text, dir)
}

func (d driver) Upload(ctx context.Context, id string, files []string) error {
	paths, err := policy.UploadPaths(d.s.root, files)
	if err != nil {
		return err
	}
	return d.s.perform(id, wire.LocatorAction{Kind: wire.ActionSetInputFiles, Paths: paths})(ctx)
}

func (d driver) FillSecret(ctx context.Context, id, name string) error {
	return d.s.fillSecret(ctx, id, name)
}

func (d driver) Act(ctx context.Context, a *catalog.Action) (*Result, error) { return d.s.act(ctx, a) }

func (d driver) Observe(ctx context.Context) (*Result, error) {
	scr, err := d.s.observe(ctx, false)
	if err != nil {
		return nil, err
	}
	d.s.scr = scr
	return catalog.TextResult(scr.Full()), nil
}

func (d driver) Screenshot(ctx context.Context) (*Result, error) { return d.s.screenshot(ctx) }

func (d driver) Locate(ctx context.Context, in catalog.LocateArgs) (*Result, error) {
	return d.s.locate(ctx, in)
}

func (d driver) StartRecording(ctx context.Context, name string) (*Result, error) {
	return d.s.startRecording(ctx, name)
}

func (d driver) StopRecording(ctx context.Context) (*Result, error) {
	if d.s.rec == nil {
		return catalog.TextResult("Nothing is recording; start_recording starts a recording."), nil
	}
	return catalog.TextResult(strings.Join(d.s.stopRecording(ctx), "\n")), nil
}

func (d driver) Point(ctx context.Context, tool string, in catalog.PointArgs) (*Result, error) {
	return d.s.point(ctx, tool, in)
}

func (d driver) ObserveWithin(ctx context.Context, id string) (*Result, error) {
	return d.s.observeWithin(ctx, id)
}

func (d driver) WaitFor(ctx context.Context, in catalog.WaitForArgs) (*Result, error) {
	return d.s.waitFor(ctx, in)
}

func (d driver) FillForm(ctx context.Context, fields []catalog.FormField) (*Result, error) {
	return d.s.fillForm(ctx, fields)
}

func (d driver) Dialogs(_ context.Context, in catalog.DialogsArgs) (*Result, error) {
	return d.s.setDialogs(in)
}

// ref checks a node id against the newest observation ("#n42" is n42).
func (s *Session) ref(id string) (wire.NodeRef, error) {
	id = strings.TrimPrefix(id, "#")
	if s.scr == nil || s.scr.IDs[id] == nil {
		rev := ""
		if s.scr != nil {
			rev = s.scr.Revision
		}
		return wire.NodeRef{}, mcperr.New(mcperr.LocatorNotFound, "node #%s is not on the newest observation (revision %s); re-observe and use an id it lists", id, rev)
	}
	return wire.NodeRef{ID: id, Revision: s.scr.Revision}, nil
}

func (s *Session) perform(id string, la wire.LocatorAction) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		r, err := s.ref(id)
		if err != nil {
			return err
		}
		if la.Target != nil {
			t, err := s.ref(la.Target.ID)
			if err != nil {
				return err
			}
			la.Target = &t
		}
		return s.w.Perform(ctx, wire.OriginAgent, r, la)
	}
}

// fillSecret authorizes and fills a secret (spec §6.1).
func (s *Session) fillSecret(ctx context.Context, id, name string) error {
	sec, declared := s.cfg.Secrets[name]
	if !declared {
		return mcperr.New(mcperr.PolicyDenied, "secret %q is not configured; configured: %s", name, strings.Join(s.cfg.SecretNames(), ", "))
	}
	r, err := s.ref(id)
	if err != nil {
		return err
	}
	n := s.scr.IDs[id]
	role := ""
	if n.Role != nil {
		role = *n.Role
	}
	if role != "textbox" && role != "searchbox" && role != "combobox" {
		return mcperr.New(mcperr.PolicyDenied, "#%s is not an editable input (role %q); secrets fill only textboxes, searchboxes and comboboxes", id, role)
	}
	if n.State("disabled") {
		return mcperr.New(mcperr.PolicyDenied, "#%s is disabled", id)
	}
	isPassword := n.InputPurpose == "password" || n.State("secure")
	if sec.PurposeOrDefault() == "password" && !isPassword {
		return mcperr.New(mcperr.PolicyDenied, "secret %q is a password and #%s is not a password field", name, id)
	}
	v, ok := s.secrets[name]
	if !ok {
		if sec.PurposeOrDefault() == "password" && sec.Username != "" {
			return mcperr.New(mcperr.CredentialUnavailable, "credential %q (username %q) has no password: its secret has no value (set its environment variable or file)", name, sec.Username)
		}
		return mcperr.New(mcperr.SecretUnavailable, "secret %q has no value (set its environment variable or file)", name)
	}
	s.tainted = true // from here on no pixels leave the host
	return s.w.Perform(ctx, wire.OriginAgent, r, wire.LocatorAction{Kind: wire.ActionFill, Value: v, Sensitive: true})
}

// scrollToText swipes until a node reading text is in view (at most 20).
func (s *Session) scrollToText(ctx context.Context, text, dir string) error {
	for i := 0; i <= 20; i++ {
		found := false
		s.scr.Snapshot.Root.Walk(func(n *wire.SemanticNode) bool {
			if (n.Name != nil && strings.Contains(*n.Name, text)) || (n.Text != nil && strings.Contains(*n.Text, text)) {
				if n.Rect == nil || (n.Rect.Y >= 0 && n.Rect.Y < s.scr.Snapshot.Viewport.Height) {
					found = true
					return false
				}
			}
			return true
		})
		if found {
			return nil
		}
		if i == 20 {
			break
		}
		root := s.scr.Snapshot.Root.Ref
		if err := s.w.Perform(ctx, wire.OriginAgent, wire.NodeRef{ID: root.ID, Revision: s.scr.Revision}, wire.LocatorAction{Kind: wire.ActionSwipe, Direction: dir}); err != nil {
			return err
		}
		scr, err := s.observe(ctx, false)
		if err != nil {
			return err
		}
		s.scr = scr
	}
	return mcperr.New(mcperr.LocatorNotFound, "no node reading %q came into view after 20 swipes %s", text, dir)
}

// act runs an action and builds its result: the lead and the screen update,
// or the failure lead and the re-observed screen. After a successful action
// the screen is settled first (settle); what the app logged meanwhile (a
// native dialog above all) follows the lead. A dismissed dialog's failure
// that the app log announced before the action ran (the engine fails the
// operation after the dialog before doing anything) is taken, and the
// action runs again once.
func (s *Session) act(ctx context.Context, act *catalog.Action) (*Result, error) {
	prev := s.scr
	mark := s.agent.mark()
	s.agent.navURL = ""
	err := act.Do(ctx)
	if err != nil && ctx.Err() == nil && s.agent.takeLatched(err) {
		err = act.Do(ctx)
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	pix := s.pixelMode && !s.tainted
	if err != nil {
		cur, oerr := s.observe(ctx, pix)
		text := fmt.Sprintf("%s failed: %s", act.Attempt, mcperr.Text(err)) + s.report(mark)
		if oerr == nil {
			s.scr = cur
			text += "\n\n" + cur.Full()
		}
		return &Result{Text: text, IsError: true}, nil
	}
	secure := act.Expect && secureTarget(prev, act.Target)
	// A native dialog was this action's visible effect (one dismissed
	// changes nothing on the page).
	expect := act.Expect && !secure && !s.agent.sawDialog(mark)
	cur, changing, oerr := s.settle(ctx, prev, expect)
	if oerr == nil && pix {
		cur, oerr = s.look(ctx, true)
	}
	if oerr != nil {
		return nil, oerr
	}
	s.commit(cur)
	s.scr = cur
	lead := act.Lead
	if secure {
		lead += " The field is secure: its value is never shown, so typing into it changes nothing in the listing."
	}
	if u := s.agent.navURL; u != "" {
		if st := httpStatus(s.agent.since(mark), u, cur.Snapshot.Location); st != "" {
			lead = strings.TrimSuffix(lead, ".") + ": the server answered HTTP " + st + "."
		}
	}
	text := lead + s.report(mark) + "\n\n" + screen.Update(prev, cur, expect)
	if changing {
		text += fmt.Sprintf("\n\nThe screen was still changing when the settle bound (%s) ran out; wait_for or observe shows what came after.", human(s.h.settleLimit()))
	}
	res := &Result{Text: text}
	if s.pixelMode {
		s.attachPixels(res, cur)
	}
	return res, nil
}

// securePending counts secure nodes that should be masked.
func secureCount(snap *wire.EngineSnapshot) int64 {
	var n int64
	snap.Root.Walk(func(nd *wire.SemanticNode) bool {
		if nd.State("secure") && !nd.State("hidden") {
			n++
		}
		return true
	})
	return n
}

const taintedNote = "No screenshot: a secret was filled in this attempt, so no pixels leave the runner until it ends (PIXEL_TAINTED). Work from the tree and tap listed nodes by id."

// attachPixels adds the image of cur to res, or says why there is none.
func (s *Session) attachPixels(res *Result, cur *screen.Screen) {
	if s.tainted {
		res.Text += "\n\n" + taintedNote
		return
	}
	img, note, err := s.image(cur.Snapshot)
	if err != nil {
		res.Text += "\n\nNo screenshot: " + err.Error()
		return
	}
	res.Text += "\n\n" + note
	res.Images = append(res.Images, *img)
}

// image checks masking and resamples the observation's pixels.
func (s *Session) image(snap *wire.EngineSnapshot) (*Image, string, error) {
	px := snap.Pixels
	if px == nil {
		return nil, "", fmt.Errorf("this engine captures no pixels (UNSUPPORTED_CAPABILITY). Work from the tree")
	}
	masked := int64(0)
	if snap.MaskedRegionCount != nil {
		masked = *snap.MaskedRegionCount
	}
	if masked < secureCount(snap) {
		return nil, "", fmt.Errorf("the engine could not prove every secure field on screen masked (MASKING_UNPROVEN). Work from the tree")
	}
	data, err := base64.StdEncoding.DecodeString(px.Data)
	if err != nil {
		return nil, "", fmt.Errorf("the engine sent pixels that do not decode (ENGINE_FAILURE)")
	}
	w, h, scale := int(px.Width), int(px.Height), px.Scale
	if max(w, h) > MaxImageSide {
		src, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, "", fmt.Errorf("the engine sent pixels that do not decode (ENGINE_FAILURE)")
		}
		f := float64(MaxImageSide) / float64(max(w, h))
		nw, nh := max(1, int(math.Round(float64(w)*f))), max(1, int(math.Round(float64(h)*f)))
		dst := resample(src, nw, nh)
		var buf bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, dst); err != nil {
			return nil, "", err
		}
		data, w, h, scale = buf.Bytes(), nw, nh, scale*f
	}
	s.pixelMode = true
	s.shot = &shotInfo{w: w, h: h, scale: scale, vp: snap.Viewport}
	note := fmt.Sprintf("Screenshot attached: %d by %d pixels", w, h)
	if scale != 1 {
		note += fmt.Sprintf(" (%s per CSS pixel)", strconv.FormatFloat(math.Round(scale*100)/100, 'f', -1, 64))
	}
	note += ". Point coordinates (tap_at and the other _at verbs) are pixels of this image: x from the left edge, y from the top edge."
	return &Image{Data: data, MIMEType: "image/png"}, note, nil
}

// resample scales src to w by h pixels by nearest neighbour, reading the
// pixel buffers of the common decoded formats directly.
func resample(src image.Image, w, h int) *image.NRGBA {
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	b := src.Bounds()
	var pix []byte
	var stride int
	premul := false
	switch im := src.(type) {
	case *image.NRGBA:
		pix, stride = im.Pix, im.Stride
	case *image.RGBA:
		pix, stride, premul = im.Pix, im.Stride, true
	}
	for y := 0; y < h; y++ {
		sy := y * b.Dy() / h
		row := dst.Pix[y*dst.Stride:]
		for x := 0; x < w; x++ {
			sx := x * b.Dx() / w
			// An opaque premultiplied pixel equals its straight form.
			if i := sy*stride + 4*sx; pix != nil && (!premul || pix[i+3] == 0xff) {
				copy(row[4*x:4*x+4], pix[i:i+4])
				continue
			}
			c := color.NRGBAModel.Convert(src.At(b.Min.X+sx, b.Min.Y+sy)).(color.NRGBA)
			row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = c.R, c.G, c.B, c.A
		}
	}
	return dst
}

func (s *Session) screenshot(ctx context.Context) (*Result, error) {
	if s.tainted {
		return nil, mcperr.New(mcperr.PixelTainted, "a secret was filled in this session, so no pixels leave the host until it ends. Work from the tree and tap listed nodes by id")
	}
	prev := s.scr
	cur, err := s.observe(ctx, true)
	if err != nil {
		return nil, err
	}
	s.scr = cur
	res := &Result{Text: screen.Update(prev, cur, false)}
	img, note, err := s.image(cur.Snapshot)
	if err != nil {
		res.Text += "\n\nNo screenshot: " + err.Error()
		return res, nil
	}
	res.Text += "\n\n" + note
	res.Images = []Image{*img}
	return res, nil
}

// point runs a point tool on the latest screenshot's pixels.
func (s *Session) point(ctx context.Context, tool string, a catalog.PointArgs) (*Result, error) {
	if s.tainted {
		return nil, mcperr.New(mcperr.PixelTainted, "a secret was filled in this session, so %s cannot act on screenshot pixels; act on a listed node by id", tool)
	}
	if s.shot == nil {
		return catalog.TextResult(fmt.Sprintf("No screenshot has been taken in this step: %s coordinates are pixels of the latest screenshot. Call screenshot first, or act on a listed node by id.", tool)), nil
	}
	x, y := float64(a.X), float64(a.Y)
	pt := wire.ViewportPoint{X: clamp(x/s.shot.scale, s.shot.vp.Width-1), Y: clamp(y/s.shot.scale, s.shot.vp.Height-1)}
	where := fmt.Sprintf("(%s, %s)", fmtNum(x), fmtNum(y))
	hit := s.hitTest(pt)
	kinds := map[string]string{"tap_at": wire.ActionTap, "hover_at": wire.ActionHover, "type_at": wire.ActionFill, "press_at": wire.ActionPress, "select_at": wire.ActionSelectOption}
	kind := kinds[tool]
	act := &catalog.Action{Attempt: tool + " " + where, Expect: true}
	if hit != nil && s.manifest.HasAction(kind) {
		id := hit.Ref.ID
		summary := "#" + id + " " + screen.LocateLine(hit, s.screenOptions())
		la := wire.LocatorAction{Kind: kind}
		switch tool {
		case "tap_at":
			act.Lead = "Tapped " + summary + "."
		case "hover_at":
			act.Lead = "Hovered over " + summary + "."
		case "type_at":
			la.Value = a.Value
			act.Lead = "Typed into " + summary + "."
		case "press_at":
			la.Key = a.Key
			act.Lead = fmt.Sprintf("Pressed %s on %s.", la.Key, summary)
		case "select_at":
			la.Option = wire.SelectOption{Text: a.Value}
			act.Lead = fmt.Sprintf("Selected %q in %s.", a.Value, summary)
		}
		act.Do = s.perform(id, la)
		return s.act(ctx, act)
	}
	pk := map[string]string{"tap_at": wire.ActionTap, "hover_at": wire.ActionHover, "type_at": wire.ActionTap, "press_at": wire.ActionTap}[tool]
	if pk == "" || !s.manifest.Lists(wire.MethodPerformAt) || !s.manifest.HasPointerAction(pk) {
		act.Do = func(context.Context) error {
			return mcperr.New(mcperr.ActionFailed, "nothing listed at %s: %s needs a control the screen lists", where, tool)
		}
		return s.act(ctx, act)
	}
	act.Lead = fmt.Sprintf("Acted at %s (no listed control there).", where)
	act.Do = func(ctx context.Context) error {
		if err := s.w.PerformAt(ctx, wire.OriginAgent, pt, wire.PointerAction{Kind: pk}); err != nil {
			return err
		}
		switch tool {
		case "type_at":
			return s.w.Type(ctx, wire.OriginAgent, a.Value, a.Replace)
		case "press_at":
			return s.w.Press(ctx, wire.OriginAgent, a.Key)
		}
		return nil
	}
	return s.act(ctx, act)
}

func clamp(v, hi float64) float64 { return math.Max(0, math.Min(v, math.Max(hi, 0))) }

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// hitTest finds the deepest listed node with a role whose rect holds pt.
func (s *Session) hitTest(pt wire.ViewportPoint) *wire.SemanticNode {
	var best *wire.SemanticNode
	var walk func(n *wire.SemanticNode)
	walk = func(n *wire.SemanticNode) {
		if n.Rect != nil && n.Role != nil && *n.Role != "" && !n.State("hidden") &&
			pt.X >= n.Rect.X && pt.X < n.Rect.X+n.Rect.Width && pt.Y >= n.Rect.Y && pt.Y < n.Rect.Y+n.Rect.Height {
			best = n
		}
		for i := range n.Children {
			walk(&n.Children[i])
		}
	}
	for i := range s.scr.Snapshot.Root.Children {
		walk(&s.scr.Snapshot.Root.Children[i])
	}
	return best
}

// locate answers the locate tool (spec §3.6).
func (s *Session) locate(ctx context.Context, a catalog.LocateArgs) (*Result, error) {
	q := screen.Query{Role: string(a.Role), Name: string(a.Name), Text: string(a.Text), Label: string(a.Label),
		Placeholder: string(a.Placeholder), TestID: string(a.TestID), Exact: a.Exact == nil || *a.Exact}
	n := 0
	for _, v := range []string{q.Role, q.Text, q.Label, q.Placeholder, q.TestID} {
		if v != "" {
			n++
		}
	}
	if n != 1 {
		return nil, mcperr.New(mcperr.InvalidArgument, "locate needs exactly one of role, text, label, placeholder, or testId")
	}
	if q.Name != "" && q.Role == "" {
		return nil, mcperr.New(mcperr.InvalidArgument, "name only narrows a role query")
	}
	expr := q.Expression()
	nodes, err := s.w.Locate(ctx, wire.OriginAgent, expr)
	if err != nil && s.agent.takeLatched(err) {
		nodes, err = s.w.Locate(ctx, wire.OriginAgent, expr)
	}
	if err != nil {
		return nil, err
	}
	// Located nodes share the observation's id space (engine protocol
	// M6): their ids are ones call accepts.
	if s.scr != nil {
		for i := range nodes {
			s.scr.Show(&nodes[i])
		}
	}
	return catalog.TextResult(screen.Located(q, nodes, s.screenOptions())), nil
}

// startRecording answers start_recording (spec §3.8).
func (s *Session) startRecording(ctx context.Context, name string) (*Result, error) {
	label := func(n int, name string) string {
		if name == "" {
			return fmt.Sprintf("Recording %d", n)
		}
		return fmt.Sprintf("Recording %d %q", n, name)
	}
	if s.rec != nil {
		return catalog.TextResult(fmt.Sprintf("%s is already running since %s; stop_recording ends it.", label(s.rec.n, s.rec.name), s.rec.started.UTC().Format(time.RFC3339))), nil
	}
	if err := s.w.StartVideo(ctx, wire.OriginAgent); err != nil {
		_, _ = s.w.StopVideo(context.WithoutCancel(ctx), wire.OriginAgent)
		return nil, err
	}
	s.recCount++
	s.rec = &recording{n: s.recCount, name: name, started: s.h.clock.Now()}
	return catalog.TextResult(label(s.rec.n, name) + " started. Act as usual; stop_recording saves the video, and close_session saves one still running."), nil
}

// stopRecording stops the running recording and moves its files to
// <output>/videos/<session>/.
func (s *Session) stopRecording(ctx context.Context) []string {
	r := s.rec
	s.rec = nil
	head := fmt.Sprintf("Recording %d", r.n)
	if r.name != "" {
		head += fmt.Sprintf(" %q", r.name)
	}
	segs, err := s.w.StopVideo(ctx, wire.OriginAgent)
	if err != nil {
		return []string{"The running recording could not be saved: " + mcperr.Text(err)}
	}
	lines := []string{fmt.Sprintf("%s stopped after %.1f s.", head, s.h.clock.Now().Sub(r.started).Seconds())}
	if len(segs) == 0 {
		return append(lines, "The engine wrote no video: nothing was shown while it ran.")
	}
	if len(segs) > 1 {
		lines = append(lines, fmt.Sprintf("%d files, one per page the surface showed; they play in this order:", len(segs)))
	}
	dir := filepath.Join(s.output, "videos", s.id)
	for i, seg := range segs {
		if seg.URL != "" {
			lines = append(lines, "- "+seg.URL)
			continue
		}
		base := strconv.Itoa(r.n)
		if r.name != "" {
			base += "-" + r.name
		}
		if len(segs) > 1 {
			base += fmt.Sprintf("-part%d", i+1)
		}
		ext := filepath.Ext(seg.Path)
		if ext == "" {
			ext = ".webm"
		}
		src := seg.Path
		if !filepath.IsAbs(src) {
			src = filepath.Join(s.artDir, filepath.FromSlash(seg.Path))
		}
		dst := filepath.Join(dir, base+ext)
		if err := moveFile(src, dst); err != nil {
			lines = append(lines, "The running recording could not be saved: "+err.Error())
			continue
		}
		lines = append(lines, "- "+dst)
	}
	if s.tainted {
		lines = append(lines, "A secret was filled in this session and videos are not masked: check it is not on screen before sharing.")
	}
	return lines
}

func moveFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		return err
	}
	return errors.Join(os.Remove(src))
}
