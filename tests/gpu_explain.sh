#!/usr/bin/env bash
# tests/gpu_explain.sh: `roof` and `explain` on the GPU. Called by
# tests/gpu.sh; run alone with `bash tests/gpu_explain.sh` (CUPLAY=./cuplay).
#   1. the memory roof is the best of its figures, below the datasheet's peak
#   2. no kernel of the library runs above the memory roof
#   3. explain on every kernel of the library: each diagnosis as its
#      mechanism says (the table below, one reason a line), about a second
#   4. where ncu is on PATH: explain's speed of light within 3 points of
#      `ncu --section SpeedOfLight` on four kernels (both printed)
# Closing line: "gpu-explain: N passed, N failed".
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "gpu-explain: skipped: no GPU"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache"

# 1. roof: every figure measured; the best is the largest; the datasheet's
#    peak (when the driver gives it) is above every measured figure
if "$CUPLAY" --format json -c 'roof' >"$tmp/out" 2>&1 </dev/null; then
	if msg=$(python3 - "$tmp/out" <<'PY'
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["records"] if x["type"] == "roof"][0]
figs = ["copy_gbps", "read_gbps", "write_gbps", "stream_copy_gbps"]
assert all(r[f] and r[f] > 0 for f in figs), r
assert abs(r["memory_gbps"] - max(r[f] for f in figs)) < 1e-6, r
assert r["fp32_gflops"] > 0, r
if r["datasheet_gbps"] is not None:
    # a measurement cannot beat the pins: 2% for the clocks' rounding
    assert r["memory_gbps"] <= r["datasheet_gbps"] * 1.02, r
print("best %.0f GB/s (copy %.0f, read %.0f, write %.0f, stream copy %.0f), datasheet %s, FP32 %.0f GFLOP/s"
      % (r["memory_gbps"], r["copy_gbps"], r["read_gbps"], r["write_gbps"], r["stream_copy_gbps"],
         "%.0f GB/s" % r["datasheet_gbps"] if r["datasheet_gbps"] else "unknown", r["fp32_gflops"]))
PY
	); then ok "roof: $msg"; else bad "roof: figures missing or out of order"; fi
else
	bad "roof (exit $?)"
fi

# 1b. the roofs `roof` measured are kept for later processes (in the cache
#     directory): a new process's first run takes them from there instead of
#     measuring; a damaged file is measured again and rewritten
CUPLAY_TRACE=1 "$CUPLAY" -c 'use vector_add; set N=1048576; run vadd_naive' >"$tmp/out" 2>&1 </dev/null
if grep -q '^trace: roof: the roofs of this device from ' "$tmp/out" && ! grep -q '^trace: stream_read ' "$tmp/out"; then
	ok "roof: a new process takes the roofs from the cache"
else
	bad "roof: a new process measured the roofs again (or said nothing)"
fi
for f in "$XDG_CACHE_HOME"/cuplay/roof-*; do printf 'cuplay roof 1\ncopy 12\n' >"$f"; done
CUPLAY_TRACE=1 "$CUPLAY" -c 'use vector_add; set N=1048576; run vadd_naive' >"$tmp/out" 2>&1 </dev/null
if grep -q '^trace: stream_read ' "$tmp/out" && grep -q '^best ' "$XDG_CACHE_HOME"/cuplay/roof-*; then
	ok "roof: a damaged cache file is measured again and rewritten"
else
	bad "roof: a damaged cache file was not measured again"
fi

# 2. the roof is a ceiling: no kernel of the library above it (2% for noise;
#    the streaming kernels are what a copy or a read can reach at best)
worst=""
for f in $(shipped 'kernels_src/*.cu'); do
	"$CUPLAY" --format json -c "use $f; run" >"$tmp/out" 2>"$tmp/err" </dev/null || true
	w=$(python3 - "$tmp/out" <<'PY' 2>/dev/null
import json, sys
# runs on host data are measured against the host link, not the memory roof
recs = [r for r in json.load(open(sys.argv[1]))["records"]
        if r.get("type") == "run" and r.get("roof_frac") and not r.get("link")]
if recs:
    r = max(recs, key=lambda r: r["roof_frac"])
    print("%s %.3f" % (r["kernel"], r["roof_frac"]))
PY
	)
	[ -n "$w" ] && worst="$worst$w"$'\n'
