// Package buildinfo says which build of a binary is running: the module
// version, the VCS revision (and whether the tree was modified) and the Go
// version, read from the binary's embedded build information.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Info is what a binary knows of its own build.
type Info struct {
	// Module is the main module's path; Version its version ("(devel)"
	// for a build from a checkout).
	Module, Version string
	// Revision is the VCS revision ("" when built without VCS stamping);
	// Modified marks a tree with uncommitted changes.
	Revision string
	Modified bool
	// GoVersion is the toolchain that built the binary.
	GoVersion string
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "unknown"}
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo extracts Info from Go build information.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Module: bi.Main.Path, Version: bi.Main.Version, GoVersion: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// Line is the one-line form --version prints: "NAME VERSION (MODULE,
// revision REV[, modified], GO)".
func (in Info) Line(name string) string {
	rev := in.Revision
	if rev == "" {
		rev = "unknown"
	}
	if in.Modified {
		rev += ", modified"
	}
	return fmt.Sprintf("%s %s (%s, revision %s, %s)", name, in.Version, in.Module, rev, in.GoVersion)
}
