#!/usr/bin/env bash
# tests/gpu_board.sh: a class board's verification on a GPU (`cuplay
# --verify`, tests/kernels/board/): a correct tiled transpose is ok, with
# its median, interval, the baseline's and the speedup; the cheats are
# caught, each by its check: an answer stored in a __device__ array on the
# first launch and copied afterwards (the check on fresh inputs in the same
# module), one right for the default inputs alone (it knows the default
# in[0]: the fresh inputs' checks), a NaN (non-finite values), a hang
# (stopped at a third of the exercise's time limit, and the next
# verification runs); the correct submission's median within 1% of `run
# transpose_tiled` at the exercise's size on the same GPU; through the board
# (`cuplay --board --gpus 0`) and the REPL's submit, the correct one ranked,
# the stored answer and the hang caught, the board going on. Called by
# tests/gpu.sh; alone: `bash tests/gpu_board.sh` (CUPLAY=./cuplay).
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
if ! have_gpu; then
	echo "gpu-board: skipped: no GPU"
	exit 0
fi
bad() { fail=$((fail + 1)); echo "FAIL: $*"; cat "$tmp/out" "$tmp/err" 2>/dev/null | sed 's/^/    /' | tail -n 25; }
k=tests/kernels/board
quick=$k/quick.exercise

# field KEY...: those keys of the JSON line in $tmp/out, tab-separated
field() { python3 -c 'import json, sys; d = json.loads(open(sys.argv[1]).read()); print("\t".join(str(d.get(k)) for k in sys.argv[2:]))' "$tmp/out" "$@" 2>/dev/null; }
# failed: the names of the failed checks, a line each
failed() { python3 -c 'import json, sys; [print(c["name"] + ": " + c["detail"]) for c in json.loads(open(sys.argv[1]).read())["checks"] if not c["ok"]]' "$tmp/out" 2>/dev/null; }
verify() { "$CUPLAY" --verify "$@" >"$tmp/out" 2>"$tmp/err"; }

# 1. correct: ok, figures, every check passed; a submission with its own knobs too
for f in tiled.cu knob.cu; do
	verify $quick $k/$f
	got=$(field status median_ms lo_ms hi_ms baseline_ms speedup gpu)
	IFS=$'\t' read -r st med lo hi base sp gpu <<<"$got"
	if [ "$st" = ok ] && [ -z "$(failed)" ] && python3 -c "import sys; m, l, h, b, s = map(float, sys.argv[1:]); assert 0 < l <= m <= h and b > 0 and abs(s - b / m) < 1e-3 * s" "$med" "$lo" "$hi" "$base" "$sp" 2>/dev/null; then
		ok "$f: ok, $med ms [$lo, $hi], baseline $base ms, speedup $sp on $gpu ($(field checks | grep -o "'name'" | wc -l) checks)"
	else
		bad "$f: expected ok with figures, got '$got'"
	fi
done

