package mutate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/e2e-conform/toolkit/protocol/schema"
)

// Delays of the timing operators.
const (
	// LateDelay is how late OpDelayAborted and OpDelayEmptyLocate answer,
	// past the 2000 ms bounds of §7.7 and LOC-001.
	LateDelay = 3 * time.Second
	// splitPause separates the two writes of OpSplit.
	splitPause = 2 * time.Millisecond
	// coalesceWait is how long OpCoalesce waits for a second frame.
	coalesceWait = 5 * time.Millisecond
	// reorderWait bounds how long OpReorder holds a response back.
	reorderWait = 200 * time.Millisecond
	// shutdownWait bounds how long OpReorderShutdown holds a response.
	shutdownWait = 3 * time.Second
)

// Options configures a relay.
type Options struct {
	// Mutant is the mutation to apply; the zero Mutant (or ID "none")
	// relays unchanged.
	Mutant Mutant
	// Seed skips the first Seed eligible messages of the connection
	// before a Once mutant fires.
	Seed int
	// Record, when set, is the run's record: a Once mutant fires once per
	// run (across the connections sharing the record) and every firing is
	// logged there. Without it a Once mutant fires once per connection.
	Record *Record
	// Census, with Record, logs every mutant that could fire on each
	// message (the mutation is still only Options.Mutant).
	Census bool

	holdWait time.Duration // tests: replaces coalesceWait and reorderWait
}

// Relay carries one connection between a client and an engine: the bytes
// from clientIn go to engineIn unchanged (engineIn is closed at clientIn's
// end), the frames from engineOut go to clientOut with the mutation
// applied. It returns when engineOut ends, after writing what is still
// held back; the copy from clientIn ends when clientIn does or when
// engineIn refuses a write. ctx cancels the held-back writes' waits.
func Relay(ctx context.Context, clientIn io.Reader, engineIn io.WriteCloser, engineOut io.Reader, clientOut io.Writer, opts Options) error {
	r := newRelay(ctx, clientOut, opts)
	go r.fromClient(clientIn, engineIn)
	err := r.fromEngine(engineOut)
	r.finish()
	return err
}

// relay is one connection's state.
type relay struct {
	ctx  context.Context
	opts Options
	m    Mutant

	outMu sync.Mutex // serializes writes to out
	out   io.Writer
	dead  bool // OpTruncate ended the stream

	mu          sync.Mutex
	pending     map[string]string // client request id (JSON text) -> method
	reqSignal   map[string]string // client request id -> signal id (JSON text)
	abortedSig  map[string]bool   // signal ids aborted ($/abort or aborted: true)
	abortedReq  map[string]bool   // request ids whose signal was aborted
	shutdownID  string            // pending shutdown request id
	eligible    int               // eligible messages seen (for Seed)
	fired       bool              // a Once mutant fired on this connection
	lastAttempt []byte            // the last attempt/* notification frame
	census      map[string]bool

	held      *heldFrame // OpReorder, OpReorderShutdown, OpCoalesce
	timers    sync.WaitGroup
	flush     chan struct{} // closed by finish: delayed writes go out at once
	schemas   *schema.Set
	schemaErr error
}

type heldFrame struct {
	data    []byte
	isResp  bool
	timer   *time.Timer
	release bool
}

func newRelay(ctx context.Context, out io.Writer, opts Options) *relay {
	if opts.Mutant.ID == "" {
		opts.Mutant.ID = "none"
	}
	return &relay{ctx: ctx, opts: opts, m: opts.Mutant, out: out,
		pending: map[string]string{}, reqSignal: map[string]string{}, abortedSig: map[string]bool{},
		abortedReq: map[string]bool{}, census: map[string]bool{}, flush: make(chan struct{})}
}

// fromClient copies the client's bytes to the engine and observes them.
func (r *relay) fromClient(in io.Reader, engineIn io.WriteCloser) {
	defer engineIn.Close()
	var p frameParser
	buf := make([]byte, 64<<10)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			// Observe first: the engine may answer before this goroutine
			// runs again, and the answer must find its request's method.
			for _, content := range p.push(buf[:n]) {
				r.observeClient(content)
			}
			if _, werr := engineIn.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// clientMessage is the part of a client message the relay reads.
type clientMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ID        json.RawMessage `json:"id"` // $/abort
		Signal    *signalRef      `json:"signal"`
		Operation *struct {
			Signal *signalRef `json:"signal"`
		} `json:"operation"`
	} `json:"params"`
}

type signalRef struct {
	ID      json.RawMessage `json:"id"`
	Aborted bool            `json:"aborted"`
}

