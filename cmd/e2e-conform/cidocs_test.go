package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
	"github.com/mattn/go-shellwords"
	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

// ciBlocks returns docs/ci.md's YAML blocks by the file each names in its
// first line ("# .github/workflows/conformance.yml").
func ciBlocks(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		first, _, _ := strings.Cut(m[1], "\n")
		blocks[strings.TrimSpace(strings.TrimPrefix(first, "#"))] = m[1]
	}
	return blocks
}

// TestCIWorkflowLints: docs/ci.md's GitHub Actions workflows (the sharded
// one and the one using the action) pass actionlint.
func TestCIWorkflowLints(t *testing.T) {
	blocks := ciBlocks(t)
	for _, name := range []string{".github/workflows/conformance.yml", ".github/workflows/conformance-action.yml"} {
		wf, ok := blocks[name]
		if !ok {
			t.Errorf("docs/ci.md has no %s block", name)
			continue
		}
		l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		errs, err := l.Lint("<stdin>", []byte(wf), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range errs {
			t.Errorf("%s: actionlint: line %d col %d: %s [%s]", name, e.Line, e.Column, e.Message, e.Kind)
		}
	}
}

// TestGitLabCIShape: docs/ci.md's .gitlab-ci.yml is YAML with a parallel
// shard job whose script passes GitLab's node variables to --shard, and a
// gate job in a later stage that needs it and merges.
func TestGitLabCIShape(t *testing.T) {
	src, ok := ciBlocks(t)[".gitlab-ci.yml"]
	if !ok {
		t.Fatal("docs/ci.md has no .gitlab-ci.yml block")
	}
	var doc struct {
		Stages      []string `yaml:"stages"`
		Conformance struct {
			Stage    string   `yaml:"stage"`
			Parallel int      `yaml:"parallel"`
			Script   []string `yaml:"script"`
		} `yaml:"conformance"`
		Gate struct {
			Stage  string           `yaml:"stage"`
			Needs  []map[string]any `yaml:"needs"`
			Script []string         `yaml:"script"`
		} `yaml:"gate"`
	}
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf(".gitlab-ci.yml: %v", err)
	}
	script := strings.Join(doc.Conformance.Script, "\n")
	switch {
	case len(doc.Stages) != 2 || doc.Conformance.Stage != doc.Stages[0] || doc.Gate.Stage != doc.Stages[1]:
		t.Errorf("stages %v, shard job in %q, gate in %q: want the gate in the stage after the shards'", doc.Stages, doc.Conformance.Stage, doc.Gate.Stage)
	case doc.Conformance.Parallel < 2:
		t.Errorf("parallel: %d, want a shard matrix", doc.Conformance.Parallel)
	case !strings.Contains(script, `--shard "${CI_NODE_INDEX}/${CI_NODE_TOTAL}"`):
		t.Errorf("the shard job does not pass GitLab's node index and total to --shard: %s", script)
	case len(doc.Gate.Needs) != 1 || doc.Gate.Needs[0]["job"] != "conformance":
		t.Errorf("gate needs %v, want the conformance job", doc.Gate.Needs)
	case !strings.Contains(strings.Join(doc.Gate.Script, "\n"), "e2e-conform merge report-*.json"):
		t.Errorf("the gate does not merge the shards' reports: %v", doc.Gate.Script)
	}
}

