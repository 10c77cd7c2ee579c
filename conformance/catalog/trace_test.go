package catalog

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// engineTrees are the engine code that carries, in its comments, the IDs of
// the requirements it implements ("Implements: SIG-012."), relative to the
// repository root: the toolkit server (protocol/server and the frame layer
// it serves through, protocol/rpc), the reference web engine and the
// example engine.
var engineTrees = []string{"protocol/server", "protocol/rpc", "reference-engine", "fixtures/example"}

// notInEngines are the requirements no engine implements, with why.
func notInEngines() map[string]string {
	client := "binds the client library (protocol/client), not a server; checked by protocol/client's TestCLI* tests"
	out := map[string]string{}
	for _, r := range All() {
		if r.Area == "CLI" {
			out[r.ID] = client
		}
	}
	return out
}

var requirementID = regexp.MustCompile(`\b(?:WIRE|LIFE|MAN|OBS|LOC|ACT|PTR|KEY|STATE|ART|SESS|SIG|ERR|S2C|TRN|CLI)-\d{3}\b`)

// TestEveryRequirementIsInEngineCode: `grep SIG-012` lands on the engine
// code implementing it. Every catalog ID appears in the non-test Go files
// of at least one engine tree, or is listed in notInEngines; every ID
// those files name is a catalog ID.
func TestEveryRequirementIsInEngineCode(t *testing.T) {
	named := map[string][]string{} // ID -> files naming it
	for _, tree := range engineTrees {
		root := filepath.Join("..", "..", filepath.FromSlash(tree))
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, id := range requirementID.FindAllString(string(data), -1) {
				named[id] = append(named[id], path)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("reading %s: %v", tree, err)
		}
	}
	exempt := notInEngines()
	for _, r := range All() {
		why, isExempt := exempt[r.ID]
		switch {
		case isExempt && len(named[r.ID]) > 0:
			t.Errorf("%s is listed as in no engine (%s) but %v name it", r.ID, why, named[r.ID])
		case !isExempt && len(named[r.ID]) == 0:
			t.Errorf("%s appears in no engine tree (%v): name it where it is implemented, or list it in notInEngines with why", r.ID, engineTrees)
		}
	}
	for id, files := range named {
		if _, ok := Lookup(id); !ok {
			t.Errorf("%s, named in %v, is not a catalog ID", id, files)
		}
	}
}
