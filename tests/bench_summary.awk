# tests/bench_summary.awk: the last line of `make bench`: which of the
# targets the bench's lines state this host met and which it missed. Reads
# the bench's own output; host= names the host. Each rule reads one kind
# of line as the bench prints it; a line it cannot read counts as neither.
function miss(what) { missed = missed (missed ? "; " : "") what; nm++ }
function check(ok, what) { nt++; if (!ok) miss(what) }
# the first number after pattern re on the line
function after(re,   m) { if (match($0, re)) { m = substr($0, RSTART + RLENGTH); if (match(m, /-?[0-9.]+/)) return substr(m, RSTART, RLENGTH) + 0 } return "" }

/^time to prompt:/ { v = after("time to prompt: *"); if (v != "") check(v <= 50, sprintf("time to prompt %.1f ms (<= 50)", v)) }
/^CUB recompile \/ plain recompile:/ { v = after("recompile: "); if (v != "") check(v <= 2, sprintf("CUB recompile %.1fx plain (<= 2x)", v)) }
/^first cold run:/ { v = after("ms wall = "); if (v != "") check(v <= 400, sprintf("first cold run %.0f ms beyond the loop (<= 400)", v)) }
/^edit -> result \(set PAD=0\):/ { v = after("PAD=0\\): *"); if (v != "") check(v <= 30, sprintf("edit -> result %.1f ms (<= 30)", v)) }
/^back to PAD=1 \(cache hit\):/ { v = after("\\(compile "); if (v != "") check(v <= 2, sprintf("cache-hit compile %.2f ms (<= 2)", v)) }
/of the memory roof \(target >= / { k = $1; v = after("^[^ ]+ +"); w = after("target >= "); if (v != "") check(v >= w, sprintf("%s %.1f%% of the roof (>= %d%%)", k, v, w)) }
/of cuBLAS SGEMM .*\(target >= 50%\)/ { v = after("TFLOP/s = "); if (v != "") check(v >= 50, sprintf("matmul_register_tiled %.0f%% of cuBLAS (>= 50%%)", v)) }
/ncu .* ms: [-+][0-9.]+% \(target within 1%\)/ {
	k = $0; sub(/ +cuplay .*/, "", k); v = after("ms: "); if (v != "") check(v <= 1 && v >= -1, sprintf("fidelity %s %+.2f%% (within 1%%)", k, v)) }
/^medians \(ms\): .*spread .*target within 0.5%/ { v = after("/ min = "); if (v != "") check(v <= 0.5, sprintf("five fresh processes %.2f%% (<= 0.5%%)", v)) }
/configurations in [0-9]+ ms wall.*target <= 2000 ms/ { v = after("configurations in "); l = ($0 ~ /timing clock events/) ? "sweep (events)" : "sweep"; if (v != "") check(v <= 2000, sprintf("%s %d ms (<= 2000)", l, v)) }
/^over target:/ { sub(/^over target: /, ""); nt++; miss($0) }
/^median of [0-9]+: .* ms wall .*target <= 300 ms/ { v = after("median of [0-9]+: "); if (v != "") check(v <= 300, sprintf("first result of a new process %.0f ms (<= 300)", v)) }
/^  background start +[0-9]+ ms from Enter/ { v = after("background start +"); if (v != "") check(v <= 150, sprintf("first result at the prompt %.0f ms (<= 150)", v)) }
/^N=4096 after N=8192 \(a param change/ { v = after("\\) +"); if (v != "") check(v <= 60, sprintf("param change %.1f ms (<= 60)", v)) }
/^vadd_naive N=1M after N=64M/ { v = after("\\) +"); if (v != "") check(v <= 60, sprintf("vadd_naive N=1M after 64M %.1f ms (<= 60)", v)) }
/^N=8192, set PAD=0 \(a new compile\)/ { v = after("\\+ "); if (v != "") check(v <= 25, sprintf("set PAD=0 %.1f ms beyond the loop (<= 25)", v)) }
/^N=8192, rerun \(cached, checked\)/ { v = after("\\+ "); if (v != "") check(v <= 5, sprintf("cached rerun %.1f ms beyond the loop (<= 5)", v)) }
/^timed launches checked: at most / { v = after("at most "); if (v != "") check(v < 2, sprintf("the check of the timed launches %.2f%% of a run (< 2%%)", v)) }
END {
	if (nt == 0) { printf "summary (%s): no targets measured\n", host; exit }
	if (nm == 0) printf "summary (%s): met all %d targets\n", host, nt
	else printf "summary (%s): missed %d of %d targets: %s\n", host, nm, nt, missed
}
