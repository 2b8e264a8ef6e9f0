#!/usr/bin/env bash
# tests/bench_blink.sh: the part of `make bench` about how soon a result
# arrives: the stopping rule (the median's interval against the old noise
# rule, for every kernel of the library at its default size and a small
# one), where a warm run's time goes, and the first result of a new process.
# Prints figures measured in this run; never fails on them.
. "$(dirname "$0")/lib.sh"

if ! have_gpu; then
	echo "blink: skipped: no GPU"
	exit 0
fi

# A small size per file: a few microseconds of kernel, where the old rule
# ran to its sample cap.
small_of() {
	case $1 in
	transpose) echo 2048 ;;
	matmul) echo 512 ;;
	*) echo 1048576 ;;
	esac
}

# loops FILE SETTINGS: the file's kernels under the interval rule, the
# noise rule, and the interval rule again, in one process (same buffers,
# same placement in memory): "new1|old|new2 kernel loop_ms samples
# median_ms ci_rel stop" per line. Two runs under the same rule show how
# far a kernel's median moves from one run to the next (the GPU's clocks,
# the host's part in a run) beside what the rule changes.
loops() {
	XDG_CACHE_HOME="$tmp/cache" CUPLAY_TRACE=1 CUPLAY_TRACE_SAMPLES=1 "$CUPLAY" -c "use $1; $2 timing rule interval; run; timing rule noise; run; timing rule interval; run" 2>&1 |
		tee -a "$tmp/loopraw" |
		awk -v old="$tmp/oldsamples" '/^trace: timing: rule/ { next }
		     /^trace: [^ ]+ samples \(ms, in order\)/ { if (seen[$2] == 2) print >> old; next }
		     /^trace: [^ ]+ loop / { k = $2; c = seen[k]++; tag = (c == 0 ? "new1" : c == 1 ? "old" : "new2"); l = $4; s = $6; why = $10;
		       for (i = 1; i <= NF; i++) { if ($i == "(median") m = $(i+1); if ($i == "ms" && $(i-2) == "(median") r = $(i+1) }
		       sub(/^\+-/, "", r); sub(/%\)?:?$/, "", r); print tag, k, l, s, m, r, why }'
}

echo
echo "== the stopping rule: the median's 95% interval within +-0.5% (new) against the noise under 0.5% (old)"
echo "   per kernel, in one process: the new rule, the old, the new again; samples and timing-loop ms"
echo "   under the old and the first new, the three medians (ms), the first new one's interval; whether"
echo "   the old median lies within that interval, and within the span of the two new runs' intervals"
printf '%-22s %-9s %6s %7s %6s %7s %10s %10s %10s %6s  %s\n' kernel size old_n old_ms new_n new_ms old_med new_med new2_med ci agree
for f in $(shipped 'kernels_src/*.cu'); do
	n=$(basename "$f" .cu)
	for size in default small; do
		set_n=""
		label=default
		if [ $size = small ]; then set_n="set N=$(small_of "$n");"; label="N=$(small_of "$n")"; fi
		loops "$n" "$set_n" > "$tmp/three"
		for tag in new1 old new2; do
			awk -v t=$tag '$1 == t { $1 = ""; print }' "$tmp/three" | sort > "$tmp/$tag"
		done
		join "$tmp/old" "$tmp/new1" | join - "$tmp/new2" |
			awk -v sz="$label" '{ om = $4; nm = $9; ci = $10 / 100; n2 = $14; c2 = $15 / 100;
			  d = (nm > 0 ? (om - nm) / nm : 0); if (d < 0) d = -d;
			  lo = nm * (1 - ci); if (n2 * (1 - c2) < lo) lo = n2 * (1 - c2);
			  hi = nm * (1 + ci); if (n2 * (1 + c2) > hi) hi = n2 * (1 + c2);
			  span = (om >= lo && om <= hi) ? "yes" : sprintf("no (%+.2f%% beyond)", 100 * (om > hi ? om / hi - 1 : om / lo - 1));
			  printf "%-22s %-9s %6d %7.1f %6d %7.1f %10.6f %10.6f %10.6f %5.2f%%  %s, %s\n", $1, sz, $3, $2, $8, $7, om, nm, n2, 100 * ci,
			    (d <= ci ? "yes" : sprintf("no (%.2f%% apart)", 100 * d)), span }'
	done
