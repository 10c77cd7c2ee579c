package client

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Diff compares a declared manifest with a served one under spec §3.6:
// methods, actions and pointerActions as sets, tapModifiers false as
// absent, everything else by JSON equality. It returns "" when they match,
// otherwise one clause per differing member, e.g.
// `methods: server adds [engine/locate], lacks [keyboard/dismiss]; version: "1.0.1" declared "1.0.0"`.
func Diff(declared, served wire.Manifest) string {
	var out []string
	str := func(name, d, s string) {
		if d != s {
			out = append(out, fmt.Sprintf("%s: %s declared %s", name, quoteOrAbsent(s), quoteOrAbsent(d)))
		}
	}
	set := func(name string, d, s []string) {
		adds, lacks := setDiff(s, d), setDiff(d, s)
		if (d == nil) != (s == nil) && len(adds) == 0 && len(lacks) == 0 {
			out = append(out, fmt.Sprintf("%s: present on one side only", name))
			return
		}
		var parts []string
		if len(adds) > 0 {
			parts = append(parts, fmt.Sprintf("server adds [%s]", strings.Join(adds, ", ")))
		}
		if len(lacks) > 0 {
			parts = append(parts, fmt.Sprintf("lacks [%s]", strings.Join(lacks, ", ")))
		}
		if len(parts) > 0 {
			out = append(out, name+": "+strings.Join(parts, ", "))
		}
	}
	set("methods", declared.Methods, served.Methods)
	set("actions", declared.Actions, served.Actions)
	set("pointerActions", declared.PointerActions, served.PointerActions)
	str("name", declared.Name, served.Name)
	str("version", declared.Version, served.Version)
	if declared.SPIVersion != served.SPIVersion {
		out = append(out, fmt.Sprintf("spiVersion: %d declared %d", served.SPIVersion, declared.SPIVersion))
	}
	str("platform", declared.Platform, served.Platform)
	if w := workers(served.Workers); w != workers(declared.Workers) {
		out = append(out, fmt.Sprintf("workers: %s declared %s", w, workers(declared.Workers)))
	}
	if declared.TapModifiers != served.TapModifiers {
		out = append(out, fmt.Sprintf("tapModifiers: %v declared %v", served.TapModifiers, declared.TapModifiers))
	}
	return strings.Join(out, "; ")
}

func quoteOrAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func workers(w *int64) string {
	if w == nil {
		return "absent"
	}
	return fmt.Sprint(*w)
}

// setDiff lists the members of a missing from b, in a's order.
func setDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
