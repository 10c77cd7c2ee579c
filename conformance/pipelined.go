package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The pipelined raw connection of the signal, transport, manifest,
// server-to-client and some lifecycle specs: a raw session that keeps
// several requests in flight and times their answers (the counter screen
// and the slow page they use are counterscreen.go, the abort reasons they
// send and compare abortreasons.go).

// reply is a response and when the suite read it.
type reply struct {
	f  *frame
	at time.Time
	// method is the method of the request it answers.
	method string
	// seq is the reply's place in the order the session read responses.
	seq int
}

// serverMsg is a request or notification the server sent, with what the
// suite had open when it read it.
type serverMsg struct {
	f       *frame
	open    string // the attempt open for the window checks ("" none)
	screens bool   // whether that attempt was started with screens: true
}

// abortBound is the promptness bound of §7.7 (D67).
const abortBound = 2000 * time.Millisecond

// pipelinedConn is a raw connection (handshake done) on which the suite keeps
// several requests in flight: it mints request ids, files every response
// by id with the time it was read, keeps the server's requests and
// notifications in arrival order with the attempt then open, and answers
// attempt/resolveSecret like a client unless told to hold it.
type pipelinedConn struct {
	e       *runEnv
	r       *rawConn
	n       int
	replies map[string]reply
	sent    map[string]string // requests not yet answered: id -> method
	stray   []string          // responses matching no pending request
	garbage []string          // frames whose content is not JSON
	msgs    []serverMsg
	held    []*frame // the server request kept unanswered while hold is set (at most one)
	hold    bool
	inited  bool
	// The attempt open for the window checks of S2C-001: from the moment
	// the suite writes its startAttempt until it reads the endAttempt
	// response.
	open    string
	screens bool
	endID   string
	// startSig is the signal id of the last startAttempt ("" when not
	// sent), an attempt-scoped id.
	startSig string
	op       client.Op
	// slowAccepted: a control open of the slow page got null in this
	// session, so the engine does not refuse it (refusesSlowPage).
	slowAccepted bool
}

// openPipelined opens a raw connection, runs the handshake and returns it as a
// pipelinedConn; it is closed when the spec ends.
func (e *runEnv) openPipelined(ctx context.Context) *pipelinedConn {
	return &pipelinedConn{e: e, r: e.initialized(ctx), replies: map[string]reply{}, sent: map[string]string{}}
}

// id mints the next request id (Initialize used 0). The specs use it as
// the signal id of the same request too, so signals never share by
// accident.
func (s *pipelinedConn) id() string {
	s.n++
	return strconv.Itoa(s.n)
}

// write sends request id and returns the time the write finished.
func (s *pipelinedConn) write(id, method, params string) time.Time {
	msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		msg += `,"params":` + params
	}
	s.sent[id] = method
	Expect(s.r.Send(msg+"}")).To(Succeed(), "writing %s", method)
	return time.Now()
}

// next reads one frame and files it.
func (s *pipelinedConn) next(ctx context.Context) (*frame, error) {
	f, err := s.r.Next(ctx)
	if err != nil {
		return nil, err
	}
	s.take(f)
	return f, nil
}

func (s *pipelinedConn) take(f *frame) {
	now := f.At // when the reader read it off the wire
	if now.IsZero() {
		now = time.Now()
	}
	switch {
	case f.Msg == nil: // not JSON (the rawConn recorded the violation)
		s.garbage = append(s.garbage, clip(string(f.Content)))
	case f.IsResponse():
		id := f.ID()
		method, ok := s.sent[id]
		if !ok {
			s.stray = append(s.stray, clip(string(f.Content)))
			return
		}
		delete(s.sent, id)
		s.replies[id] = reply{f, now, method, len(s.replies)}
		if f.Error() == nil && (wire.IsEngineMethod(method) || method == wire.MethodShutdown) {
			s.e.checkResult(method, f.Result(), f.answerCtx(method))
		}
		if id == s.endID {
			s.open, s.endID = "", ""
		}
	default:
		s.msgs = append(s.msgs, serverMsg{f: f, open: s.open, screens: s.screens})
		if _, isRequest := f.Msg["id"]; isRequest {
			if f.pastBound {
				s.respond(f, "", secretUnavailable)
				return
			}
			// Only the first attempt/resolveSecret is held: §6.6 lets an
			// engine ask any number of secrets at once ("the provider runs
			// again on every request"), and a later one left unanswered
			// would keep the held request's operation from ending, so the
			// spec would fail an engine the spec allows.
			if s.hold && len(s.held) == 0 && f.Method() == wire.MethodResolveSecret {
				s.held = append(s.held, f)
				return
			}
			s.answer(f)
		}
	}
}