done | tee "$tmp/rule"
awk '{ on += $3; ol += $4; nn += $5; nl += $6; k++; if ($11 == "yes,") a++; if ($NF == "yes") b++ }
     END { printf "in all: %d runs, old rule %d samples in %.0f ms of loops, new rule %d samples in %.0f ms (%.1fx less)\n", k, on, ol, nn, nl, (nl > 0 ? ol / nl : 0)
           printf "the old median lies within the new interval in %d of %d; within the span of the two new runs in %d of %d\n", a, k, b, k }' "$tmp/rule"
if [ -x build/bench/rule_replay ] && [ -s "$tmp/oldsamples" ]; then
	build/bench/rule_replay < "$tmp/oldsamples" |
		awk '{ k++; n += $1; a += $4; in_ += $6; if (!$6) miss = miss sprintf(" %.2f%%", 100 * ($2 - $5) / $5) }
		END { printf "the new rule replayed on the old rule'"'"'s own samples (no run-to-run change between them): it stops after %d of their %d\n", n, a
		      printf "   samples; the median of all of them lies within the interval where it stopped in %d of %d%s\n", in_, k, (miss != "" ? " (the others:" miss " off)" : "") }'
fi
grep '^trace: [^ ]* loop ' "$tmp/loopraw" | awk '{ n++ } /samples in runs/ { r++; v = $0; sub(/.*variance x/, "", v); sub(/;.*/, "", v); if (v + 0 > w) w = v + 0 }
	END { printf "loops whose samples came in runs (the interval widened for them): %d of %d, the median'"'"'s variance at most x%.1f\n", r, n, w }'
awk '$8 + 0 > 0 && $6 + 0 > 100 && $8 + 0 < 1 { printf "over target: %s %s: a loop of %.1f ms for a kernel under 1 ms (target <= 100 ms)\n", $1, $2, $6 }' "$tmp/rule"

# loop_medians KERNEL EVERY: "median ci_rel" of every EVERY-th of the
# kernel's traced timing loops (1: each), from CUPLAY_TRACE on stdin.
loop_medians() {
	awk -v k="$1" -v every="$2" '$1 == "trace:" && $2 == k && $3 == "loop" && c++ % every == 0 {
		for (i = 1; i <= NF; i++) { if ($i == "(median") m = $(i+1); if ($i == "ms" && $(i-2) == "(median") r = $(i+1) }
		sub(/^\+-/, "", r); sub(/%\)?:?$/, "", r); print m, r }'
}
# spread LABEL DIGITS: how far the medians on stdin ("median ci_rel" lines)
# lie apart, against the widest interval.
spread() {
	sort -n | awk -v l="$1" -v f="%.$2f " '{ a[NR] = $1; s = s sprintf(f, $1); if ($2 > w) w = $2 }
		END { if (NR) printf "%-30s medians %s(ms): max - min = %.2f%% of the min; the widest interval +-%.2f%%\n", l, s, 100 * (a[NR] - a[1]) / a[1], w }'
}

echo
echo "== five fresh processes of a short kernel: how far their medians lie apart, against one run's interval"
for spec in "vector_add vadd_naive 1048576" "coalescing square_uncoalesced 1048576" "transpose transpose_tiled 8192"; do
	set -- $spec
	for i in 1 2 3 4 5; do
		XDG_CACHE_HOME="$tmp/cache" CUPLAY_TRACE=1 "$CUPLAY" -c "use $1; set N=$3; run $2" 2>&1 | loop_medians "$2" 1
	done | spread "$2 N=$3" 4
done

echo "== new buffers in one process: the same kernel after its buffers were allocated anew 5 times (a run at"
echo "   N=16M in between): how far its medians lie apart, against one run's interval (the rule cannot see this)"
for spec in "vector_add vadd_naive 1048576" "coalescing square_uncoalesced 1048576"; do
	set -- $spec
	s="use $1"
	for i in 1 2 3 4 5; do s="$s; set N=$3; check on; reps 10; timing max 0.5; run $2; set N=16777216; check off; reps 3; timing max 0.01; run $2"; done
	XDG_CACHE_HOME="$tmp/cache" CUPLAY_TRACE=1 "$CUPLAY" -c "$s" 2>&1 | loop_medians "$2" 2 | spread "$2 N=$3" 5
