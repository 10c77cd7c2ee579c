package mutate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"sync"
)

// Event is one line of a run record.
type Event struct {
	// Event is "fired" (the mutant changed a message) or "census" (the
	// mutants that could fire on the run's traffic).
	Event   string `json:"event"`
	Mutant  string `json:"mutant,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Method  string `json:"method,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	// Schema is the schema's verdict on the mutated payload: "" when it
	// validates, else the violations; absent when not checked.
	Schema *string  `json:"schema,omitempty"`
	IDs    []string `json:"ids,omitempty"`
}

// Record is a run's record, a file of JSON lines shared by the relays of
// one run (one per connection): it makes a Once mutant fire once per run
// and keeps what fired and, in a census, what could have.
type Record struct {
	path string
	mu   sync.Mutex
}

// NewRecord returns the record at path; the file is created on first use.
func NewRecord(path string) *Record { return &Record{path: path} }

// claim appends ev() unless a "fired" event is already recorded; it
// reports whether it appended. The file lock makes it atomic across
// processes.
func (r *Record) claim(ev func() Event) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(r.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return false
	}
	defer f.Close()
	unlock := lockFile(f)
	defer unlock()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"event":"fired"`)) {
			return false
		}
	}
	line, _ := json.Marshal(ev())
	_, err = f.Write(append(line, '\n'))
	return err == nil
}

func (r *Record) logCensus(ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	unlock := lockFile(f)
	defer unlock()
	line, _ := json.Marshal(Event{Event: "census", IDs: ids})
	_, _ = f.Write(append(line, '\n'))
}

// ReadRecord returns the events of the record at path (none when the file
// does not exist).
func ReadRecord(path string) ([]Event, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Event
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(l, &ev); err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}
