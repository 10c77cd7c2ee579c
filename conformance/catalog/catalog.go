// Package catalog holds the requirement catalog of the e2e engine protocol
// (spec §11): every requirement's stable ID, level, applicability, fixture
// need and statement, and the evaluation of "Applies when" against what the
// suite knows about an engine.
//
// The table in catalog_gen.go is generated from the specification by
// `go generate ./conformance/catalog` (gen/main.go); TestCatalogMatchesSpec
// fails when the two drift apart.
package catalog

//go:generate go run ./gen -spec ../../../shared/spec/engine-protocol.md -out catalog_gen.go

import (
	"fmt"
	"strings"
)

// Level of a requirement: MUST failures fail conformance, SHOULD failures are
// warnings.
type Level string

// The levels.
const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
)

// Requirement is one catalog row.
type Requirement struct {
	ID          string
	Area        string // WIRE, LIFE, MAN, …
	Level       Level
	AppliesWhen string // the catalog's text, backquotes removed
	Fixture     bool
	Statement   string
	// Section is the part of the specification the requirement comes
	// from ("§1.1"): the section its row cites, else the one headed by the
	// method it names, else its area's (parse.go).
	Section string
}

// All returns the catalog in its order.
func All() []Requirement { return append([]Requirement(nil), table...) }

// Lookup returns the requirement with id.
func Lookup(id string) (Requirement, bool) {
	for _, r := range table {
		if r.ID == id {
			return r, true
		}
	}
	return Requirement{}, false
}

// Areas returns the areas in catalog order.
func Areas() []string {
	var out []string
	for _, r := range table {
		if len(out) == 0 || out[len(out)-1] != r.Area {
			out = append(out, r.Area)
		}
	}
	return out
}

// Withdrawn reports whether the requirement is withdrawn (kept for its ID).
func (r Requirement) Withdrawn() bool {
	return strings.HasPrefix(strings.ToLower(r.Statement), "withdrawn")
}

func (r Requirement) String() string { return fmt.Sprintf("%s (%s) %s", r.ID, r.Level, r.Statement) }