func (r *relay) observeClient(content []byte) {
	var m clientMessage
	if json.Unmarshal(content, &m) != nil || m.Method == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.Method == "$/abort" {
		sig := string(m.Params.ID)
		r.abortedSig[sig] = true
		for req, s := range r.reqSignal {
			if s == sig {
				r.abortedReq[req] = true
			}
		}
		return
	}
	if len(m.ID) == 0 || string(m.ID) == "null" {
		return
	}
	id := string(m.ID)
	r.pending[id] = m.Method
	if m.Method == "shutdown" {
		r.shutdownID = id
	}
	sig := m.Params.Signal
	if m.Params.Operation != nil && m.Params.Operation.Signal != nil {
		sig = m.Params.Operation.Signal
	}
	if sig != nil {
		r.reqSignal[id] = string(sig.ID)
		if sig.Aborted || r.abortedSig[string(sig.ID)] {
			r.abortedReq[id] = true
		}
	}
}

// fromEngine reads the engine's frames and writes them, mutated.
func (r *relay) fromEngine(engineOut io.Reader) error {
	br := bufio.NewReaderSize(engineOut, 64<<10)
	for {
		f, raw, err := readFrame(br)
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, errNotFramed):
			// Not a frame: pass everything through as it comes.
			r.flushHeld()
			r.write(raw)
			_, err := io.Copy(writerFunc(r.write), br)
			return err
		case err != nil:
			r.flushHeld()
			r.write(raw)
			return nil
		}
		r.engineFrame(f)
	}
}

type writerFunc func([]byte) bool

func (w writerFunc) Write(b []byte) (int, error) {
	if !w(b) {
		return 0, io.ErrClosedPipe
	}
	return len(b), nil
}

// write writes b to the client in one Write.
func (r *relay) write(b []byte) bool {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	if r.dead {
		return true // the stream was truncated: drop the rest
	}
	_, err := r.out.Write(b)
	return err == nil
}

// serverMessage is the part of an engine message the relay reads.
type serverMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// msg is one engine message with what the relay knows of it.
type msg struct {
	f        frame
	sm       serverMessage
	members  map[string]json.RawMessage
	response bool
	answers  string // the method of the request a response answers
	aborted  bool   // a response to a request whose signal was aborted
	shutdown bool   // the response to shutdown
	others   bool   // another request is still pending after this response
	inShut   bool   // a shutdown request is pending (and this is not its response)
}

func (r *relay) engineFrame(f frame) {
	m := msg{f: f}
	if json.Unmarshal(f.content, &m.members) == nil {
		_ = json.Unmarshal(f.content, &m.sm)
	}
	_, hasMethod := m.members["method"]
	_, hasID := m.members["id"]
	if !hasMethod && hasID && m.members != nil {
		m.response = true
		id := string(m.sm.ID)
		r.mu.Lock()
		m.answers = r.pending[id]
		delete(r.pending, id)
		m.aborted = r.abortedReq[id]
		delete(r.abortedReq, id)
		delete(r.reqSignal, id)
		m.shutdown = id == r.shutdownID && r.shutdownID != ""
		m.inShut = r.shutdownID != "" && !m.shutdown && r.pending[r.shutdownID] == "shutdown"
		m.others = len(r.pending) > 0
		r.mu.Unlock()
	}
	if r.opts.Census && r.opts.Record != nil {
		r.censusOf(m)
	}
	if r.m.ID == "none" {
		r.emit(f.bytes(), m)
		return
	}
	r.mutate(m)
}

// emit writes a frame, honoring a held-back frame (reorder, coalesce).
func (r *relay) emit(b []byte, m msg) {
	r.mu.Lock()
	h := r.held
	r.mu.Unlock()
	if h == nil {
		r.write(b)
		return
	}
	switch r.m.Op {
	case OpCoalesce:
		if r.takeHeld(h) {
			r.write(append(append([]byte{}, h.data...), b...))
			return
		}
		r.write(b)
	case OpReorder, OpReorderShutdown:
		if !m.response {
			r.write(b) // notifications and requests pass the held response
			return
		}
		if r.m.Op == OpReorder && m.shutdown {
			r.flushHeld() // never reorder behind shutdown's answer
			r.write(b)
			return
		}
		if r.m.Op == OpReorderShutdown && !m.shutdown {
			r.write(b)
			return
		}
		r.write(b)
		if r.takeHeld(h) {
			r.write(h.data)
		}
	default:
		r.write(b)
	}
}

