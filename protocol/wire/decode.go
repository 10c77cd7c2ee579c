package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// DecodeError is a strict decoding failure located by a JSON pointer
// (RFC 6901) into the decoded document.
type DecodeError struct {
	Pointer string // "" is the document root
	Msg     string
}

func (e *DecodeError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "(root)"
	}
	return p + ": " + e.Msg
}

// Unmarshal decodes data into v like [json.Unmarshal], but reports a failure
// inside a tagged union, or a type mismatch, as a [*DecodeError] whose pointer
// names the member from the document root.
func Unmarshal(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	return locate(err)
}

func locate(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		msg := te.Value
		if !strings.HasPrefix(msg, unionMarker) {
			msg = fmt.Sprintf("cannot use %s as %s", te.Value, te.Type)
		} else {
			msg = strings.TrimPrefix(msg, unionMarker)
		}
		return &DecodeError{Pointer: dottedToPointer(te.Field), Msg: msg}
	}
	var de *DecodeError
	if errors.As(err, &de) {
		return de
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &DecodeError{Msg: fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)}
	}
	return err
}

func dottedToPointer(field string) string {
	if field == "" {
		return ""
	}
	parts := strings.Split(field, ".")
	for i, p := range parts {
		p = strings.ReplaceAll(p, "~", "~0")
		parts[i] = strings.ReplaceAll(p, "/", "~1")
	}
	return "/" + strings.Join(parts, "/")
}

// unionMarker tags the messages of union errors carried through
// encoding/json as UnmarshalTypeError values, which encoding/json annotates
// with the path of enclosing struct fields.
const unionMarker = "\x00union:"

// unionError reports a failure at member (a dotted path relative to the union
// value) of a union of type t.
func unionError(t any, member, format string, args ...any) error {
	return &json.UnmarshalTypeError{
		Value: unionMarker + fmt.Sprintf(format, args...),
		Type:  reflect.TypeOf(t),
		Field: member,
	}
}

// nestError prefixes the path of an error from a nested member.
func nestError(err error, member string) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		c := *te
		if c.Field == "" {
			c.Field = member
		} else {
			c.Field = member + "." + c.Field
		}
		if !strings.HasPrefix(c.Value, unionMarker) {
			c.Value = unionMarker + fmt.Sprintf("cannot use %s as %s", te.Value, te.Type)
		}
		return &c
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return err
	}
	return unionError(nil, member, "%v", err)
}

// members decodes a JSON object into raw members, failing when data is not an
// object.
func members(data []byte, t any) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if len(data) == 0 || data[0] != '{' {
		return nil, unionError(t, "", "%s must be an object, got %s", typeName(t), jsonKind(data))
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

func typeName(t any) string {
	n := reflect.TypeOf(t).Name()
	return n
}

func jsonKind(data []byte) string {
	s := strings.TrimSpace(string(data))
	if s == "" {
		return "nothing"
	}
	switch s[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// kindOf reads the required string member "kind".
func kindOf(m map[string]json.RawMessage, t any) (string, error) {
	raw, ok := m["kind"]
	if !ok {
		return "", unionError(t, "kind", "%s has no kind", typeName(t))
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		return "", unionError(t, "kind", "%s kind must be a string, got %s", typeName(t), jsonKind(raw))
	}
	return k, nil
}

// field decodes the member name into dst; required members must be present
// and not null.
func field(m map[string]json.RawMessage, t any, name string, dst any, required bool) error {
	raw, ok := m[name]
	if !ok || string(raw) == "null" {
		if required {
			if ok {
				return unionError(t, name, "%s %s must not be null", typeName(t), name)
			}
			return unionError(t, name, "%s of kind %s requires %s", typeName(t), kindName(m), name)
		}
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return nestError(err, name)
	}
	return nil
}

func kindName(m map[string]json.RawMessage) string {
	var k string
	_ = json.Unmarshal(m["kind"], &k)
	return fmt.Sprintf("%q", k)
}

// put appends "key":value to an object under construction.
type objectWriter struct {
	b     []byte
	first bool
	err   error
}

func newObject() *objectWriter { return &objectWriter{b: []byte{'{'}, first: true} }

func (w *objectWriter) put(key string, v any) {
	if w.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		w.err = err
		return
	}
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	k, _ := json.Marshal(key)
	w.b = append(w.b, k...)
	w.b = append(w.b, ':')
	w.b = append(w.b, data...)
}

func (w *objectWriter) bytes() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return append(w.b, '}'), nil
}
