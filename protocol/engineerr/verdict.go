package engineerr

import (
	"encoding/json"
	"fmt"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Problem is one way an error object on the wire breaks the spec: the §11
// requirement it breaks and what is wrong.
type Problem struct {
	// Requirement is the catalog ID (ERR-001 … ERR-006).
	Requirement string
	// Message says what is wrong, quoting the offending part.
	Message string
}

// Checked is what CheckObject read of an error object, for the evidence
// a checker records: its code, and for -32000 its data.type with the
// engine code or the e2e category and code.
type Checked struct {
	Code     int64
	Type     string // "engine", "e2e", or "" (no or another data.type)
	Engine   Code
	Category Category
	E2ECode  string
}

// CheckObject is the one verdict on a wire error object's shape (spec
// §8): what the conformance suite reports and what the toolkit's encoder
// is tested against. It does not validate against the JSON Schema (the
// schema checks do) nor search for null members or secrets (the suite
// does); it checks the rules the schema cannot state:
//   - ERR-006: the message is not empty;
//   - ERR-001: a -32000 error has data.type "engine" or "e2e";
//   - ERR-002: engine data has a known code (ENGINE_ERROR_CODES) and a
//     boolean retryable;
//   - ERR-003: retryable is true only with NODE_STALE or FRAME_NOT_FOUND;
//   - ERR-004: e2e data has a known category, a non-empty code, a boolean
//     retryable and object details;
//   - ERR-005: another code's data has only stack, errno and cause; stack
//     is a string, errno a string or an integer, cause an error object,
//     nested at most MaxCauseDepth levels.
func CheckObject(raw json.RawMessage) (Checked, []Problem) {
	var eo struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(raw, &eo)
	c := Checked{Code: eo.Code}
	var ps []Problem
	add := func(req, format string, args ...any) {
		ps = append(ps, Problem{Requirement: req, Message: fmt.Sprintf(format, args...)})
	}
	if eo.Message == "" {
		add("ERR-006", "an error with an empty message (code %d)", eo.Code)
	}
	var d map[string]json.RawMessage
	hasData := json.Unmarshal(eo.Data, &d) == nil && d != nil
	if eo.Code == wire.CodeEngineError {
		var typ string
		if hasData {
			_ = json.Unmarshal(d["type"], &typ)
		}
		r := string(d["retryable"])
		switch typ {
		case "engine":
			var code string
			_ = json.Unmarshal(d["code"], &code)
			c.Type, c.Engine = typ, Code(code)
			if !c.Engine.Known() || (r != "true" && r != "false") {
				add("ERR-002", "engine error data %s", clipped(eo.Data))
			}
			if r == "true" && !c.Engine.MayRetry() {
				add("ERR-003", "retryable %s", code)
			}
		case "e2e":
			var cat, code string
			_ = json.Unmarshal(d["category"], &cat)
			_ = json.Unmarshal(d["code"], &code)
			c.Type, c.Category, c.E2ECode = typ, Category(cat), code
			det, hasDet := d["details"]
			if !c.Category.Known() || code == "" || (r != "true" && r != "false") || (hasDet && (len(det) == 0 || det[0] != '{')) {
				add("ERR-004", "e2e error data %s", clipped(eo.Data))
			}
		default:
			add("ERR-001", "-32000 error without data.type engine or e2e: %s", clipped(raw))
		}
	} else if hasData {
		for k := range d {
			if k != "stack" && k != "errno" && k != "cause" {
				add("ERR-005", "error %d carries data member %q", eo.Code, k)
			}
		}
	}
	for depth, cur := 0, d; hasData && cur != nil; {
		if s, ok := cur["stack"]; ok && (len(s) == 0 || s[0] != '"') {
			add("ERR-005", "stack is not a string")
		}
		if en, ok := cur["errno"]; ok {
			if _, isInt := wire.ParseInteger(en); !isInt && (len(en) == 0 || en[0] != '"') {
				add("ERR-005", "errno is neither a string nor an integer")
			}
		}
		cause, ok := cur["cause"]
		if !ok {
			break
		}
		if depth++; depth > MaxCauseDepth {
			add("ERR-005", "cause nested deeper than %d levels", MaxCauseDepth)
			break
		}
		var next struct {
			Data map[string]json.RawMessage `json:"data"`
		}
		if json.Unmarshal(cause, &next) != nil {
			add("ERR-005", "cause is not an error object")
			break
		}
		cur = next.Data
	}
	return c, ps
}

func clipped(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}
