// Package storage captures and restores the state of a web profile (the
// cookies and the localStorage of each origin of one browser context), in
// the JSON shape of Playwright's storage state:
//
//	{"cookies": [{"name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite"}],
//	 "origins": [{"origin", "localStorage": [{"name", "value"}], "indexedDB": [...]}]}
//
// Cookie and storage values are secrets: no error or log of this package
// contains a value (or a cookie or storage name).
package storage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// State is the storage state of a browser context.
type State struct {
	// Cookies are all the cookies of the browser context.
	Cookies []Cookie `json:"cookies"`
	// Origins hold the web storage of each origin that has some.
	Origins []Origin `json:"origins"`
}

// Cookie is one cookie, as Playwright writes it.
type Cookie struct {
	// Name is the cookie's name.
	Name string `json:"name"`
	// Value is the cookie's value.
	Value string `json:"value"`
	// Domain is the cookie's domain: a host for a host-only cookie, or a
	// domain with a leading dot.
	Domain string `json:"domain"`
	// Path is the cookie's path.
	Path string `json:"path"`
	// Expires is the expiry in seconds since the Unix epoch; -1 marks a
	// session cookie.
	Expires float64 `json:"expires"`
	// HTTPOnly hides the cookie from scripts.
	HTTPOnly bool `json:"httpOnly"`
	// Secure limits the cookie to secure origins.
	Secure bool `json:"secure"`
	// SameSite is "Strict", "Lax" or "None".
	SameSite string `json:"sameSite"`
}

// Origin is the web storage of one origin.
type Origin struct {
	// Origin is scheme://host[:port], with no path.
	Origin string `json:"origin"`
	// LocalStorage holds the localStorage items, in no particular order.
	LocalStorage []NameValue `json:"localStorage"`
	// IndexedDB holds one JSON object per database: {name, version,
	// stores: [{name, autoIncrement, keyPath | keyPathArray, indexes:
	// [{name, keyPath | keyPathArray, unique, multiEntry}], records:
	// [{key?, value}]}]}, key only for a store without a key path. Only
	// records whose key and value are plain JSON are captured.
	IndexedDB []json.RawMessage `json:"indexedDB,omitempty"`
}

// NameValue is one localStorage item.
type NameValue struct {
	// Name is the item's key.
	Name string `json:"name"`
	// Value is the item's value.
	Value string `json:"value"`
}

// Decode parses and checks a storage state. It rejects anything that is
// not a JSON object, a field of the wrong type, a cookie without a name,
// domain or path, an unknown sameSite, and an origin that is not an
// http(s) origin. Unknown fields are ignored. The error names the field
// (for example cookies[2].expires) and never holds a value.
func Decode(data []byte) (State, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return State{}, errors.New("storage state: empty input, want a JSON object")
	}
	if trimmed[0] != '{' {
		return State{}, fmt.Errorf("storage state: want a JSON object, got %s", jsonKind(trimmed[0]))
	}
	var top struct {
		Cookies []json.RawMessage `json:"cookies"`
		Origins []json.RawMessage `json:"origins"`
	}
	if err := unmarshal(trimmed, &top, ""); err != nil {
		return State{}, err
	}
	var s State
	for i, raw := range top.Cookies {
		var c Cookie
		if err := unmarshal(raw, &c, fmt.Sprintf("cookies[%d]", i)); err != nil {
			return State{}, err
		}
		s.Cookies = append(s.Cookies, c)
	}
	for i, raw := range top.Origins {
		prefix := fmt.Sprintf("origins[%d]", i)
		var o struct {
			Origin       string            `json:"origin"`
			LocalStorage []json.RawMessage `json:"localStorage"`
			IndexedDB    []json.RawMessage `json:"indexedDB"`
		}
		if err := unmarshal(raw, &o, prefix); err != nil {
			return State{}, err
		}
		for j, raw := range o.IndexedDB {
			if err := checkDatabase(raw, fmt.Sprintf("%s.indexedDB[%d]", prefix, j)); err != nil {
				return State{}, err
			}
		}
		origin := Origin{Origin: o.Origin, IndexedDB: o.IndexedDB, LocalStorage: []NameValue{}}
		for j, raw := range o.LocalStorage {
			var it NameValue
			if err := unmarshal(raw, &it, fmt.Sprintf("%s.localStorage[%d]", prefix, j)); err != nil {
				return State{}, err
			}
			origin.LocalStorage = append(origin.LocalStorage, it)
		}
		s.Origins = append(s.Origins, origin)
	}
	if s.Cookies == nil {
		s.Cookies = []Cookie{}
	}
	if s.Origins == nil {
		s.Origins = []Origin{}
	}
	if err := s.validate(); err != nil {
		return State{}, err
	}
	return s, nil
}

