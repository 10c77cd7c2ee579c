package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// engineMethods returns ENGINE_METHODS (§3.2) in canonical order.
func engineMethods() []string {
	return []string{
		"engine/observe", "engine/locate", "engine/perform", "engine/performAt",
		"keyboard/type", "keyboard/press", "keyboard/dismiss", "state/capture", "state/restore",
		"artifacts/screenshot", "artifacts/startVideo", "artifacts/stopVideo",
		"session/open", "session/back", "session/restart", "session/reset",
		"lifecycle/prepare", "lifecycle/finish", "lifecycle/init", "lifecycle/startAttempt",
		"lifecycle/settleAttempt", "lifecycle/endAttempt", "lifecycle/dispose",
	}
}

// locatorActionKinds returns LOCATOR_ACTION_KINDS (§3.7).
func locatorActionKinds() []string {
	return []string{
		"tap", "doubleTap", "secondaryTap", "longPress", "fill", "clear", "press", "check", "uncheck",
		"focus", "hover", "scrollIntoView", "selectOption", "setInputFiles", "dragTo", "swipe",
	}
}

// pointerActionKinds returns POINTER_ACTION_KINDS (§3.7).
func pointerActionKinds() []string {
	return []string{"tap", "doubleTap", "secondaryTap", "longPress", "hover", "dragTo", "swipe", "swipeTo"}
}

// manifestMembers returns the members of §3.1.
func manifestMembers() []string {
	return []string{"name", "version", "spiVersion", "platform", "workers", "methods", "actions", "pointerActions", "tapModifiers"}
}

// maxInteger is 2^53-1, the largest integer of §0.4.
const maxInteger = 9007199254740991

// ValidateManifest validates a manifest (§3) given as JSON. It returns nil
// when the manifest is valid, else an *Error holding the structural
// violations the schema of §3.8 finds (type, enum, required, unknown
// members, uniqueItems, pattern, const), each at its instance pointer, and
// the dependency rules of §3.3 (ManifestRules) in words. Where a rule and a
// schema check flag the same pointer only the rule is reported, and the
// schema's if/then dependency branches are never reported raw: the rules
// cover them. The result is nil exactly when the schema accepts raw.
func (s *Set) ValidateManifest(raw []byte) error {
	return s.validate(target{subject: "manifest", schema: s.manifest, absent: "manifest", manifestAt: []string{""}}, raw)
}

