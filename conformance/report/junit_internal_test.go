package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/catalog"
)

// junitEverySpecKind is a run holding a spec of every kind the JUnit
// report draws: passed, a MUST failed (with frames holding markup and a
// control byte), a SHOULD miss, an expected failure, not applicable, not
// verified, not selected and a suite error.
func junitEverySpecKind(t *testing.T) Result {
	t.Helper()
	var should string
	for _, r := range catalog.All() {
		if r.Level == catalog.Should {
			should = r.ID
			break
		}
	}
	if should == "" {
		t.Fatal("the catalog has no SHOULD requirement")
	}
	st := map[string]Status{"LIFE-004": Failed, "WIRE-009": Passed, "LIFE-001": Failed, should: Failed, "WIRE-005": NotApplicable, "WIRE-006": NotVerified}
	specs := baselineSpecs(st)
	for i := range specs {
		switch specs[i].Requirements[0] {
		case "LIFE-001":
			specs[i].Message = "failed: want <result>, got \"&\" \x01"
			specs[i].LastFrames = "-> {\"id\":1}\n<- ]]> {}\n"
		case "WIRE-006":
			specs[i].SuiteError = true
			specs[i].Message = "a bug of e2e-conform: panic"
		}
	}
	cfg := Scope{Profile: ProfileCore, Only: []string{"LIFE-004", "WIRE-009", "LIFE-001", should, "WIRE-005", "WIRE-006"}, Baseline: map[string]string{"LIFE-004": "bug 12"}}
	res := Summarize(cfg, RunInput{Reached: true, Transport: "spawn"}, specs, nil)
	res.Explain()
	return res
}

// TestJUnitValidatesAgainstJenkinsSchema: the JUnit report of a run holding
// every kind of spec validates, with xmllint (libxml2-utils, installed by
// `make test`), against the common JUnit schema of Jenkins
// (testdata/junit-10.xsd): testsuite@errors is there, no testcase holds
// <properties>. It keeps what GitHub's and GitLab's importers read: the
// testcase's name and classname, the failure's message and text.
func TestJUnitValidatesAgainstJenkinsSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatalf("xmllint is not installed (apt-get install libxml2-utils; `make xmllint`): %v", err)
	}
	res := junitEverySpecKind(t)
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := res.WriteJUnit(path); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit-10.xsd"), path).CombinedOutput()
	data, _ := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the JUnit report does not validate against junit-10.xsd: %v\n%s\n%s", err, out, data)
	}
	x := string(data)
	for _, want := range []string{
		`errors="1"`, `failures="1"`,
		`classname="LIFE-001"`, `name="a spec of LIFE-001"`,
		`<failure message="failed: want &lt;result&gt;, got &#34;&amp;&#34; `,
		`<error message="suite error: a bug of e2e-conform: panic">`,
		`<skipped message="expected failure: LIFE-004: bug 12">`,
		`<property name="verdict" value="` + res.Verdict + `">`,
	} {
		if !strings.Contains(x, want) {
			t.Errorf("the JUnit report lacks %q:\n%s", want, x)
		}
	}
}
