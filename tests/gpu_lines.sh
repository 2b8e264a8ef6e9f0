#!/usr/bin/env bash
# tests/gpu_lines.sh: `lines` on the GPU, the per-line counters against
# what each access must cost. Called by tests/gpu.sh; run alone with
# `bash tests/gpu_lines.sh` (CUPLAY=./cuplay).
#   1. transpose_tiled: the shared read of the tile (tile[tx][ty + j]) has
#      at least 30 excess wavefronts of every 32 at PAD=0 (a 32-way bank
#      conflict), none at PAD=1; the line is named by its text; three
#      `lines` in one worker are each counted; the stall samples fall on
#      the tile's line
#   2. coalescing: square_uncoalesced's strided load reads at least 3.5x
#      its ideal sectors (16 against 4 at EL_PER_THREAD=4), the coalesced
#      kernel's line its ideal
#   3. a run-time-indexed local array: local sectors on its lines; two
#      held-out kernels (tests/kernels/matmul_sample.cu, block_reduce.cu)
#      counted, CUB's inlined lines among them
#   4. a sequence's steps and a template's instantiation are counted, and
#      the per-line run's overhead is said against a plain launch
#   5. the records as JSON: every counted line's figures add up
#   6. every shipped kernel (a sequence by its steps) and 3b's held-out ones
#      at their file's values:
#      its lines counted, some with warp instructions; explain's verdict,
#      each rule about an access or a stall naming its line; the by-line
#      difference of two variants; the lab report's per-line bars
# Closing line: "gpu-lines: N passed, N failed".
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "gpu-lines: skipped: no GPU"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache"

# expect_ok NAME: the session on stdin (a command a line: an expectation's
# text may hold ';', which -c would split), replayed with every
# expectation held and none skipped
expect_ok() {
	local name=$1
	cat >"$tmp/case.session"
	"$CUPLAY" "$tmp/case.session" >"$tmp/out" 2>&1 </dev/null
	local st=$?
	if [ $st = 0 ] && grep -q ': ok' "$tmp/out" && ! grep -q 'expectation failed\|: skipped' "$tmp/out" &&
		grep -q 'expectations: [0-9]* held, 0 failed, 0 skipped$' "$tmp/out"; then
		ok "$name: $(grep -c ': ok' "$tmp/out") expectations held"
	else
		bad "$name (exit $st)"
		sed 's/^/    /' "$tmp/out" | tail -n 25
	fi
}

# 1. bank conflicts: 32 lanes on one bank make 32 wavefronts of 1 ideal;
# one worker for all three `lines` (the second and third too are counted)
expect_ok "transpose_tiled PAD=0 against PAD=1" <<'S'
use transpose
set N=4096
lines transpose_tiled[PAD=0]
expect transpose_tiled[PAD=0] line "tile[tx][ty + j]" shared_excess >= 0.9375 * shared
expect transpose_tiled[PAD=0] line "tile[tx][ty + j]" shared_x >= 30
lines transpose_tiled[PAD=1]
expect transpose_tiled[PAD=1] line "tile[tx][ty + j]" shared_excess <= 0
expect transpose_tiled[PAD=1] line "tile[tx][ty + j]" shared > 0
lines transpose_tiled[PAD=0] transpose_tiled[PAD=1]
S
sed -n '/^lines: A = /,$p' "$tmp/out"
if grep -q 'SetConfig\|no counts per line' "$tmp/out"; then
	bad "a later lines in the same worker was refused its counts"; grep 'no counts per line' "$tmp/out" | head -3
else
	ok "three lines in one worker, each counted"
fi

# 1b. the stall samples fall on the kernel's lines: the tile's shared read
# and the lines of the kernel hold samples, and no note says none fell
expect_ok "transpose_tiled: stall samples on its lines" <<'S'
use transpose
set N=4096
set PAD=0
lines transpose_tiled
expect transpose_tiled line "tile[tx][ty + j]" samples > 0
expect transpose_tiled line "tile[tx][ty + j]" stall > 0.01
S
if grep -q 'no stall sample fell' "$tmp/out"; then
	bad "stall samples not attributed: $(grep -m1 'no stall sample fell' "$tmp/out")"
fi

# 2. coalescing: 16-byte strides touch 16 sectors where 4 would do
expect_ok "coalescing: the strided load and the coalesced one" <<'S'
use coalescing
set N=16777216
lines square_uncoalesced
expect square_uncoalesced line "const float v = A[idx];" global_x >= 3.5
lines square_coalesced
expect square_coalesced line "B[i] = A[i] * A[i];" global_x <= 1.01
expect square_coalesced line "B[i] = A[i] * A[i];" global_x >= 0.99
S

# 3. local memory: the array indexed at run time
expect_ok "a run-time-indexed local array" <<'S'
use tests/kernels/local_array.cu
lines local_copy
expect local_copy line "[local write]" local > 0
expect local_copy line "[local read]" local > 0
S

