#!/usr/bin/env bash
# tests/gpu.sh: tests that need a GPU. Without one: "gpu: skipped: no GPU".
# Closing line: "gpu: N passed, N failed".
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"

if ! have_gpu; then
	echo "gpu: skipped: no GPU"
	exit 0
fi

pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok:   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; sed 's/^/    /' "$tmp/out" | tail -n 30; }

# run NAME EXPECTED_STATUS cuplay-args...: output in $tmp/out
run() {
	local name=$1 want=$2; shift 2
	"$CUPLAY" "$@" >"$tmp/out" 2>&1 </dev/null
	local st=$?
	cp "$tmp/out" "$tmp/$name.out"
	if [ "$st" != "$want" ]; then bad "$name (exit $st, expected $want)"; return 1; fi
	return 0
}

# GPU_PART=1 runs this file's own tests and the subs of part 1, GPU_PART=2
# the subs of part 2 (make test on a host of two GPUs or more: one part on
# each GPU, beside each other); unset or "all": everything, in turn
part=${GPU_PART:-all}
case $part in 1|2|all) ;; *) echo "gpu: GPU_PART=$part: expected 1, 2 or all"; exit 2 ;; esac
if [ "$part" != 2 ]; then

# 1. every shipped kernel checks ok at its default size and at an awkward one
for f in $(shipped 'kernels_src/*.cu'); do
	n=$(basename "$f" .cu)
	if run "default-$n" 0 --bail -c "use $f; run"; then
		if grep -q 'FAIL' "$tmp/out"; then bad "default-$n: a check failed"; else ok "default-$n"; fi
	fi
done
if [ -e tests/gpu/awkward.session ]; then
	if run awkward 0 tests/gpu/awkward.session; then
		if grep -q 'FAIL' "$tmp/out"; then bad "awkward sizes: a check failed"; else ok "awkward sizes ($(grep -c ' ok ' "$tmp/out") kernel runs ok)"; fi
	fi
fi

# 2. at N=8192, transpose_tiled with PAD=1 is faster than with PAD=0
if run pad 0 --format csv -c 'use transpose; set N=8192; set PAD=0; run transpose_tiled; set PAD=1; run transpose_tiled'; then
	m0=$(awk -F, '$1=="transpose_tiled" && $2 ~ /PAD=0/ {print $5}' "$tmp/out")
	m1=$(awk -F, '$1=="transpose_tiled" && $2 ~ /PAD=1/ {print $5}' "$tmp/out")
	if [ -n "$m0" ] && [ -n "$m1" ] && awk -v a="$m0" -v b="$m1" 'BEGIN { exit !(b < a) }'; then
		ok "transpose_tiled N=8192: PAD=0 $m0 ms, PAD=1 $m1 ms ($(awk -v a="$m0" -v b="$m1" 'BEGIN { printf "%.2fx", a / b }'))"
	else
		bad "transpose_tiled PAD=1 not faster than PAD=0 ($m0 vs $m1 ms)"
	fi
fi

# 3. an out-of-bounds write kills the worker; the next run in the same REPL works
if run oob 1 -c 'use tests/kernels/oob.cu; run; use vector_add; set N=100000; run'; then
	if grep -qi 'illegal\|fault\|worker' "$tmp/out" && grep -q ' ok ' "$tmp/out"; then
		ok "out-of-bounds write: worker replaced, next run ok"
	else
		bad "out-of-bounds: expected a fault line, then a run that checks ok"
	fi
fi

# 3b. expectations after a failed use, or a failed compile, on a machine with
#     a GPU: never "skipped (no GPU)"; the first says why it was skipped
printf 'use no_such_kernel_file\nrun\nexpect vadd_naive correct\nuse tests/kernels/compile_error.cu\nrun\nexpect broken correct\n' \
	>"$tmp/skipped.session"
