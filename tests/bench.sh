#!/usr/bin/env bash
# tests/bench.sh: `make bench`. Prints figures measured in this run; never
# fails on them. Needs a GPU for most figures (says so without one).
. "$(dirname "$0")/lib.sh"

# The host first: what kind of machine, how many GPUs, which driver; the
# bench measures GPU 0 (or CUDA_VISIBLE_DEVICES's first). Its last line
# names the targets this host missed (tests/bench_summary.awk).
host=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | awk '{ c = $1; $1 = ""; printf "%s%d x%s", (NR > 1 ? " + " : ""), c, $0 }')
if [ -z "${BENCH_INNER:-}" ]; then
	BENCH_INNER=1 bash "$0" "$@" 2>&1 | tee "$tmp/bench.out"
	awk -v host="${host:-no GPU}" -f tests/bench_summary.awk "$tmp/bench.out"
	exit 0
fi
echo "== cuplay bench ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
echo "host: ${host:-no GPU}; $(nvidia-smi -L 2>/dev/null | grep -c '^GPU') GPU(s), measuring GPU 0${CUDA_VISIBLE_DEVICES:+ of CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES}"
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
cuda=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)
echo "driver: ${drv:-none}${cuda:+, CUDA $cuda}; $(nproc) CPUs; $(uname -r)"

# Time to prompt: start, read one command, leave (the worker starts lazily).
for i in $(seq 1 20); do
	t0=$(ms_now); echo quit | "$CUPLAY" >/dev/null 2>&1; t1=$(ms_now)
	echo $(( (t1 - t0) / 1000 ))
done | median > "$tmp/prompt"
printf 'time to prompt:            %8.1f ms (median of 20 starts; target <= 50 ms)\n' "$(awk '{print $1/1000}' "$tmp/prompt")"

# Compile times (no GPU needed): a plain kernel and a CUB kernel, the first
# compile of a process and the recompiles after `set` gives a define a new
# value, with NVRTC's precompiled headers (the default) and without
# (CUPLAY_PCH=0). Each process starts with an empty compile cache; the
# figures are medians over 3 processes (first) and their 9 recompiles.
# compile_ms FILE 'CMDS': "first repeat" medians in ms
compile_ms() {
	local file=$1 cmds=$2 i
	: >"$tmp/cfirst"; : >"$tmp/crepeat"
	for i in 1 2 3; do
		rm -rf "$tmp/ccache"
		XDG_CACHE_HOME="$tmp/ccache" "$CUPLAY" --no-gpu -c "use $file; $cmds" >"$tmp/cout" 2>&1
		sed -n 's/.*(compiled in \([0-9.]*\) ms.*/\1/p' "$tmp/cout" >"$tmp/cms"
		head -n 1 "$tmp/cms" >>"$tmp/cfirst"
		tail -n +2 "$tmp/cms" >>"$tmp/crepeat"
	done
	echo "$(median <"$tmp/cfirst") $(median <"$tmp/crepeat")"
}
echo
echo "== compile times (NVRTC in the front end, compile-only: no GPU needed)"
plain_cmds='run transpose_tiled; set PAD=0; run transpose_tiled; set PAD=2; run transpose_tiled; set PAD=3; run transpose_tiled'
cub_cmds='run; set BS=128; run; set BS=512; run; set BS=64; run'
read -r pf pr <<<"$(compile_ms kernels_src/transpose.cu "$plain_cmds")"
read -r cf cr <<<"$(compile_ms tests/cxx/cub_reduce.cu "$cub_cmds")"
read -r pf0 pr0 <<<"$(CUPLAY_PCH=0 compile_ms kernels_src/transpose.cu "$plain_cmds")"
read -r cf0 cr0 <<<"$(CUPLAY_PCH=0 compile_ms tests/cxx/cub_reduce.cu "$cub_cmds")"
printf '%-44s %9s %9s\n' "" "first" "repeat"
printf '%-44s %7.0f ms %7.0f ms\n' "plain kernel (transpose, set PAD=)" "$pf" "$pr" \
	"plain kernel, no precompiled headers" "$pf0" "$pr0" \
	"CUB kernel (cub_reduce, set BS=)" "$cf" "$cr" \
	"CUB kernel, no precompiled headers" "$cf0" "$cr0"
awk -v c="$cr" -v p="$pr" -v c0="$cr0" 'BEGIN { printf "CUB recompile / plain recompile: %.1fx (target <= 2x); without precompiled headers %.1fx\n", c / p, c0 / p }'

