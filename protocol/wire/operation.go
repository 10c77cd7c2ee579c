package wire

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Operation is the wire form of an OperationContext (spec §5.1).
type Operation struct {
	Signal    SignalRef `json:"signal"`
	TimeoutMs float64   `json:"timeoutMs"`
	RunID     string    `json:"runId"`
	AttemptID string    `json:"attemptId"`
	Origin    string    `json:"origin,omitempty"` // "test" or "agent"; absent reads as "agent"
}

// Origins of an operation (spec §5.1).
const (
	OriginTest  = "test"
	OriginAgent = "agent"
)

// SignalID is a signal id: an integer or a string, compared by JSON type and
// value, so 1 and "1" differ (spec §7.1, D18). The zero value is the integer 0.
type SignalID struct {
	Str      string
	Num      int64
	IsString bool
}

// IntSignalID returns the integer id n.
func IntSignalID(n int64) SignalID { return SignalID{Num: n} }

// StringSignalID returns the string id s.
func StringSignalID(s string) SignalID { return SignalID{Str: s, IsString: true} }

// String renders the id as JSON would ("7" or "\"7\"").
func (id SignalID) String() string {
	if id.IsString {
		return strconv.Quote(id.Str)
	}
	return strconv.FormatInt(id.Num, 10)
}

// MarshalJSON writes the id as a JSON integer or string.
func (id SignalID) MarshalJSON() ([]byte, error) {
	if id.IsString {
		return json.Marshal(id.Str)
	}
	return []byte(strconv.FormatInt(id.Num, 10)), nil
}

// UnmarshalJSON reads an integer (without fraction or exponent, within
// ±(2^53−1)) or a string.
func (id *SignalID) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = StringSignalID(s)
		return nil
	}
	n, ok := ParseInteger(b)
	if !ok {
		return fmt.Errorf("signal id %s is neither an integer nor a string", truncate(string(b), 40))
	}
	*id = IntSignalID(n)
	return nil
}

// ParseInteger parses a JSON number literal that is an integer in the
// protocol's sense (spec §0.4): no fraction, no exponent, |n| ≤ 2^53−1.
func ParseInteger(b []byte) (int64, bool) {
	s := string(b)
	if s == "" {
		return 0, false
	}
	for i, c := range s {
		if c == '-' && i == 0 {
			continue
		}
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	if s == "-" || (len(s) > 1 && s[0] == '0') || (len(s) > 2 && s[0] == '-' && s[1] == '0') {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > MaxSafeInteger || n < -MaxSafeInteger {
		return 0, false
	}
	return n, true
}

// MaxSafeInteger is 2^53−1, the largest protocol integer.
const MaxSafeInteger = 1<<53 - 1

// SignalRef is an AbortSignal on the wire (spec §7.1).
type SignalRef struct {
	ID      SignalID     `json:"id"`
	Aborted bool         `json:"aborted,omitempty"`
	Reason  *ErrorObject `json:"reason,omitempty"`
}

// AbortParams are the params of the $/abort notification (spec §7.2).
type AbortParams struct {
	ID     SignalID     `json:"id"`
	Reason *ErrorObject `json:"reason,omitempty"`
}

// ErrorObject is a JSON-RPC error object (spec §8.1). Data is absent when nil.
type ErrorObject struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error makes an ErrorObject usable as an error value.
func (e *ErrorObject) Error() string {
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
