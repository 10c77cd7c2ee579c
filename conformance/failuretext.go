package conformance

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/onsi/ginkgo/v2/types"
)

// unverifiedSkip reports whether a spec's skip message ends it not
// verified (rather than not applicable or not selected).
func unverifiedSkip(msg string) bool {
	return strings.HasPrefix(msg, notVerified) || strings.HasPrefix(msg, nothingToCheck)
}

// framingRequirements are the requirements whose specs judge the framing
// itself: a broken stream is their failure, not a reason to stop.
var framingRequirements = map[string]bool{"WIRE-001": true, "WIRE-002": true, "TRN-001": true}

// checksBreak reports whether one of ids judges the frame a client
// connection's stream broke at (broken, brokenStream's text): a framing
// requirement judges every break; WIRE-008, the response's envelope,
// judges a break at a message that is not a JSON-RPC 2.0 message or came
// inside a batch. The break does not excuse such a spec's failure: the
// broken frame is what it checks.
func checksBreak(ids []string, broken string) bool {
	if checksFraming(ids) {
		return true
	}
	return envelopeBreak(broken) && slices.Contains(ids, "WIRE-008")
}

// envelopeBreak reports whether a client connection's stream broke at a
// message that is no JSON-RPC 2.0 message or came inside a batch (broken,
// brokenStream's text): the frames around it were read whole, so what the
// run-wide checks recorded on them stands.
func envelopeBreak(broken string) bool {
	return strings.Contains(broken, "malformed "+string(rpc.FaultEnvelope)+":") || strings.Contains(broken, "malformed "+string(rpc.FaultBatch)+":")
}

// checksFraming reports whether one of ids is a framing requirement.
func checksFraming(ids []string) bool {
	for _, id := range ids {
		if framingRequirements[id] {
			return true
		}
	}
	return false
}

// gomega's renderings of values: "<*wire.ErrorObject | 0xc000…>: " and the
// struct dumps that follow an error's text.
var (
	gomegaTypeRE = regexp.MustCompile(`<([^<>|\n]+) \| 0x[0-9a-f]+>`)
	durationRE   = regexp.MustCompile(`<time\.Duration>: (-?\d+)`)
	valueTagRE   = regexp.MustCompile(`<[^<>\n]+>: `)
)

// cleanFailure rewrites a failure message so that it carries no gomega
// value dump: "Unexpected error: <*fmt.wrapError | 0x…>: text {msg: …}
// occurred" becomes the description and the error's text; a matcher's
// "Expected <T>: v to …" after a description that says what was wanted is
// dropped; pointer addresses go.
func cleanFailure(msg string) string {
	desc, rest, found := strings.Cut(msg, "\n")
	if !found {
		return gomegaTypeRE.ReplaceAllString(msg, "<$1>")
	}
	rest = strings.TrimSpace(rest)
	switch {
	case strings.HasPrefix(desc, "Unexpected error:"), strings.HasPrefix(desc, "Expected success, but got an error:"):
		return "got an error: " + errorText(msg)
	case strings.HasPrefix(rest, "Unexpected error:"), strings.HasPrefix(rest, "Expected success, but got an error:"):
		return strings.TrimRight(desc, " :") + ": " + errorText(rest)
	case strings.HasPrefix(rest, "Expected") && strings.Contains(desc, "want"):
		return desc
	case strings.HasPrefix(rest, "Expected"):
		if got, want, ok := expectedClause(rest); ok {
			return strings.TrimRight(desc, " :") + ": got " + got + ", want " + want
		}
	case strings.HasPrefix(desc, "Expected"):
		if got, want, ok := expectedClause(msg); ok {
			return "got " + got + ", want " + want
		}
	}
	msg = gomegaTypeRE.ReplaceAllString(msg, "<$1>")
	return durationRE.ReplaceAllStringFunc(msg, msDuration)
}

// errorText is the error's own text in gomega's "Unexpected error:" block:
// the lines after the type line, up to the value dump.
func errorText(block string) string {
	lines := strings.Split(block, "\n")
	var out []string
	for i, l := range lines {
		if i < 2 { // "Unexpected error:" and "<T | 0x…>: "
			continue
		}
		t := strings.TrimSpace(l)
		if t == "occurred" || strings.HasPrefix(t, "{") || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "&") {
			break
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return gomegaTypeRE.ReplaceAllString(strings.TrimSpace(block), "<$1>")
	}
	return strings.Join(out, " ")
}

// clipConsole bounds one console line (the exchange below has the frames
// whole).
func clipConsole(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 600 {
		return elideMiddle(s, 600)
	}
	return s
}

// ginkgoAfterTimeout is how ginkgo introduces a failure recorded in a
// setup node after its spec's timeout.
const ginkgoAfterTimeout = "A spec timeout occurred and then the following failure was recorded in the timedout node before it exited:"

// failureText is a failed spec's message, cleaned (cleanFailure): a spec
// that ran out of its budget says so in ms, with what it was waiting for
// (the failure recorded as the timeout interrupted it).
func failureText(sr types.SpecReport) string {
	msg := cleanFailure(sr.Failure.Message)
	if sr.State == types.SpecStateTimedout {
		msg = fmt.Sprintf("the spec ran out of its %d ms budget", sr.RunTime.Milliseconds())
		if af := sr.Failure.AdditionalFailure; af != nil && af.Failure.Message != "" {
			m := af.Failure.Message
			if rest, ok := strings.CutPrefix(m, ginkgoAfterTimeout); ok {
				m = strings.TrimSpace(rest)
			}
			msg += " while " + cleanFailure(m)
		} else if sr.Failure.Message != "" && !strings.HasPrefix(sr.Failure.Message, "A spec timeout occurred") {
			msg += ": " + cleanFailure(sr.Failure.Message)
		}
	}
	return msg
}

// expectedClause reads gomega's "Expected\n    <T>: got\nto equal\n    <T>:
// want" into "got" and "it to equal want", the values without their type
// tags (durations in ms).
func expectedClause(block string) (got, want string, ok bool) {
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) < 3 || strings.TrimSpace(lines[0]) != "Expected" {
		return "", "", false
	}
	var actual, matcher, expected []string
	part := &actual
	for _, l := range lines[1:] {
		t := strings.TrimSpace(l)
		if part == &actual && (strings.HasPrefix(t, "to ") || strings.HasPrefix(t, "not to ")) {
			matcher, part = append(matcher, t), &expected
			continue
		}
		*part = append(*part, t)
	}
	if len(matcher) == 0 {
		return "", "", false
	}
	value := func(l []string) string {
		v := strings.Join(l, " ")
		v = gomegaTypeRE.ReplaceAllString(v, "<$1>")
		v = durationRE.ReplaceAllStringFunc(v, msDuration)
		v = valueTagRE.ReplaceAllString(v, "")
		return clipConsole(strings.TrimSpace(v))
	}
	want = "it " + strings.Join(matcher, " ")
	if e := value(expected); e != "" {
		want += " " + e
	}
	return value(actual), want, true
}

// msDuration rewrites "<time.Duration>: 5003000000" as "5003 ms".
func msDuration(m string) string {
	ns, err := strconv.ParseInt(durationRE.FindStringSubmatch(m)[1], 10, 64)
	if err != nil {
		return m
	}
	return fmt.Sprintf("%d ms", time.Duration(ns).Milliseconds())
}
