#!/usr/bin/env bash
# tests/gpu_start.sh: the GPU worker's start-up on a GPU. Called by
# tests/gpu.sh; alone: `bash tests/gpu_start.sh` (CUPLAY=./cuplay).
#   1. a fresh process runs transpose_tiled at N=8192 and it checks ok; its
#      worker's trace (CUPLAY_TRACE_WORKER) shows the HELLO sent before the
#      context was ready, the first request's host work (the host copies)
#      before it waited for the context, and, with the compile cached, the
#      request arriving while the context was still being made
#   2. `device` as the first command: the free memory, asked for once the
#      context exists, is there and below the total
#   3. `roof` as the first command measures every figure
#   4. Ctrl-C 50 ms after start (to the process group, as a terminal sends
#      it, and to the front end alone): cuplay ends promptly and leaves no
#      worker behind
#   5. at the prompt (tests/first_result.py, a pty): the worker started in
#      the background makes its context and sets up CUPTI unasked; nothing
#      printed meanwhile; Ctrl-C or quit during its start leave no worker behind;
#      on an empty cache, use, set and run typed as three lines: the first
#      result before the roofs and the kernel clock's check (its time is
#      make bench's), the roof's note on a line of its own before the next prompt,
#      save's roof fraction the note's; a new process on that cache shows
#      the roof at once with neither note; a run typed while they are
#      measured goes first
#   6. at the prompt (tests/prefetch.py --gpu): `set` after a run starts the
#      kernel's compile in the background; the run typed after it waits for it
# On a failure it prints the trace or output it judged. Closing line:
# "gpu-start: N passed, N failed".
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "gpu-start: skipped: no GPU"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache"
BAD_TAIL=40
info() { echo "      $*"; }

# line FILE TEXT: the number of the first line of FILE containing TEXT, or 0
line() { grep -n -F -- "$2" "$1" | head -n 1 | cut -d: -f1 | grep . || echo 0; }

# 1. the first result of a new process, and the order of its start-up
cmd='use transpose; set N=8192; run transpose_tiled'
"$CUPLAY" -c "$cmd" >"$tmp/out" 2>&1 </dev/null # fills the compile cache
settle
CUPLAY_TRACE_WORKER=1 "$CUPLAY" -c "$cmd" >"$tmp/out" 2>&1 </dev/null
st=$?
if [ "$st" = 0 ] && grep -Eq '^transpose_tiled +ok ' "$tmp/out"; then
	ok "fresh process: transpose_tiled N=8192 checks ok"
else
	bad "fresh process: transpose_tiled N=8192 (exit $st): expected a line 'transpose_tiled  ok ...'"
fi
hello=$(line "$tmp/out" "start-up: the HELLO sent")
ctx=$(line "$tmp/out" "start-up: the context")
arrived=$(line "$tmp/out" "start-up: the first request arrived")
filled=$(line "$tmp/out" "filled while the context is made")
waited=$(line "$tmp/out" "the context: waited")
info "trace: $(grep -E 'start-up: (the HELLO sent|the context|the first request|NVML|CUPTI|no kernel clock)|the context: waited|filled while' "$tmp/out" | tr -s ' ' | paste -sd ';' -)"
if [ "$hello" -gt 0 ] && [ "$ctx" -gt "$hello" ]; then
	ok "the HELLO went before the context was ready (trace lines $hello, $ctx)"
else
	bad "trace: expected 'start-up: the HELLO sent' before 'start-up: the context' (lines $hello, $ctx)"
fi
if [ "$filled" -gt 0 ] && [ "$waited" -gt "$filled" ]; then
	ok "the first run filled its host copies before it waited for the context (lines $filled, $waited)"
else
	bad "trace: expected '... filled while the context is made' before 'the context: waited' (lines $filled, $waited)"
fi
# With the compile cached the front end sends the run within milliseconds of
# the HELLO, and making a context takes about 100 ms: the request arrives
# before the context is ready.
if [ "$arrived" -gt 0 ] && [ "$ctx" -gt "$arrived" ]; then
	ok "the first request arrived while the context was being made (lines $arrived, $ctx)"
else
	bad "trace: expected 'start-up: the first request arrived' before 'start-up: the context' (lines $arrived, $ctx)"
fi

