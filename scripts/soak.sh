#!/usr/bin/env bash
# soak.sh repeats the conformance suite against engines to find verdicts that
# vary between runs (races): for each engine and profile it runs
# `e2e-conform --repeat RUNS --repeat-parallel PARALLEL` and prints the
# figures (runs, wall time, verdict changes, requirements varied). It exits 1
# when any verdict or requirement varied, 2 when a repetition could not run
# (usage or harness error, or no summary), else 0. A verdict that is the same
# in every run (even non-conformant or incomplete) is no change.
#
#   scripts/soak.sh                 # 20 runs each: saboteur and web engine, core and full
#   SOAK_RUNS=3 SOAK_ENGINES=saboteur scripts/soak.sh
#
# Environment: SOAK_RUNS (20), SOAK_PARALLEL (2), SOAK_ENGINES ("saboteur
# web"), SOAK_PROFILES ("core full"), SOAK_OUT (out/soak: per repetition the
# summary NAME.txt, the combined JSON report NAME.json and stderr NAME.log),
# BIN (bin: e2e-conform, saboteur, e2e-web-engine, built by `make build`).
set -u
runs=${SOAK_RUNS:-20}
parallel=${SOAK_PARALLEL:-2}
engines=${SOAK_ENGINES:-saboteur web}
profiles=${SOAK_PROFILES:-core full}
out=${SOAK_OUT:-out/soak}
bin=${BIN:-bin}

mkdir -p "$out" || exit 2
for b in e2e-conform saboteur e2e-web-engine; do
	[ -x "$bin/$b" ] || { echo "soak: $bin/$b is missing (make build)" >&2; exit 2; }
done

fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

total_runs=0 total_changes=0 total_varied=0 broken=0 lines=()
soak_start=$SECONDS
for engine in $engines; do
	case $engine in
	saboteur) spawn="$bin/saboteur" ;;
	web) spawn="$bin/e2e-web-engine" ;;
	*) echo "soak: unknown engine \"$engine\" (saboteur or web)" >&2; exit 2 ;;
	esac
	for profile in $profiles; do
		name=$engine-$profile
		echo "soak: $name: $runs runs, $parallel at a time" >&2
		start=$SECONDS
		"$bin/e2e-conform" --repeat "$runs" --repeat-parallel "$parallel" --profile "$profile" \
			--spawn "$spawn" --json "$out/$name.json" >"$out/$name.txt" 2>"$out/$name.log"
		code=$?
		wall=$((SECONDS - start))
		# "N runs, K requirements varied" is the summary's last line.
		last=$(tail -n 1 "$out/$name.txt")
		if [[ ! $last =~ ^([0-9]+)\ runs,\ ([0-9]+)\ requirements\ varied$ ]]; then
			echo "soak: $name: e2e-conform exited $code without a summary; see $out/$name.log:" >&2
			tail -n 20 "$out/$name.log" >&2
			broken=1
			lines+=("$name: exit $code, no summary")
			continue
		fi
		n=${BASH_REMATCH[1]} varied=${BASH_REMATCH[2]}
		# Verdict changes: runs whose verdict is not the most frequent one.
		changes=$(sed -nE 's/^run [0-9]+\/[0-9]+: verdict: ([a-z -]+[a-z])( \(.*)?, exit [0-9]+.*$/\1/p' "$out/$name.txt" |
			sort | uniq -c | sort -rn | awk 'NR > 1 { s += $1 } END { print s + 0 }')
		verdicts=$(sed -nE 's/^run [0-9]+\/[0-9]+: verdict: ([a-z -]+[a-z])( \(.*)?, exit [0-9]+.*$/\1/p' "$out/$name.txt" |
			sort | uniq -c | sort -rn | awk '{ c = $1; $1 = ""; printf "%s%s x%d", (NR > 1 ? ", " : ""), substr($0, 2), c }')
		total_runs=$((total_runs + n)) total_changes=$((total_changes + changes)) total_varied=$((total_varied + varied))
		line="$name: $n runs in $(fmt_time $wall), $changes verdict changes, $varied requirements varied ($verdicts; exit $code)"
		lines+=("$line")
		echo "soak: $line" >&2
		if [ "$varied" -gt 0 ]; then
			sed -n '/^VARIED /,/^verdict over the runs/p' "$out/$name.txt" | sed '$d' >&2
		fi
		case $code in 2 | 4) broken=1 ;; esac
	done
done
echo
echo "soak figures ($runs runs per repetition, $parallel at a time; reports in $out):"
for l in "${lines[@]}"; do echo "  $l"; done
echo "  total: $total_runs runs in $(fmt_time $((SECONDS - soak_start))), $total_changes verdict changes, $total_varied requirements varied"
if [ "$total_changes" -gt 0 ] || [ "$total_varied" -gt 0 ]; then
	echo "soak: UNSTABLE: verdicts changed between runs"
	exit 1
fi
if [ "$broken" -ne 0 ]; then
	echo "soak: a repetition could not run"
	exit 2
fi
echo "soak: stable"