// hold keeps b back until release or wait passes.
func (r *relay) hold(b []byte, wait time.Duration) {
	h := &heldFrame{data: b}
	r.timers.Add(1)
	r.mu.Lock()
	r.held = h
	h.timer = time.AfterFunc(wait, func() {
		defer r.timers.Done()
		if r.takeHeld(h) {
			r.write(h.data)
		}
	})
	r.mu.Unlock()
}

// wait is d, or the tests' hold wait.
func (r *relay) wait(d time.Duration) time.Duration {
	if r.opts.holdWait > 0 {
		return r.opts.holdWait
	}
	return d
}

// takeHeld claims h for writing; false when it was already written.
func (r *relay) takeHeld(h *heldFrame) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held != h || h.release {
		return false
	}
	h.release = true
	r.held = nil
	if h.timer != nil && h.timer.Stop() {
		r.timers.Done()
	}
	return true
}

func (r *relay) flushHeld() {
	r.mu.Lock()
	h := r.held
	r.mu.Unlock()
	if h != nil && r.takeHeld(h) {
		r.write(h.data)
	}
}

// finish writes what is held back and waits for the delayed writes.
func (r *relay) finish() {
	r.flushHeld()
	close(r.flush)
	r.timers.Wait()
}

// later writes b after d (or at once when ctx ends).
func (r *relay) later(b []byte, d time.Duration) {
	r.timers.Add(1)
	go func() {
		defer r.timers.Done()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.ctx.Done():
		case <-r.flush:
		}
		r.write(b)
	}()
}

// gate decides whether a Once mutant fires on this eligible message, and
// records the firing; ev describes it, computed only when the mutant
// fires (it may validate against the schemas).
func (r *relay) gate(ev func() Event) bool {
	if r.m.Scope == Every {
		// Every eligible message is mutated; the run's first firing is
		// recorded (once per connection asked), so the run knows it fired.
		r.mu.Lock()
		first := !r.fired
		r.fired = true
		r.mu.Unlock()
		if first && r.opts.Record != nil {
			r.opts.Record.claim(func() Event {
				e := ev()
				e.Event, e.Mutant = "fired", r.m.ID
				return e
			})
		}
		return true
	}
	r.mu.Lock()
	if r.fired {
		r.mu.Unlock()
		return false
	}
	r.eligible++
	if r.eligible <= r.opts.Seed {
		r.mu.Unlock()
		return false
	}
	r.fired = true
	r.mu.Unlock()
	if r.opts.Record == nil {
		return true
	}
	return r.opts.Record.claim(func() Event {
		e := ev()
		e.Event, e.Mutant = "fired", r.m.ID
		return e
	})
}

func (r *relay) validator() *schema.Set {
	if r.schemas == nil && r.schemaErr == nil {
		r.schemas, r.schemaErr = schema.Load()
	}
	return r.schemas
}

// verdict validates a mutated payload against its schema: "" when valid,
// else the violations.
func (r *relay) verdict(kind Kind, method string, payload []byte) *string {
	s := r.validator()
	if s == nil {
		return nil
	}
	var err error
	switch kind {
	case KindResult:
		err = s.ValidateResult(method, payload)
	case KindNotification, KindRequest:
		err = s.ValidateServerMessage(method, payload)
	case KindError:
		err = s.ValidateType("ErrorObject", payload)
	}
	v := ""
	if err != nil {
		v = err.Error()
	}
	return &v
}

// payloadOf returns the kind, method and payload of a message a member
// operator can target.
func payloadOf(m msg) (Kind, string, json.RawMessage, bool) {
	switch {
	case m.response && m.members["error"] != nil:
		return KindError, "", m.members["error"], true
	case m.response && m.members["result"] != nil:
		return KindResult, m.answers, m.members["result"], m.answers != ""
	case m.sm.Method != "" && len(m.sm.ID) > 0:
		return KindRequest, m.sm.Method, m.members["params"], true
	case m.sm.Method != "":
		return KindNotification, m.sm.Method, m.members["params"], true
	}
	return "", "", nil, false
}

// replaceMember rebuilds the message content with member key set to raw.
func replaceMember(content []byte, key string, raw []byte) []byte {
	root, err := parseValue(content)
	if err != nil {
		return content
	}
	v, err := parseValue(raw)
	if err != nil {
		return content
	}
	root.set(key, v)
	return root.encode()
}

func memberKey(k Kind) string {
	switch k {
	case KindError:
		return "error"
	case KindResult:
		return "result"
	}
	return "params"
}

