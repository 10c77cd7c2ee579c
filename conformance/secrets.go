package conformance

import "sync"

// secretStore is the run's secret values, under their own lock: the
// canaries and the values answered or filled, never to appear in what the
// server writes (ERR-007), and redacted from every text the suite shows.
// The zero value is ready.
type secretStore struct {
	mu  sync.Mutex
	all []string // canaries and secret values never to appear (at most maxSecretValues)
	set map[string]bool
	// dropped counts values not registered past maxSecretValues.
	dropped int
	// scan is the automaton over all[:len(scan.values)] (leakscan.go);
	// the values registered after it (fewer than scanBatch) are searched
	// one by one until the next build.
	scan *leakMatcher
}

// Secret registers a value that must never appear in what the server
// writes (ERR-007) and is redacted from verbose output. At most
// maxSecretValues are kept (the configured E2E_SECRET_* values first):
// past it a value is dropped, and the suite hands out no canary it could
// not search for (canary).
func (e *runEnv) Secret(v string) {
	e.secrets.register(v)
}

// register is Secret, reporting whether v is registered.
func (s *secretStore) register(v string) bool {
	if v == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set == nil {
		s.set = map[string]bool{}
	}
	if s.set[v] {
		return true
	}
	if len(s.all) >= maxSecretValues {
		s.dropped++
		return false
	}
	s.set[v] = true
	s.all = append(s.all, v)
	return true
}

// canary registers v, a value the suite is about to answer to an
// attempt/resolveSecret, and reports whether it may: false when the run
// holds maxSecretValues already (the suite then answers
// SECRET_UNAVAILABLE, never a value it does not search for).
func (e *runEnv) canary(v string) bool { return e.secrets.register(v) }

// Redact replaces every registered secret in s, raw and in every encoded
// form the leak checks know (leaks.go) for values long enough that an
// encoded form cannot be ordinary text. One automaton pass (leakscan.go),
// whatever the number of values.
func (e *runEnv) Redact(s string) string { return e.secrets.redact(s) }

// redact is runEnv.Redact.
func (s *secretStore) redact(text string) string {
	m, tail := s.scanner()
	return redactWith(m, tail, text)
}

// redactWith redacts s: the values of tail one by one (longest first, so
// a derived value registered late goes whole), then every value of m.
func redactWith(m *leakMatcher, tail []string, s string) string {
	if len(tail) > 0 {
		s = redactSecrets(s, tail)
	}
	return m.redact(s)
}

// scanner returns the automaton over the registered values and the
// values registered since it was built, rebuilding it once more than
// scanBatch are.
func (s *secretStore) scanner() (*leakMatcher, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	built := 0
	if s.scan != nil {
		built = len(s.scan.values)
	}
	if len(s.all)-built > scanBatch {
		s.scan = newLeakMatcher(s.all[:len(s.all):len(s.all)])
		built = len(s.all)
	}
	return s.scan, s.all[built:len(s.all):len(s.all)]
}

// values returns the registered values (a view that later registrations
// do not change).
func (s *secretStore) values() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all[:len(s.all):len(s.all)]
}