// answer answers a server request as the client does: a resolveSecret
// with a canary value (registered as a secret, ERR-007), anything else
// -32601.
func (s *pipelinedConn) answer(f *frame) {
	if f.Method() != wire.MethodResolveSecret {
		s.respond(f, "", `{"code":-32601,"message":"e2e-conform answers no `+f.Method()+` request"}`)
		return
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(f.Msg["params"], &p)
	v := "s3cr3t-canary-" + p.Name
	if !s.e.canary(v) {
		s.respond(f, "", secretUnavailable)
		return
	}
	b, _ := json.Marshal(v)
	s.respond(f, `{"value":`+string(b)+`}`, "")
}

// secretUnavailable is the suite's error answer to an attempt/resolveSecret
// it does not answer with a value (§6.6, D32).
const secretUnavailable = `{"code":-32000,"message":"e2e-conform declares no such secret","data":{"type":"e2e","category":"configuration","code":"SECRET_UNAVAILABLE","retryable":false}}`

// respond answers server request f with a result or an error object.
func (s *pipelinedConn) respond(f *frame, result, errObj string) {
	msg := `{"jsonrpc":"2.0","id":` + string(f.Msg["id"])
	if errObj != "" {
		msg += `,"error":` + errObj + `}`
	} else {
		msg += `,"result":` + result + `}`
	}
	_ = s.r.Send(msg)
}

// await reads until the response to id has arrived, for at most d (0: the
// spec's budget).
func (s *pipelinedConn) await(ctx context.Context, id string, d time.Duration) (reply, error) {
	if d != 0 {
		if d < time.Millisecond {
			d = time.Millisecond
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	for {
		if rep, ok := s.replies[id]; ok {
			return rep, nil
		}
		if _, err := s.next(ctx); err != nil {
			return reply{}, err
		}
	}
}

// awaitOp waits for the answer to the operation request id, sent with its
// own id as signal and timeoutMs, the way a client does (§7.6): its budget,
// then $/abort of its signal, then abortBound (D67). Only a
// request still unanswered after all that is an error: a slow answer
// within the budget is the engine's right.
func (s *pipelinedConn) awaitOp(ctx context.Context, id string, timeoutMs int) (reply, error) {
	rep, err := s.await(ctx, id, time.Duration(timeoutMs)*time.Millisecond)
	if err == nil || ctx.Err() != nil {
		return rep, err
	}
	s.abort(id, "")
	rep, err = s.await(ctx, id, abortBound)
	if err != nil {
		return rep, fmt.Errorf("no answer within its timeoutMs %d ms nor %d ms after the $/abort of its signal: %w", timeoutMs, abortBound.Milliseconds(), err)
	}
	return rep, nil
}

// observedRoot returns the root id of the first engine/observe the session
// got a snapshot for.
func (s *pipelinedConn) observedRoot() (string, bool) {
	for _, rep := range s.replies {
		if rep.method != wire.MethodObserve || rep.f.Error() != nil {
			continue
		}
		var snap struct {
			Root struct {
				Ref struct {
					ID string `json:"id"`
				} `json:"ref"`
			} `json:"root"`
		}
		if json.Unmarshal(rep.f.Result(), &snap) == nil && snap.Root.Ref.ID != "" {
			return snap.Root.Ref.ID, true
		}
	}
	return "", false
}

// answered reports whether the response to id has been read.
func (s *pipelinedConn) answered(id string) bool { _, ok := s.replies[id]; return ok }

// call sends a request and waits for its response.
func (s *pipelinedConn) call(ctx context.Context, id, method, params string) *frame {
	s.write(id, method, params)
	rep, err := s.await(ctx, id, 0)
	Expect(err).NotTo(HaveOccurred(), "waiting for the answer to %s", method)
	return rep.f
}

// probe sends a request for an unknown method and expects -32601.
func (s *pipelinedConn) probe(ctx context.Context, what string) {
	f := s.call(ctx, s.id(), probeMethod, "")
	expectCode(f, wire.CodeMethodNotFound, "a request for an unknown method "+what)
}

// answeredWithin waits for the response to id and checks that the suite
// read it within bound of t, the moment it finished writing what must make
// the server answer (a response read before t passes). It waits a second
// longer than bound, to tell a late answer from none.
func (s *pipelinedConn) answeredWithin(ctx context.Context, id string, t time.Time, bound time.Duration, what string) *frame {
	rep, err := s.await(ctx, id, time.Until(t.Add(bound+time.Second)))
	if err != nil {
		failf("%s: want an answer within %d ms, got none within %d ms (%v)", what, bound.Milliseconds(), (bound + time.Second).Milliseconds(), err)
	}
	took := rep.at.Sub(t)
	Expect(took).To(BeNumerically("<", bound), "%s: want an answer within %d ms, got one after %d ms", what, bound.Milliseconds(), took.Milliseconds())
	return rep.f
}

// operation is an Operation with signal sig inside the session's attempt.
func (s *pipelinedConn) operation(sig string, timeoutMs int) string {
	return fmt.Sprintf(`{"signal":{"id":%s},"timeoutMs":%d,"runId":%q,"attemptId":%q,"origin":"test"}`,
		sig, timeoutMs, orDefault(s.op.RunID, "run-x"), orDefault(s.op.AttemptID, "attempt-x"))
}

// init sends lifecycle/init and returns its response.
func (s *pipelinedConn) init(ctx context.Context) *frame {
	id := s.id()
	f := s.call(ctx, id, wire.MethodInit, s.initParams(id))
	s.e.skipWhenInitRefused(f.Error())
	return f
}

// initParams are lifecycle/init params with signal sig.
func (s *pipelinedConn) initParams(sig string) string {
	if s.op.RunID == "" {
		s.op.RunID = s.e.nextID("run")
	}
	s.inited = true
	return fmt.Sprintf(`{"runId":%q,"targetName":"conformance","projectRoot":%q,"app":{},"env":{},"headed":false,"workerSlot":0,"signal":{"id":%s}}`,
		s.op.RunID, s.e.Artifacts, sig)
}

// startParams begins a new attempt: it returns lifecycle/startAttempt
// params with signal sig and opens the attempt for the window checks (the
// caller writes them next).
func (s *pipelinedConn) startParams(screens bool, sig string) string {
	if s.op.RunID == "" {
		s.op.RunID = s.e.nextID("run")
	}
	attempt := s.e.nextID("attempt")
	dir, err := os.MkdirTemp(s.e.Artifacts, attempt+"-")
	Expect(err).NotTo(HaveOccurred())
	s.open, s.screens, s.op.AttemptID = attempt, screens, attempt
	s.startSig = sig
	return fmt.Sprintf(`{"attemptId":%q,"artifactsDir":%q,"signal":{"id":%s},"screens":%v}`, attempt, dir, sig, screens)
}

// attempt runs lifecycle/init (once per session) and lifecycle/startAttempt,
// those listed, each expected to answer null, and returns the operation
// identity of the attempt. The attempt is open for the window checks from
// the moment startAttempt is written.
func (s *pipelinedConn) attempt(ctx context.Context, screens bool) client.Op {
	if s.e.Manifest.Lists(wire.MethodInit) && !s.inited {
		Expect(string(expectResult(s.init(ctx), "lifecycle/init"))).To(Equal("null"), "the result of lifecycle/init")
	}
	id := s.id()
	params := s.startParams(screens, id)
	if s.e.Manifest.Lists(wire.MethodStartAttempt) {
		expectResult(s.call(ctx, id, wire.MethodStartAttempt, params), "lifecycle/startAttempt")
	} else {
		s.startSig = ""
	}
	return s.op
}

// endAttempt sends lifecycle/endAttempt when listed; reading its response
// closes the attempt for the window checks.
func (s *pipelinedConn) endAttempt(ctx context.Context) {
	if !s.e.Manifest.Lists(wire.MethodEndAttempt) {
		return
	}
	id := s.id()
	s.endID = id
	expectResult(s.call(ctx, id, wire.MethodEndAttempt, `{"signal":{"id":`+id+`},"timeoutMs":5000}`), "lifecycle/endAttempt")
}

// closeWorker closes the connection as the client's Close procedure does
// (§2.9): endAttempt when an attempt is open, dispose when listed,
// shutdown, exit. A socket server MAY serve every connection from one
// engine (§2.8), so a spec that opens a new connection to check what a
// fresh one gets closes the connections before it first: an engine still
// initialized on another connection may refuse a second init.
//
// What endAttempt and dispose answer is not judged here (their errors are
// any, §4.6, §4.7; a second dispose is not the spec's business); each is
// only waited for, as the client waits before shutdown.
func (s *pipelinedConn) closeWorker(ctx context.Context, what string) {
	if s.open != "" && s.e.Manifest.Lists(wire.MethodEndAttempt) {
		id := s.id()
		s.endID = id
		s.call(ctx, id, wire.MethodEndAttempt, `{"signal":{"id":`+id+`},"timeoutMs":5000}`)
	}
	if s.e.Manifest.Lists(wire.MethodDispose) {
		id := s.id()
		s.call(ctx, id, wire.MethodDispose, `{"signal":{"id":`+id+`},"timeoutMs":5000}`)
	}
	s.call(ctx, s.id(), wire.MethodShutdown, "")
	_ = s.r.Notify(wire.MethodExit, "")
	_ = s.r.Close(5 * time.Second)
}

// openSlow writes session/open of the slow page (request id, signal sig),
// then a request for an unknown method, and reads until one of them is
// answered, for at most abortBound. It returns when session/open was
// written and whether it is in flight: the probe was answered first, or
// neither was within abortBound (a server that reads nothing while the
// open runs; WIRE-011 is its own requirement). An engine that answers the
// open first does not treat the slow page as slow, and the spec calling it
// cannot verify anything.
func (s *pipelinedConn) openSlow(ctx context.Context, id, sig string, timeoutMs int) (time.Time, bool) {
	t := s.write(id, wire.MethodOpen, s.openParams(s.e.FixtureURL+slowPath, sig, timeoutMs))
	probe := s.id()
	s.write(probe, probeMethod, "")
	wctx, cancel := context.WithTimeout(ctx, abortBound)
	defer cancel()
	for !s.answered(id) && !s.answered(probe) {
		if _, err := s.next(wctx); err != nil {
			Expect(ctx.Err()).NotTo(HaveOccurred(), "the spec's budget ran out")
			Expect(s.r.endErr()).To(BeNil(), "the connection ended while session/open of the slow page was in flight")
			break
		}
	}
	if rep, ok := s.replies[probe]; ok {
		expectCode(rep.f, wire.CodeMethodNotFound, "a request for an unknown method while session/open of the slow page is in flight")
	}
	return t, !s.answered(id)
}

// skipNotSlow ends the running spec as not verified after session/open of
// the slow page (request id) was answered before the probe: refused with
// an error, the engine did not stage the page (the staging rule); with a
// result, it does not treat the page as slow.
func (s *pipelinedConn) skipNotSlow(id string) {
	if rep, ok := s.replies[id]; ok && rep.f.Error() != nil {
		stagingRefused(s.e.FixtureURL+slowPath, rep.f.Error())
	}
	Skip(notVerified + "session/open of the slow page was answered before a request for an unknown method: the engine does not treat the slow page as slow")
}

// refusesSlowPage tells a refusal from an abort's answer after session/open
// of the slow page was answered with the error eo following the suite's
// $/abort (or its reuse of a signal id): a control open of the slow page,
// with a fresh signal and no abort, is awaited for the page's delay plus
// 5 s. When the control is answered with the same error (code, data.type
// and data.code), the engine refuses the page whatever the signal does, and the
// earlier error was that refusal: the spec is not verified (the staging
// rule), never failed. Which of the two answers the engine wrote first
// then does not matter: the control does not race anything.
func (s *pipelinedConn) refusesSlowPage(ctx context.Context, eo *wire.ErrorObject) {
	if c := s.slowPageRefusal(ctx, eo); c != nil {
		stagingRefused(s.e.FixtureURL+slowPath, c)
	}
}

// slowPageRefusal is refusesSlowPage's control: it returns the control
// open's error when it is eo's (code, data.type and data.code), nil when
// the control loaded the page, got another answer or none in time.
func (s *pipelinedConn) slowPageRefusal(ctx context.Context, eo *wire.ErrorObject) *wire.ErrorObject {
	if s.slowAccepted {
		return nil // a control open of this session already loaded the slow page
	}
	id := s.id()
	s.write(id, wire.MethodOpen, s.openParams(s.e.FixtureURL+slowPath, id, 30000))
	rep, err := s.await(ctx, id, fixture.SlowDelay+5*time.Second)
	if err != nil {
		s.abort(id, "")
		return nil
	}
	if c := rep.f.Error(); c != nil && c.Code == eo.Code && dataOf(c).Type == dataOf(eo).Type && dataOf(c).Code == dataOf(eo).Code {
		return c
	}
	if rep.f.Error() == nil {
		s.slowAccepted = true
	}
	return nil
}

// notRefused checks that f, the answer to session/open of the slow page
// after the suite aborted it (or after its timeoutMs), is not a refusal
// that raced the suite's probe: a result, CANCELLED, OPERATION_TIMEOUT or
// the abort's reason (echoesReason) are the abort's answers; any other error is checked
// with a control open (refusesSlowPage), so that a refusal to stage the
// page is not verified rather than passed.
func (s *pipelinedConn) notRefused(ctx context.Context, f *frame, reason string) {
	eo := f.Error()
	if eo == nil || abortAnswer(eo, reason) {
		return
	}
	s.refusesSlowPage(ctx, eo)
}

func (s *pipelinedConn) openParams(url, sig string, timeoutMs int) string {
	return fmt.Sprintf(`{"url":%q,"operation":%s}`, url, s.operation(sig, timeoutMs))
}

// abort writes $/abort for sig, with reason when not "", and returns the
// time the write finished.
func (s *pipelinedConn) abort(sig, reason string) time.Time {
	p := `{"id":` + sig
	if reason != "" {
		p += `,"reason":` + reason
	}
	Expect(s.r.Notify(wire.MethodAbort, p+"}")).To(Succeed(), "writing $/abort")
	return time.Now()
}

// noStray checks that no response arrived for a request the suite did not
// have pending (an answer to a notification, a second answer).
func (s *pipelinedConn) noStray(what string) {
	Expect(s.stray).To(BeEmpty(), "%s: want no response but to the suite's pending requests, got %s", what, strings.Join(s.stray, "; "))
}

// fillSecret fills the password field of the form screen, found in the
// observation answered to request observeID, with secretFill (sensitive),
// when engine/perform lists fill; it returns the fill request's id and
// whether it sent one.
func (s *pipelinedConn) fillSecret(observeID string) (string, bool) {
	rep, ok := s.replies[observeID]
	if !ok || rep.f.Error() != nil || !s.e.Manifest.Lists(wire.MethodPerform) || !s.e.Manifest.HasAction("fill") {
		return "", false
	}
	snap, err := wire.DecodeSnapshot(rep.f.Result())
	if err != nil {
		return "", false
	}
	var field *wire.SemanticNode
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if (n.TestID != nil && *n.TestID == passwordTestID) || (n.Role != nil && *n.Role == "textbox" && n.Name != nil && *n.Name == passwordName) {
			field = n
			return false
		}
		return true
	})
	if field == nil {
		return "", false
	}
	ref, _ := json.Marshal(field.Ref)
	id := s.id()
	s.write(id, wire.MethodPerform, fmt.Sprintf(`{"ref":%s,"action":{"kind":"fill","value":%q,"sensitive":true},"operation":%s}`, ref, secretFill, s.operation(id, 30000)))
	return id, true
}
