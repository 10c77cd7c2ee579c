package inpage

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// benchPage generates a page of about n elements: sections of a heading, a
// list of links, a small form and a table row.
func benchPage(n int) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Bench</title></head><body><main>")
	count := 0
	for s := 0; count < n; s++ {
		fmt.Fprintf(&b, `<section aria-label="S%d"><h2>Section %d</h2><ul>`, s, s)
		count += 3
		for i := 0; i < 5 && count < n; i++ {
			fmt.Fprintf(&b, `<li><a href="/p/%d/%d?x=1">Link %d.%d</a></li>`, s, i, s, i)
			count += 2
		}
		fmt.Fprintf(&b, `</ul><div class="row"><label for="f%d">Field %d</label><input id="f%d" placeholder="Value"><button data-testid="b%d">Go</button><span>plain text %d</span></div></section>`, s, s, s, s, s)
		count += 6
	}
	b.WriteString("</main></body></html>")
	return b.String()
}

func BenchmarkRead(b *testing.B) {
	for _, n := range []int{200, 1000, 5000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			tb := newTab(b, true)
			tb.open(addPage(fmt.Sprintf("/bench-%d", n), benchPage(n)))
			expr, err := Expr(MethodRead, ReadArgs{Mode: ModeTree, Budget: 3000, NextID: 1})
			if err != nil {
				b.Fatal(err)
			}
			var nodes int
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				data, err := tb.evalRaw(expr)
				if err != nil {
					b.Fatal(err)
				}
				nodes = len(data)
			}
			elapsed := time.Since(start)
			b.ReportMetric(float64(elapsed.Microseconds())/1000/float64(b.N), "ms/op")
			b.ReportMetric(float64(nodes)/1024, "KB/result")
		})
	}
}
