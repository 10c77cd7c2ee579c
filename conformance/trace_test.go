package conformance_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// saboteurBin is the saboteur, built by bins beside the other test
// binaries.
func saboteurBin(t *testing.T) string {
	t.Helper()
	return filepath.Join(bins(t), "saboteur")
}

// requirement returns the result of id.
func requirement(t *testing.T, res report.Result, id string) report.RequirementResult {
	t.Helper()
	for _, r := range res.Requirements {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("%s is not in the report", id)
	return report.RequirementResult{}
}

// TestTraceIsRedactedJSONLines: --trace writes one JSON object per frame
// of every connection, labelled, and no secret appears in it in any form
// the ERR-007 check searches (a configured E2E_SECRET_* value, the suite's
// env canaries, the values it answers to attempt/resolveSecret).
func TestTraceIsRedactedJSONLines(t *testing.T) {
	sab := saboteurBin(t)
	const secret = "tr4ce-Sécret-🔑-<&>-9f3a"
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	code, res, out := conform(t, "--spawn", sab, "--only", "ERR-007,WIRE-009,LIFE-011,S2C-006", "--env", "E2E_SECRET_TRACE="+secret, "--trace", trace)
	if code != report.ExitConformant && code != report.ExitIncomplete {
		t.Fatalf("exit %d\n%s", code, out)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]bool{}
	lines, envSeen, answered := 0, 0, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		lines++
		var rec struct {
			T       int64           `json:"t"`
			Conn    int             `json:"conn"`
			Role    string          `json:"role"`
			Dir     string          `json:"dir"`
			Method  string          `json:"method"`
			Frame   json.RawMessage `json:"frame"`
			NotJSON bool            `json:"notJSON"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d does not parse: %v\n%s", lines, err, sc.Bytes())
		}
		if rec.Conn < 1 || (rec.Role != "client" && rec.Role != "raw") || (rec.Dir != "send" && rec.Dir != "recv") || len(rec.Frame) == 0 || rec.T < 0 {
			t.Errorf("line %d is not labelled: %s", lines, sc.Bytes())
		}
		roles[rec.Role] = true
		if form, leaked := conformance.FindLeak(string(sc.Bytes()), secret); leaked {
			t.Errorf("line %d carries the configured secret (%s): %s", lines, form, sc.Bytes())
		}
		// Every E2E_SECRET_* value and every resolveSecret answer is
		// redacted, whatever the suite generated.
		var f struct {
			Params struct {
				Env map[string]string `json:"env"`
			} `json:"params"`
			Result struct {
				Value *string `json:"value"`
			} `json:"result"`
		}
		if !rec.NotJSON && json.Unmarshal(rec.Frame, &f) == nil {
			for k, v := range f.Params.Env {
				if strings.HasPrefix(k, "E2E_SECRET_") {
					envSeen++
					if !strings.Contains(v, "redacted") && !strings.Contains(v, "canary,") {
						t.Errorf("line %d: %s is %q in the trace", lines, k, v)
					}
				}
			}
			if rec.Dir == "send" && f.Result.Value != nil {
				answered++
				if !strings.Contains(*f.Result.Value, "redacted") && !strings.Contains(*f.Result.Value, "canary,") {
					t.Errorf("line %d: the suite's secret answer %q is in the trace", lines, *f.Result.Value)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines < 20 || !roles["client"] || !roles["raw"] {
		t.Fatalf("%d lines, roles %v", lines, roles)
	}
	if envSeen == 0 || answered == 0 {
		t.Errorf("the trace holds %d E2E_SECRET_* env values and %d secret answers: the redaction was not exercised", envSeen, answered)
	}
	if bytes.Contains(data, []byte(secret)) {
		t.Error("the configured secret appears raw in the trace")
	}
	_ = res
}

// TestFailureCarriesItsOwnLabelledExchange: --only WIRE-009 against an
// engine that answers a non-ASCII unknown method -32603: the failure
// carries its section, a likely cause, what was sent, wanted and came, and
// the spec's exchange labelled by connection (the console tells it on one
// line; --explain prints it whole).
func TestFailureCarriesItsOwnLabelledExchange(t *testing.T) {
	sab := saboteurBin(t)
	code, res, out := conform(t, "--spawn", sab+" --fault non-ascii-method-rejected", "--only", "WIRE-009")
	if code != report.ExitNonConformant {
		t.Fatalf("exit %d\n%s", code, out)
	}
	r := requirement(t, res, "WIRE-009")
	x := r.Explanation
	if r.Status != report.Failed || x == nil {
		t.Fatalf("WIRE-009: %s, explanation %v", r.Status, x)
	}
	if r.Section != "§1.7" || x.Section != "§1.7" || x.LikelyCause == "" || x.Requirement != r.Statement {
		t.Errorf("section %q/%q, cause %q", r.Section, x.Section, x.LikelyCause)
	}
	if !strings.Contains(x.Sent, "(raw) send ") || !strings.Contains(x.Wanted, "-32601") || !strings.Contains(x.Came, "-32603") {
		t.Errorf("sent %q, wanted %q, came %q", x.Sent, x.Wanted, x.Came)
	}
	if !strings.Contains(x.Exchange, "(raw) send {") || !strings.Contains(x.Exchange, "(raw) recv {") || !strings.Contains(x.Exchange, "conn ") {
		t.Errorf("the exchange is not labelled:\n%s", x.Exchange)
	}
	// The console tells the failure on one line and points at --explain,
	// which prints the whole of it from the report.
	for _, w := range []string{"FAIL WIRE-009 ", "(e2e-conform --explain WIRE-009 "} {
		if !strings.Contains(out, w) {
			t.Errorf("the console lacks %q", w)
		}
	}
	var explained strings.Builder
	if err := res.WriteExplanation(&explained, "WIRE-009"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"section:      §1.7", "likely cause: ", "wanted: ", "exchange of the spec "} {
		if !strings.Contains(explained.String(), w) {
			t.Errorf("--explain WIRE-009 lacks %q", w)
		}
	}
	if strings.Contains(out+explained.String(), " | 0x") {
		t.Error("the console carries a gomega pointer dump")
	}
}

// TestFramingFaultEndsTheSpecsAfterIt: with a framing fault (every response
// but initialize's announces one byte too few), WIRE-001 fails naming the
// bytes around the fault, and the specs whose streams broke end not
// verified with the reason, instead of waiting out their budgets.
func TestFramingFaultEndsTheSpecsAfterIt(t *testing.T) {
	sab := saboteurBin(t)
	code, res, out := conform(t, "--spawn", sab+" --fault bad-content-length", "--profile", "core")
	if code != report.ExitNonConformant {
		t.Fatalf("exit %d\n%s", code, out)
	}
	w := requirement(t, res, "WIRE-001")
	if w.Status != report.Failed || !strings.Contains(w.Reason, "⟦here⟧") || !strings.Contains(w.Reason, "Content-Length") || !strings.Contains(w.Reason, "conn ") {
		t.Errorf("WIRE-001: %s: %s", w.Status, w.Reason)
	}
	broken, timedOut := 0, 0
	for _, s := range res.Specs {
		if s.Status == report.NotVerified && strings.HasPrefix(s.Message, "the stream broke at ") {
			broken++
		}
		if strings.HasPrefix(s.Message, "timedout") {
			timedOut++
			t.Errorf("the spec %q waited its budget: %s", s.Text, s.Message)
		}
		if s.Status == report.Failed && !strings.Contains(strings.Join(s.Requirements, ","), "WIRE-001") && !strings.Contains(strings.Join(s.Requirements, ","), "TRN-001") {
			t.Errorf("the spec %q (%v) failed although its stream broke: %s", s.Text, s.Requirements, s.Message)
		}
	}
	if broken < 10 {
		t.Errorf("%d specs report the broken stream\n%s", broken, out)
	}
}

// TestBatchExecutedIsNamed: an engine that runs a batch's elements is told
// which element ran.
func TestBatchExecutedIsNamed(t *testing.T) {
	sab := saboteurBin(t)
	_, res, out := conform(t, "--spawn", sab+" --fault batch-executed", "--only", "WIRE-006")
	r := requirement(t, res, "WIRE-006")
	if r.Status != report.Failed || !strings.Contains(r.Reason, "the batch's element ") || !strings.Contains(r.Reason, "executed") {
		t.Errorf("WIRE-006: %s: %s\n%s", r.Status, r.Reason, out)
	}
}

// TestRunWideViolationNamesTheMethod: ERR-006 names the answer the empty
// message came in.
func TestRunWideViolationNamesTheMethod(t *testing.T) {
	sab := saboteurBin(t)
	_, res, out := conform(t, "--spawn", sab+" --fault empty-error-message", "--only", "ERR-006")
	r := requirement(t, res, "ERR-006")
	if r.Status != report.Failed || !strings.Contains(r.Reason, "an error with an empty message (code ") || !strings.Contains(r.Reason, "(in the answer to ") || !strings.Contains(r.Reason, " (id ") {
		t.Errorf("ERR-006: %s: %s\n%s", r.Status, r.Reason, out)
	}
	if r.Explanation == nil || r.Explanation.Exchange == "" {
		t.Errorf("ERR-006 carries no exchange: %+v", r.Explanation)
	}
}
