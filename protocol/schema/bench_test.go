package schema

import (
	"encoding/json"
	"fmt"
	"testing"
)

func BenchmarkValidateParamsObserve(b *testing.B) {
	s := testSet(b)
	raw := json.RawMessage(withOp(`"options":{"pixels":true}`))
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := s.ValidateParams("engine/observe", raw); err != nil {
			b.Fatal(err)
		}
	}
}

// snapshotOf builds an EngineSnapshot of n nodes: a root with rows of up to
// ten children each.
func snapshotOf(n int) json.RawMessage {
	node := func(i int) map[string]any {
		return map[string]any{
			"ref":        map[string]any{"id": fmt.Sprintf("n%d", i), "revision": ""},
			"role":       "button",
			"name":       fmt.Sprintf("Button %d", i),
			"text":       "Press me",
			"states":     map[string]any{"disabled": i%7 == 0, "focused": false},
			"rect":       map[string]any{"x": i % 100, "y": float64(i) * 1.5, "width": 80, "height": 24},
			"attributes": map[string]any{"data-testid": fmt.Sprintf("b%d", i)},
			"testId":     fmt.Sprintf("b%d", i),
			"selector":   fmt.Sprintf("[data-testid=b%d]", i),
		}
	}
	root := map[string]any{"ref": map[string]any{"id": "root", "revision": ""}, "role": "main"}
	var rows []any
	i := 1
	for i < n {
		row := node(i)
		i++
		var kids []any
		for k := 0; k < 9 && i < n; k++ {
			kids = append(kids, node(i))
			i++
		}
		row["children"] = kids
		rows = append(rows, row)
	}
	root["children"] = rows
	b, err := json.Marshal(map[string]any{
		"location": "http://127.0.0.1:8080/",
		"root":     root,
		"viewport": map[string]any{"width": 1280, "height": 720},
	})
	if err != nil {
		panic(err)
	}
	return b
}

func TestSnapshotOfIsValid(t *testing.T) {
	s := testSet(t)
	raw := snapshotOf(1000)
	if err := s.ValidateResult("engine/observe", raw); err != nil {
		t.Fatal(err)
	}
	var snap map[string]any
	_ = json.Unmarshal(raw, &snap)
	if got := countNodes(snap["root"]); got != 1000 {
		t.Fatalf("%d nodes, want 1000", got)
	}
}

func countNodes(v any) int {
	n := 1
	node := v.(map[string]any)
	kids, _ := node["children"].([]any)
	for _, k := range kids {
		n += countNodes(k)
	}
	return n
}

func BenchmarkValidateSnapshot(b *testing.B) {
	s := testSet(b)
	raw := snapshotOf(1000)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := s.ValidateResult("engine/observe", raw); err != nil {
			b.Fatal(err)
		}
	}
}
