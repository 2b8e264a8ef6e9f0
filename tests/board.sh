#!/usr/bin/env bash
# tests/board.sh: `cuplay --verify` without a GPU (compile-only): a class
# board's submissions compiled ("needs_gpu"), refused with the reason at
# their line (a foreign or quoted header, a //@ size line, a check on the
# kernel's line, a missing kernel, another signature, a source over the
# limit), a compile error at the submission's line; one JSON line on stdout
# with the keys the board reads; usage errors. Run by `make test`; alone:
# `bash tests/board.sh` (CUPLAY=./cuplay).
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok:   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; sed 's/^/    /' "$tmp/out" "$tmp/err" | tail -n 15; }
ex=tests/kernels/board/quick.exercise
k=tests/kernels/board

# verify FILE STATUS REASON [ARGS...]: the one JSON line, its status, its reason holding REASON
verify() {
	local file=$1 status=$2 reason=$3
	shift 3
	"$CUPLAY" --verify "$ex" "$file" --compile-only "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	local got
	got=$(python3 - "$tmp/out" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, "%d lines on stdout" % len(lines)
d = json.loads(lines[0])
for key in ("status", "reason", "kernel", "median_ms", "lo_ms", "hi_ms", "baseline_ms", "speedup", "rank_by", "gpu", "host", "checks"):
    assert key in d, "no key " + key
print(d["status"] + "\t" + d["reason"])
PY
)
	if [ $rc = 0 ] && [ "${got%%	*}" = "$status" ] && [[ "${got#*	}" == *"$reason"* ]]; then
		ok "$(basename "$file"): $got"
	else
		bad "$(basename "$file"): expected exit 0, '$status' and '$reason', got exit $rc: '$got'"
	fi
}

verify $k/tiled.cu needs_gpu "compile-only: checked and timed on a GPU; the submission's lines 6-12 ignored"
verify $k/knob.cu needs_gpu "compile-only"
verify $k/stash.cu needs_gpu "compile-only"
verify $k/typo.cu compile_error 'typo.cu:7: error: identifier "undeclared_scale" is undefined'
verify $k/foreign.cu refused "foreign.cu:4: '#include \"...\"' is not allowed"
verify $k/system.cu refused "system.cu:2: '#include <sys/socket.h>' is not a header of the CUDA toolkit"
verify $k/size.cu refused "size.cu:6: '//@ param' differs from the exercise's header"
verify $k/missing.cu refused "missing.cu defines no kernel 'transpose_tiled'"
verify $k/signature.cu refused "signature.cu:2: kernel 'transpose_tiled' takes (const float* __restrict__, double* __restrict__, int)"

# the source on stdin ('-'), named submission.cu
"$CUPLAY" --verify "$ex" - --compile-only <$k/typo.cu >"$tmp/out" 2>"$tmp/err"
if grep -q '"status":"compile_error","reason":"submission.cu:7: error' "$tmp/out"; then
	ok "stdin: the source read from '-', its lines named submission.cu"
else
	bad "stdin: expected a compile error at submission.cu:7"
fi

"$CUPLAY" --verify "$ex" - --compile-only --name mine.cu <$k/typo.cu >"$tmp/out" 2>"$tmp/err"
if grep -q '"status":"compile_error","reason":"mine.cu:7: error' "$tmp/out"; then
	ok "--name: the submission's lines named as given"
else
	bad "--name: expected a compile error at mine.cu:7"
fi

# made here: a check on the kernel's line, //@ include, a define of one's own, a long source, an absolute include
printf '//@ kernel transpose_tiled block 32, 8 check out = transpose(in, N, N) tol 1\n' | cat - $k/knob.cu >"$tmp/kl.cu"
verify "$tmp/kl.cu" refused "kl.cu:1: 'check' on the kernel's line is the exercise's to say"
printf '//@ include /tmp\n' | cat - $k/knob.cu >"$tmp/inc.cu"
verify "$tmp/inc.cu" refused "inc.cu:1: '//@ include' is not allowed"
printf '//@ define MINE = 3\n' | cat - $k/knob.cu >"$tmp/def.cu"
verify "$tmp/def.cu" refused "def.cu:1: '//@ define MINE': the exercise's file defines no 'MINE'"
printf '#include </etc/passwd>\n' | cat - $k/knob.cu >"$tmp/abs.cu"
verify "$tmp/abs.cu" refused "abs.cu:1: '#include </etc/passwd>' is not a header of the CUDA toolkit"
# a hoard of device memory: 20,000 MiB of __device__ array against the
# exercise's 16,384 (past 4 GiB, where a cubin's section size wraps)
sed 's/^#define STASH_MAX .*/#define STASH_MAX (5000ull * 1048576)/' $k/stash.cu >"$tmp/hoard.cu"
verify "$tmp/hoard.cu" refused "hoard.cu: its __device__ variables take 20000.0 MiB: over the exercise's memory limit of 16384 MiB"
{ cat $k/knob.cu; head -c 70000 /dev/zero | tr '\0' ' '; } >"$tmp/long.cu"
verify "$tmp/long.cu" refused "long.cu: over the exercise's limit of 65536 bytes"
"$CUPLAY" --verify "$ex" - --compile-only <"$tmp/long.cu" >"$tmp/out" 2>"$tmp/err"
if grep -q "submission.cu: over the exercise's limit of 65536 bytes" "$tmp/out"; then
	ok "stdin: a source over the limit refused"