# 2. the cheats, each caught by the check meant for it
lib=$(ls -t build/*/libcuplay.a 2>/dev/null | head -n 1)
if [ -n "$lib" ] && cc -std=c17 -D_GNU_SOURCE $(for l in base check kfile; do printf -- '-Isrc/%s ' $l; done) \
	-o "$tmp/probe" $k/probe.c "$lib" -lm -pthread -ldl 2>"$tmp/err"; then
	sed "s/PROBE_VALUE/$("$tmp/probe" in)/" $k/seedprobe.cu >"$tmp/seedprobe.cu"
else
	bad "probe.c does not build against '$lib'"
fi
for what in "$k/stash.cu|wrong|then fresh inputs|a kernel that keeps an answer across launches" \
            "$tmp/seedprobe.cu|wrong|fresh inputs|differs from 'transpose'" \
            "$k/nan.cu|wrong|default inputs|non-finite values, the first at index 1"; do
	IFS='|' read -r file status check detail <<<"$what"
	verify $quick "$file"
	got=$(field status reason)
	if [ "${got%%	*}" = "$status" ] && failed | grep -F "$check" | grep -qF "$detail"; then
		ok "$(basename "$file"): $status: $(failed | head -n 1 | cut -c1-200)"
	else
		bad "$(basename "$file"): expected $status with a failed check '$check' saying '$detail', got '$got'"
	fi
done
# the stored answer and the probe pass on the default inputs: the checks above are the ones that catch them
for file in $k/stash.cu "$tmp/seedprobe.cu"; do
	verify $quick "$file" --seed 12345
	if python3 -c 'import json, sys; c = json.loads(open(sys.argv[1]).read())["checks"]; assert c[0]["ok"] and "default inputs" in c[0]["name"] and "12345" in json.dumps(c)' "$tmp/out" 2>/dev/null; then
		ok "$(basename "$file"): its check on the default inputs passes (--seed 12345 used for the fresh ones)"
	else
		bad "$(basename "$file"): expected its first check (default inputs) to pass and seed 12345 used"
	fi
done

# 3. a hang: stopped at a third of the 9 s limit, then the next verification runs
t0=$SECONDS
verify $quick $k/hang.cu
dt=$((SECONDS - t0))
got=$(field status reason)
if [ "${got%%	*}" = timeout ] && [ $dt -lt 30 ]; then
	ok "hang.cu: timeout after $dt s: ${got#*	}"
else
	bad "hang.cu: expected timeout within 30 s, got '$got' after $dt s"
fi
verify $quick $k/tiled.cu
if [ "$(field status)" = ok ]; then ok "after the hang: the next verification is ok"; else bad "after the hang: expected ok"; fi

# 4. the correct submission against `run transpose_tiled` at the exercise's size,
#    on the same GPU: the same worker code, the same timing options and stopping
#    rule; the runs before and after bracket the GPU's drift
runmed() {
	"$CUPLAY" --format csv -c 'use transpose.cu; set N=8192; run transpose_tiled' 2>/dev/null | python3 -c '
import csv, sys
rows = [r for r in csv.reader(sys.stdin) if r]
head = next(r for r in rows if r[0] == "kernel")
print(next(r for r in rows if r[0] == "transpose_tiled")[head.index("median_ms")])'
}
r1=$(runmed)
verify sessions/exercises/transpose.exercise $k/tiled.cu
vm=$(field status median_ms)
r2=$(runmed)
if [ "${vm%%	*}" = ok ] && python3 -c "import sys; a, b, v = map(float, sys.argv[1:]); r = (a + b) / 2; assert abs(v - r) <= 0.01 * r, (v, r)" "$r1" "$r2" "${vm#*	}" 2>/dev/null; then
	ok "transpose.exercise: verify's median ${vm#*	} ms within 1% of run's $r1 / $r2 ms (N=8192)"
else
	bad "transpose.exercise: verify's median '${vm}' not within 1% of run's '$r1' / '$r2' ms"
fi

# 5. through the board (`cuplay --board --gpus 0`) from the REPL's submit: the
#    correct one ranked first, the stored answer caught, the hang stopped and
#    the board goes on
. tests/board_real.sh
if ! real_board --gpus 0; then
	if grep -q -- '--board needs' "$tmp/board.err"; then echo "ok:   (the board not tested: $(head -n 1 "$tmp/board.err"))"
	else bad "the board did not start: $(head -n 3 "$tmp/board.err")"; fi
else
	cp $k/stash.cu $k/hang.cu "$tmp/"
	{ cat $k/tiled.cu; } >"$tmp/tiled.cu"
	# the stash and the hang load as files of their own: the tiled file's header before them
	for f in stash hang; do { grep '^//@' $k/tiled.cu; cat $k/$f.cu; } >"$tmp/$f.cu"; done
	for what in "tiled|0|^submit: #[0-9]* quick: ok$|rank 1 on" "stash|1|^submit: #[0-9]* quick: wrong$|keeps an answer" \
	            "hang|1|^submit: #[0-9]* quick: timeout$|made no progress" "tiled|0|^submit: #[0-9]* quick: ok$|rank 1 on"; do
		IFS='|' read -r f want first more <<<"$what"
		CUPLAY_BOARD=$board_url CUPLAY_TOKEN=$student timeout 300 "$CUPLAY" -c "use $tmp/$f.cu; submit transpose_tiled" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc = "$want" ] && grep -q "$first" "$tmp/out" && grep -q "$more" "$tmp/out"; then
			ok "board: $f.cu: $(grep '^submit: #' "$tmp/out"); $(grep '^  ' "$tmp/out" | tail -n 1 | cut -c1-160)"
		else
			bad "board: $f.cu: expected exit $want, '$first' and '$more' (got $rc)"
		fi
	done
fi
kill $board_pid 2>/dev/null; wait $board_pid 2>/dev/null

echo "gpu-board: $pass passed, $fail failed"
