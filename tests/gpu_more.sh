#!/usr/bin/env bash
# tests/gpu_more.sh: GPU tests of the lessons, the kernel library and the
# measuring commands. Called by tests/gpu.sh on a machine with a GPU.
# Closing line: "gpu-more: N passed, N failed".
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "gpu-more: skipped: no GPU"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache"

# every lesson replays with exit status 0: all its expectations hold
for s in $(shipped 'sessions/*.session'); do
	"$CUPLAY" "$s" >"$tmp/out" 2>&1 </dev/null
	st=$?
	key=$(grep '^expect: ' "$tmp/out" | head -n 1 | sed 's/^expect: //')
	if [ $st -eq 0 ]; then ok "lesson $(basename "$s"): $key"; else bad "lesson $s (exit $st)"; fi
	# a lesson's line expectations are all checked on a GPU: one skipped
	# (the counters refused after the first `lines`) fails it
	if grep -q '^expect .* line "' "$s"; then
		nl=$(grep -c '^expect .* line "' "$s")
		if grep -q 'expect .* line ".*: skipped' "$tmp/out"; then
			bad "lesson $(basename "$s"): a line expectation skipped"
			grep 'expect .* line ".*: skipped' "$tmp/out" | head -n 3 | sed 's/^/    /'
		else
			ok "lesson $(basename "$s"): its $nl line expectations checked, none skipped"
		fi
	fi
done

# the lesson contrasts hold as ratios
if "$CUPLAY" tests/gpu/contrasts.session >"$tmp/out" 2>&1 </dev/null; then
	ok "contrasts: $(grep -c '^expect: .*: ok' "$tmp/out") expectations hold"
else
	bad "contrasts"
fi

# compute-sanitizer memcheck finds nothing in any shipped kernel at awkward sizes
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -n "$SAN" ]; then
	"$SAN" --tool memcheck --target-processes all --error-exitcode 9 "$CUPLAY" tests/gpu/sanitize.session >"$tmp/out" 2>&1 </dev/null
	st=$?
	errs=$(grep -c '========= Invalid\|========= Program hit' "$tmp/out")
	if [ $st -eq 0 ] && [ "$errs" = 0 ]; then
		ok "memcheck: every shipped kernel clean at awkward sizes ($(grep -c ' ok ' "$tmp/out") runs checked ok)"
	else
		bad "memcheck (exit $st, $errs findings)"
	fi
else
	echo "skip: compute-sanitizer not found"
fi

# sweep and compare end to end; PAD=1 against PAD=0 is `faster`
if "$CUPLAY" -c 'use transpose; set N=8192; compare transpose_tiled[PAD=0] transpose_tiled[PAD=1]' >"$tmp/out" 2>&1 </dev/null &&
   grep -q '^transpose_tiled\[PAD=1\].* faster$' "$tmp/out"; then
	ok "compare: $(grep '^transpose_tiled\[PAD=1\]' "$tmp/out" | awk '{ print $(NF-1), $NF }')"
else
	bad "compare transpose_tiled PAD=0 vs PAD=1 did not say faster"
fi
if "$CUPLAY" -c 'use transpose; set N=4096; sweep TILE_SIZE=16,32 PAD=0,1 transpose_tiled; sweep TILE_SIZE=32,64 BLOCK_ROWS=32 transpose_tiled' >"$tmp/out" 2>&1 </dev/null &&
   grep -q '^best: ' "$tmp/out" && grep -q 'cannot launch' "$tmp/out"; then
	ok "sweep: $(grep -m1 '^best: ' "$tmp/out"); an unlaunchable configuration is a row"
else
	bad "sweep"
fi

# a check of an output with the same bits as one compared before reuses
# that comparison (no download); an output that differs is compared again
cat > "$tmp/same.cu" <<'CU'
//@ define BUG = 0
//@ define STEP = 1
//@ param  N = 1000003
//@ buffer x float[N] random
//@ buffer y float[N] poison output
//@ grid   cdiv(N, 256 * STEP)
//@ block  256
//@ check  y = copy(x)
__global__ void cp(const float *x, float *y, int N)
{
	for (int s = 0; s < STEP; s++) {
		int i = (blockIdx.x * STEP + s) * 256 + threadIdx.x;
		if (i < N)
			y[i] = x[i] + (BUG && i == 777 ? 1.0f : 0.0f);
	}
}
CU
CUPLAY_TRACE_WORKER=1 "$CUPLAY" -c "use $tmp/same.cu; run; set STEP=2; run; set BUG=1; run; set BUG=0 STEP=4; run; set BUG=1; run" >"$tmp/out" 2>&1 </dev/null
checks=$(grep -o '^cp  *[a-zA-Z]*' "$tmp/out" | awk '{ printf "%s ", $2 }')
same=$(grep -c 'the same bits as an output compared before' "$tmp/out")
if [ "$checks" = "ok ok FAIL ok FAIL " ] && [ "$same" = 5 ] && grep -q 'index 777' "$tmp/out"; then
	ok "checks by output hash: ok ok FAIL ok FAIL, 5 comparisons reused (a failed check is made again on rewritten inputs), the bad index still 777"
