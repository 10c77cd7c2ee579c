package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

// actionFile is the part of the repository's action.yml the tests read.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

// actionStep is one step of a composite action.
type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	Uses  string            `yaml:"uses"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

func readAction(t *testing.T) (actionFile, []byte) {
	t.Helper()
	src, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(src, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a, src
}

// TestActionLints: actionlint accepts a workflow that uses the action
// (`uses: ./`, which makes actionlint read action.yml and check the inputs
// given and the outputs read), and the action's own steps, linted as a
// reusable workflow's job whose inputs are the action's.
func TestActionLints(t *testing.T) {
	a, _ := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q, want composite", a.Runs.Using)
	}
	proj, err := actionlint.NewProject("../..")
	if err != nil {
		t.Fatal(err)
	}
	user := `name: conformance
on: push
jobs:
  conformance:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
      - id: conform
        uses: ./
        with:
          engine: bin/my-engine --stdio
          profile: core
          baseline: conformance-baseline.txt
          junit: junit.xml
      - run: echo "${{ steps.conform.outputs.verdict }} ${{ steps.conform.outputs.exit-code }}"
        if: always()
`
	// The action's steps as a reusable workflow's job: the inputs context
	// then has the action's inputs, and actionlint checks every expression
	// and step of the action.
	var doc struct {
		Inputs yaml.Node `yaml:"inputs"`
		Runs   struct {
			Steps yaml.Node `yaml:"steps"`
		} `yaml:"runs"`
	}
	_, src := readAction(t)
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]map[string]any{}
	for name := range a.Inputs {
		inputs[name] = map[string]any{"type": "string", "required": false}
	}
	wrapped := map[string]any{
		"name": "action steps",
		"on":   map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"jobs": map[string]any{"steps": map[string]any{"runs-on": "ubuntu-latest", "steps": &doc.Runs.Steps}},
	}
	asWorkflow, err := yaml.Marshal(wrapped)
	if err != nil {
		t.Fatal(err)
	}
	for name, wf := range map[string][]byte{"a workflow using the action": []byte(user), "the action's steps": asWorkflow} {
		l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		errs, err := l.Lint("../../.github/workflows/action-test.yml", wf, proj)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range errs {
			t.Errorf("%s: actionlint: line %d col %d: %s [%s]", name, e.Line, e.Column, e.Message, e.Kind)
		}
	}
}

// TestActionShape: the action installs a pinned suite (never @latest),
// passes its inputs to the scripts through env (no expression inside a
// script: no injection), outputs the verdict and the exit code, and uploads
// the reports with a pinned major of actions/upload-artifact.
func TestActionShape(t *testing.T) {
	a, _ := readAction(t)
	for _, want := range []string{"engine", "connect", "profile", "shard", "merge", "baseline", "json", "junit", "html", "badge", "version"} {
		if _, ok := a.Inputs[want]; !ok {
			t.Errorf("action.yml has no input %q", want)
		}
	}
	for _, want := range []string{"verdict", "exit-code"} {
		if _, ok := a.Outputs[want]; !ok {
			t.Errorf("action.yml has no output %q", want)
		}
	}
	uploads := 0
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q has an expression inside its script: pass it through env", s.Name)
		}
		if strings.Contains(s.Run, "@latest") {
			t.Errorf("step %q installs @latest: the action pins the suite", s.Name)
		}
		if s.Run != "" && s.Shell != "bash" {
			t.Errorf("step %q: shell %q, want bash (a composite run step must name its shell)", s.Name, s.Shell)
		}
		if name, ref, ok := strings.Cut(s.Uses, "@"); ok && name == "actions/upload-artifact" {
			uploads++
			if !regexp.MustCompile(`^v\d+$`).MatchString(ref) {
				t.Errorf("actions/upload-artifact@%s: want a pinned major (v4)", ref)
			}
		}
	}
	if uploads != 1 {
		t.Errorf("%d actions/upload-artifact steps, want one", uploads)
	}
}

// actionRunner runs the action's shell steps as a runner would: the
// inputs' expressions substituted in each step's env, GITHUB_OUTPUT,
// GITHUB_PATH, GITHUB_STEP_SUMMARY, RUNNER_TEMP and GITHUB_ACTION_PATH set.
type actionRunner struct {
	t      *testing.T
	action actionFile
	temp   string   // RUNNER_TEMP
	path   []string // GITHUB_PATH lines so far
}

var inputExpr = regexp.MustCompile(`\$\{\{\s*inputs\.([a-z-]+)\s*\}\}`)

// step runs the action's step named id (or, without an id, the step of that
// name) in dir with inputs over the action's defaults; it returns the
// script's exit status and the outputs it wrote.
func (r *actionRunner) step(id, dir string, inputs map[string]string) (int, map[string]string) {
	r.t.Helper()
	var st *actionStep
	for i, s := range r.action.Runs.Steps {
		if s.ID == id || s.Name == id {
			st = &r.action.Runs.Steps[i]
		}
	}
	if st == nil {
		r.t.Fatalf("action.yml has no step %q", id)
	}
	files := map[string]string{}
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"} {
		f, err := os.CreateTemp(r.temp, k)
		if err != nil {
			r.t.Fatal(err)
		}
		f.Close()
		files[k] = f.Name()
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		r.t.Fatal(err)
	}
	env := append(os.Environ(), "RUNNER_TEMP="+r.temp, "GITHUB_ACTION_PATH="+root,
		"PATH="+strings.Join(append(append([]string{}, r.path...), os.Getenv("PATH")), string(os.PathListSeparator)))
	for k, v := range files {
		env = append(env, k+"="+v)
	}
	for k, v := range st.Env {
		v = inputExpr.ReplaceAllStringFunc(v, func(m string) string {
			name := inputExpr.FindStringSubmatch(m)[1]
			if got, ok := inputs[name]; ok {
				return got
			}
			in, ok := r.action.Inputs[name]
			if !ok {
				r.t.Fatalf("step %q reads inputs.%s, which action.yml does not declare", st.Name, name)
			}
			return in.Default
		})
		if strings.Contains(v, "${{") {
			r.t.Fatalf("step %q: env %s=%q has an expression the test does not evaluate", st.Name, k, v)
		}
		env = append(env, k+"="+v)
	}
	// A composite step's `shell: bash` runs bash --noprofile --norc -eo pipefail {0}.
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", st.Run)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			r.t.Fatalf("step %q: %v", st.Name, err)
		}
		code = ee.ExitCode()
	}
	r.t.Logf("step %q (%v): exit %d\n%s", st.Name, inputs, code, out)
	outputs := map[string]string{}
	data, _ := os.ReadFile(files["GITHUB_OUTPUT"])
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			outputs[k] = v
		}
	}
	data, _ = os.ReadFile(files["GITHUB_PATH"])
	for _, line := range strings.Fields(string(data)) {
		r.path = append([]string{line}, r.path...)
	}
	return code, outputs
}

// TestActionStepsRun runs the action's install and run steps against the
// saboteur: a conformant run, a fault (non-conformant, the step fails), the
// same fault in the baseline (conformant), two shards of the fault (their
// steps pass) merged (non-conformant) and a usage error.
func TestActionStepsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds e2e-conform and runs the suite")
	}
	a, _ := readAction(t)
	r := &actionRunner{t: t, action: a, temp: t.TempDir()}
	work := t.TempDir()
	if code, _ := r.step("Install e2e-conform", work, nil); code != 0 {
		t.Fatalf("the install step exited %d", code)
	}
	if len(r.path) != 1 {
		t.Fatalf("the install step added %v to GITHUB_PATH, want its bin directory", r.path)
	}
	if _, err := os.Stat(filepath.Join(r.path[0], "e2e-conform")); err != nil {
		t.Fatalf("the install step built no e2e-conform: %v", err)
	}
	sab := filepath.Join(bins(t), "saboteur")
	fault := sab + " --fault reinitialize-accepted"
	if err := os.WriteFile(filepath.Join(work, "baseline.txt"), []byte("LIFE-004: a second initialize is accepted (bug 12)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		inputs  map[string]string
		code    int // the step's exit status
		verdict string
		exit    string
		files   []string
	}{
		{"a conformant engine", map[string]string{"engine": sab, "args": "--only WIRE-001"}, 0, "conformant", "0",
			[]string{"e2e-conform-report.json", "e2e-conform-junit.xml", "e2e-conform-report.html"}},
		{"a fault", map[string]string{"engine": fault, "args": "--only LIFE-004", "json": "fault.json", "badge": "badge.svg"}, 1, "non-conformant", "1",
			[]string{"fault.json", "badge.svg"}},
		{"the fault in the baseline", map[string]string{"engine": fault, "args": "--only LIFE-004", "baseline": "baseline.txt", "json": "baselined.json"}, 0, "conformant", "0", nil},
		{"shard 1/2 of the fault", map[string]string{"engine": fault, "args": "--only LIFE", "shard": "1/2", "json": "shard-1.json", "junit": "", "html": ""}, 0, "", "", []string{"shard-1.json"}},
		{"shard 2/2 of the fault", map[string]string{"engine": fault, "args": "--only LIFE", "shard": "2/2", "json": "shard-2.json", "junit": "", "html": ""}, 0, "", "", []string{"shard-2.json"}},
		{"the shards merged", map[string]string{"merge": "shard-*.json", "json": "merged.json"}, 1, "non-conformant", "1", []string{"merged.json"}},
		{"a usage error", map[string]string{"engine": sab, "args": "--no-such-flag", "json": "usage.json"}, 2, "usage error", "2", nil},
		{"a usage error in a shard", map[string]string{"engine": sab, "args": "--no-such-flag", "shard": "1/2", "json": "usage.json"}, 1, "usage error", "2", nil},
	}
	for _, c := range cases {
		code, out := r.step("run", work, c.inputs)
		if code != c.code {
			t.Errorf("%s: the step exited %d, want %d", c.name, code, c.code)
		}
		if c.verdict != "" && out["verdict"] != c.verdict || c.exit != "" && out["exit-code"] != c.exit {
			t.Errorf("%s: outputs verdict=%q exit-code=%q, want %q and %s", c.name, out["verdict"], out["exit-code"], c.verdict, c.exit)
		}
		if out["artifact"] == "" || c.inputs["shard"] != "" && !strings.Contains(out["artifact"], "shard-"+strings.Replace(c.inputs["shard"], "/", "-of-", 1)) {
			t.Errorf("%s: artifact name %q, want one per shard", c.name, out["artifact"])
		}
		for _, f := range c.files {
			if _, err := os.Stat(filepath.Join(work, f)); err != nil {
				t.Errorf("%s: no report %s: %v", c.name, f, err)
			}
		}
	}
}