if ! have_gpu; then
	echo "GPU figures: skipped: no GPU"
	exit 0
fi

# First cold run: empty compile cache, new process, worker start, first
# compile. The device's own figures (its roofs, the kernel clock's check:
# measured once per device, ever, and kept in the cache) are copied in from
# an untimed run before, which also wakes the GPU; what they cost is the
# line after.
total=0 timing=0
for i in 1 2 3; do
	rm -rf "$tmp/cache"
	XDG_CACHE_HOME="$tmp/cache" CUPLAY_TRACE=1 "$CUPLAY" -c 'use transpose; set N=8192; run transpose_tiled' >"$tmp/first" 2>&1
	mkdir -p "$tmp/cache2-$i/cuplay"
	cp "$tmp/cache/cuplay"/roof-* "$tmp/cache/cuplay"/clock-* "$tmp/cache2-$i/cuplay/" 2>/dev/null
	settle
	t0=$(ms_now)
	XDG_CACHE_HOME="$tmp/cache2-$i" CUPLAY_TRACE=1 "$CUPLAY" -c 'use transpose; set N=8192; run transpose_tiled' >"$tmp/cold" 2>&1
	t1=$(ms_now)
	wall=$(( (t1 - t0) / 1000 ))
	loop=$(sed -n 's/.*timing \([0-9.]*\)).*/\1/p' "$tmp/cold" | head -n 1)
	echo "$wall $loop" >> "$tmp/colds"
done
awk '{ printf "first cold run:            %8.1f ms wall = %.1f ms + timing loop %.1f ms (target <= 400 ms + loop)\n", $1/1000, $1/1000 - $2, $2 }' "$tmp/colds" | sort -t= -k2 -n | sed -n 2p
grep -q '^trace: roof: the roofs of this device from' "$tmp/cold" || echo "    (the device's figures were measured again in these runs: they were not found in the cache)"
# a device's first use, once ever: its roofs and the kernel clock's check (the last untimed run)
r=$(sed -n 's/^trace: roof: the roofs of this device measured in \([0-9.]*\) ms.*/\1/p' "$tmp/first" | head -n 1)
c=$(sed -n 's/.*(checked in \([0-9.]*\) ms).*/\1/p' "$tmp/first" | head -n 1)
echo "a device's first use (once per device, then cached): roofs ${r:-?} ms, the kernel clock's check ${c:-?} ms"

# Edit -> result on a warm REPL: set PAD=0 (new compile), run; back to PAD=1 (cache hit).
settle
XDG_CACHE_HOME="$tmp/cache3" CUPLAY_TRACE=1 "$CUPLAY" -c 'use transpose; set N=8192; run transpose_tiled; set PAD=0; run transpose_tiled; set PAD=1; run transpose_tiled; set PAD=0; run transpose_tiled' >"$tmp/warm" 2>&1
grep -E '^trace: (transpose_tiled |run total)' "$tmp/warm" > "$tmp/tr"
awk '
/compile/ { n++; c[n]=$4; kind[n]=$6; sub(/[(),]/,"",kind[n]); sub(/\)/,"",kind[n]); for (i=1;i<=NF;i++) if ($i=="timing") { t=$(i+1); sub(/\),?/,"",t); loop[n]=t } }
/run total/ { tot[n]=$4 }
END {
	printf "edit -> result (set PAD=0): %7.1f ms added to the %.1f ms timing loop (compile %.1f ms, %s; target <= 30 ms)\n", tot[2]-loop[2], loop[2], c[2], kind[2]
	printf "back to PAD=1 (cache hit):  %7.1f ms added (compile %.2f ms, %s; target <= 2 ms of compile)\n", tot[3]-loop[3], c[3], kind[3]
	printf "PAD=0 again (cache hit):    %7.1f ms added (compile %.2f ms, %s)\n", tot[4]-loop[4], c[4], kind[4]
}' "$tmp/tr"
sed 's/^/    /' "$tmp/tr"

# CuPy's RawKernel for a new -D option, for comparison (when CuPy is there).
if python3 -c 'import cupy' >/dev/null 2>&1; then
	python3 - <<'PY' 2>&1 | sed 's/^/cupy: /'