else
	bad "stdin: expected a source over the limit refused"
fi
printf '__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int N) {}\n\0' >"$tmp/nul.cu"
verify "$tmp/nul.cu" refused "nul.cu: a NUL byte in the source"

# no GPU without --compile-only: the same verdict, said so
if have_gpu; then
	echo "ok:   (no-GPU verdict not tested: a GPU is here)"
else
	"$CUPLAY" --verify "$ex" $k/tiled.cu >"$tmp/out" 2>"$tmp/err"
	if grep -q '"status":"needs_gpu","reason":"compiled; no GPU here' "$tmp/out"; then
		ok "no GPU: needs_gpu, said"
	else
		bad "no GPU: expected needs_gpu"
	fi
fi

# a broken exercise: no result, the error at its line; usage errors: exit 2
printf 'name x\nrank_by fastest\n' >"$tmp/bad.exercise"
"$CUPLAY" --verify "$tmp/bad.exercise" $k/tiled.cu --compile-only >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && [ ! -s "$tmp/out" ] && grep -q "bad.exercise:2:9: expected 'median_ms' or 'speedup'" "$tmp/err"; then
	ok "a broken exercise: exit 1, no JSON, the error at its line"
else
	bad "a broken exercise: expected exit 1 and the error at line 2 (got $rc)"
fi
sed 's/^sizes .*/sizes M=64/' "$ex" >"$tmp/nosize.exercise"
"$CUPLAY" --verify "$tmp/nosize.exercise" $k/tiled.cu --compile-only >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && [ ! -s "$tmp/out" ] && grep -q "nosize.exercise: its sizes do not fit 'transpose.cu'" "$tmp/err"; then
	ok "an exercise whose size the file has no param for: exit 1, no JSON, said"
else
	bad "an exercise with a size unknown to its file: expected exit 1 and the message (got $rc)"
fi
for args in "$ex" "$ex $k/tiled.cu --seed" "$ex $k/tiled.cu --seed 0" "$ex $k/tiled.cu --gpu x" "$ex $k/tiled.cu --frob" "$ex $k/tiled.cu extra"; do
	"$CUPLAY" --verify $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q "^cuplay: " "$tmp/err"; then
		ok "usage: --verify $args: exit 2, $(head -n 1 "$tmp/err")"
	else
		bad "usage: --verify $args: expected exit 2 and a message (got $rc)"
	fi
done

# submit against a stand-in for the board's API (tests/board_mock.py): the
# exercise found by kernel, the file's text sent with the token, the
# progress, the result; a wrong one; a bad token; Ctrl-C while queued
if ! "$CUPLAY" -c 'help submit' 2>&1 | grep -q 'class board' || "$CUPLAY" -c 'use tests/kernels/board/tiled.cu; board http://127.0.0.1:1; token x; submit' 2>&1 | grep -q 'built without libcurl'; then
	echo "ok:   (submit not tested: built without libcurl)"
