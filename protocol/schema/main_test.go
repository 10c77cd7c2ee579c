package schema

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// loaded compiles the schemas once for the whole test binary.
var loaded = sync.OnceValues(Load)

func testSet(tb testing.TB) *Set {
	tb.Helper()
	s, err := loaded()
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	return s
}

// asError returns err as an *Error, failing the test when it is another error.
func asError(tb testing.TB, err error) *Error {
	tb.Helper()
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		tb.Fatalf("got %T %v, want *Error", err, err)
	}
	return e
}

// hasViolation reports whether e holds a violation at ptr with rule whose
// message contains substr.
func hasViolation(e *Error, ptr, rule, substr string) bool {
	if e == nil {
		return false
	}
	for _, v := range e.Violations {
		if v.Pointer == ptr && v.Rule == rule && strings.Contains(v.Message, substr) {
			return true
		}
	}
	return false
}
