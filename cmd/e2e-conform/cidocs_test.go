package main

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

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

// TestCIWorkflowLints: docs/ci.md's GitHub Actions workflow passes
// actionlint.
func TestCIWorkflowLints(t *testing.T) {
	wf, ok := ciBlocks(t)[".github/workflows/conformance.yml"]
	if !ok {
		t.Fatal("docs/ci.md has no .github/workflows/conformance.yml block")
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
		t.Errorf("actionlint: line %d col %d: %s [%s]", e.Line, e.Column, e.Message, e.Kind)
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
	vars := strings.NewReplacer(`${{ matrix.shard }}`, "1", "${CI_NODE_INDEX}", "1", "${CI_NODE_TOTAL}", "3", "\\\n", " ")
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