# 3b. held-out kernels: a matrix multiply as the toolkit's samples write
# it (its loads coalesced: a warp reads 32 consecutive floats, 4 sectors;
# its tile reads As[ty][k] a broadcast and Bs[k][tx] 32 banks: no excess),
# and a block sum through CUB's BlockReduce: CUB's lines, under the line
# that calls it, carry the warp shuffles' instructions
expect_ok "held-out: the samples' matrix multiply" <<'S'
use tests/kernels/matmul_sample.cu
lines matrix_mul
expect matrix_mul line "[load A]" global_x <= 1.01
expect matrix_mul line "[load B]" global_x <= 1.01
expect matrix_mul line "[dot]" shared_x <= 1.01
expect matrix_mul line "[dot]" inst > 0
S
if "$CUPLAY" --format json -c 'use tests/kernels/block_reduce.cu; lines block_reduce_sum' >"$tmp/out" 2>"$tmp/err" </dev/null \
	&& msg=$(python3 - "$tmp/out" <<'PY'
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["records"] if r["type"] == "line"]
hdr = [r for r in recs if r["file"] != "block_reduce.cu"]
assert hdr and all(r["under_line"] for r in hdr), hdr
inst = sum(r["warp_inst"] or 0 for r in hdr)
assert inst > 0, "CUB's lines counted no instruction"
print("%d CUB lines under line %d, %d warp instructions" % (len(hdr), hdr[0]["under_line"], inst))
PY
); then ok "held-out: CUB's block sum: $msg"; else bad "held-out: CUB's block sum: ${msg:-exit $?}"; sed 's/^/    /' "$tmp/err" | head; fi

# 4. a sequence's steps, a template's instantiation; the overhead said
if "$CUPLAY" --format json -c 'use linear_relu; set M=1024; set N=1024; lines linear; lines gemm<1>' \
	>"$tmp/out" 2>"$tmp/err" </dev/null; then
	if msg=$(python3 - "$tmp/out" <<'PY'
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["records"] if r["type"] == "line"]
ks = {r["kernel"] for r in recs}
assert {"gemm<0>", "bias_relu", "gemm<1>"} <= ks, ks
assert all(r["warp_inst"] is not None for r in recs), "a line without counts"
mma = [r for r in recs if r["kernel"] == "gemm<1>" and "acc[i][j] +=" in r["source"]]
assert mma and mma[0]["warp_inst"] > 0, mma
print("%d lines over %s" % (len(recs), ", ".join(sorted(ks))))
PY
	); then ok "sequence and template: $msg"; else bad "sequence and template: $msg"; fi
	if grep -q 'per-line run, not timed: counted in a patched launch (.*), sampled in one more (.* samples, one every 2^[0-9]* cycles); a plain launch ' "$tmp/err"; then
		ok "the per-line run's overhead: $(grep -m1 'per-line run' "$tmp/err" | sed 's/.*not timed: //')"
	else
		bad "the per-line run's overhead is not said"; sed 's/^/    /' "$tmp/err" | head
	fi
else
	bad "lines on a sequence and a template (exit $?)"; sed 's/^/    /' "$tmp/err" | head
fi

# 4b. explain names the line that convicts each rule (each file its own
# -c: a -c's commands are split on ';' and one file is in use at a time)
"$CUPLAY" -c 'use coalescing; set N=16777216; explain square_uncoalesced' \
	-c 'use transpose; set N=4096; set PAD=0; explain transpose_tiled' \
	-c 'use tests/kernels/local_array.cu; explain local_copy' >"$tmp/out" 2>&1 </dev/null
for want in 'explain: uncoalesced: line [0-9]* "const float v = A\[idx\];" {[0-9.]*x its ideal global sectors' \
            'explain: bank_conflicts: line [0-9]* "out\[.*tile\[tx\]\[ty + j\];" {[0-9.]*x its ideal shared wavefronts' \
            'explain: local_memory: line [0-9]* ".*\[local \(read\|write\)\]" {[0-9]* local sectors}'; do
	if grep -q "$want" "$tmp/out"; then ok "explain names the line: $(grep -m1 "$want" "$tmp/out")"
	else bad "explain did not name the line: $want"; sed 's/^/    /' "$tmp/out" | tail -n 8; fi
done

# 5. the records: per line, the instructions of its SASS add up to it
if "$CUPLAY" --format json -c 'use transpose; set N=2048; lines transpose_tiled --sass' >"$tmp/out" 2>"$tmp/err" </dev/null \
	&& msg=$(python3 - "$tmp/out" <<'PY'
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["records"] if r["type"] == "line"]
lines = [r for r in recs if r["pc"] is None]
for l in lines:
    pcs = [r for r in recs if r["pc"] is not None and r["line"] == l["line"] and r["file"] == l["file"]]
    assert sum(p["warp_inst"] for p in pcs) == l["warp_inst"], (l, pcs)
    assert abs(sum(p["samples"] or 0 for p in pcs) - (l["samples"] or 0)) < 1e-9, l
print("%d lines, their instructions add up" % len(lines))
PY
); then ok "records: $msg"; else bad "records: ${msg:-exit $?}"; sed 's/^/    /' "$tmp/err" | head; fi