if run expect-skipped 1 "$tmp/skipped.session"; then
	if grep -qxF "expect vadd_naive correct: skipped: nothing ran (no kernel file is loaded: 'use no_such_kernel_file' failed)" "$tmp/out" &&
	   ! grep -q 'no GPU' "$tmp/out" && grep -q 'expectations: 0 held, 1 failed, 1 skipped' "$tmp/out"; then
		ok "expect after a failed use or compile: why it was skipped, not 'no GPU'"
	else
		bad "expect after a failed use or compile: $(grep expect "$tmp/out" | head -3)"
	fi
fi

# 4. a kernel that spins forever is stopped by the timeout; the next run works
if run spin 1 -c 'timeout 2; use tests/kernels/spin.cu; run; use vector_add; set N=100000; run'; then
	if grep -q 'no progress' "$tmp/out" && grep -q ' ok ' "$tmp/out"; then
		ok "spinning kernel: stopped by the timeout, next run ok"
	else
		bad "spin: expected a timeout line, then a run that checks ok"
	fi
fi

# 5. hardware counters: transpose_tiled's shared-memory bank conflicts are in
#    the millions with PAD=0 and near zero with PAD=1 (a column read of a
#    32x32 tile hits one bank 32 times); expectations address them
banks='use transpose; set N=8192; set PAD=0; metrics transpose_tiled shared'
banks="$banks; expect transpose_tiled[PAD=0] metric bank_conflicts_ld > 1000000; set PAD=1; metrics transpose_tiled shared"
if run banks 0 --format csv -c "$banks"; then
	# csv rows: kernel,metric,value,unit,ideal,raw; PAD=0 first, then PAD=1
	b0=$(awk -F, '$1=="transpose_tiled" && $2=="bank_conflicts_ld" {print $3; exit}' "$tmp/out")
	b1=$(awk -F, '$1=="transpose_tiled" && $2=="bank_conflicts_ld" {v=$3} END {print v}' "$tmp/out")
	if [ -n "$b0" ] && [ -n "$b1" ] && awk -v a="$b0" -v b="$b1" 'BEGIN { exit !(a >= 1e6 && b < a / 100) }'; then
		ok "bank conflicts of transpose_tiled: PAD=0 $b0, PAD=1 $b1"
	else
		bad "bank conflicts: expected millions with PAD=0 and near zero with PAD=1 (got '$b0' and '$b1')"
	fi
fi

# 6. sectors per request: a warp of square_uncoalesced (4 floats a thread)
#    touches more sectors per load than one of square_coalesced
if run sectors 0 --format csv -c 'use coalescing; set EL_PER_THREAD=4; metrics square_coalesced square_uncoalesced memory'; then
	c=$(awk -F, '$1=="square_coalesced" && $2=="ld_sectors_per_req" {print $3}' "$tmp/out")
	u=$(awk -F, '$1=="square_uncoalesced" && $2=="ld_sectors_per_req" {print $3}' "$tmp/out")
	if [ -n "$c" ] && [ -n "$u" ] && awk -v c="$c" -v u="$u" 'BEGIN { exit !(u > 2 * c) }'; then
		ok "global load sectors per request: coalesced $c, stride 4 $u"
	else
		bad "sectors per request: expected square_uncoalesced well above square_coalesced (got '$c' and '$u')"
	fi
fi

# 7. `metrics on`: the counters come under every run's results, outside the
#    timed samples; csv rows carry the GPU's clocks (NVML)
if run metrics_on 0 --format csv -c 'use transpose; set N=4096; metrics on; run transpose_tiled; metrics off; run transpose_naive'; then
	if grep -q '^kernel,values,check,.*,sm_mhz,temp_c,throttle,clock,' "$tmp/out" &&
	   grep -q '^transpose_tiled,bank_conflicts_ld,' "$tmp/out" &&
	   ! grep -q '^transpose_naive,bank_conflicts_ld,' "$tmp/out" &&
	   [ "$(grep -c '^transpose_[a-z]*,[^,]*N=4096,ok,' "$tmp/out")" = 2 ]; then
		mhz=$(awk -F, '$1=="transpose_tiled" && $3=="ok" {print $13}' "$tmp/out")
		ok "metrics on: counters after the run, not after 'metrics off' (SM clock ${mhz:-unknown} MHz)"
	else
		bad "metrics on: expected the counters of transpose_tiled only, and both runs ok"
	fi