else
	mock() { # mock RESULT: starts the stand-in, its port in $port
		MOCK_RESULT=$1 MOCK_LOG="$tmp/mock.log" python3 tests/board_mock.py >"$tmp/port" 2>"$tmp/mock.err" &
		mock_pid=$!
		for _ in $(seq 1 200); do [ -s "$tmp/port" ] && break; sleep 0.1; done
		port=$(cat "$tmp/port")
	}
	: >"$tmp/mock.log"
	mock ok
	CUPLAY_TOKEN=good "$CUPLAY" -c "board http://127.0.0.1:$port/; use tests/kernels/board/tiled.cu; submit transpose_tiled" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 0 ] && grep -q '^submit: #12 transpose: ok$' "$tmp/out" && grep -q '^  check ok (2 checks)$' "$tmp/out" &&
	   grep -q '^  median 0.2451 ms (95%: 0.2448 to 0.2456), baseline 0.6125 ms, speedup 2.50x, rank 3 on NVIDIA H200$' "$tmp/out" &&
	   python3 -c '
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
post = [r for r in reqs if r["method"] == "POST"][0]
assert post["body"]["exercise"] == "transpose" and post["body"]["file"] == "tiled.cu", post
assert post["body"]["source"] == open("tests/kernels/board/tiled.cu").read()
assert sum(r["path"] == "/api/submissions/12" for r in reqs) == 4, reqs' "$tmp/mock.log"; then
		ok "submit: the exercise by kernel, the file sent, 4 polls, the result at the prompt"
	else
		bad "submit: expected the result lines and the file sent (exit $rc)"; cat "$tmp/mock.log"
	fi
	"$CUPLAY" -c "board http://127.0.0.1:$port; token bad; use tests/kernels/board/tiled.cu; submit" >"$tmp/out" 2>"$tmp/err"
	if [ $? = 1 ] && grep -q "submit: the exercises: the board answered 401: no or bad token" "$tmp/err"; then
		ok "submit: a bad token: the board's error in one line"
	else
		bad "submit: expected the 401 said"
	fi
	kill $mock_pid; wait $mock_pid 2>/dev/null
	mock wrong
	"$CUPLAY" -c "board http://127.0.0.1:$port; token good; use tests/kernels/board/tiled.cu; submit" >"$tmp/out" 2>"$tmp/err"
	if [ $? = 1 ] && grep -q "^submit: #12 transpose: wrong$" "$tmp/out" &&
	   grep -q "^  check failed: N=1000, fresh inputs: 'out' differs from 'transpose' at index 1000: got 0, want 1.5$" "$tmp/out"; then
		ok "submit: a wrong result: its first failed check"
	else
		bad "submit: expected the wrong result and its failed check"
	fi
	kill $mock_pid; wait $mock_pid 2>/dev/null
	mock hang
	t0=$SECONDS
	timeout -s INT 6 "$CUPLAY" -c "board http://127.0.0.1:$port; token good; use tests/kernels/board/tiled.cu; submit transpose_tiled transpose" >"$tmp/out" 2>"$tmp/err"
	dt=$((SECONDS - t0))
	if grep -q "submit: interrupted; submission #12 goes on at the board" "$tmp/out" && [ $dt -lt 10 ]; then
		ok "submit: Ctrl-C while queued stops the waiting ($dt s)"
	else
		bad "submit: expected Ctrl-C to stop the waiting"
	fi
	kill $mock_pid; wait $mock_pid 2>/dev/null
fi

# submit to the real board (`cuplay --board`, compile-only: --gpus none): the
# submission verified there by `cuplay --verify`, its verdict at the prompt
. tests/board_real.sh
if "$CUPLAY" -c 'use tests/kernels/board/tiled.cu; board http://127.0.0.1:1; token x; submit' 2>&1 | grep -q 'built without libcurl'; then
	echo "ok:   (submit to the board not tested: built without libcurl)"
elif ! real_board --gpus none; then
	if grep -q -- '--board needs' "$tmp/board.err"; then echo "ok:   (submit to the board not tested: $(head -n 1 "$tmp/board.err"))"
	else bad "the board did not start: $(head -n 3 "$tmp/board.err")"; fi
	kill $board_pid 2>/dev/null; wait $board_pid 2>/dev/null
else
	# a slip and a foreign header in a file that loads (its header copied)
	sed 's/__syncthreads();/__syncthreads(); undeclared_scale = 1;/' $k/tiled.cu >"$tmp/slip.cu"
	{ echo '#include <sys/socket.h>'; cat $k/tiled.cu; } >"$tmp/sock.cu"
	cp $k/tiled.cu "$tmp/tiled.cu"
	for what in "tiled.cu|0|^submit: #1 quick: needs_gpu$" "slip.cu|1|^  submission.cu:24: error: identifier \"undeclared_scale\" is undefined$" \
	            "sock.cu|1|^  submission.cu:1: '#include <sys/socket.h>' is not a header of the CUDA toolkit"; do
		IFS='|' read -r file want line <<<"$what"
		CUPLAY_BOARD=$board_url CUPLAY_TOKEN=$student timeout 120 "$CUPLAY" -c "use $tmp/$file; submit transpose_tiled" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc = "$want" ] && grep -q "$line" "$tmp/out"; then
			ok "submit to the board: $file: $(grep '^submit: #' "$tmp/out" | head -n 1), $(grep '^  ' "$tmp/out" | head -n 1)"
		else
			bad "submit to the board: $file: expected exit $want and '$line' (got $rc)"
		fi
	done
	kill $board_pid; wait $board_pid 2>/dev/null
fi

echo "board: $pass passed, $fail failed, 0 skipped"