// checkDatabase checks the shape of one IndexedDB database.
func checkDatabase(raw []byte, prefix string) error {
	var db struct {
		Name    *string `json:"name"`
		Version float64 `json:"version"`
		Stores  []struct {
			Name          *string           `json:"name"`
			AutoIncrement bool              `json:"autoIncrement"`
			KeyPath       *string           `json:"keyPath"`
			KeyPathArray  []string          `json:"keyPathArray"`
			Records       []json.RawMessage `json:"records"`
			Indexes       []struct {
				Name         *string  `json:"name"`
				KeyPath      *string  `json:"keyPath"`
				KeyPathArray []string `json:"keyPathArray"`
				Unique       bool     `json:"unique"`
				MultiEntry   bool     `json:"multiEntry"`
			} `json:"indexes"`
		} `json:"stores"`
	}
	if err := unmarshal(raw, &db, prefix); err != nil {
		return err
	}
	if db.Name == nil || *db.Name == "" {
		return fmt.Errorf("storage state: %s.name is missing", prefix)
	}
	if db.Version < 1 || db.Version != float64(int64(db.Version)) {
		return fmt.Errorf("storage state: %s.version must be a positive integer", prefix)
	}
	for i, st := range db.Stores {
		if st.Name == nil {
			return fmt.Errorf("storage state: %s.stores[%d].name is missing", prefix, i)
		}
		for j, ix := range st.Indexes {
			if ix.Name == nil || (ix.KeyPath == nil && ix.KeyPathArray == nil) {
				return fmt.Errorf("storage state: %s.stores[%d].indexes[%d] needs a name and a key path", prefix, i, j)
			}
		}
	}
	return nil
}

// unmarshal decodes data into v; an error names the field under prefix
// and holds no input bytes.
func unmarshal(data []byte, v any, prefix string) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		switch {
		case prefix == "" && field == "":
			field = "(top level)"
		case field == "":
			field = prefix
		case prefix != "":
			field = prefix + "." + field
		}
		return fmt.Errorf("storage state: %s: want %s, got a JSON %s", field, goKind(te.Type.Kind().String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("storage state: not valid JSON (syntax error at byte %d)", se.Offset)
	}
	return errors.New("storage state: not valid JSON")
}

// jsonKind names the JSON type that starts with c.
func jsonKind(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	}
	return "something that is not JSON"
}

// goKind names a Go kind in JSON words.
func goKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "float64", "float32", "int", "int64":
		return "a number"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return k
}

// validate checks the fields that Restore needs.
func (s State) validate() error {
	for i, c := range s.Cookies {
		switch {
		case c.Name == "":
			return fmt.Errorf("storage state: cookies[%d].name is empty", i)
		case c.Domain == "":
			return fmt.Errorf("storage state: cookies[%d].domain is empty", i)
		case c.Path == "" || c.Path[0] != '/':
			return fmt.Errorf("storage state: cookies[%d].path must start with /", i)
		}
		switch c.SameSite {
		case "", "Strict", "Lax", "None":
		default:
			return fmt.Errorf("storage state: cookies[%d].sameSite must be Strict, Lax or None", i)
		}
	}
	for i, o := range s.Origins {
		if _, err := normalizeOrigin(o.Origin); err != nil {
			return fmt.Errorf("storage state: origins[%d].origin: %w", i, err)
		}
	}
	return nil
}

// normalizeOrigin checks that o is an http(s) origin and returns it as
// scheme://host[:port] (lower case, a trailing slash removed).
func normalizeOrigin(o string) (string, error) {
	u, err := url.Parse(o)
	if err != nil {
		return "", errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", errors.New("want an http or https origin")
	}
	if u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("want scheme://host[:port] with no path")
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}