else
	bad "checks by output hash: got '$checks', $same reused"
fi

# the clock: kernel timestamps by default, events when asked and for
# batches; a kernel that launches kernels from the device is timed by events
if "$CUPLAY" --format csv -c 'use vector_add; set N=2097152; run vadd_float4; timing clock events; run vadd_float4; timing clock kernel; batch 10; run vadd_float4' >"$tmp/out" 2>&1 </dev/null &&
   [ "$(awk -F, '$1 == "kernel" { for (i = 1; i <= NF; i++) if ($i == "clock") c = i } $1 == "vadd_float4" { printf "%s %s,", $3, $c }' "$tmp/out")" = "ok kernel,ok events,ok events," ]; then
	ok "clock: $(awk -F, '$1 == "kernel" { for (i = 1; i <= NF; i++) if ($i == "clock") c = i } $1 == "vadd_float4" { printf "%s %.4f ms; ", $c, $5 }' "$tmp/out")(kernel, events, batch of 10)"
else
	bad "clock: expected the clock column to say kernel, events, events"
fi
if "$CUPLAY" --format csv -c 'use dynpar; set N=100000; run' >"$tmp/out" 2>&1 </dev/null &&
   awk -F, '$1 == "kernel" { for (i = 1; i <= NF; i++) if ($i == "clock") c = i } $1 == "reduce_tail_launch" && $3 == "ok" && $c == "events"' "$tmp/out" | grep -q . &&
   grep -q 'timed with CUDA events, not kernel timestamps: the kernel launches kernels from the device' "$tmp/out"; then
	ok "clock: dynpar is timed with events, and says why"
else
	bad "clock: dynpar should be timed with events, with a note"
fi

# counters not permitted (CUPLAY_NO_COUNTERS plays such a machine): a lesson's
# expectations on counters and on explain's diagnosis say skipped, its timing
# ones still hold, exit 0
CUPLAY_NO_COUNTERS=1 "$CUPLAY" sessions/bank_conflicts.session >"$tmp/out" 2>&1 </dev/null
st=$?
want=$(grep -c '^expect .* \(metric\|rule\|bound\|limiter\|line\) ' sessions/bank_conflicts.session)
held=$(grep -c '^expect ' sessions/bank_conflicts.session)
held=$((held - want))
nsk=$(grep -c '^expect .*: skipped: counters not permitted' "$tmp/out")
if [ $st = 0 ] && [ "$want" -ge 2 ] && [ "$nsk" = "$want" ] &&
   grep -q "^sessions/bank_conflicts.session: expectations: $held held, 0 failed, $want skipped\( (a skipped one is not checked.*)\)\?\$" "$tmp/out"; then
	ok "counters not permitted: $want expectations on counters and diagnoses skipped, $held on timings held, exit 0"
else
	bad "counters not permitted (exit $st, $nsk of $want skipped)"
	grep 'expectations:' "$tmp/out"
fi

