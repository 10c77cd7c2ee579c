# benchtable.awk: reads `go test -bench -benchmem` output of ./protocol/client
# and prints one table: each figure of issue 11, the floor it is measured
# against in the same run, the ratios (wall time and the process's CPU time
# per op, which a loaded machine's scheduling delays do not inflate; for
# spawn, the child's CPU is not counted), and the goal.
/^Benchmark/ {
	name = $1; sub(/^Benchmark/, "", name)
	if (match(name, /-[0-9]+$/)) procs = substr(name, RSTART + 1)
	sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "ns/op") ns[name] = $i
		if ($(i+1) == "B/op") bytes[name] = $i
		if ($(i+1) == "allocs/op") allocs[name] = $i
		if ($(i+1) == "calls/s") calls[name] = $i
		if ($(i+1) == "cpu-ns/op") cpu[name] = $i
		if (name == "SpawnInterleaved") lap[$(i+1)] = $i
	}
}
function row(fig, floor, goal,    r, rc) {
	if (!(fig in ns) || !(floor in ns)) { printf "%-18s %s\n", fig, "(not run)"; return }
	r = ns[fig] / ns[floor]
	rc = (cpu[floor] > 0) ? cpu[fig] / cpu[floor] : 0
	printf "%-18s %10.0f %10.0f %7d %8d   %-21s %10.0f %10.0f %8.2fx %8.2fx   %s\n", fig, ns[fig], cpu[fig], allocs[fig], bytes[fig], floor, ns[floor], cpu[floor], r, rc, goal
}
END {
	printf "%-18s %10s %10s %7s %8s   %-21s %10s %10s %9s %9s   %s\n", "figure", "ns/op", "cpu-ns/op", "allocs", "B/op", "floor", "ns/op", "cpu-ns/op", "ratio", "cpu ratio", "goal"
	row("ObserveLoopback", "RawLoopback", "<= 10000 ns/op and <= 40 allocs")
	row("ObserveSpawn", "RawSpawn", "<= 1.5x")
	row("FramedLoopback", "RawLoopback", "(server alone, loopback)")
	row("FramedSpawn", "RawSpawn", "<= 1.3x")
	row("ObservePipelined", "RawLoopbackPipelined", "")
	# The spawn round trips again, one of each per iteration of one loop
	# (medians of the laps): the ratios under the same moment's scheduling.
	if ("raw-ns" in lap) {
		printf "%-18s %10.0f %10s %7s %8s   %-21s %10.0f %10s %8.2fx %9s   %s\n", "FramedSpawn (i)", lap["framed-ns"], "", "", "", "RawSpawn (i)", lap["raw-ns"], "", lap["framed/raw"], "", "<= 1.3x (interleaved)"
		printf "%-18s %10.0f %10s %7s %8s   %-21s %10.0f %10s %8.2fx %9s   %s\n", "ObserveSpawn (i)", lap["observe-ns"], "", "", "", "RawSpawn (i)", lap["raw-ns"], "", lap["observe/raw"], "", "<= 1.5x (interleaved)"
	}
	if ("ObservePipelined" in calls)
		printf "%-18s %12.0f calls/s (floor %.0f calls/s)   goal >= 100000 calls/s\n", "ObservePipelined", calls["ObservePipelined"], calls["RawLoopbackPipelined"]
	# What GOMAXPROCS idle cores sustain at the measured CPU per call (client
	# and server are both in this process): the figure a loaded machine's
	# scheduling does not lower.
	if (("ObservePipelined" in cpu) && cpu["ObservePipelined"] > 0 && procs > 0)
		printf "%-18s %12.0f calls/s CPU-bound ceiling on %d cores (%d cpu-ns per call)\n", "ObservePipelined", procs * 1e9 / cpu["ObservePipelined"], procs, cpu["ObservePipelined"]
}
