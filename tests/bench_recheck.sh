#!/usr/bin/env bash
# tests/bench_recheck.sh: part of `make bench`. What checking the timed
# launches costs (src/worker/wrecheck.c): the copies and hashes of the
# checked outputs kept for it, one more launch after the samples made as
# they were on reset outputs, and the comparison of its outputs with the
# kept ones (on the GPU; on the host only where the GPU cannot decide);
# where the samples had a cold L2 and one launch each, the last sample is
# that launch, every output reset before the samples from the first on
# whose reset costs under 1% of a sample (its GPU time estimated from the
# bytes at the copy roof: "resets").
# For every shipped kernel file, `run` in a fresh process with the worker
# traced, after one untimed process that leaves the compiles and the roofs
# in the (script's own) cache; the worker's own clock gives, for each request, the host time of
# those parts ("kept", "last launch", "compare"; "resets" estimated) and of the whole
# request (from its arrival in the worker to its reply); the command's wall
# time (this script's clock around the process: start, compile, worker,
# every request, exit: what a user waits for from Enter to the prompt)
# holds every request of the file. Prints figures; never fails.
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "timed launches checked: skipped: no GPU"
	exit 0
fi
echo
echo "== the timed launches checked: its cost against each request's time in the worker and each command's wall time"
: >"$tmp/rows"
: >"$tmp/files"
for f in $(shipped 'kernels_src/*.cu'); do
	# once untimed: the compiles and the roofs on disk, as a user's second session finds them
	XDG_CACHE_HOME="$tmp/cache" "$CUPLAY" -c "use $f; run" >/dev/null 2>&1 </dev/null
	t0=$(date +%s%N)
	XDG_CACHE_HOME="$tmp/cache" CUPLAY_TRACE_WORKER=1 "$CUPLAY" -c "use $f; run" >"$tmp/out" 2>"$tmp/err" </dev/null
	t1=$(date +%s%N)
	# a request: "... the last launch against the checked one: WHAT (X ms in all: A kept at the
	# checked launch, B the last launch, C the comparison, D the samples' resets)", then
	# "cuplay worker: T ms: request done"
	awk -v f="${f##*/}" -v wall="$(((t1 - t0) / 1000))" '
		/the last launch against the/ {
			what = $0; sub(/.*one: /, "", what); sub(/ \(.*/, "", what)
			x = $0; sub(/.*\(/, "", x); split(x, v, /[ :,]+/)
			# v: X ms in all A kept at the checked launch B the last launch C the comparison D the resets
			tot = v[1]; kept = v[5]; last = v[11]; cmp = v[15]; resets = v[18]; have = 1 }
		/: request done$/ { if (have) printf "%s %.3f %.3f %.3f %.3f %.3f %.2f %s\n", f, tot, kept, last, cmp, resets, $3, what; have = 0 }
		END { printf "%s %.1f\n", f, wall / 1000 > "/dev/stderr" }' "$tmp/err" >>"$tmp/rows" 2>>"$tmp/files"
	grep -q "FAIL" "$tmp/out" && grep "FAIL" "$tmp/out" | sed "s|^|  ${f##*/}: |"
done
printf "  %-18s %9s %9s %9s %9s %9s %10s %7s  %s\n" file check_ms kept_ms last_ms cmp_ms resets_ms request_ms share verdict
awk '{ printf "  %-18s %9.3f %9.3f %9.3f %9.3f %9.3f %10.2f %6.2f%%  %s\n", $1, $2, $3, $4, $5, $6, $7, 100 * $2 / $7,
              substr($0, index($0, $8)) }' "$tmp/rows"
echo "  per command (every request of the file, against the command's wall time, Enter to prompt):"
awk 'NR == FNR { c[$1] += $2; n[$1]++; next }
     { printf "  %-18s %9.3f ms of %9.1f ms wall: %5.2f%%  (%d requests)\n", $1, c[$1], $2, 100 * c[$1] / $2, n[$1] }' \
	"$tmp/rows" "$tmp/files"
awk 'NR == FNR { p = 100 * $2 / $7; if (p > m) { m = p; k = $1 } if (p < 2) u++; n++; next }
     { cw[$1] = $2 }
     END { if (!n) { print "timed launches checked: no request traced one"; exit }
           printf "timed launches checked: at most %.2f%% of a request'"'"'s time in the worker (%s); under 2%% for %d of %d requests (target: all)\n", m, k, u, n }' \
	"$tmp/rows" "$tmp/files"
awk 'NR == FNR { c[$1] += $2; next }
     { p = 100 * c[$1] / $2; if (p > m) { m = p; k = $1 } if (p < 2) u++; n++ }
     END { if (n) printf "timed launches checked: at most %.2f%% of a command'"'"'s wall time (%s); under 2%% for %d of %d files\n", m, k, u, n }' \
	"$tmp/rows" "$tmp/files"