# A GPU shared by a class: two processes measure one GPU in turns (the GPU
# lock, held only while timing or reading counters). Both finish, a wait is
# said in one line, and each result agrees with a run alone within the
# spread of the two (half the min..max range of each, added).
# median_of FILE KERNEL: "median min max" of the kernel's rows in a csv output
rows_of() {
	python3 - "$1" "$2" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next(r for r in rows if r[0] == "kernel")
i, lo, hi = head.index("median_ms"), head.index("min_ms"), head.index("max_ms")
for r in rows:
    if r[0] == sys.argv[2] and len(r) == len(head) and r[i]:
        print(r[i], r[lo], r[hi])
PY
}
export CUPLAY_LOCK_DIR="$tmp/locks"
mkdir -p "$CUPLAY_LOCK_DIR"
SHARE='use transpose; set N=8192; timing min 1 max 2 wall 3; run transpose_tiled; run transpose_tiled; run transpose_tiled'
"$CUPLAY" --format csv -c "$SHARE" >"$tmp/solo" 2>&1 </dev/null
"$CUPLAY" --format csv -c "$SHARE" >"$tmp/a" 2>&1 </dev/null & pa=$!
sleep 0.5
"$CUPLAY" --format csv -c "$SHARE" >"$tmp/b" 2>&1 </dev/null & pb=$!
wait $pa; sa=$?
wait $pb; sb=$?
cat "$tmp/a" "$tmp/b" >"$tmp/out"
waits=$(grep -c '^waiting for GPU [0-9]* (another cuplay is measuring)$' "$tmp/out")
agree=$(python3 - <(rows_of "$tmp/solo" transpose_tiled) <(rows_of "$tmp/a" transpose_tiled) <(rows_of "$tmp/b" transpose_tiled) <<'PY'
import statistics, sys
def rows(f):
    return [tuple(map(float, l.split())) for l in open(f) if l.strip()]
solo, a, b = rows(sys.argv[1]), rows(sys.argv[2]), rows(sys.argv[3])
if len(solo) != 3 or len(a) != 3 or len(b) != 3:
    print("missing rows: %d %d %d" % (len(solo), len(a), len(b))); sys.exit()
m = statistics.median(r[0] for r in solo)
half = statistics.median((r[2] - r[1]) / 2 for r in solo)
worst = max(abs(r[0] - m) - (half + (r[2] - r[1]) / 2) for r in a + b)
print("ok" if worst <= 0 else "off", "solo %.4f ms, shared %s" % (m, " ".join("%.4f" % r[0] for r in a + b)))
PY
)
if [ $sa = 0 ] && [ $sb = 0 ] && [ "$waits" -ge 1 ] && [ "${agree%% *}" = ok ]; then
	ok "shared GPU: two processes both finish, $waits wait(s) said, results agree: ${agree#ok }"
else
	bad "shared GPU: exit $sa and $sb, $waits waits said, ${agree:-no results}"
fi
# Ctrl-C while waiting for the GPU: back at once, the other process goes on.
# The first process holds the lock for about 4 s: 4 s of samples of a kernel
# of about 20 ms (matmul_naive at N=4096), far from the cap of 2048 samples
# that ends a short kernel's loop first (a 186 us transpose stops at 0.4 s).
"$CUPLAY" -c 'use matmul; set N=4096; timing min 4 max 5 wall 6; run matmul_naive' >"$tmp/a" 2>&1 </dev/null & pa=$!
sleep 1.5
"$CUPLAY" -c 'use transpose; set N=8192; run transpose_tiled; say after' >"$tmp/b" 2>&1 </dev/null & pb=$!
for i in $(seq 50); do grep -q '^waiting for GPU' "$tmp/b" && break; sleep 0.1; done
t0=$(date +%s%N)
kill -INT $pb
wait $pb; sb=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
wait $pa; sa=$?
cat "$tmp/b" >"$tmp/out"
if grep -q '^waiting for GPU' "$tmp/b" && [ $sb = 1 ] && [ $ms -lt 2500 ] && grep -q interrupted "$tmp/b" &&
   ! grep -q '^after$' "$tmp/b" && [ $sa = 0 ]; then
	ok "shared GPU: Ctrl-C while waiting returns in $ms ms; the other process finishes"
else
	bad "shared GPU: Ctrl-C while waiting (exit $sb after $ms ms; the other exit $sa)"
fi
# a lock file that is not one (a link planted in a shared directory): not
# followed, said once, the run goes on without waiting
mkdir -p "$tmp/planted"
# the lock's name, as the runs above made it
lockname=$(cd "$tmp/locks" && ls cuplay-gpu-*.lock 2>/dev/null | head -n 1)
ln -s "$tmp/planted/victim" "$tmp/planted/${lockname:-cuplay-gpu-x.lock}"
CUPLAY_LOCK_DIR="$tmp/planted" "$CUPLAY" -c 'use transpose; set N=2048; run transpose_tiled' >"$tmp/out" 2>&1 </dev/null
st=$?
if [ -n "$lockname" ] && [ $st = 0 ] && [ ! -e "$tmp/planted/victim" ] &&
   grep -q "^cannot lock GPU [0-9]* ('$tmp/planted/$lockname': .*): measuring without waiting for other processes$" "$tmp/out"; then
	ok "shared GPU: a link at the lock's name is not followed; one note, the run goes on"
else
	bad "shared GPU: planted link (lock '$lockname', exit $st)"
fi
unset CUPLAY_LOCK_DIR

echo "gpu-more: $pass passed, $fail failed"