// mutate applies the relay's mutant to one engine message.
func (r *relay) mutate(m msg) {
	mu := r.m
	r.mu.Lock()
	spent := mu.Scope == Once && r.fired
	r.mu.Unlock()
	if spent && mu.Op != OpLateNotification && mu.Op != OpReorderShutdown {
		r.emit(m.f.bytes(), m) // fired (or refused by the run record) on this connection
		return
	}
	switch mu.Family {
	case FamilyMember:
		kind, method, payload, ok := payloadOf(m)
		if !ok || kind != mu.Site.Kind || method != mu.Site.Method {
			break
		}
		out, ptr, ok := ApplyMember(mu.Op, mu.Site.Path, payload)
		if !ok {
			break
		}
		ev := func() Event {
			return Event{Kind: string(kind), Method: method, Pointer: ptr, Schema: r.verdict(kind, method, out)}
		}
		if r.gate(ev) {
			r.emit(m.f.reframe(replaceMember(m.f.content, memberKey(kind), out)).bytes(), m)
			return
		}
	case FamilyEnvelope:
		if !m.response || m.answers == "initialize" || m.answers == "" {
			break
		}
		out, ok := ApplyEnvelope(mu.Op, m.f.content)
		if ok && r.gate(func() Event { return Event{Method: m.answers} }) {
			r.emit(m.f.reframe(out).bytes(), m)
			return
		}
	case FamilyFrame:
		switch mu.Op {
		case OpSplit:
			b := m.f.bytes()
			cut := len(m.f.header) / 2
			if len(m.f.content) > 1 && len(b)%2 == 0 {
				cut = len(m.f.header) + len(m.f.content)/2
			}
			r.write(b[:cut])
			time.Sleep(splitPause) // the operator: a pause between the two writes
			r.write(b[cut:])
			return
		case OpCoalesce:
			r.mu.Lock()
			h := r.held
			r.mu.Unlock()
			if h != nil {
				r.emit(m.f.bytes(), m)
				return
			}
			r.hold(m.f.bytes(), r.wait(coalesceWait))
			return
		case OpTruncate:
			if !m.response || m.answers == "initialize" || m.answers == "" {
				break
			}
			fallthrough
		default:
			out, ok := ApplyFrame(mu.Op, m.f.header, m.f.content)
			if ok && r.gate(func() Event { return Event{Method: m.answers} }) {
				r.emit(out, m)
				if mu.Op == OpTruncate {
					r.outMu.Lock()
					r.dead = true
					if c, ok := r.out.(io.Closer); ok {
						c.Close()
					}
					r.outMu.Unlock()
				}
				return
			}
		}
	case FamilyExchange:
		if r.exchange(m) {
			return
		}
	}
	r.emit(m.f.bytes(), m)
}

// exchange applies an exchange operator; false leaves the message as is.
func (r *relay) exchange(m msg) bool {
	mu := r.m
	b := m.f.bytes()
	switch mu.Op {
	case OpDuplicate:
		if m.response && m.answers != "" && m.answers != "initialize" && r.gate(func() Event { return Event{Method: m.answers} }) {
			r.emit(b, m)
			r.write(b)
			return true
		}
	case OpReorder:
		if m.response && m.others && !m.shutdown {
			r.mu.Lock()
			busy := r.held != nil
			r.mu.Unlock()
			if !busy {
				r.hold(b, r.wait(reorderWait))
				return true
			}
		}
	case OpReorderShutdown:
		if m.response && m.inShut && r.gate(func() Event { return Event{Method: m.answers} }) {
			r.hold(b, shutdownWait)
			return true
		}
	case OpDelayAborted:
		if m.response && m.aborted && r.gate(func() Event { return Event{Method: m.answers} }) {
			r.later(b, LateDelay)
			return true
		}
	case OpDelayEmptyLocate:
		if m.response && m.answers == "engine/locate" && strings.TrimSpace(string(m.members["result"])) == "[]" && r.gate(func() Event { return Event{Method: m.answers} }) {
			r.later(b, LateDelay)
			return true
		}
	case OpNeverSent:
		if m.response && m.answers == mu.Target && r.gate(func() Event { return Event{Method: m.answers} }) {
			return true
		}
	case OpLateNotification:
		if strings.HasPrefix(m.sm.Method, "attempt/") && len(m.sm.ID) == 0 {
			r.mu.Lock()
			r.lastAttempt = b
			r.mu.Unlock()
			return false
		}
		r.mu.Lock()
		last := r.lastAttempt
		r.mu.Unlock()
		if m.response && m.answers == "lifecycle/endAttempt" && last != nil && r.gate(func() Event { return Event{Method: m.answers} }) {
			r.emit(b, m)
			r.write(last)
			return true
		}
	case OpSwapCode, OpFlipRetryable:
		e := m.members["error"]
		if !m.response || e == nil {
			return false
		}
		var out []byte
		var ok bool
		if mu.Op == OpSwapCode {
			out, ok = SwapCode(e, mu.Target, swapTarget(mu.Target))
		} else {
			out, ok = FlipRetryable(e, mu.Target == "NODE_STALE")
		}
		if ok && r.gate(func() Event { return Event{Method: m.answers, Schema: r.verdict(KindError, "", out)} }) {
			r.emit(m.f.reframe(replaceMember(m.f.content, "error", out)).bytes(), m)
			return true
		}
	}
	return false
}

