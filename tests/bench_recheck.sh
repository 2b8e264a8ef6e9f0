#!/usr/bin/env bash
# tests/bench_recheck.sh: part of `make bench`. What checking the timed
# launches costs: after the samples, one more launch made as they were, on
# reset outputs, its outputs hashed on the GPU against the checked launch's
# (src/worker/wrecheck.c). For every shipped kernel file, `run` in a fresh
# process, traced: that launch and its comparison against the request's
# wall time, from the worker's trace. Prints figures; never fails.
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "timed launches checked: skipped: no GPU"
	exit 0
fi
echo
echo "== the timed launches checked: the last launch and its hash, against each request's wall time"
: >"$tmp/rows"
for f in $(shipped 'kernels_src/*.cu'); do
	XDG_CACHE_HOME="$tmp/cache" CUPLAY_TRACE_WORKER=1 "$CUPLAY" -c "use $f; run" >"$tmp/out" 2>"$tmp/err" </dev/null
	# a request: "... the last launch against the checked one: ... (X ms in all)", then
	# "cuplay worker: T ms: request done"
	awk -v f="${f##*/}" '
		/the last launch against the/ { x = $0; sub(/.*\(/, "", x); sub(/ ms in all\).*/, "", x); have = 1;
		                                what = $0; sub(/.*one: /, "", what); sub(/ \(.*/, "", what) }
		/: request done$/ { if (have) { t = $3; printf "%s %.3f %.1f %s\n", f, x, t, what }; have = 0 }' "$tmp/err" >>"$tmp/rows"
	grep -q "FAIL" "$tmp/out" && grep "FAIL" "$tmp/out" | sed "s|^|  ${f##*/}: |"
done
awk '{ printf "  %-18s %8.3f ms of %8.1f ms: %5.2f%%  (%s)\n", $1, $2, $3, 100 * $2 / $3, substr($0, index($0, $4)) }' "$tmp/rows"
awk '{ p = 100 * $2 / $3; if (p > m) { m = p; k = $1 } n++ }
     END { if (n) printf "timed launches checked: at most %.2f%% of a run'"'"'s wall time (%s; %d requests; target < 2%%)\n", m, k, n;
           else print "timed launches checked: no request traced one" }' "$tmp/rows"