import time, cupy as cp
src = open("kernels_src/transpose.cu").read()
ts = []
for i, pad in enumerate([0, 1, 2, 3, 4]):
    t0 = time.perf_counter()
    m = cp.RawModule(code=src, options=("-DTILE_SIZE=32", "-DBLOCK_ROWS=8", "-DPAD=%d" % pad,
                     "-DCUPY_BENCH_NONCE=%d" % (time.time_ns() % 1000000)), name_expressions=["transpose_tiled"])
    m.get_function("transpose_tiled")
    ts.append((time.perf_counter() - t0) * 1e3)
print("RawModule compile with a new -D value: median %.1f ms (%s)" % (sorted(ts[1:])[len(ts[1:]) // 2], ", ".join("%.1f" % t for t in ts)))
PY
else
	echo "cupy: not installed here; no comparison"
fi

# ---- the kernel library (every variant), against the memory roof and cuBLAS ----
out=${BENCH_OUT:-$tmp}
mkdir -p "$out"
echo
echo "== every kernel at its default size (cold L2, medians)"
{
	echo "| file | kernel | check | median | GB/s | % roof | GFLOP/s |"
	echo "|---|---|---|---:|---:|---:|---:|"
} > "$out/kernels.md"
for f in $(shipped 'kernels_src/*.cu'); do
	n=$(basename "$f" .cu)
	XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" --format csv -c "use $f; run" > "$tmp/k.csv" 2>"$tmp/k.err"
	awk -F, -v file="$n" '$1 == "kernel" { for (i = 1; i <= NF; i++) c[$i] = i; next }
		c["median_ms"] && $(c["median_ms"]) != "" {
		t = $(c["median_ms"]) + 0; unit = "ms"; if (t < 1) { t *= 1000; unit = "us" }
		g = $(c["gbps"]); r = $(c["roof_frac"]); f = $(c["gflops"])
		printf "| %s | %s | %s | %.3g %s | %s | %s | %s |\n", file, $1, $(c["check"]), t, unit,
			(g == "" ? "" : sprintf("%.0f", g)), (r == "" ? "" : sprintf("%.0f%%", 100 * r)),
			(f == "" ? "" : sprintf("%.0f", f)) }' "$tmp/k.csv" >> "$out/kernels.md"
	grep -v '^trace' "$tmp/k.err" | sed 's/^/    /'
done
cat "$out/kernels.md"

roof_of() { # roof_of FILE KERNEL [SETTINGS]: fraction of the memory roof (the best of the copy and the streaming kernels)
	XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" --format csv -c "use $1; ${3:-} run $2" 2>/dev/null |
		awk -F, -v k="$2" '$1 == "kernel" { for (i = 1; i <= NF; i++) c[$i] = i } $1 == k { print $(c["roof_frac"]) }' | tail -n 1
}
echo
echo "== targets (ratios measured in this run)"
for t in "vector_add vadd_float4 0.90" "coalescing square_vectorized 0.90" "transpose transpose_tiled 0.85" "reduce reduce_warp 0.90"; do
	set -- $t
	r=$(roof_of "$1" "$2")
	awk -v k="$2" -v r="$r" -v want="$3" 'BEGIN { printf "%-22s %5.1f%% of the memory roof (target >= %.0f%%)%s\n", k, 100 * r, 100 * want, (r >= want ? "" : "  MISSED") }'
done
gf=$(XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" --format csv -c 'use matmul; run matmul_register_tiled matmul_tiled' 2>/dev/null | awk -F, '$1 == "kernel" { for (i = 1; i <= NF; i++) c[$i] = i } $1 == "matmul_register_tiled" { print $(c["gflops"]) }')
gt=$(XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" --format csv -c 'use matmul; run matmul_tiled' 2>/dev/null | awk -F, '$1 == "kernel" { for (i = 1; i <= NF; i++) c[$i] = i } $1 == "matmul_tiled" { print $(c["gflops"]) }')
cb=$(build/bench/cublas_sgemm 4096 2>&1)
case "$cb" in
cublas_sgemm*)
	set -- $cb
	awk -v g="$gf" -v t="$gt" -v c="$3" 'BEGIN { printf "matmul_register_tiled  %.1f TFLOP/s = %.0f%% of cuBLAS SGEMM %.1f TFLOP/s (target >= 50%%); matmul_tiled %.1f TFLOP/s\n", g / 1000, 100 * g / 1000 / c, c, t / 1000 }' ;;
*)	echo "matmul_register_tiled  $(awk -v g="$gf" 'BEGIN { printf "%.1f", g / 1000 }') TFLOP/s; $cb" ;;
esac
CUPLAY=$CUPLAY bash tests/bench_tensor.sh

# ---- timing fidelity against Nsight Compute, repeatability, sweep speed ----
echo
echo "== fidelity: cuplay median vs ncu gpu__time_duration.sum (median over launches)"
echo "   (cuplay's default clock is the GPU's kernel timestamps; 'events' is a CUDA event pair around the launch)"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -n 1)
# A short kernel's time depends on where its buffers lie in memory, which
# each process draws anew (make bench's "new buffers" line measures how
# much): a kernel under 50 us is compared over 3 processes on each side,
# interleaved, by the median of their medians; a longer one over one each.
fid() { # fid LABEL FILE KERNEL SETTINGS
	local label=$1 file=$2 k=$3 set=$4
	local ours evs clk step theirs procs=1 i o t
	: >"$tmp/fid.ours"; : >"$tmp/fid.theirs"
	for i in 1 2 3; do
		[ "$i" -gt "$procs" ] && break
		o=$(XDG_CACHE_HOME="$tmp/kcache" CUPLAY_TRACE=1 "$CUPLAY" --format csv -c "use $file; $set reps 50; run $k" 2>"$tmp/fid.err" | awk -F, -v k="$k" '$1 == "kernel" { for (i = 1; i <= NF; i++) if ($i == "clock") c = i } $1 == k { print $5, $c }')
		set -- $o
		[ -n "$1" ] && echo "$1" >>"$tmp/fid.ours"
		clk=$2
		[ "$i" = 1 ] && awk -v m="${1:-1}" 'BEGIN { exit !(m < 0.05) }' && procs=3
		step=$(sed -n 's/^trace: .* loop .*clock step \([0-9]*\) ns$/\1/p' "$tmp/fid.err" | tail -n 1)
		[ -z "$NCU" ] && continue
		"$NCU" --clock-control none --metrics gpu__time_duration.sum --csv --kernel-name "$k" --launch-skip 3 --launch-count 30 \
			env XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" -c "use $file; $set reps 40; check off; run $k" > "$tmp/ncu.csv" 2>"$tmp/ncu.err"
		t=$(awk -F'","' '/gpu__time_duration.sum/ { u = $(NF-1); v = $NF; gsub(/[",]/, "", v); gsub(/"/, "", u);
			f = (u == "nsecond" || u == "ns") ? 1e-6 : (u == "usecond" || u == "us") ? 1e-3 : (u == "msecond" || u == "ms") ? 1 : (u == "second" || u == "s") ? 1000 : 0;
			print v * f }' "$tmp/ncu.csv" | sort -n | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }')
		[ -n "$t" ] && echo "$t" >>"$tmp/fid.theirs"
	done
	evs=$(XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" --format csv -c "use $file; $set reps 50; timing clock events; run $k" 2>/dev/null | awk -F, -v k="$k" '$1 == k { print $5 }')
	ours=$(sort -n "$tmp/fid.ours" | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
	if [ -z "$ours" ]; then
		printf '%-34s cuplay gave no value (%s)\n' "$label" "$(grep -m1 -i 'error' "$tmp/fid.err" | head -c 160)"; return
	fi
	if [ -z "$NCU" ]; then
		printf '%-34s cuplay %.4f ms (%s clock), events %.4f ms; ncu: not present, no comparison\n' "$label" "$ours" "$clk" "$evs"; return
	fi
	theirs=$(sort -n "$tmp/fid.theirs" | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
	if [ -z "$theirs" ]; then
		printf '%-34s cuplay %.4f ms; ncu gave no value (%s)\n' "$label" "$ours" "$(grep -m1 -i 'error\|warn' "$tmp/ncu.err" "$tmp/ncu.csv" | head -c 160)"; return
	fi
	awk -v l="$label" -v a="$ours" -v c="$clk" -v e="$evs" -v b="$theirs" -v st="${step:-0}" -v p="$procs" 'BEGIN {
		d = 100 * (a - b) / b
		printf "%-34s cuplay %.5f ms (%s clock), ncu %.5f ms: %+.2f%% (target within 1%%)%s; events %.4f ms: %+.1f%%%s\n",
			l, a, c, b, d, (st >= 8 ? sprintf(" = %+.1f steps of the %d ns clock", (a - b) * 1e6 / st, st) : ""),
			e, 100 * (e - b) / b, (p > 1 ? sprintf("; medians of %d processes each", p) : "") }'
	if [ "$procs" -gt 1 ]; then
		printf '    %-30s cuplay %s; ncu %s (ms, process by process)\n' "" "$(awk '{ printf "%.5f ", $1 }' "$tmp/fid.ours")" "$(awk '{ printf "%.5f ", $1 }' "$tmp/fid.theirs")"
	fi
}
fid "vadd_float4 N=2M (~10 us)" vector_add vadd_float4 "set N=2097152;"
fid "vadd_float4 N=256K (~4 us, extra)" vector_add vadd_float4 "set N=262144;"
fid "empty_launch (one block, no work)" vector_add empty_launch ""
fid "transpose_tiled N=8192 PAD=0 (~300 us)" transpose transpose_tiled "set N=8192 PAD=0;"
fid "matmul_register_tiled N=4608 (~5 ms)" matmul matmul_register_tiled "set N=4608;"
# the kernel clock's own check (clockcal.h): what `device` says on this host
XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" -c 'device' 2>/dev/null | grep '^kernel clock' | sed 's/^/the check at first use: /'
# where a short kernel's time goes here, clock by clock (tests/bench/fidelity_probe.sh)
if [ -x build/bench/clockprobe ]; then
	echo
	OUT="$tmp/probe" bash tests/bench/fidelity_probe.sh 2>&1 | sed -n '/^== probe, device 0/,/^$/p; /^== the profiler.s duration in this process/,/^$/p; /^== the GPU.s path to host memory/,/^$/p; /^== ncu gpu__time_duration/,/^$/p'
fi

# ---- hardware counters: cuplay (CUPTI in its worker) against ncu ----
CUPLAY=$CUPLAY bash tests/bench_counters.sh

echo
echo "== repeatability: five fresh processes, transpose_tiled N=8192 PAD=1"
for i in 1 2 3 4 5; do
	XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" --format csv -c 'use transpose; set N=8192; run transpose_tiled' 2>/dev/null | awk -F, '$1 == "transpose_tiled" { print $5 }'
done > "$tmp/rep"
sort -n "$tmp/rep" | awk '{ a[NR] = $1; s = s sprintf("%.4f ", $1) } END { printf "medians (ms): %sspread (max - min) / min = %.2f%% (target within 0.5%%)\n", s, 100 * (a[NR] - a[1]) / a[1] }'

echo
echo "== a 3x3 sweep of transpose_tiled at N=4096 (TILE_SIZE x PAD), one process, wall"
sweep_wall() { # sweep_wall CACHE SETTINGS LABEL
	local t0 t1
	settle
	t0=$(ms_now)
	XDG_CACHE_HOME="$tmp/$1" CUPLAY_TRACE=1 "$CUPLAY" -c "use transpose; set N=4096; $2 sweep TILE_SIZE=8,16,32 PAD=0,1,2 transpose_tiled" > "$tmp/sweep" 2>&1
	t1=$(ms_now)
	grep -c '^trace: transpose_tiled' "$tmp/sweep" | awk -v ms=$(( (t1 - t0) / 1000000 )) -v l="$3" '{ printf "%s%d configurations in %d ms wall, process start and first compiles included (target <= 2000 ms)\n", l, $1, ms }'
	awk '/^trace: transpose_tiled/ { c += $4; for (i = 1; i <= NF; i++) { if ($i == "(setup") s += $(i+1); if ($i == "check") k += $(i+1); if ($i == "timing") t += $(i+1) } }
	     END { printf "  of which: compile %.0f ms, worker setup %.0f ms, checks %.0f ms, timing loops %.0f ms\n", c, s, k, t }' "$tmp/sweep"
	if grep -q 'FAIL\|error' "$tmp/sweep"; then grep -v '^trace' "$tmp/sweep" | sed 's/^/    /'; fi
}
sweep_wall scache "" ""
sweep_wall scache2 "timing clock events;" "with 'timing clock events': "

CUPLAY=$CUPLAY bash tests/bench_streams.sh
CUPLAY=$CUPLAY bash tests/bench_recheck.sh
echo
echo "== a rerun after a value is set, for every shipped file; the first result; a sweep (tests/bench_rerun.py)"
CUPLAY=$CUPLAY python3 tests/bench_rerun.py
echo
CUPLAY=$CUPLAY bash tests/bench/lines_ncu.sh
echo
echo "== the first result at the prompt, and of -c and a session (tests/first_result.py)"
CUPLAY=$CUPLAY python3 tests/first_result.py --bench
bash tests/bench_blink.sh
exit 0
