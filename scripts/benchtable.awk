# benchtable.awk: reads `go test -bench -benchmem` output of ./protocol/client
# and prints one table: each figure of issue 11, the floor it is measured
# against in the same run, the ratio, and the goal.
/^Benchmark/ {
	name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "ns/op") ns[name] = $i
		if ($(i+1) == "B/op") bytes[name] = $i
		if ($(i+1) == "allocs/op") allocs[name] = $i
		if ($(i+1) == "calls/s") calls[name] = $i
	}
}
function row(fig, floor, goal,    r) {
	if (!(fig in ns) || !(floor in ns)) { printf "%-18s %s\n", fig, "(not run)"; return }
	r = ns[fig] / ns[floor]
	printf "%-18s %12.0f %8d %9d   %-22s %12.0f %8.2fx   %s\n", fig, ns[fig], allocs[fig], bytes[fig], floor, ns[floor], r, goal
}
END {
	printf "%-18s %12s %8s %9s   %-22s %12s %9s   %s\n", "figure", "ns/op", "allocs", "B/op", "floor", "floor ns/op", "ratio", "goal"
	row("ObserveLoopback", "RawLoopback", "<= 10000 ns/op and <= 40 allocs")
	row("ObserveSpawn", "RawSpawn", "<= 1.5x")
	row("FramedLoopback", "RawLoopback", "(server alone, loopback)")
	row("FramedSpawn", "RawSpawn", "<= 1.3x")
	row("ObservePipelined", "RawLoopbackPipelined", "")
	if ("ObservePipelined" in calls)
		printf "%-18s %12.0f calls/s (floor %.0f calls/s)   goal >= 100000 calls/s\n", "ObservePipelined", calls["ObservePipelined"], calls["RawLoopbackPipelined"]
}
