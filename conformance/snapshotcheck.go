package conformance

import (
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf16"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The snapshot checker of the raw UI specs: an engine/observe result read
// byte for byte against §7's shape (which members a node has, which are
// null, the text limits), without the client library's decoding.

// rawRootID returns root.ref.id of a snapshot ("" when unreadable).
func rawRootID(snap map[string]json.RawMessage) string {
	var s struct {
		Root struct {
			Ref struct {
				ID string `json:"id"`
			} `json:"ref"`
		} `json:"root"`
	}
	b, _ := json.Marshal(snap)
	_ = json.Unmarshal(b, &s)
	return s.Root.Ref.ID
}

// memberNames returns the sorted member names of a JSON object ("" for a value
// that is not an object).
func memberNames(raw json.RawMessage) []string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rawNodeIDs returns every ref.id of a raw node tree, in document order.
func rawNodeIDs(raw json.RawMessage) []string {
	var n struct {
		Ref struct {
			ID string `json:"id"`
		} `json:"ref"`
		Children []json.RawMessage `json:"children"`
	}
	if json.Unmarshal(raw, &n) != nil {
		return nil
	}
	out := []string{n.Ref.ID}
	for _, c := range n.Children {
		out = append(out, rawNodeIDs(c)...)
	}
	return out
}

// utf16Len counts UTF-16 code units, the unit of the field limits (D45).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// snapshotProblems checks a raw engine/observe result against §5.4 and
// §5.5 and returns what is wrong (OBS-001): the snapshot's own members,
// then every node.
func snapshotProblems(snap map[string]json.RawMessage) []string {
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	for k, v := range snap {
		if string(v) == "null" {
			switch k {
			case "location", "root", "viewport", "truncated", "treeUnavailable", "pixels", "maskedRegionCount":
				bad("/%s is null (an absent member is left out, D11)", k)
			}
		}
	}
	root, ok := snap["root"]
	if !ok {
		bad("no root")
	} else {
		nodeProblems(root, "/root", &p)
	}
	var vp map[string]json.RawMessage
	if v, ok := snap["viewport"]; !ok || json.Unmarshal(v, &vp) != nil || vp == nil {
		bad("/viewport is missing or not an object")
	} else {
		for _, k := range []string{"width", "height"} {
			var f float64
			if json.Unmarshal(vp[k], &f) != nil || !(f > 0) {
				bad("/viewport/%s is %s, want a number > 0", k, orDefault(string(vp[k]), "absent"))
			}
		}
	}
	if v, ok := snap["location"]; ok && !isJSONString(v) {
		bad("/location is %s, want a string", clip(string(v)))
	}
	if v, ok := snap["truncated"]; ok && !isJSONBool(v) {
		bad("/truncated is %s, want a boolean", clip(string(v)))
	}
	if v, ok := snap["treeUnavailable"]; ok && string(v) != "true" {
		bad("/treeUnavailable is %s, want the literal true", clip(string(v)))
	}
	if v, ok := snap["maskedRegionCount"]; ok {
		if n, isInt := wire.ParseInteger(v); !isInt || n < 0 {
			bad("/maskedRegionCount is %s, want an integer >= 0", clip(string(v)))
		}
	}
	return p
}

var nodeMembers = map[string]bool{"ref": true, "role": true, "name": true, "text": true, "value": true, "selection": true,
	"testId": true, "inputPurpose": true, "states": true, "level": true, "attributes": true, "rect": true, "selector": true,
	"framePath": true, "children": true}

var nodeStateKeys = map[string]bool{"checked": true, "disabled": true, "selected": true, "expanded": true,
	"pressed": true, "focused": true, "hidden": true, "secure": true}

// nodeProblems checks one raw SemanticNode and its children (§5.5).
func nodeProblems(raw json.RawMessage, at string, p *[]string) {
	bad := func(format string, args ...any) { *p = append(*p, at+": "+fmt.Sprintf(format, args...)) }
	var n map[string]json.RawMessage
	if json.Unmarshal(raw, &n) != nil || n == nil {
		bad("a node is %s, want an object", clip(string(raw)))
		return
	}
	for k, v := range n {
		if string(v) == "null" && nodeMembers[k] {
			bad("member %s is null (an absent member is left out, D11)", k)
		}
	}
	var ref map[string]json.RawMessage
	if json.Unmarshal(n["ref"], &ref) != nil || ref == nil {
		bad("ref is %s, want {id, revision}", orDefault(clip(string(n["ref"])), "absent"))
	} else {
		var id string
		if json.Unmarshal(ref["id"], &id) != nil || id == "" {
			bad("ref.id is %s, want a non-empty string", orDefault(clip(string(ref["id"])), "absent"))
		}
		if !isJSONString(ref["revision"]) {
			bad("ref.revision is %s, want a string (engines send \"\")", orDefault(clip(string(ref["revision"])), "absent"))
		}
	}
	for _, f := range []struct {
		name  string
		limit int
	}{{"role", 0}, {"name", wire.NameMaxUnits}, {"text", wire.TextMaxUnits}, {"value", wire.TextMaxUnits}, {"selection", wire.TextMaxUnits}, {"testId", 0}, {"selector", 0}} {
		v, ok := n[f.name]
		if !ok || string(v) == "null" {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			bad("%s is %s, want a string", f.name, clip(string(v)))
			continue
		}
		if f.limit > 0 && utf16Len(s) > f.limit {
			bad("%s has %d UTF-16 code units, more than its limit %d", f.name, utf16Len(s), f.limit)
		}
	}
	if v, ok := n["inputPurpose"]; ok {
		var s string
		_ = json.Unmarshal(v, &s)
		switch s {
		case "username", "password", "one-time-code", "generic-secret", "none":
		default:
			bad("inputPurpose is %s, not one of username, password, one-time-code, generic-secret, none", clip(string(v)))
		}
	}
	secure := false
	if v, ok := n["states"]; ok {
		var st map[string]json.RawMessage
		if json.Unmarshal(v, &st) != nil || st == nil {
			bad("states is %s, want an object", clip(string(v)))
		}
		for k, b := range st {
			if !nodeStateKeys[k] {
				bad("states holds %q, which is not one of the eight state keys", k)
			}
			if !isJSONBool(b) {
				bad("states.%s is %s, want a boolean", k, clip(string(b)))
			}
		}
		secure = string(st["secure"]) == "true"
	}
	if secure {
		for _, k := range []string{"value", "selection"} {
			if _, ok := n[k]; ok {
				bad("a node with states.secure: true carries %s", k)
			}
		}
	}
	if v, ok := n["level"]; ok {
		if l, isInt := wire.ParseInteger(v); !isInt || l < 1 {
			bad("level is %s, want an integer >= 1", clip(string(v)))
		}
	}
	if v, ok := n["attributes"]; ok {
		var m map[string]string
		if json.Unmarshal(v, &m) != nil || m == nil || hasNullMember(v) {
			bad("attributes is %s, want an object of strings", clip(string(v)))
		}
	}
	if v, ok := n["rect"]; ok {
		var r map[string]json.RawMessage
		if json.Unmarshal(v, &r) != nil || r == nil {
			bad("rect is %s, want {x, y, width, height}", clip(string(v)))
		} else {
			for _, k := range []string{"x", "y", "width", "height"} {
				var f float64
				if json.Unmarshal(r[k], &f) != nil || string(r[k]) == "null" {
					bad("rect.%s is %s, want a number", k, orDefault(clip(string(r[k])), "absent"))
				} else if (k == "width" || k == "height") && f < 0 {
					bad("rect.%s is %v, want >= 0", k, f)
				}
			}
		}
	}
	if v, ok := n["framePath"]; ok {
		var l []json.RawMessage
		if json.Unmarshal(v, &l) != nil || l == nil {
			bad("framePath is %s, want an array of strings", clip(string(v)))
		}
		for _, s := range l {
			if !isJSONString(s) {
				bad("framePath holds %s, want strings", clip(string(s)))
			}
		}
	}
	if v, ok := n["children"]; ok {
		var cs []json.RawMessage
		if json.Unmarshal(v, &cs) != nil || cs == nil {
			bad("children is %s, want an array of nodes", clip(string(v)))
			return
		}
		for i, c := range cs {
			nodeProblems(c, fmt.Sprintf("%s/children/%d", at, i), p)
		}
	}
}

func hasNullMember(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	for _, v := range m {
		if string(v) == "null" {
			return true
		}
	}
	return false
}

func isJSONString(v json.RawMessage) bool { return len(v) > 0 && v[0] == '"' }
func isJSONBool(v json.RawMessage) bool   { s := string(v); return s == "true" || s == "false" }