done

echo
echo "== where a warm run's time goes (CUPLAY_TRACE, transpose_tiled)"
warm() { # warm LABEL COMMANDS: the last run's compile/check/loop/total
	settle
	XDG_CACHE_HOME="$tmp/cache" CUPLAY_TRACE=1 "$CUPLAY" -c "$2" > "$tmp/warm" 2>&1
	awk -v l="$1" '
	/^trace: [^ ]+ compile / { for (i = 1; i <= NF; i++) { if ($i == "compile") c = $(i+1); if ($i == "check") k = $(i+1); if ($i == "timing") t = $(i+1); if ($i == "(setup") s = $(i+1) }
	                          sub(/,$/, "", k); sub(/\),?$/, "", t); sub(/,$/, "", s) }
	/^trace: run total/ { tot = $4 }
	END { printf "%-44s %7.1f ms wall = loop %.1f + %.1f ms beyond it (compile %.1f, setup %.1f, check %.1f)\n", l, tot, t, tot - t, c, s, k }' "$tmp/warm"
	grep -v '^trace' "$tmp/warm" | grep -i 'error\|FAIL' | sed 's/^/    /'
}
warm "N=8192, set PAD=0 (a new compile)" 'use transpose; set N=8192; run transpose_tiled; set PAD=0; run transpose_tiled'
warm "N=8192, rerun (cached, checked)" 'use transpose; set N=8192; run transpose_tiled; run transpose_tiled'
warm "N=4096 after N=8192 (a param change, ~45 us)" 'use transpose; set N=8192; run transpose_tiled; set N=4096; run transpose_tiled'
warm "vadd_naive N=1M after N=64M (~6 us)" 'use vector_add; run vadd_naive; set N=1048576; run vadd_naive'
echo "  targets: a param change of a kernel under 50 us <= 60 ms wall; set PAD=0 <= 25 ms beyond the loop; a cached rerun <= 5 ms beyond the loop"
XDG_CACHE_HOME="$tmp/cache" CUPLAY_TRACE=1 "$CUPLAY" -c 'use transpose; set N=4096; run transpose_tiled; run transpose_tiled' 2>&1 |
	grep '^trace: transpose_tiled loop' | tail -n 1 | sed 's/^trace: /  one sample, N=4096: /'

echo
echo "== first result from a new process (compile and roofs cached on disk; transpose_tiled N=8192)"
for i in 1 2 3 4 5; do
	settle
	t0=$(ms_now)
	XDG_CACHE_HOME="$tmp/cache" CUPLAY_TRACE=1 "$CUPLAY" -c 'use transpose; set N=8192; run transpose_tiled' > "$tmp/first" 2>&1
	t1=$(ms_now)
	awk -v w=$(( (t1 - t0) / 1000 )) '/^trace: transpose_tiled compile/ { for (i = 1; i <= NF; i++) { if ($i == "(setup") s = $(i+1); if ($i == "check") k = $(i+1); if ($i == "timing") t = $(i+1) } }
	     END { sub(/,$/, "", s); sub(/,$/, "", k); sub(/\),?$/, "", t); printf "%.1f %.1f %.1f %.1f\n", w / 1000, s, k, t }' "$tmp/first"
done | sort -n > "$tmp/firsts"
awk '{ a[NR] = $0 } END { split(a[int((NR + 1) / 2)], m, " ");
       printf "median of %d: %.1f ms wall (worker setup %.1f, first check %.1f, timing loop %.1f); target <= 300 ms\n", NR, m[1], m[2], m[3], m[4] }' "$tmp/firsts"
echo "  one of them, phase by phase (CUPLAY_TRACE_WORKER: ms since the worker began, then since the run arrived):"
XDG_CACHE_HOME="$tmp/cache" CUPLAY_TRACE=1 CUPLAY_TRACE_WORKER=1 "$CUPLAY" -c 'use transpose; set N=8192; run transpose_tiled' 2>&1 |
	grep -E '^cuplay worker:|^trace: (transpose_tiled compile|run total)' | cut -c1-160 | sed 's/^/    /'
exit 0
