package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Transports: spec §9; catalog TRN. TRN-001 and TRN-002 run over spawn,
// TRN-003..006 over socket (the catalog's applicability).
func transportSpecs(s *suite) {
	s.spec("the process writes nothing to stdout but framed protocol messages, from start to exit, failing requests included",
		[]string{"TRN-001"}, func(ctx context.Context, e *Env) {
			ss := e.session(ctx)
			// Every request is awaited without judging its answer (other
			// requirements do); a framing fault ends the reading, and the
			// check at the end says what the process wrote.
			try := func(method string, params func(id string) string) {
				if ss.r.endErr() != nil {
					return
				}
				id := ss.id()
				msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
				if p := params(id); p != "" {
					msg += `,"params":` + p
				}
				ss.sent[id] = method
				if ss.r.Send(msg+"}") == nil {
					_, _ = ss.await(ctx, id, 10*time.Second)
				}
			}
			none := func(string) string { return "" }
			if e.Manifest.Lists(wire.MethodInit) {
				try(wire.MethodInit, ss.initParams)
			}
			start := func(id string) string { return ss.startParams(false, id) }
			if e.Manifest.Lists(wire.MethodStartAttempt) {
				try(wire.MethodStartAttempt, start)
			}
			// Failing requests of every kind: unknown method, invalid
			// params, an engine failure, an overlapping attempt.
			try(probeMethod, none)
			try(e.Manifest.Methods[0], func(string) string { return `[]` })
			if e.Manifest.Lists(wire.MethodOpen) {
				try(wire.MethodOpen, func(id string) string { return ss.openParams("http://127.0.0.1:1/", id, 30000) })
			}
			if e.Manifest.Lists(wire.MethodStartAttempt) {
				try(wire.MethodStartAttempt, start)
			}
			// Content that is not JSON: answered -32700, skipped, or fatal
			// (§1.3); nothing is awaited after it.
			_ = ss.r.Send(`{"jsonrpc":"2.0","id":`)
			_ = ss.r.Send(`{"jsonrpc":"2.0","id":999,"method":"shutdown"}`)
			_ = ss.r.Notify(wire.MethodExit, "")
			sc := ss.r.Conn().(transport.SpawnConn)
			select {
			case <-ss.r.Ended():
			case <-sc.Exited():
				select { // stdout closes with the process
				case <-ss.r.Ended():
				case <-time.After(5 * time.Second):
				}
			case <-time.After(10 * time.Second):
				Fail("the process neither exited nor closed stdout within 10 s of exit")
			}
			for {
				if _, err := ss.next(ctx); err != nil {
					break
				}
			}
			Expect(ss.garbage).To(BeEmpty(), "stdout: want only framed protocol messages, got frames whose content is not JSON")
			end := ss.r.endErr()
			Expect(errors.Is(end, io.EOF)).To(BeTrue(), "stdout: want only framed messages until it closes, got %v", end)
		})

	s.spec("the process exits within 5000 ms of SIGTERM",
		[]string{"TRN-002"}, func(ctx context.Context, e *Env) {
			ss := e.session(ctx)
			ss.attempt(ctx, false)
			sc := ss.r.Conn().(transport.SpawnConn)
			Expect(sc.Signal(syscall.SIGTERM)).To(Succeed(), "sending SIGTERM")
			start := time.Now()
			// Dying of the signal is exiting too (§9.1 asks for the close
			// without shutdown behaviour, which TRN-002 does not check).
			select {
			case <-sc.Exited():
				st, _ := sc.Wait()
				By(fmt.Sprintf("exited (%v) after %d ms", st, time.Since(start).Milliseconds()))
			case <-time.After(5 * time.Second):
				Fail("the process did not exit within 5000 ms of SIGTERM")
			}
		})

	s.spec("the server serves two simultaneous connections, each with its own initialize, and one's shutdown leaves the other working",
		[]string{"TRN-003"}, func(ctx context.Context, e *Env) {
			a := e.session(ctx)
			b := e.raw(ctx)
			ictx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			f, err := b.Call(ictx, "0", wire.MethodInitialize, InitializeParams(wire.RoleWorker))
			Expect(err).NotTo(HaveOccurred(), "initialize on a second connection while the first is open: want an answer within 10 s")
			expectResult(f, "initialize on a second connection while the first is open")
			Expect(b.Notify(wire.MethodInitialized, "{}")).To(Succeed())
			bs := &session{e: e, r: b, replies: map[string]reply{}, sent: map[string]string{}}
			a.probe(ctx, "on the first connection after the second's initialize")
			bs.probe(ctx, "on the second connection")
			expectResult(a.call(ctx, a.id(), wire.MethodShutdown, ""), "shutdown of the first connection")
			bs.probe(ctx, "on the second connection after the first's shutdown (want -32601, not -32600)")
		})

	s.spec("after a connection closes, with or without shutdown, a new connection's initialize succeeds",
		[]string{"TRN-004"}, func(ctx context.Context, e *Env) {
			for _, clean := range []bool{true, false} {
				r, err := e.Raw(ctx)
				Expect(err).NotTo(HaveOccurred(), "opening a connection")
				_, err = r.Initialize(ctx)
				Expect(err).NotTo(HaveOccurred(), "initialize")
				if clean {
					f, err := r.Call(ctx, "1", wire.MethodShutdown, "")
					Expect(err).NotTo(HaveOccurred())
					expectResult(f, "shutdown")
					Expect(r.Notify(wire.MethodExit, "")).To(Succeed())
				}
				_ = r.Close(5 * time.Second)
				n := e.raw(ctx)
				_, err = n.Initialize(ctx)
				Expect(err).NotTo(HaveOccurred(), "initialize on a new connection after one closed (with shutdown: %v)", clean)
			}
		})

	// The request kept in flight is session/open of the slow page (the only
	// request the catalog makes last); "complete normally" is read as its
	// result, after the 5 s the page takes. An engine that does not treat
	// the page as slow leaves the spec not verified.
	s.spec("a connection closing without shutdown leaves a session/open of the slow page in flight on another connection to complete normally",
		[]string{"TRN-005"}, func(ctx context.Context, e *Env) {
			if !e.Manifest.Lists(wire.MethodOpen) {
				Skip(notVerified + "the suite keeps a request in flight with session/open of the slow page, which the manifest does not list")
			}
			a := e.session(ctx)
			a.attempt(ctx, false)
			other, err := e.Raw(ctx)
			Expect(err).NotTo(HaveOccurred(), "opening a second connection")
			_, err = other.Initialize(ctx)
			Expect(err).NotTo(HaveOccurred(), "initialize on the second connection")
			id := a.id()
			if _, inFlight := a.openSlow(ctx, id, id, 30000); !inFlight {
				_ = other.Close(time.Second)
				Skip(notVerified + "session/open of the slow page was answered before a request for an unknown method: the engine does not treat the slow page as slow")
			}
			// Close returns once the server closed its side (or after 5 s).
			_ = other.Close(5 * time.Second)
			rep, err := a.await(ctx, id, 15*time.Second)
			Expect(err).NotTo(HaveOccurred(), "session/open of the slow page: want its answer within 15 s, got none")
			Expect(rep.f.Error()).To(BeNil(), "session/open of the slow page after another connection closed: want it to complete normally, got error %v", rep.f.Error())
			a.probe(ctx, "afterwards")
		})

	s.spec("after exit, with or without shutdown, the server closes that connection within 2000 ms",
		[]string{"TRN-006"}, func(ctx context.Context, e *Env) {
			for _, clean := range []bool{true, false} {
				r := e.initialized(ctx)
				if clean {
					f, err := r.Call(ctx, "1", wire.MethodShutdown, "")
					Expect(err).NotTo(HaveOccurred())
					expectResult(f, "shutdown")
				}
				Expect(r.Notify(wire.MethodExit, "")).To(Succeed())
				start := time.Now()
				select {
				case <-r.Ended():
				case <-time.After(2 * time.Second):
					Fail(fmt.Sprintf("after exit (shutdown first: %v) the server did not close the connection within 2000 ms", clean))
				}
				By(fmt.Sprintf("closed %d ms after exit (shutdown first: %v)", time.Since(start).Milliseconds(), clean))
			}
		})
}
