package mutate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// jkind is the JSON type of a value.
type jkind byte

const (
	jNull   jkind = 'z'
	jBool   jkind = 'b'
	jNumber jkind = 'n'
	jString jkind = 's'
	jArray  jkind = 'a'
	jObject jkind = 'o'
)

// schemaType is the JSON Schema type name of a kind.
func (k jkind) schemaType() string {
	switch k {
	case jNull:
		return "null"
	case jBool:
		return "boolean"
	case jNumber:
		return "number"
	case jString:
		return "string"
	case jArray:
		return "array"
	}
	return "object"
}

// value is a JSON value that keeps the order of object members and the
// text of numbers, so a message re-encodes as it was sent apart from the
// mutated part (and string escapes, which encoding/json normalizes).
type value struct {
	kind  jkind
	text  string   // number text; "true"/"false"; string contents
	keys  []string // object member names, in order
	vals  []*value // object member values, parallel to keys
	items []*value // array items
}

// parseValue decodes one JSON value.
func parseValue(data []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func readValue(dec *json.Decoder) (*value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &value{kind: jNull}, nil
	case bool:
		return &value{kind: jBool, text: strconv.FormatBool(t)}, nil
	case json.Number:
		return &value{kind: jNumber, text: string(t)}, nil
	case string:
		return &value{kind: jString, text: t}, nil
	case json.Delim:
		switch t {
		case '{':
			v := &value{kind: jObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is not a string")
				}
				m, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				v.keys, v.vals = append(v.keys, k), append(v.vals, m)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return v, nil
		case '[':
			v := &value{kind: jArray}
			for dec.More() {
				m, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				v.items = append(v.items, m)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return v, nil
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// encode writes v as compact JSON.
func (v *value) encode() []byte {
	var b bytes.Buffer
	v.write(&b)
	return b.Bytes()
}

func writeString(b *bytes.Buffer, s string) {
	var sb bytes.Buffer
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Write(bytes.TrimSuffix(sb.Bytes(), []byte("\n")))
}

func (v *value) write(b *bytes.Buffer) {
	switch v.kind {
	case jNull:
		b.WriteString("null")
	case jBool, jNumber:
		b.WriteString(v.text)
	case jString:
		writeString(b, v.text)
	case jArray:
		b.WriteByte('[')
		for i, it := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.write(b)
		}
		b.WriteByte(']')
	case jObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			v.vals[i].write(b)
		}
		b.WriteByte('}')
	}
}

// member returns the value of member k and its index, or nil and -1.
func (v *value) member(k string) (*value, int) {
	if v == nil || v.kind != jObject {
		return nil, -1
	}
	for i, kk := range v.keys {
		if kk == k {
			return v.vals[i], i
		}
	}
	return nil, -1
}

// set replaces or appends member k.
func (v *value) set(k string, m *value) {
	if _, i := v.member(k); i >= 0 {
		v.vals[i] = m
		return
	}
	v.keys, v.vals = append(v.keys, k), append(v.vals, m)
}

// remove deletes member i.
func (v *value) remove(i int) {
	v.keys = append(v.keys[:i:i], v.keys[i+1:]...)
	v.vals = append(v.vals[:i:i], v.vals[i+1:]...)
}

// location is one concrete place in a value: the parent container and the
// member name or item index there. A zero parent is the root.
type location struct {
	parent  *value
	key     string // member name when parent is an object
	index   int    // item index when parent is an array
	pointer string // RFC 6901 pointer of the place
	v       *value
}

// find returns the first place, in document order, that matches path: a
// "/"-separated list of member names where "*" stands for any array item or
// any object member. The empty path is the root.
func find(root *value, path string) (location, bool) {
	if path == "" {
		return location{v: root}, true
	}
	return findIn(nil, "", 0, "", root, strings.Split(strings.TrimPrefix(path, "/"), "/"))
}

func findIn(parent *value, key string, index int, ptr string, v *value, segs []string) (location, bool) {
	if len(segs) == 0 {
		return location{parent: parent, key: key, index: index, pointer: ptr, v: v}, true
	}
	seg := segs[0]
	switch v.kind {
	case jObject:
		for i, k := range v.keys {
			if seg == "*" || seg == k {
				if l, ok := findIn(v, k, 0, ptr+"/"+escape(k), v.vals[i], segs[1:]); ok {
					return l, true
				}
			}
		}
	case jArray:
		if seg != "*" {
			return location{}, false
		}
		for i, it := range v.items {
			if l, ok := findIn(v, "", i, ptr+"/"+strconv.Itoa(i), it, segs[1:]); ok {
				return l, true
			}
		}
	}
	return location{}, false
}

func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// replace puts m in the place of l.
func (l location) replace(root **value, m *value) {
	switch {
	case l.parent == nil:
		*root = m
	case l.parent.kind == jObject:
		l.parent.set(l.key, m)
	default:
		l.parent.items[l.index] = m
	}
}
