package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestEngineCommand(t *testing.T) {
	cases := []struct {
		name  string
		spawn string
		args  []string // the command line; n is what follows the flags
		n     int
		want  []string
		err   string
	}{
		{"fields", "./engine --flag x", nil, 0, []string{"./engine", "--flag", "x"}, ""},
		{"double quotes", `./engine --name "my engine" --x`, nil, 0, []string{"./engine", "--name", "my engine", "--x"}, ""},
		{"single quotes", `'/opt/my engine/bin/e' '--a=b c'`, nil, 0, []string{"/opt/my engine/bin/e", "--a=b c"}, ""},
		{"backslash", `./engine a\ b`, nil, 0, []string{"./engine", "a b"}, ""},
		{"no expansion", `./engine $HOME *`, nil, 0, []string{"./engine", "$HOME", "*"}, ""},
		{"unclosed quote", `./engine "x`, nil, 0, nil, "does not split"},
		{"blank", "   ", nil, 0, nil, "it is empty"},
		{"none", "", []string{"--profile", "full"}, 0, nil, ""},
		{"argv after --", "", []string{"--profile", "full", "--", "./engine", "a b", "--x"}, 3, []string{"./engine", "a b", "--x"}, ""},
		{"both", "./engine", []string{"--spawn", "./engine", "--", "./other"}, 1, nil, "not both"},
		{"stray argument", "", []string{"--profile", "full", "./engine"}, 1, nil, "unexpected arguments"},
	}
	for _, c := range cases {
		got, err := engineCommand(c.spawn, c.args, c.n)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one saying %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"--help"}, &out, &errs); code != 0 {
		t.Errorf("--help: exit %d", code)
	}
	for _, want := range []string{"exit status:", "3 incomplete", "4 harness error", "profiles:", "core ", "full ", "examples:", "-- ./my-engine"} {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("--help lacks %q:\n%s", want, errs.String())
		}
	}
	out.Reset()
	if code := run([]string{"--version"}, &out, &errs); code != 0 || !strings.HasPrefix(out.String(), "e2e-conform ") || !strings.Contains(out.String(), "revision ") || !strings.Contains(out.String(), "go1.") {
		t.Errorf("--version: exit %d, %q", code, out.String())
	}
}