# 2. `device` first: its free memory waits for the context
settle
if "$CUPLAY" --format json -c 'device' >"$tmp/out" 2>&1 </dev/null; then
	if msg=$(python3 - "$tmp/out" <<'PY'
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["records"] if x["type"] == "device"][0]
assert r["memory_bytes"] > 0 and 0 < r["free_bytes"] <= r["memory_bytes"], r
print("%s: %.1f of %.1f GiB free" % (r["name"], r["free_bytes"] / 2**30, r["memory_bytes"] / 2**30))
PY
	); then ok "device as the first command: $msg"; else bad "device: free memory missing or above the total"; fi
else
	bad "device as the first command (exit $?)"
fi
if "$CUPLAY" -c 'device' >"$tmp/out" 2>&1 </dev/null && grep -q 'memory (.* free)' "$tmp/out" && ! grep -q '(0 B free)\|(0 bytes free)' "$tmp/out"; then
	ok "device (text): $(head -n 1 "$tmp/out")"
else
	bad "device (text): expected 'memory (N free)' with N above 0"
fi

# 3. `roof` first
if "$CUPLAY" --format json -c 'roof' >"$tmp/out" 2>&1 </dev/null; then
	if msg=$(python3 - "$tmp/out" <<'PY'
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["records"] if x["type"] == "roof"][0]
figs = ["copy_gbps", "read_gbps", "write_gbps", "stream_copy_gbps", "fp32_gflops"]
assert all(r[f] and r[f] > 0 for f in figs), r
print("memory %.0f GB/s, FP32 %.0f GFLOP/s" % (r["memory_gbps"], r["fp32_gflops"]))
PY
	); then ok "roof as the first command: $msg"; else bad "roof: figures missing"; fi
else
	bad "roof as the first command (exit $?)"
fi

# 4. Ctrl-C 50 ms after start, while the worker makes its context
# sigint WHO: WHO is "group" (the terminal's way) or "front"
sigint() {
	setsid "$CUPLAY" -c "$cmd" >"$tmp/out" 2>&1 </dev/null &
	local pid=$! t0 t1 st left
	sleep 0.05
	if [ "$1" = group ]; then kill -INT -- "-$pid" 2>/dev/null; else kill -INT "$pid" 2>/dev/null; fi
	t0=$(ms_now)
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	t1=$(ms_now)
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL -- "-$pid" 2>/dev/null
		bad "Ctrl-C ($1) 50 ms after start: cuplay still running after 10 s"
		return
	fi
	wait "$pid"
	st=$?
	sleep 3 # a worker outlives its front end only by its context's teardown
	left=$(pgrep -g "$pid" 2>/dev/null | tr '\n' ' ')
	if [ -n "$left" ]; then
		kill -KILL -- "-$pid" 2>/dev/null
		bad "Ctrl-C ($1) 50 ms after start: processes left in its group: $left"
	elif [ "$st" = 0 ] && ! grep -Eq '^transpose_tiled +ok ' "$tmp/out"; then
		bad "Ctrl-C ($1) 50 ms after start: exit 0 without a checked run"
	else
		ok "Ctrl-C ($1) 50 ms after start: ended in $(( (t1 - t0) / 1000000 )) ms (exit $st), no worker left"
	fi
}
sigint group
sigint front

# 5. the prompt starts the worker in the background (tests/first_result.py,
#    in a pseudo-terminal): ready unasked before a run is typed, quiet, and
#    Ctrl-C or quit while it starts leave no worker behind; the first result
#    on an empty cache before the roofs (tests/first_result.py's test 6)
CUPLAY="$CUPLAY" python3 tests/first_result.py >"$tmp/out" 2>&1
while IFS= read -r l; do
	case $l in
	"ok:   "*) ok "prompt: ${l#ok:   }" ;;
	"FAIL: "*) bad "prompt: ${l#FAIL: }" ;;
	esac
done <"$tmp/out"
grep -q '^first-result: ' "$tmp/out" || bad "prompt: tests/first_result.py did not finish"

# 6. at the prompt, `set` after a run starts its kernel's compile for the
#    worker's device; the run typed 300 ms later waits for it and checks ok
CUPLAY="$CUPLAY" python3 tests/prefetch.py --gpu >"$tmp/out" 2>&1
while IFS= read -r l; do
	case $l in
	"ok:   "*) ok "${l#ok:   }" ;;
	"FAIL: "*) bad "${l#FAIL: }" ;;
	esac
done <"$tmp/out"
grep -q '^prefetch: ' "$tmp/out" || bad "tests/prefetch.py --gpu did not finish"

echo "gpu-start: $pass passed, $fail failed"
