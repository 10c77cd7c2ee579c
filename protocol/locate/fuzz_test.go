package locate_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

func FuzzResolveExpression(f *testing.F) {
	for _, s := range []string{
		`{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"button","exact":true},"name":{"kind":"string","value":"Save","exact":true}}}`,
		`{"kind":"query","query":{"kind":"text","value":{"kind":"string","value":"Echo me","exact":true}}}`,
		`{"kind":"query","query":{"kind":"label","value":{"kind":"string","value":"email","exact":false},"visible":true}}`,
		`{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"heading","exact":true},"level":2,"states":{"pressed":false}}}`,
		`{"kind":"query","query":{"kind":"text","value":{"kind":"string","value":"Apple","exact":true}},"scope":{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"list","exact":true}}}}`,
		`{"kind":"filter","source":{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"list","exact":true}}},"hasText":{"kind":"string","value":"Banana","exact":false}}`,
		`{"kind":"filter","source":{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"group","exact":true}}},"has":{"kind":"query","query":{"kind":"testId","value":{"kind":"string","value":"ghost","exact":false},"visible":true}},"hasText":{"kind":"regexp","source":"^G","flags":"i"}}`,
		`{"kind":"index","source":{"kind":"query","query":{"kind":"role","value":{"kind":"string","value":"button","exact":true}}},"index":"last"}`,
		`{"kind":"index","source":{"kind":"selector","selector":"css=button.save"},"index":1}`,
		`{"kind":"selector","selector":"reverse"}`,
		`{"kind":"frame","selector":"iframe","source":{"kind":"query","query":{"kind":"text","value":{"kind":"string","value":"x","exact":true}}}}`,
		`{"kind":"query","query":{"kind":"text","value":{"kind":"regexp","source":"(?<w>Apple)|[^]x|\\u00e9","flags":"iy"}}}`,
		`{"kind":"query","query":{"kind":"text","value":{"kind":"regexp","source":"(?<=a)b","flags":""}}}`,
		`{"kind":"query","query":{"kind":"role","value":{"kind":"regexp","source":"button","flags":""}}}`,
		`{"kind":"query","query":{"kind":"displayValue","value":{"kind":"regexp","source":"(","flags":"gu"}}}`,
		`{"kind":"filter","source":{"kind":"selector","selector":"*"},"has":{"kind":"selector","selector":"role=button"}}`,
	} {
		f.Add([]byte(s))
	}
	root := fixtureTree()
	order := map[*wire.SemanticNode]int{}
	root.Walk(func(n *wire.SemanticNode) bool { order[n] = len(order); return true })
	f.Fuzz(func(t *testing.T, data []byte) {
		var expr wire.LocatorExpression
		if err := json.Unmarshal(data, &expr); err != nil {
			t.Skip()
		}
		for _, opts := range []locate.Options{{}, {Selector: fakeSelector}} {
			got, err := locate.ResolveExpression(&expr, []*wire.SemanticNode{root}, opts)
			if err != nil {
				if !documentedErr(err) {
					t.Fatalf("undocumented error %T %v", err, err)
				}
				if got != nil {
					t.Fatalf("answer %q with error %v", ids(got), err)
				}
				continue
			}
			if got == nil {
				t.Fatal("nil answer without error")
			}
			last := -1
			for _, n := range got {
				i, ok := order[n]
				if !ok {
					t.Fatalf("answer holds a node outside the tree: %+v", n)
				}
				if i <= last {
					t.Fatalf("answer %q not in document order or has duplicates", ids(got))
				}
				last = i
			}
			want, err := naiveResolve(&expr, root, opts)
			if err != nil {
				t.Fatalf("ResolveExpression succeeded, the oracle failed: %v", err)
			}
			if !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("got %q, oracle %q", ids(got), ids(want))
			}
		}
	})
}

// bigTree builds a tree of 5,051 nodes: a root, 50 regions, 10 groups per
// region, and per group one button and eight text items.
func bigTree() *wire.SemanticNode {
	regions := make([]wire.SemanticNode, 50)
	for i := range regions {
		groups := make([]wire.SemanticNode, 10)
		for j := range groups {
			items := []wire.SemanticNode{el(fmt.Sprintf("b%d-%d", i, j), role("button"), name(fmt.Sprintf("Button %d-%d", i, j)))}
			for k := range 8 {
				items = append(items, el(fmt.Sprintf("t%d-%d-%d", i, j, k), text(fmt.Sprintf("Item %d-%d-%d", i, j, k))))
			}
			groups[j] = el(fmt.Sprintf("g%d-%d", i, j), role("group"), kids(items...))
		}
		regions[i] = el(fmt.Sprintf("r%d", i), role("region"), name(fmt.Sprintf("Section %d", i)), kids(groups...))
	}
	root := el("root", kids(regions...))
	return &root
}

var benchExprs = []struct {
	name string
	expr *wire.LocatorExpression
	want []string
}{
	{"RoleName", roleQ("button", named(exact("Button 25-5"))), []string{"b25-5"}},
	{"ScopedText", scope(textQ(sub("item 3-4-")), roleQ("region", named(exact("Section 3")))), []string{"t3-4-0", "t3-4-1", "t3-4-2", "t3-4-3", "t3-4-4", "t3-4-5", "t3-4-6", "t3-4-7"}},
	{"RegexpText", textQ(re("^Item 49-9-[67]$", "")), []string{"t49-9-6", "t49-9-7"}},
	{"FilterHas", filter(roleQ("group"), nil, textQ(exact("Item 7-7-7"))), []string{"g7-7"}},
	{"FilterHasText", filter(roleQ("region"), ptr(sub("button 42-")), nil), []string{"r42"}},
}

func TestBigTree(t *testing.T) {
	root := bigTree()
	n := 0
	root.Walk(func(*wire.SemanticNode) bool { n++; return true })
	if n < 5000 {
		t.Fatalf("big tree has %d nodes", n)
	}
	for _, b := range benchExprs {
		got, err := locate.ResolveExpression(b.expr, []*wire.SemanticNode{root}, locate.Options{})
		if err != nil || !slices.Equal(ids(got), b.want) {
			t.Fatalf("%s: got %q, %v; want %q", b.name, ids(got), err, b.want)
		}
	}
}

// One resolution compiles each pattern once: a regexp query over 5,000 nodes
// allocates far fewer times than there are nodes.
func TestCompileOncePerResolution(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	root := bigTree()
	nodes := []*wire.SemanticNode{root}
	for _, b := range benchExprs {
		allocs := testing.AllocsPerRun(5, func() {
			if _, err := locate.ResolveExpression(b.expr, nodes, locate.Options{}); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 500 {
			t.Errorf("%s: %v allocations per resolution over 5,051 nodes", b.name, allocs)
		}
	}
}

func BenchmarkResolve5000(b *testing.B) {
	root := bigTree()
	nodes := []*wire.SemanticNode{root}
	for _, bc := range benchExprs {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := locate.ResolveExpression(bc.expr, nodes, locate.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
