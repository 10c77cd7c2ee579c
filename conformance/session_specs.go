package conformance

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Session steering: spec §4.18; catalog SESS.
func sessionSpecs(s *suite) {
	// The MUST is that the open fails (D69). The error's content is the
	// SHOULD of §4.18 and D55, which the catalog gives no ID of its own: it
	// is recorded as a "warning" report entry, never as a failure. D55 says
	// the harness recognizes each of ERR_CONNECTION_REFUSED in the message,
	// errno ECONNREFUSED and e2e APP_UNREACHABLE, so any one of them is
	// enough for no warning. The open gets a 10 s budget (timeoutMs), so
	// that an engine that waits out its budget before failing answers within
	// the spec's own timeout.
	s.spec("session/open of an http URL on a closed loopback port fails",
		[]string{"SESS-002"}, func(ctx context.Context, e *Env) {
			a := e.rawAttempt(ctx)
			u := closedLoopbackURL()
			f := a.callWithin(ctx, wire.MethodOpen, fmt.Sprintf(`"url":%q`, u), 10000)
			eo := f.Error()
			Expect(eo).NotTo(BeNil(), "session/open of %s, where nothing listens: want an error, got the result %s", u, clip(string(f.Result())))
			d := dataOf(eo)
			var errno struct {
				Errno any `json:"errno"`
			}
			_ = unmarshalIfPresent(eo.Data, &errno)
			if !strings.Contains(eo.Message, "ERR_CONNECTION_REFUSED") && fmt.Sprint(errno.Errno) != "ECONNREFUSED" && !(d.Type == "e2e" && d.Code == "APP_UNREACHABLE") {
				AddReportEntry("warning", fmt.Sprintf("SESS-002 (SHOULD, §4.18, D55): session/open of %s failed with %d %q, data %s: it SHOULD carry ERR_CONNECTION_REFUSED in the message and errno ECONNREFUSED in data, or be e2e APP_UNREACHABLE, so that the harness reports APP_UNREACHABLE",
					u, eo.Code, eo.Message, orDefault(clip(string(eo.Data)), "none")))
			}
		})
}