fi

# 8. info with a worker: the driver's own figures and the occupancy API's
if run info 0 -c 'use matmul; info matmul_register_tiled'; then
	if grep -q '^occupancy api ' "$tmp/out" && grep -q '^best block ' "$tmp/out" && grep -q '^driver .*registers' "$tmp/out"; then
		ok "info: $(grep '^occupancy api' "$tmp/out" | sed 's/  */ /g')"
	else
		bad "info: expected the driver's attributes and the occupancy API's figures"
	fi
fi

# 9. sass: nvdisasm or cuobjdump from the toolkit, with source lines
"$CUPLAY" -c 'use transpose; sass transpose_tiled' >"$tmp/out" 2>&1 </dev/null
st=$?
if grep -q 'sass: no nvdisasm or cuobjdump' "$tmp/out"; then
	echo "skip: sass: $(grep -m1 'sass: ' "$tmp/out")"
elif [ $st = 0 ] && grep -q 'LDS' "$tmp/out" && grep -q 'STS' "$tmp/out" && grep -q '// transpose.cu:[0-9]' "$tmp/out"; then
	ok "sass: shared loads and stores, with source lines ($(grep -m1 '^// [0-9]* instructions' "$tmp/out" | cut -c4-60))"
else
	bad "sass: expected LDS, STS and '// transpose.cu:LINE' lines (exit $st)"
fi

# 10. sanitize: an out-of-bounds write found by memcheck, at its source line;
#     the main worker goes on
san=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
if [ -x "$san" ] || command -v compute-sanitizer >/dev/null 2>&1; then
	if run sanitize 0 -c 'use tests/kernels/oob.cu; sanitize oob_write; use vector_add; set N=100000; run'; then
		if grep -q '^memcheck: [1-9][0-9]* problem' "$tmp/out" && grep -q 'Invalid __global__ write' "$tmp/out" &&
		   grep -q 'oob.cu:21' "$tmp/out" && grep -q ' ok ' "$tmp/out"; then
			ok "sanitize: $(grep -m1 'Invalid __global__ write' "$tmp/out" | sed 's/^ *//')"
		else
			bad "sanitize: expected memcheck's invalid write at oob.cu:21, then a run that checks ok"
		fi
	fi
	if run sanitize_clean 0 -c 'use transpose; set N=256; sanitize racecheck transpose_tiled'; then
		if grep -q '^racecheck: no problems found' "$tmp/out"; then
			ok "sanitize racecheck: transpose_tiled has no races"
		else
			bad "sanitize racecheck: expected no problems in transpose_tiled"
		fi
	fi
else
	echo "skip: sanitize: no compute-sanitizer"
fi

# 11. under ncu the counters are taken: `metrics` says so in one line (a
#     note, not an error: the lesson goes on), and everything else works
ncu=${CUDA_HOME:-/usr/local/cuda}/bin/ncu
[ -x "$ncu" ] || ncu=$(command -v ncu || true)
if [ -n "$ncu" ] && [ -x "$ncu" ]; then
	"$ncu" --clock-control none --launch-count 2 --metrics gpu__time_duration.sum \
		"$CUPLAY" -c 'use transpose; set N=1024; metrics transpose_tiled; reps 10; run transpose_tiled' \
		>"$tmp/out" 2>&1 </dev/null
	st=$?
	if [ $st = 0 ] && grep -q 'metrics: hardware counters' "$tmp/out" &&
	   grep -q '^transpose_tiled  *ok ' "$tmp/out"; then
		ok "under ncu: $(grep -m1 'metrics: ' "$tmp/out" | sed 's/^[^:]*: metrics/metrics/')"
	else
		bad "under ncu: expected one 'metrics: hardware counters ...' line and a run that checks ok (exit $st)"
	fi
	# ... and kernel timestamps too: the runs are timed with events, said once
	if [ "$(grep -c 'timed with CUDA events, not kernel timestamps: kernel timestamps taken by another profiler' "$tmp/out")" = 1 ]; then
		ok "under ncu: $(grep -m1 'timed with CUDA events' "$tmp/out" | cut -c1-110)..."
	else
		bad "under ncu: expected one 'timed with CUDA events, not kernel timestamps: ...' line"
	fi
