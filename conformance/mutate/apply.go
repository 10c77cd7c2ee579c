package mutate

import (
	"math/big"
	"strconv"
	"strings"
)

// unknownMember is the member OpUnknown adds.
const unknownMember = "e2eMutant"

// ApplyMember applies a member operator at path (a Site path, "*" for any
// item or map member) of payload, the result, params or error object of a
// message. It returns the mutated payload and the RFC 6901 pointer of the
// place it changed, or ok false when the payload has no place the operator
// applies to.
func ApplyMember(op Operator, path string, payload []byte) (out []byte, pointer string, ok bool) {
	root, err := parseValue(payload)
	if err != nil {
		return nil, "", false
	}
	l, found := find(root, path)
	if !found {
		return nil, "", false
	}
	v := l.v
	switch op {
	case OpDrop:
		if l.parent == nil || l.parent.kind != jObject {
			return nil, "", false
		}
		_, i := l.parent.member(l.key)
		l.parent.remove(i)
	case OpNull:
		if v.kind == jNull {
			return nil, "", false
		}
		l.replace(&root, &value{kind: jNull})
	case OpUnknown:
		if v.kind != jObject {
			return nil, "", false
		}
		v.set(unknownMember, &value{kind: jBool, text: "true"})
	case OpRetype:
		l.replace(&root, retype(v))
	case OpEnumCase:
		if v.kind != jString {
			return nil, "", false
		}
		c := flipCase(v.text)
		if c == v.text {
			return nil, "", false
		}
		l.replace(&root, &value{kind: jString, text: c})
	case OpInc, OpDec:
		if v.kind != jNumber {
			return nil, "", false
		}
		d := 1
		if op == OpDec {
			d = -1
		}
		l.replace(&root, &value{kind: jNumber, text: addNumber(v.text, d)})
	case OpEmpty:
		if v.kind != jString || v.text == "" {
			return nil, "", false
		}
		l.replace(&root, &value{kind: jString, text: ""})
	default:
		return nil, "", false
	}
	return root.encode(), l.pointer, true
}

// retype changes a value's JSON type: a boolean or number becomes the
// string of its text, a string becomes a number (its own value when it
// reads as one, else 0), an object an empty array, an array an empty
// object, null an empty object.
func retype(v *value) *value {
	switch v.kind {
	case jBool, jNumber:
		return &value{kind: jString, text: v.text}
	case jString:
		if _, err := strconv.ParseFloat(v.text, 64); err == nil && v.text != "" && !strings.ContainsAny(v.text, "xXnN") {
			return &value{kind: jNumber, text: v.text}
		}
		return &value{kind: jNumber, text: "0"}
	case jObject:
		return &value{kind: jArray}
	}
	return &value{kind: jObject}
}

// flipCase lower-cases a string that has an upper-case letter, else
// upper-cases it.
func flipCase(s string) string {
	if strings.ToLower(s) != s {
		return strings.ToLower(s)
	}
	return strings.ToUpper(s)
}

// addNumber adds d to the JSON number text n, exactly.
func addNumber(n string, d int) string {
	r, ok := new(big.Rat).SetString(n)
	if !ok {
		return n
	}
	r.Add(r, big.NewRat(int64(d), 1))
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// ApplyEnvelope applies an envelope operator to a whole response message.
// ok is false when the message is not a response the operator applies to.
func ApplyEnvelope(op Operator, msg []byte) (out []byte, ok bool) {
	root, err := parseValue(msg)
	if err != nil || root.kind != jObject {
		return nil, false
	}
	id, _ := root.member("id")
	res, ri := root.member("result")
	_, ei := root.member("error")
	switch op {
	case OpIDType:
		if id == nil {
			return nil, false
		}
		switch id.kind {
		case jNumber:
			root.set("id", &value{kind: jString, text: id.text})
		case jString:
			root.set("id", &value{kind: jNumber, text: strconv.Itoa(len(id.text))})
		default:
			return nil, false
		}
	case OpIDValue:
		if id == nil {
			return nil, false
		}
		switch id.kind {
		case jNumber:
			root.set("id", &value{kind: jNumber, text: addNumber(id.text, 1)})
		case jString:
			root.set("id", &value{kind: jString, text: id.text + "-"})
		default:
			return nil, false
		}
	case OpNoJSONRPC:
		_, i := root.member("jsonrpc")
		if i < 0 {
			return nil, false
		}
		root.remove(i)
	case OpNeither:
		switch {
		case ri >= 0:
			root.remove(ri)
		case ei >= 0:
			root.remove(ei)
		default:
			return nil, false
		}
	case OpBoth:
		if res == nil || ei >= 0 {
			return nil, false
		}
		e, _ := parseValue([]byte(`{"code":-32603,"message":"e2e-mutate: both result and error"}`))
		root.set("error", e)
	default:
		return nil, false
	}
	return root.encode(), true
}

// SwapCode replaces an engine error's data.code, when it is from, by to.
// error is the error object.
func SwapCode(errObj []byte, from, to string) ([]byte, bool) {
	root, err := parseValue(errObj)
	if err != nil {
		return nil, false
	}
	data, _ := root.member("data")
	if t, _ := data.member("type"); t == nil || t.kind != jString || t.text != "engine" {
		return nil, false
	}
	c, _ := data.member("code")
	if c == nil || c.kind != jString || c.text != from {
		return nil, false
	}
	data.set("code", &value{kind: jString, text: to})
	return root.encode(), true
}

// FlipRetryable sets an engine error's data.retryable to its negation. With
// retryableCodes true it applies only to NODE_STALE and FRAME_NOT_FOUND
// errors, else only to the others.
func FlipRetryable(errObj []byte, retryableCodes bool) ([]byte, bool) {
	root, err := parseValue(errObj)
	if err != nil {
		return nil, false
	}
	data, _ := root.member("data")
	if t, _ := data.member("type"); t == nil || t.kind != jString || t.text != "engine" {
		return nil, false
	}
	c, _ := data.member("code")
	if c == nil || c.kind != jString {
		return nil, false
	}
	if (c.text == "NODE_STALE" || c.text == "FRAME_NOT_FOUND") != retryableCodes {
		return nil, false
	}
	r, _ := data.member("retryable")
	flipped := "true"
	if r != nil && r.kind == jBool && r.text == "true" {
		flipped = "false"
	}
	data.set("retryable", &value{kind: jBool, text: flipped})
	return root.encode(), true
}