done
top=$(printf '%s' "$worst" | sort -k2 -g | tail -n 1)
if [ -n "$top" ] && awk -v v="${top##* }" 'BEGIN { exit !(v <= 1.02) }'; then
	ok "roof is a ceiling: the closest kernel is ${top% *} at $(awk -v v="${top##* }" 'BEGIN { printf "%.0f%%", v * 100 }')"
else
	printf '%s' "$worst" >"$tmp/out"
	bad "a kernel runs above the memory roof: ${top:-no figures}"
fi

# 3. explain every kernel. Each line: file, settings, kernel, what must hold
#    (bound=B, limiter=L or L1/L2 (either), rule=R, norule=R, or "-": a diagnosis, nothing
#    more; counters=any: with or without a speed of light), and the reason,
#    which the failure message repeats.
cat >"$tmp/want" <<'EOF'
coalescing|-|square_coalesced|bound=memory limiter=dram/l2 norule=uncoalesced|each byte moved once: DRAM, or the L2 every byte passes (an H200's HBM outruns its L2), is the busiest unit
coalescing|-|square_uncoalesced|bound=memory rule=uncoalesced|4-byte loads 16 bytes apart: 16 sectors a request where 4 would do
coalescing|-|square_fixed|bound=memory norule=uncoalesced|the same work indexed so neighbours read neighbours: 4 sectors a request
coalescing|-|square_l1_reuse|rule=uncoalesced|the strided loads of square_uncoalesced, issued back to back: still 16 sectors a request
coalescing|-|square_vectorized|bound=memory limiter=dram/l2 norule=uncoalesced|one float4 a thread: 16 sectors are what a warp of 16-byte loads needs
transpose|PAD=0|transpose_tiled|bound=memory rule=bank_conflicts|a column of a 32x32 tile is one bank: 32-way conflicts
transpose|PAD=1|transpose_tiled|bound=memory norule=bank_conflicts|one float of padding spreads the column over 32 banks
transpose|-|transpose_naive|bound=memory rule=uncoalesced|its stores walk a column: one sector per thread
transpose|-|transpose_seed|-|a diagnosis, no claim
matmul|-|matmul_naive|-|a diagnosis, no claim (L1 serves most of its loads; the limiter depends on the card)
matmul|-|matmul_tiled|-|a diagnosis, no claim
matmul|-|matmul_register_tiled|bound=compute limiter=sm|64 FMAs per 16 floats from shared memory: the SM pipes are the busiest
vector_add|-|vadd_naive|bound=memory limiter=dram/l2|two loads and a store per thread, no reuse: the memory system's limit (DRAM, or the L2 on a card whose HBM outruns it)
vector_add|-|vadd_grid_stride|bound=memory|the same traffic from one wave of blocks
vector_add|-|vadd_float4|bound=memory limiter=dram/l2 norule=uncoalesced|16-byte accesses at the memory system's speed
vector_add|-|empty_launch|bound=launch|it does nothing: its time is the launch
reduce|-|reduce_global|-|a diagnosis, no claim
reduce|-|reduce_interleaved|-|a diagnosis, no claim (divergence is printed: tid % (2*s) idles lanes)
reduce|-|reduce_shared|norule=divergence|contiguous active threads: full warps until the last steps
reduce|-|reduce_first_add|-|a diagnosis, no claim
reduce|-|reduce_warp|bound=memory norule=atomics|float4 loads and shuffles, one atomic per block: reads at DRAM speed
dot|-|dot_shared_atomic|norule=atomics|one atomicAdd per block
dot|-|dot_warp|norule=atomics|one atomicAdd per block
convolution|-|conv_global|-|a diagnosis, no claim
convolution|-|conv_constant|-|a diagnosis, no claim
convolution|-|conv_tiled|-|a diagnosis, no claim
dynpar|-|reduce_tail_launch|counters=any|a diagnosis, no claim (counters of a kernel that launches kernels may be refused)
unified|-|scale_managed|-|a diagnosis, no claim
unified|-|scale_device|bound=memory|a read and a write per element, nothing else
unified|-|scale_prefetched|-|a diagnosis, no claim
EOF
while IFS='|' read -r file set kernel want why; do
	cmds="use $file" lab=""
	[ "$set" != - ] && cmds="$cmds; set $set" lab=" [$set]"
	start=$(date +%s.%N)
	"$CUPLAY" --format json -c "$cmds; explain $kernel" >"$tmp/out" 2>"$tmp/err" </dev/null
	st=$?
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	cp "$tmp/out" "$tmp/explain-$kernel-${set//=/}.json"
	if [ $st -ne 0 ]; then
		cat "$tmp/err" >>"$tmp/out"
		bad "explain $kernel$lab (exit $st)"
		continue
	fi
	if msg=$(python3 - "$tmp/out" "$kernel" "$want" <<'PY' 2>&1
import json, sys
path, kernel, want = sys.argv[1:4]
recs = [r for r in json.load(open(path))["records"] if r.get("type") == "explain" and r["kernel"] == kernel]
assert recs, "no explain record"
part = lambda p: [r for r in recs if r["part"] == p]
bound = part("verdict")[0]["name"]
limiter = part("limiter")[0]["name"]
rules = [r["name"] for r in part("rule")]
sol = {r["name"]: r["value"] for r in part("sol")}
assert sol or "counters=any" in want, "no speed of light (counters not read?): " + json.dumps(recs)[:300]
# a share of peak is a percentage; unknown only where a launch-bound kernel
# keeps a unit busy too few cycles to read (an empty kernel's L1)
for k, v in sol.items():
    assert (v is None and bound == "launch") or (v is not None and -0.5 <= v <= 100.5), "sol %s is %s" % (k, v)
assert not sol or any(v is not None for v in sol.values()), "no share of peak known"
got = {"bound": bound, "limiter": limiter}
for w in want.split():
    if w == "-" or w == "counters=any":
        continue
    k, v = w.split("=")
    if k in got:
        assert got[k] in v.split("/"), "%s is %s, expected %s" % (k, got[k], " or ".join(v.split("/")))
    elif k == "rule":
        assert v in rules, "rule %s did not fire (fired: %s)" % (v, rules or "none")
    elif k == "norule":
        assert v not in rules, "rule %s fired" % v
head = part("headroom")[0]
print("%s-bound, limiter %s (%s), headroom %s, rules: %s" % (
    bound, limiter, " ".join("%s %s" % (k, "-" if v is None else "%.0f%%" % v) for k, v in sol.items()),
    "%.2fx" % head["value"] if head["value"] is not None else "-", ", ".join(rules) or "none"))
PY
	); then
		ok "explain $kernel$lab (${secs}s for the whole process: start, roofs, compile, check, samples, counters): $msg"
	else
		echo "$msg" >>"$tmp/out"
		bad "explain $kernel$lab: $msg (why expected: $why)"
	fi
done <"$tmp/want"

# 3b. where counters are not permitted (CUPLAY_NO_COUNTERS=1 plays it):
#     explain still gives the verdict timing supports, says what needs
#     counters and how to allow them; a rule expectation is skipped, not
#     failed; empty_launch is launch-bound on timing alone
nc='use vector_add; explain vadd_float4 empty_launch; expect empty_launch bound launch; expect vadd_float4 rule not uncoalesced'
if CUPLAY_NO_COUNTERS=1 "$CUPLAY" -c "$nc" >"$tmp/out" 2>&1 </dev/null; then
	if grep -q 'NVreg_RestrictProfilingToAdminUsers=0' "$tmp/out" && grep -q 'need hardware counters' "$tmp/out" &&
	   grep -q 'launch-bound' "$tmp/out" && grep -q 'expect vadd_float4 rule not uncoalesced: skipped' "$tmp/out" &&
	   grep -q 'expect: empty_launch is launch-bound' "$tmp/out"; then
		ok "explain without counters: timing's verdict, what needs counters and how to allow them"
	else
		bad "explain without counters: expected the timing verdict, the note on counters, a skipped rule"
	fi
else
	bad "explain without counters (exit $?)"
fi

# 4. against Nsight Compute's own Speed of Light, where ncu is installed:
#    the same launch profiled by ncu (cuplay's counters are then busy: ncu
#    holds them, so `run` times it) and by explain, within 3 points
if command -v ncu >/dev/null; then
	while IFS='|' read -r file set kernel; do
		cmds="use $file" lab=""
		[ "$set" != - ] && cmds="$cmds; set $set" lab=" [$set]"
		"$CUPLAY" --format json -c "$cmds; explain $kernel" >"$tmp/ours.json" 2>"$tmp/out" </dev/null
		rm -f "$tmp/ncu.csv"
		ncu --section SpeedOfLight --csv --clock-control none --target-processes all -k "regex:^$kernel\$" -c 1 \
			--log-file "$tmp/ncu.csv" "$CUPLAY" -c "$cmds; check off; warmup 0; run $kernel" >>"$tmp/out" 2>&1 </dev/null
		if msg=$(python3 - "$tmp/ours.json" "$tmp/ncu.csv" "$kernel" <<'PY' 2>&1
import csv, io, json, sys
ours_path, ncu_path, kernel = sys.argv[1:4]
ours = {r["name"]: r["value"] for r in json.load(open(ours_path))["records"]
        if r.get("type") == "explain" and r["kernel"] == kernel and r["part"] == "sol"}
text = open(ncu_path).read()
text = text[text.find('"ID"'):] if '"ID"' in text else text
names = {"DRAM Throughput": "dram", "L2 Cache Throughput": "l2", "L1/TEX Cache Throughput": "l1",
         "Compute (SM) Throughput": "sm"}
theirs = {}
for r in csv.DictReader(io.StringIO(text)):
    n = names.get(r.get("Metric Name"))
    if n and n not in theirs:
        theirs[n] = float(r["Metric Value"].replace(",", ""))
assert len(theirs) == 4, "ncu gave %s" % theirs
line = "  ".join("%s %.1f vs ncu %.1f" % (k, ours.get(k, float("nan")), theirs[k]) for k in ("dram", "l2", "l1", "sm"))
bad = [k for k in theirs if ours.get(k) is None or abs(ours[k] - theirs[k]) > 3]
print(line)
sys.exit(1 if bad else 0)
PY
		); then
			ok "explain vs ncu SOL, $kernel$lab: $msg"
		else
			echo "$msg" >>"$tmp/out"
			bad "explain vs ncu SOL, $kernel$lab: more than 3 points apart: $msg"
		fi
	done <<'EOF'
coalescing|-|square_coalesced
coalescing|-|square_uncoalesced
transpose|PAD=0|transpose_tiled
matmul|-|matmul_register_tiled
EOF
else
	echo "skip: explain vs ncu SOL: ncu is not on PATH"
fi

echo "gpu-explain: $pass passed, $fail failed"