else
	echo "skip: under ncu: no ncu"
fi

# 12. device with a GPU: a first line that names it, no compile-only notice;
#     a second line only for the kernel clock's self-check: not made yet, or
#     an offset over 1% of a 4 us kernel
if run device 0 -c 'device'; then
	if head -n 1 "$tmp/out" | grep -q '^GPU [0-9]* of [0-9]*: .*, sm_[0-9]*, [0-9]* SMs' &&
	   { [ "$(wc -l <"$tmp/out")" = 1 ] ||
	     { [ "$(wc -l <"$tmp/out")" = 2 ] && sed -n 2p "$tmp/out" | grep -q '^kernel clock'; }; } &&
	   ! grep -q 'compile-only' "$tmp/out"; then
		ok "device: $(head -n 1 "$tmp/out" | cut -c1-100)"
	else
		bad "device: expected 'GPU N of M: NAME, sm_XY, K SMs, ...' and at most the kernel clock's line"
	fi
fi

# 12b. the kernel clock's check at a device's first use (a fresh cache):
#     each calibration kernel read by the kernel clock and by the profiler;
#     kept in the cache ("cuplay clock 2") and read back by the next
#     process; csv rows carry the offset; where it flags, a short result
#     says its share ("+0.96 us of 9.25 us"), where not, no note; and the
#     runs after the check are still on the kernel clock
ck_cache="$tmp/clockcheck"
if XDG_CACHE_HOME="$ck_cache" run clockcheck 0 -c 'use vector_add; set N=2097152; run vadd_float4; run vadd_float4; device'; then
	line=$(grep '^kernel clock against' "$tmp/out")
	n2=$(echo "$line" | grep -oE '[+-][0-9]+\.[0-9]+ us for a (4 us spin|copy of 4 MiB) \([0-9.]+ against [0-9.]+ us\)' | wc -l)
	entry=$(cat "$ck_cache"/cuplay/clock-* 2>/dev/null | head -n 1)
	XDG_CACHE_HOME="$ck_cache" CUPLAY_TRACE=1 "$CUPLAY" --format csv -c 'use vector_add; set N=2097152; run vadd_float4' >"$tmp/out2" 2>&1
	row=$(awk -F, '$1 == "kernel" { for (i = 1; i <= NF; i++) c[$i] = i } $1 == "vadd_float4" && c["clock_offset_us"] { print $(c["clock"]), $(c["clock_offset_us"]) }' "$tmp/out2")
	flagged=0
	case "$line" in *"not subtracted"*) flagged=1 ;; esac
	if [ "$n2" = 2 ] && [ "$entry" = "cuplay clock 2" ] && grep -q "trace: clock: the kernel clock's check from" "$tmp/out2" &&
	   [ "${row%% *}" = kernel ] && [ -n "${row#* }" ] && ! grep -q 'timed with CUDA events' "$tmp/out" &&
	   { { [ $flagged = 1 ] && grep -q '^kernel clock: vadd_float4 [+-][0-9.]* us of [0-9.]* us' "$tmp/out"; } ||
	     { [ $flagged = 0 ] && ! grep -q '^kernel clock: ' "$tmp/out"; }; }; then
		ok "clock check (flagged: $flagged; csv: clock, offset = $row): $(echo "$line" | cut -c1-150)..."
	else
		bad "clock check: expected two readings, a 'cuplay clock 2' entry read back, kernel-clock runs after it, notes that match (n=$n2, entry '$entry', csv '$row', flagged $flagged)"
	fi
fi

