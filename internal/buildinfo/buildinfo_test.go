package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestLine(t *testing.T) {
	cases := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"stamped", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/e2e-conform/toolkit", Version: "v0.2.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}},
			"e2e-conform v0.2.0 (github.com/e2e-conform/toolkit, revision abc123, go1.26.8)"},
		{"modified", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "m", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			"e2e-conform (devel) (m, revision abc, modified, go1.26.8)"},
		{"no VCS", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "m", Version: "(devel)"}},
			"e2e-conform (devel) (m, revision unknown, go1.26.8)"},
	}
	for _, c := range cases {
		if got := FromBuildInfo(&c.bi).Line("e2e-conform"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