// TestCICommandsUseRealFlags: every e2e-conform command in docs/ci.md uses
// only flags the binary defines (those its --help lists, and merge's).
func TestCICommandsUseRealFlags(t *testing.T) {
	flagsOf := func(args ...string) map[string]bool {
		var out bytes.Buffer
		run(args, &out, &out)
		got := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z-]+)`).FindAllStringSubmatch(out.String(), -1) {
			got[m[1]] = true
		}
		if len(got) < 3 {
			t.Fatalf("%v printed no flags: %s", args, out.String())
		}
		return got
	}
	mainFlags, mergeFlags := flagsOf("--help"), flagsOf("merge", "--help")
	vars := strings.NewReplacer(`"${E2E_CONFORM_PROFILE}"`, "core", `${{ matrix.shard }}`, "1", "${CI_NODE_INDEX}", "1", "${CI_NODE_TOTAL}", "3", "\\\n", " ")
	n := 0
	for name, block := range ciBlocks(t) {
		for _, line := range strings.Split(vars.Replace(block), "\n") {
			_, cmd, ok := strings.Cut(line, "e2e-conform ")
			if !ok || strings.Contains(line, "go install") {
				continue
			}
			cmd, _, _ = strings.Cut(cmd, "||")
			words, err := shellwords.Parse(cmd)
			if err != nil {
				t.Errorf("%s: %q does not split: %v", name, cmd, err)
				continue
			}
			defined := mainFlags
			if len(words) > 0 && words[0] == "merge" {
				defined = mergeFlags
			}
			n++
			for _, w := range words {
				if f, ok := strings.CutPrefix(w, "--"); ok {
					f, _, _ = strings.Cut(f, "=")
					if !defined[f] {
						t.Errorf("%s: e2e-conform %s: --%s is no flag of e2e-conform", name, cmd, f)
					}
				}
			}
		}
	}
	if n < 4 {
		t.Errorf("found %d e2e-conform commands in docs/ci.md, want the shard and merge commands of both files", n)
	}
}

// ciDocs is docs/ci.md's YAML blocks parsed, by file name.
func ciDocs(t *testing.T) map[string]map[string]any {
	t.Helper()
	docs := map[string]map[string]any{}
	for name, src := range ciBlocks(t) {
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docs[name] = doc
	}
	if len(docs) < 3 {
		t.Errorf("docs/ci.md has %d YAML blocks, want the two GitHub workflows and .gitlab-ci.yml", len(docs))
	}
	return docs
}

// TestCIPinsTheSuite: no block installs e2e-conform @latest; each names one
// version (E2E_CONFORM_VERSION, or the action's ref), the suite's own
// (report.SuiteVersion), and every job installs that one, so the shard
// and merge jobs run the same suite.
func TestCIPinsTheSuite(t *testing.T) {
	want := "v" + report.SuiteVersion
	installs := regexp.MustCompile(`go install "?github\.com/e2e-conform/toolkit/cmd/e2e-conform@([^"\s]+)`)
	uses := regexp.MustCompile(`uses: e2e-conform/toolkit@(\S+)`)
	for name, src := range ciBlocks(t) {
		if strings.Contains(src, "@latest") {
			t.Errorf("%s installs @latest: pin the suite", name)
		}
		var pinned struct {
			Env       map[string]string `yaml:"env"`
			Variables map[string]string `yaml:"variables"`
		}
		if err := yaml.Unmarshal([]byte(src), &pinned); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		version := pinned.Env["E2E_CONFORM_VERSION"] + pinned.Variables["E2E_CONFORM_VERSION"]
		n := 0
		for _, m := range installs.FindAllStringSubmatch(src, -1) {
			n++
			if m[1] != "${E2E_CONFORM_VERSION}" {
				t.Errorf("%s installs e2e-conform@%s, want @${E2E_CONFORM_VERSION} (one version for every job)", name, m[1])
			}
		}
		for _, m := range uses.FindAllStringSubmatch(src, -1) {
			n++
			version = m[1]
		}
		if n == 0 {
			t.Errorf("%s installs no e2e-conform", name)
		}
		if version != want {
			t.Errorf("%s pins e2e-conform %q, want %s (the suite's version)", name, version, want)
		}
	}
}

// goModGo is the go line of the module's go.mod.
func goModGo(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(data)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	return string(m[1])
}

// TestCIGoMatchesGoMod: every Go the CI files name (setup-go's go-version,
// GitLab's golang: image) and every Go version docs/ci.md's text names is
// go.mod's go line, which `go install` of the suite needs.
func TestCIGoMatchesGoMod(t *testing.T) {
	want := goModGo(t)
	n := 0
	for name, src := range ciBlocks(t) {
		for _, m := range regexp.MustCompile(`(?m)(?:go-version: *"?|image: *golang:)([0-9][^"\s]*)`).FindAllStringSubmatch(src, -1) {
			n++
			if m[1] != want {
				t.Errorf("%s uses Go %s, go.mod's go line is %s", name, m[1], want)
			}
		}
		if strings.Contains(src, "go-version: stable") {
			t.Errorf("%s: go-version: stable, want go.mod's %s", name, want)
		}
	}
	if n < 4 {
		t.Errorf("found %d Go versions in docs/ci.md's files, want each job's", n)
	}
	data, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`go (?:>= )?(1\.\d+(?:\.\d+)?)`).FindAllStringSubmatch(string(data), -1) {
		if m[1] != want {
			t.Errorf("docs/ci.md names Go %s (%q), go.mod's go line is %s", m[1], m[0], want)
		}
	}
}

// TestCIJobsTimeOutAndPublishJUnit: every job of the CI files has a
// timeout, the gate publishes its JUnit report (a JUnit-reading action on
// GitHub, artifacts:reports:junit on GitLab), and the files run the core
// profile (any engine) with the baseline.
func TestCIJobsTimeOutAndPublishJUnit(t *testing.T) {
	docs := ciDocs(t)
	for _, name := range []string{".github/workflows/conformance.yml", ".github/workflows/conformance-action.yml"} {
		jobs, _ := docs[name]["jobs"].(map[string]any)
		if len(jobs) == 0 {
			t.Errorf("%s has no jobs", name)
		}
		junit := false
		for job, v := range jobs {
			j, _ := v.(map[string]any)
			if _, ok := j["timeout-minutes"]; !ok {
				t.Errorf("%s: job %s has no timeout-minutes", name, job)
			}
			steps, _ := j["steps"].([]any)
			for _, st := range steps {
				s, _ := st.(map[string]any)
				with, _ := s["with"].(map[string]any)
				if strings.HasPrefix(fmt.Sprint(s["uses"]), "mikepenz/action-junit-report@") && with["report_paths"] == "junit.xml" {
					junit = true
				}
			}
		}
		if !junit {
			t.Errorf("%s publishes no JUnit report", name)
		}
	}
	gitlab := docs[".gitlab-ci.yml"]
	for job, v := range gitlab {
		j, ok := v.(map[string]any)
		if !ok || j["script"] == nil {
			continue
		}
		if _, ok := j["timeout"]; !ok {
			t.Errorf(".gitlab-ci.yml: job %s has no timeout", job)
		}
	}
	gate, _ := gitlab["gate"].(map[string]any)
	artifacts, _ := gate["artifacts"].(map[string]any)
	reports, _ := artifacts["reports"].(map[string]any)
	if reports["junit"] != "junit.xml" {
		t.Errorf(".gitlab-ci.yml: the gate's artifacts:reports:junit is %v, want junit.xml", reports["junit"])
	}
	for name, src := range ciBlocks(t) {
		if strings.Contains(src, "--profile full") || strings.Contains(src, "profile: full") {
			t.Errorf("%s runs the full profile, which a non-web engine can never pass: core by default", name)
		}
		if !strings.Contains(src, "conformance-baseline.txt") {
			t.Errorf("%s does not use the baseline", name)
		}
	}
}