# 13. typed params on the GPU: alpha=5/2 reaches the float parameter as 2.5 and
#     the check (the CPU saxpy with the same alpha) holds; n=2.5 is refused at
#     set and the values stay as they were
if run typed 1 -c 'use tests/golden/kernels/saxpy.cu; set alpha=5/2; set n=2.5; run'; then
	if grep -q 'n=1000003 alpha=2.5 ' "$tmp/out" && grep -q '^saxpy  *ok ' "$tmp/out" &&
	   grep -q "set n: 2.5 is not a whole number: kernel 'saxpy' takes 'n' as int" "$tmp/out"; then
		ok "typed params: alpha=5/2 runs as 2.5 and checks ok; n=2.5 refused at set"
	else
		bad "typed params: expected alpha=2.5 in the run line, saxpy ok, and n=2.5 refused"
	fi
fi

fi # the own tests, part 1

# sub NAME WHAT: runs tests/gpu_NAME.sh, shows its lines and adds its
# closing "gpu-NAME: N passed, N failed" to the counts (one failure if it
# did not finish)
sub() {
	local t0=$SECONDS
	CUPLAY="$CUPLAY" bash "tests/gpu_$1.sh" >"$tmp/$1" 2>&1
	cat "$tmp/$1"
	echo "time: gpu_$1.sh $((SECONDS - t0)) s"
	local m
	m=$(sed -n "s/^gpu-$1: \([0-9]*\) passed, \([0-9]*\) failed\$/\1 \2/p" "$tmp/$1")
	if [ -n "$m" ]; then set -- $m; pass=$((pass + $1)); fail=$((fail + $2)); else fail=$((fail + 1)); echo "FAIL: gpu_$1.sh did not finish"; fi
}
[ "$part" = 2 ] || echo "time: tests/gpu.sh's own tests $SECONDS s"
# in PART: whether this run has the sub of part PART (1 or 2)
in_part() { [ "$part" = all ] || [ "$part" = "$1" ]; }
# lessons, the kernel library's contrasts, memcheck, sweep and compare
in_part 1 && sub more
# the worker's start-up: the HELLO before the context, the first run's host
# work beside it, device and roof first, Ctrl-C during start-up
in_part 1 && sub start
# the C++ kernels of tests/cxx (toolkit headers, templates, namespaces, samples)
in_part 2 && sub cxx
# runs on host data: pinned and pageable copies, streams, the timeline
in_part 2 && sub streams
# roof and explain: the ceiling, every kernel's diagnosis, ncu's SOL
in_part 1 && sub explain
# the tensor roofs against cuBLAS and the library, explain on a WMMA GEMM
in_part 1 && sub tensor
# sequences: a two-pass sum checked and timed as one unit, graph timing, the
# flag on a figure over the roof, compare's DRAM bytes
in_part 1 && sub seq
# the timed launches checked: kernels that keep state across launches
# flagged, the shipped ones not
in_part 2 && sub recheck
# a class board's verification: a correct submission's figures, the cheats
# caught (a stored answer, a default-input probe, a NaN, a hang)
in_part 2 && sub board
# lines: per-line counters (bank conflicts, coalescing, local memory), a
# sequence's steps and a template's, the records adding up
in_part 2 && sub lines
# a new configuration's data path: the staging area, the comparison in
# chunks, references in the elements' own type, the GPU fill, against the
# way before
in_part 2 && sub check
# a GPU claimed for each process among several of one kind (skipped where
# one GPU is seen)
# (where make test gave this part one GPU, CUPLAY_CLAIM_DEVICES names two)
if in_part 1; then
	if [ -n "${CUPLAY_CLAIM_DEVICES:-}" ]; then CUDA_VISIBLE_DEVICES=$CUPLAY_CLAIM_DEVICES sub claim; else sub claim; fi
fi
# the Jupyter kernel: a notebook's tables and charts, the 3x3 sweep's time to its
# chart, the lessons as notebooks against their replays: three here
# (NOTEBOOK_LESSONS picks; `bash tests/gpu_notebook.sh` alone runs every lesson)
in_part 2 && NOTEBOOK_LESSONS=${NOTEBOOK_LESSONS:-seed_transpose coalescing tensor_cores} sub notebook

echo "time: tests/gpu.sh (part $part) $SECONDS s in all"
echo "gpu: $pass passed, $fail failed"