func swapTarget(code string) string {
	for _, s := range swapRules {
		if s.code == code {
			return s.to
		}
	}
	return "ENGINE_FAILURE"
}

// censusOf logs the mutants that could fire on m.
func (r *relay) censusOf(m msg) {
	var ids []string
	add := func(id string) {
		if !r.census[id] {
			r.census[id] = true
			ids = append(ids, id)
		}
	}
	kind, method, payload, ok := payloadOf(m)
	if ok {
		root, err := parseValue(payload)
		if err == nil {
			ms, _ := Mutants()
			for _, mu := range ms {
				if mu.Family == FamilyMember && mu.Site.Kind == kind && mu.Site.Method == method && !r.census[mu.ID] {
					if eligibleMember(mu.Op, root, mu.Site.Path) {
						add(mu.ID)
					}
				}
			}
		}
	}
	if m.response && m.answers != "" && m.answers != "initialize" {
		for _, op := range []Operator{OpIDType, OpIDValue, OpNoJSONRPC, OpNeither, OpDuplicate, OpTruncate} {
			add(string(op) + "@" + map[bool]string{true: "frame", false: "response"}[op == OpTruncate])
		}
		if m.members["result"] != nil {
			add(string(OpBoth) + "@response")
		}
	}
	for _, op := range []Operator{OpHeaderCase, OpExtraHeader, OpConflictingLength, OpSplit, OpCoalesce} {
		add(string(op) + "@frame")
	}
	if nonASCII(m.f.content) {
		add(string(OpUTF16Length) + "@frame")
		add(string(OpCharLength) + "@frame")
	}
	if m.response {
		if m.answers != "" {
			add(string(OpNeverSent) + "@" + m.answers)
		}
		if m.others && !m.shutdown {
			add(string(OpReorder) + "@response")
		}
		if m.inShut {
			add(string(OpReorderShutdown) + "@response")
		}
		if m.aborted {
			add(string(OpDelayAborted) + "@response")
		}
		if m.answers == "engine/locate" && strings.TrimSpace(string(m.members["result"])) == "[]" {
			add(string(OpDelayEmptyLocate) + "@response")
		}
		if e := m.members["error"]; e != nil {
			for _, s := range swapRules {
				if _, ok := SwapCode(e, s.code, s.to); ok {
					add(string(OpSwapCode) + "@" + s.code)
				}
			}
			if _, ok := FlipRetryable(e, false); ok {
				add(string(OpFlipRetryable) + "@response")
			}
			if _, ok := FlipRetryable(e, true); ok {
				add(string(OpFlipRetryable) + "@NODE_STALE")
			}
		}
		r.mu.Lock()
		last := r.lastAttempt
		r.mu.Unlock()
		if m.answers == "lifecycle/endAttempt" && last != nil {
			add(string(OpLateNotification) + "@response")
		}
	} else if strings.HasPrefix(m.sm.Method, "attempt/") && len(m.sm.ID) == 0 && r.m.Op != OpLateNotification {
		r.mu.Lock()
		r.lastAttempt = m.f.bytes()
		r.mu.Unlock()
	}
	if len(ids) > 0 {
		r.opts.Record.logCensus(ids)
	}
}

// eligibleMember reports whether ApplyMember(op, path) would change root.
func eligibleMember(op Operator, root *value, path string) bool {
	l, ok := find(root, path)
	if !ok {
		return false
	}
	v := l.v
	switch op {
	case OpDrop:
		return l.parent != nil && l.parent.kind == jObject
	case OpNull:
		return v.kind != jNull
	case OpUnknown:
		return v.kind == jObject
	case OpRetype:
		return true
	case OpEnumCase:
		return v.kind == jString && flipCase(v.text) != v.text
	case OpInc, OpDec:
		return v.kind == jNumber
	case OpEmpty:
		return v.kind == jString && v.text != ""
	}
	return false
}