# 6. every shipped kernel and the held-out ones of 3b, one process a file:
#    its lines; explain for every
#    kernel, each rule about an access or a stall naming its line; the
#    by-line difference of two variants of the first kernel (two values of
#    a define, as tests/bench_rerun.py sets them; a file without a define:
#    its first two kernels side by side); the lab report's per-line bars
variants=$(python3 -c 'import sys; sys.path.insert(0, "tests"); from bench_rerun import VALUES
for f, (d, a, b) in VALUES.items(): print(f, d + "=" + a, b if "=" in b else d + "=" + b)')
# the held-out files' (not bench_rerun's)
variants="$variants
matmul_sample BLOCK_SIZE=16 BLOCK_SIZE=32
block_reduce ITEMS=4 ITEMS=8"
for f in $(shipped 'kernels_src/*.cu') tests/kernels/matmul_sample.cu tests/kernels/block_reduce.cu; do
	n=$(basename "$f" .cu)
	list=$("$CUPLAY" --no-gpu -c "use $f" 2>/dev/null </dev/null | sed -n '1s/^[^(]*(\(.*\))$/\1/p')
	cmds="use $f" want=
	IFS=, read -ra ks <<<"$list"
	for k in "${ks[@]}"; do
		k=${k# }
		case $k in
		*" (step)") ;;
		*" (sequence)") cmds="$cmds; lines ${k% (sequence)}" ;;
		*) cmds="$cmds; lines $k"; want="$want $k" ;;
		esac
	done
	if [ -z "$want" ]; then bad "every kernel: $f: no kernel found"; continue; fi
	read -r first second _ <<<"$want"
	read -r _ va vb <<<"$(grep "^$n " <<<"$variants")"
	if [ -n "${va:-}" ]; then pair="$first[$va] $first[$vb]"
	else pair="$first ${second:-$first}"; fi
	"$CUPLAY" --format json -c "$cmds; explain; lines $pair; report $tmp/$n.html" >"$tmp/out" 2>"$tmp/err" </dev/null
	st=$?
	if msg=$(python3 - "$tmp/out" "$tmp/err" "$tmp/$n.html" "$pair" $want <<'PY'
import html, json, re, sys
out, err, page, pair = sys.argv[1:5]
want = sys.argv[5:]
recs = json.load(open(out))["records"]
notes = open(err).read()
# its lines: warp instructions counted for each kernel
counted = {}
for r in recs:
    if r["type"] == "line":
        counted[r["kernel"]] = counted.get(r["kernel"], 0) + (r.get("warp_inst") or 0)
missing = [k for k in want if not counted.get(k)]
assert not missing, "no warp instructions counted for " + ", ".join(missing)
# explain: a verdict for each; each rule about an access or a stall names a line
ex = [r for r in recs if r.get("type") == "explain"]
nov = [k for k in want if not any(r["kernel"] == k and r["part"] == "verdict" for r in ex)]
assert not nov, "no explain verdict for " + ", ".join(nov)
# (the rules src/cmd/perline.c's convicts table names a line for: those on
# counters always; those on stall samples unless the sampling got none)
counted_rules = {"uncoalesced", "bank_conflicts", "ldmatrix_conflicts", "local_memory", "accumulator_spills"}
stall_rules = {"no_wgmma", "loads_mma_turns"}
fired = sorted({r["name"] for r in ex if r["part"] == "rule" and r["name"] in counted_rules | stall_rules})
named = 0
for rule in fired:
    m = re.findall(r"^explain: %s: (line \d+ \"|\S+:\d+ \(inlined )" % rule, notes, re.M)
    assert m or (rule in stall_rules and re.search(r"^lines: .*(too short|no stall sample)", notes, re.M)), \
        "explain's %s names no line" % rule
    named += len(m)
# the two variants (or kernels) side by side
a, b = pair.split()
if a.split("[")[0] == b.split("[")[0]:
    assert ("lines: A = %s, B = %s: " % (a, b)) in notes, "no by-line difference of " + pair
else:
    assert ("lines: %s and %s are two kernels" % (a, b)) in notes, "no side by side of " + pair
# the report: each kernel's source with a bar a line
doc = open(page).read()
part = doc.split("Cost by source line", 1)
assert len(part) == 2, "no per-line section in the report"
blocks = re.split(r"<h3>", part[1])[1:]
nobar = [k for k in want if not any(bl.startswith((html.escape(k) + " (", html.escape(k) + ": ")) and 'class="bar"' in bl for bl in blocks)]
assert not nobar, "no per-line bars in the report for " + ", ".join(nobar)
print("%d kernels, %d line records; explain: %d verdicts, rules on lines: %s (%d named); %s; report: %d per-line tables"
      % (len(want), sum(1 for r in recs if r["type"] == "line"),
         sum(1 for r in ex if r["part"] == "verdict"), ", ".join(fired) or "none", named, pair, len(blocks)))
PY
) && [ $st = 0 ]; then
		ok "every kernel: $n: $msg"
	else
		bad "every kernel: $n (exit $st): ${msg:-}"; grep -v '^cuplay worker' "$tmp/err" | sed 's/^/    /' | head -n 8
	fi
done

echo "gpu-lines: $pass passed, $fail failed"
