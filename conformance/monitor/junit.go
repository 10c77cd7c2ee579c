package monitor

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// writeJUnit writes the report as JUnit XML: one test case per requirement
// the traffic exercised or broke, failed with its violations (a SHOULD
// missed is a warning in system-out, as in a suite run), skipped with "no
// violation seen" otherwise. The suite's own writer (report.Result.WriteJUnit)
// cannot be used as it is: it takes a requirement outside the catalog — a
// harness rule named by its section — for a SHOULD, which would hide the
// harness's violations from CI.
func (r *Report) writeJUnit(path string) error {
	type message struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Skipped   *message `xml:"skipped,omitempty"`
		Failure   *message `xml:"failure,omitempty"`
		SystemOut string   `xml:"system-out,omitempty"`
	}
	type property struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	type testsuite struct {
		XMLName    xml.Name   `xml:"testsuite"`
		Name       string     `xml:"name,attr"`
		Tests      int        `xml:"tests,attr"`
		Failures   int        `xml:"failures,attr"`
		Skipped    int        `xml:"skipped,attr"`
		Time       float64    `xml:"time,attr"`
		Properties []property `xml:"properties>property,omitempty"`
		Cases      []testcase `xml:"testcase"`
	}
	ts := testsuite{Name: "e2e-conform monitor " + r.Engine, Time: r.Duration.Seconds(),
		Properties: []property{{"verdict", r.Verdict}, {"transport", r.Transport}, {"frames", fmt.Sprint(r.Monitor.Frames)}}}
	for _, rr := range r.Requirements {
		tc := testcase{Name: strings.TrimSpace(rr.ID + " " + rr.Statement), Classname: "monitor." + rr.Area}
		var text strings.Builder
		for _, v := range r.Monitor.Violations {
			if v.Requirement == rr.ID {
				fmt.Fprintf(&text, "%s at fault, conn %d: %s\n%s\n\n", v.Side, v.Conn, v.Message, v.Exchange)
			}
		}
		switch {
		case rr.Status == report.Failed && rr.Level == string(catalog.Should):
			tc.SystemOut = "warning (SHOULD, not a failure): " + rr.Reason + "\n" + text.String()
		case rr.Status == report.Failed:
			tc.Failure = &message{Message: report.FirstLine(rr.Reason), Text: text.String()}
			ts.Failures++
		default:
			tc.Skipped = &message{Message: rr.Reason}
			ts.Skipped++
		}
		ts.Tests++
		ts.Cases = append(ts.Cases, tc)
	}
	data, err := xml.MarshalIndent(ts, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the JUnit report: %w", err)
	}
	return os.WriteFile(path, append([]byte(xml.Header), data...), 0o644)
}