// ManifestRules checks the dependency rules M1..M13 of §3.3 (M11 is
// withdrawn, D61, and never reported) on a decoded manifest, whose numbers
// are json.Number (a decoder with UseNumber; float64 is accepted too). It
// returns the violations sorted by pointer, then rule; none when the
// manifest satisfies every rule. Messages state the broken rule and, after a
// colon, why it exists, e.g. "manifest lists engine/perform without
// actions: list the action kinds the surface honors". A manifest breaks a
// rule exactly when the schema of §3.8 rejects it.
func ManifestRules(m map[string]any) []Violation {
	var vs []Violation
	members, methodNames := manifestMembers(), engineMethods()
	add := func(ptr, rule, format string, args ...any) {
		vs = append(vs, Violation{Pointer: ptr, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}

	// M13: no member outside §3.1.
	for name := range m {
		if !slices.Contains(members, name) {
			add("/"+escapeToken(name), "M13", "manifest has unknown member %s: no member outside §3.1 is allowed", strconv.Quote(name))
		}
	}

	// M12: spiVersion, name, version, platform, workers.
	if v, ok := m["spiVersion"]; !ok {
		add("", "M12", "manifest lacks spiVersion: spiVersion is 1")
	} else if r, ok := numberRat(v); !ok || r.Cmp(big.NewRat(1, 1)) != 0 {
		add("/spiVersion", "M12", "spiVersion is %s: spiVersion is 1", describe(v))
	}
	for _, member := range []string{"name", "version"} {
		if v, ok := m[member]; !ok {
			add("", "M12", "manifest lacks %s: %s is a non-empty string", member, member)
		} else if !nonBlankString(v) {
			add("/"+member, "M12", "%s is %s: %s is a non-empty string (with a non-whitespace character)", member, describeTyped(v), member)
		}
	}
	if v, ok := m["platform"]; ok && !nonBlankString(v) {
		add("/platform", "M12", "platform is %s: platform, when present, is a non-empty string (with a non-whitespace character)", describeTyped(v))
	}
	if v, ok := m["workers"]; ok {
		r, isNum := numberRat(v)
		switch {
		case !isNum || !r.IsInt():
			add("/workers", "M12", "workers is %s: workers, when present, is an integer of at least 1", describeTyped(v))
		case r.Sign() <= 0:
			add("/workers", "M12", "workers is %s: workers, when present, is an integer of at least 1", describe(v))
		case r.Cmp(big.NewRat(maxInteger, 1)) > 0:
			add("/workers", "M12", "workers is %s: workers is at most 2^53-1", describe(v))
		}
	}

	// M1: methods holds only ENGINE_METHODS members, each at most once.
	methodsVal, hasMethods := m["methods"]
	methods, methodsOK := methodsVal.([]any)
	listed := map[string]int{} // method -> index of its first listing
	switch {
	case !hasMethods:
		add("", "M1", "manifest lacks methods: methods lists the ENGINE_METHODS members the server answers")
	case !methodsOK:
		add("/methods", "M1", "methods is %s: methods is an array of ENGINE_METHODS members", describeTyped(methodsVal))
	default:
		for i, item := range methods {
			ptr := "/methods/" + strconv.Itoa(i)
			name, isStr := item.(string)
			switch {
			case !isStr:
				add(ptr, "M1", "manifest lists %s as a method: closed list (ENGINE_METHODS members only)", describeTyped(item))
			case !slices.Contains(methodNames, name):
				add(ptr, "M1", "manifest lists unknown method %s: closed list (ENGINE_METHODS members only)", strconv.Quote(name))
			default:
				if first, dup := listed[name]; dup {
					add(ptr, "M1", "manifest lists %s twice (first at /methods/%d): each method at most once", name, first)
				} else {
					listed[name] = i
				}
			}
		}
	}

	// M3, M5: the kind lists.
	kindList := func(member, rule string, kinds []string, what string) {
		v, ok := m[member]
		if !ok {
			return
		}
		arr, isArr := v.([]any)
		if !isArr {
			add("/"+member, rule, "%s is %s: %s is a non-empty array of %s", member, describeTyped(v), member, what)
			return
		}
		if len(arr) == 0 {
			add("/"+member, rule, "%s is empty: %s is a non-empty array of %s", member, member, what)
			return
		}
		seen := map[string]int{}
		for i, item := range arr {
			ptr := "/" + member + "/" + strconv.Itoa(i)
			k, isStr := item.(string)
			switch {
			case !isStr:
				add(ptr, rule, "%s lists %s: %s holds %s only", member, describeTyped(item), member, what)
			case !slices.Contains(kinds, k):
				add(ptr, rule, "%s lists unknown kind %s: %s holds %s only", member, strconv.Quote(k), member, what)
			default:
				if first, dup := seen[k]; dup {
					add(ptr, rule, "%s lists %s twice (first at /%s/%d): %s is duplicate-free", member, strconv.Quote(k), member, first, member)
				} else {
					seen[k] = i
				}
			}
		}
	}
	kindList("actions", "M3", locatorActionKinds(), "LOCATOR_ACTION_KINDS members")
	kindList("pointerActions", "M5", pointerActionKinds(), "POINTER_ACTION_KINDS members")

	// M10: tapModifiers is a boolean.
	tap, hasTap := m["tapModifiers"]
	if _, isBool := tap.(bool); hasTap && !isBool {
		add("/tapModifiers", "M10", "tapModifiers is %s: tapModifiers, when present, is a boolean", describeTyped(tap))
	}

	// The dependency rules need a methods array (without one, M1 already
	// failed and the schema's dependency checks hold vacuously).
	if methodsOK {
		has := func(name string) bool { _, ok := listed[name]; return ok }
		at := func(name string) string { return "/methods/" + strconv.Itoa(listed[name]) }
		_, hasActions := m["actions"]
		_, hasPointer := m["pointerActions"]

		// M2
		if has("engine/perform") {
			if !has("engine/observe") {
				add(at("engine/perform"), "M2", "manifest lists engine/perform without engine/observe: action targets are observation refs")
			}
			if !hasActions {
				add(at("engine/perform"), "M2", "manifest lists engine/perform without actions: list the action kinds the surface honors")
			}
		} else if hasActions {
			add("/actions", "M2", "manifest has actions without engine/perform: actions lists the kinds engine/perform honors")
		}
		// M4
		if has("engine/performAt") {
			if !has("engine/observe") {
				add(at("engine/performAt"), "M4", "manifest lists engine/performAt without engine/observe: a point is read off the observation pixels")
			}
			if !hasPointer {
				add(at("engine/performAt"), "M4", "manifest lists engine/performAt without pointerActions: list the pointer action kinds the surface honors")
			}
		} else if hasPointer {
			add("/pointerActions", "M4", "manifest has pointerActions without engine/performAt: pointerActions lists the kinds engine/performAt honors")
		}
		// M6
		if has("engine/locate") && !has("engine/observe") {
			add(at("engine/locate"), "M6", "manifest lists engine/locate without engine/observe: located nodes share the observation id space")
		}
		// M7
		for _, pair := range [][2]string{{"keyboard/type", "keyboard/press"}, {"keyboard/press", "keyboard/type"}} {
			if has(pair[0]) && !has(pair[1]) {
				add(at(pair[0]), "M7", "manifest lists %s without %s: keyboard/type and keyboard/press appear together", pair[0], pair[1])
			}
		}
		for _, k := range []string{"keyboard/type", "keyboard/press"} {
			if has(k) && !has("engine/observe") {
				add(at(k), "M7", "manifest lists %s without engine/observe: the focused field is read off the observation", k)
			}
		}
		if has("keyboard/dismiss") && !(has("keyboard/type") && has("keyboard/press")) {
			add(at("keyboard/dismiss"), "M7", "manifest lists keyboard/dismiss without keyboard/type and keyboard/press: keyboard/dismiss requires both")
		}
		// M8
		for _, pair := range [][2]string{{"state/capture", "state/restore"}, {"state/restore", "state/capture"}} {
			if has(pair[0]) && !has(pair[1]) {
				add(at(pair[0]), "M8", "manifest lists %s without %s: state/capture and state/restore appear together", pair[0], pair[1])
			}
		}
		// M9
		for _, pair := range [][2]string{{"artifacts/startVideo", "artifacts/stopVideo"}, {"artifacts/stopVideo", "artifacts/startVideo"}} {
			if has(pair[0]) && !has(pair[1]) {
				add(at(pair[0]), "M9", "manifest lists %s without %s: artifacts/startVideo and artifacts/stopVideo appear together", pair[0], pair[1])
			}
		}
		for _, k := range []string{"artifacts/startVideo", "artifacts/stopVideo"} {
			if has(k) && !has("artifacts/screenshot") {
				add(at(k), "M9", "manifest lists %s without artifacts/screenshot: video requires artifacts/screenshot", k)
			}
		}
		// M10
		if tap == true && !has("engine/perform") {
			add("/tapModifiers", "M10", "manifest has tapModifiers true without engine/perform: modifiers ride on engine/perform taps")
		}
	}
	return sortViolations(vs)
}

// numberRat returns the exact value of a JSON number.
func numberRat(v any) (*big.Rat, bool) {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = string(n)
	case float64:
		s = strconv.FormatFloat(n, 'g', -1, 64)
	case int:
		s = strconv.Itoa(n)
	case int64:
		s = strconv.FormatInt(n, 10)
	default:
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// nonBlankString reports whether v is a string holding a character outside
// the ECMAScript whitespace set (the schema's pattern "\S").
func nonBlankString(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return !isECMASpace(r) }) >= 0
}

// isECMASpace reports whether r is ECMAScript whitespace or a line
// terminator (§10.3).
func isECMASpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// describeTyped renders a value with its JSON type where the type is the
// point: `null`, `the number 5`, `the string "2"`, `an array`.
func describeTyped(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "the boolean " + describe(v)
	case json.Number, float64, int, int64:
		return "the number " + describe(v)
	case string:
		return "the string " + describe(v)
	}
	return describe(v)
}
