#!/usr/bin/env bash
# tests/run.sh: every test, from `make test`. Prints one line a failure and
# a closing "total: N passed, N failed, N skipped" line.
#   UNIT_BIN   unit test programs (from the Makefile)
#   OBJ_DIR    the objects of the build under test, for tests/layers.sh
#   CUPLAY     the binary under test (default ./cuplay)
#   UPDATE=1   rewrite golden files from the current output
#   SKIP_GPU=1 skip the GPU tests even where a GPU exists
#   GPU_SUITE=0  skip tests/gpu.sh and the lessons' replays (sections 5 and
#              6, the longest GPU part) but run the other GPU tests: on a
#              one-GPU host, make test in calls of its own (tests/gpuhost.sh
#              PART=rest, then PART=gpu1 and PART=gpu2)
#   GOLDEN=pat only the golden tests whose name matches the shell pattern
#   HAVE_READLINE=0  the binary has no readline (its lines are edited by vendor/linenoise)
#   CUPLAY_TEST_KEEP=DIR  each test's own log kept in DIR at the end
#   CUPLAY_TEST_SPLIT=0  on a machine of several GPUs, run the GPU tests on one
#              GPU in turn (the default: tests/gpu.sh in two halves on GPUs 0
#              and 1 from the start, the other GPU tests on GPU 2, or 1)
set -u
cd "$(dirname "$0")/.."
. tests/shipped.sh
CUPLAY=${CUPLAY:-./cuplay}
case "$CUPLAY" in /*) CUPLAY_ABS=$CUPLAY ;; *) CUPLAY_ABS=$PWD/$CUPLAY ;; esac
pass=0 fail=0 skip=0
tmp=$(mktemp -d)
# kernel files and a lesson of one's own sit in kernels_src/ and sessions/
# while the tests run (removed at exit): no test may see them, as MANIFEST
# and tests/shipped.sh arrange. One of each kind a user leaves there: a
# template, a softmax that uses INFINITY (as nvcc's implicit include allows),
# a file whose header has a mistake
own=
if [ -d kernels_src ] && [ -d sessions ] && [ -w kernels_src ] && [ -w sessions ]; then
	own=zz_not_shipped_$$
	cp tests/cxx/template_explicit.cu "kernels_src/$own.cu"
	cp tests/kernels/own_softmax_inf.cu "kernels_src/${own}_inf.cu"
	cp tests/kernels/own_header_mistake.cu "kernels_src/${own}_bad.cu"
	printf '# a lesson of my own\nuse %s\nrun\n' "$own" >"sessions/$own.session"
fi
declare -A bgpid=() bgt0=() # tests started beside the rest (below): pids, start times
cleanup() {
	# each a process group of its own, so that an interrupted make test stops all of it
	for p in "${bgpid[@]}"; do kill -- -"$p" 2>/dev/null; done
	wait
	# CUPLAY_TEST_KEEP=DIR: each test's own log kept there (a run cut short too)
	if [ -n "${CUPLAY_TEST_KEEP:-}" ] && mkdir -p "$CUPLAY_TEST_KEEP"; then
		find "$tmp" -maxdepth 1 -type f -size -2M -exec cp {} "$CUPLAY_TEST_KEEP/" \; 2>/dev/null
	fi
	rm -rf "$tmp"
	[ -z "$own" ] || rm -f "kernels_src/$own.cu" "kernels_src/${own}_inf.cu" "kernels_src/${own}_bad.cu" "sessions/$own.session"
}
trap cleanup EXIT
export NO_COLOR=1
# kernel files and sessions from this tree only
unset CUPLAY_PATH
# resources from the cubin, not from NVRTC's ptxas report: some NVRTC builds
# return no report (seen on the H100 machine), so golden files hold either way
export CUPLAY_IGNORE_PTXAS_LOG=1

ok()   { pass=$((pass + 1)); }
# mark SECTION: a "time:" line as each section starts (where a slow run spends)
mark() { echo "time: section $1 at ${SECONDS} s"; }
bad()  { fail=$((fail + 1)); echo "FAIL: $*"; }

# bg NAME CMD...: CMD started beside the rest, its output in $tmp/NAME
# fg NAME CMD...: $tmp/NAME made: waits for NAME where it was started
#                 beside, else runs CMD now; prints "time: NAME N s" then
bg() {
	local name=$1; shift
	bgt0[$name]=$SECONDS
	setsid "$@" >"$tmp/$name" 2>&1 </dev/null &
	bgpid[$name]=$!
}
fg() {
	local name=$1 t0=$SECONDS; shift
	if [ -n "${bgpid[$name]:-}" ]; then
		wait "${bgpid[$name]}"; unset "bgpid[$name]"; t0=${bgt0[$name]}
	else
		"$@" >"$tmp/$name" 2>&1 </dev/null
	fi
	echo "time: $name $((SECONDS - t0)) s (at ${SECONDS} s)"
}
# Where the machine has two GPUs or more (and CUDA_VISIBLE_DEVICES picks
# none), tests/gpu.sh, the longest part, starts now in two halves beside the
# tests that need no GPU: its part 1 and then every lesson's replay
# (tests/margins.sh) on GPU 0, its part 2 on GPU 1; every other test that
# uses a GPU runs on GPU 2 (on GPU 1 where there are two: a test there may
# wait for the GPU while part 2 measures, and say so). make test then takes
# about as long as the longer half. A GPU measures for one process at a
# time (its lock), as on a one-GPU machine.
split=0
if [ -z "${GOLDEN:-}" ] && [ "${SKIP_GPU:-}" != 1 ] && [ "${GPU_SUITE:-1}" != 0 ] && [ "${CUPLAY_TEST_SPLIT:-1}" != 0 ] &&
   [ -z "${CUDA_VISIBLE_DEVICES+x}" ] && command -v setsid >/dev/null &&
   [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')" -ge 2 ]; then
	split=1
	ngpu=$(nvidia-smi -L | grep -c '^GPU ')
	bg gpu env CUDA_VISIBLE_DEVICES=0 CUPLAY="$CUPLAY" CUPLAY_CLAIM_DEVICES=0,1 bash -c '
		GPU_PART=1 bash tests/gpu.sh
		bash tests/margins.sh 1 >"$1/margins" 2>&1; echo $? >"$1/margins.st"' gpu1 "$tmp"
	bg gpu2 env CUDA_VISIBLE_DEVICES=1 CUPLAY="$CUPLAY" GPU_PART=2 bash tests/gpu.sh
	others=1; [ "$ngpu" -lt 3 ] || others=2
	export CUDA_VISIBLE_DEVICES=$others
	# a fourth GPU: the examples of the documentation (4f) on it, from the start
	if [ "$ngpu" -ge 4 ] && command -v python3 >/dev/null; then
		bg examples env CUDA_VISIBLE_DEVICES=3 CUPLAY="$CUPLAY_ABS" GPU=1 python3 tests/examples.py
	fi
	echo "gpu: $ngpu GPUs: tests/gpu.sh's part 1 and the lessons' replays on GPU 0 from the start, its part 2 on GPU 1, the other GPU tests on GPU $others (CUPLAY_TEST_SPLIT=0: one GPU)"
fi

# Tests that need neither a GPU nor a quiet machine (no timing of their own)
# start now, beside the rest, where the machine has 4 cores or more
# (CUPLAY_TEST_JOBS=0: each in its place, in turn); their results are read
# in their place below, in the same order as when run in turn.
beside=0
if [ -z "${GOLDEN:-}" ] && [ "${CUPLAY_TEST_JOBS:-1}" != 0 ] && [ "$(nproc 2>/dev/null || echo 1)" -ge 4 ] &&
   command -v setsid >/dev/null; then
	beside=1
	for name in cache cli harden report paste board docs; do
		bg "$name" env CUPLAY="$CUPLAY" bash "tests/$name.sh"
	done
	if command -v python3 >/dev/null; then
		bg lab env CUPLAY="$CUPLAY_ABS" XDG_CACHE_HOME="$tmp/cache-lab" python3 tests/jupyterlab.py
		bg board_load env CUPLAY="$CUPLAY_ABS" TMPDIR="$tmp" XDG_CACHE_HOME="$tmp/cache-board_load" timeout 300 python3 tests/board_load.py
		bg board_page env CUPLAY="$CUPLAY_ABS" TMPDIR="$tmp" XDG_CACHE_HOME="$tmp/cache-board_page" timeout 300 python3 tests/board_page.py
		bg board_slurm env CUPLAY="$CUPLAY_ABS" TMPDIR="$tmp" XDG_CACHE_HOME="$tmp/cache-board_slurm" timeout 300 bash tests/board_slurm.sh
	fi
	echo "started beside the rest: ${!bgpid[*]} ($(nproc) cores; CUPLAY_TEST_JOBS=0: in turn)"
fi

# 0. the shape of src/: no use of or include from a layer above, no modules
#    that use each other in a circle (calls, and names from each other's
#    headers), no file over 1,000 lines, no function over 100
#    (tests/layers.sh); and that check fails where it should
#    (tests/layers_fails.sh: small trees made to fail it)
if [ -z "${GOLDEN:-}" ]; then
	OBJ_DIR=${OBJ_DIR:-build/rel} bash tests/layers.sh >"$tmp/layers" 2>&1
	st=$?
	if [ $st -eq 0 ]; then ok; tail -n 1 "$tmp/layers"
	elif [ $st -eq 77 ]; then skip=$((skip + 1)); tail -n 1 "$tmp/layers"
	else bad "layers"; sed 's/^/    /' "$tmp/layers"; fi
	bash tests/layers_fails.sh >"$tmp/layers_fails" 2>&1
	st=$?
	if [ $st -eq 0 ]; then ok; tail -n 1 "$tmp/layers_fails"
	elif [ $st -eq 77 ]; then skip=$((skip + 1)); tail -n 1 "$tmp/layers_fails"
	else bad "layers_fails"; sed 's/^/    /' "$tmp/layers_fails"; fi
fi

mark "1"
# 1. unit tests: each program prints "suite: N passed, N failed"
for t in ${UNIT_BIN:-}; do
	out=$("$t" 2>&1); st=$?
	line=$(printf '%s\n' "$out" | tail -n 1)
	if [ $st -eq 0 ]; then ok; echo "unit $line"; else bad "unit $(basename "$t")"; printf '%s\n' "$out" | sed 's/^/    /'; fi
done

mark "1b"
# 1b. what the writers wrote parses with real parsers (JSON, XML)
if [ -n "${UNIT_BIN:-}" ] && command -v python3 >/dev/null; then
	mkdir -p "$tmp/writers"
	for t in ${UNIT_BIN}; do case "$t" in */test_report|*/test_timeline) WRITERS_OUT="$tmp/writers" "$t" >/dev/null 2>&1 ;; esac; done
	if python3 - "$tmp/writers" <<'PY'
import csv, json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
rows = json.load(open(d + "/t.json"))["records"]
assert len(rows) == 2 and rows[0]["kernel"] == "transpose_tiled", rows
assert "\"quoted\"" in rows[0]["note"] and rows[0]["median_ms"] == 0.194 and rows[1]["note"] is None, rows
lines = [json.loads(l) for l in open(d + "/t.jsonl")]
assert lines == rows, lines
two = json.load(open(d + "/two.json"))
assert [r["type"] for r in two["records"]] == ["run", "run", "file"] and two["records"][2]["kernels"] == 3, two
r = list(csv.reader(open(d + "/t.csv")))
assert r[0] == ["kernel", "note", "median_ms"] and r[1][1] == rows[0]["note"] and float(r[1][2]) == 0.194, r
svg = ET.parse(d + "/chart.svg").getroot()
assert svg.tag.endswith("svg") and len(svg.findall(".//{http://www.w3.org/2000/svg}rect")) >= 4
# the timelines: a bar a span (with its <title>), a row label a stream, the statements
ns = "{http://www.w3.org/2000/svg}"
for name, spans, streams in (("streams4", 12, 4), ("serial", 3, 1), ("batch20", 20, 1), ("vadd3", 12, 3)):
    tl = ET.parse(d + "/timeline_%s.svg" % name).getroot()
    bars = [r for r in tl.iter(ns + "rect") if r.find(ns + "title") is not None]
    assert tl.tag == ns + "svg" and len(bars) == spans, (name, len(bars))
    texts = [t.text or "" for t in tl.iter(ns + "text")]
    assert sum(t.startswith("stream ") for t in texts) == streams, (name, texts)
    assert any(t.startswith("idle:") for t in texts) and texts[0] == "timeline of " + name, texts
    assert all(float(r.get("x")) >= 0 and float(r.get("width")) > 0 for r in bars), name
PY
	then ok; echo "writers: JSON, CSV and SVG (charts, timelines) parse"; else bad "writers: JSON, CSV or SVG does not parse"; fi
	# the goldens of explain's record and of the roofline (test_explain,
	# test_roofline) as parsers read them
	if python3 - <<'PY'
import csv, glob, json, xml.etree.ElementTree as ET
for f in glob.glob("tests/golden/explain/*.json"):
    recs = json.load(open(f))["records"]
    assert recs and all(r["type"] == "explain" for r in recs), f
    parts = {r["part"] for r in recs}
    assert {"limiter", "verdict", "headroom"} <= parts, (f, parts)
    for r in recs:
        assert r["value"] is None or isinstance(r["value"], (int, float)), (f, r)
    assert [r["name"] for r in recs if r["part"] == "verdict"][0] in ("memory", "compute", "latency", "launch", "unknown"), f
    rows = list(csv.DictReader(open(f[:-5] + ".csv")))
    assert [r["name"] for r in rows] == [r["name"] or "" for r in recs], f
svg = ET.parse("tests/golden/roofline/tiling.svg").getroot()
ns = "{http://www.w3.org/2000/svg}"
assert svg.tag == ns + "svg" and len(svg.findall(ns + "circle")) == 4 and svg.find(ns + "polyline") is not None
PY
	then ok; echo "writers: explain records and the roofline SVG parse"
	else bad "writers: explain records or the roofline SVG do not parse"; fi
fi

mark "2"
# 2. every shipped kernel file compiles with NVRTC and plans a launch (compile-only)
for f in $(shipped 'kernels_src/*.cu'); do
	if XDG_CACHE_HOME="$tmp/cache-compile" "$CUPLAY" --no-gpu -c "use $f; run" >"$tmp/out" 2>&1; then
		ok
	else
		bad "compile $f"; sed 's/^/    /' "$tmp/out"
	fi
done
echo "compile: $(shipped 'kernels_src/*.cu' | wc -l) kernel files"

mark "2a"
# 2a. held-out kernels' lines without a GPU: a block sum through CUB's
#     BlockReduce (the toolkit's headers: their line numbers move from one
#     toolkit to the next, so no golden) shows CUB's lines with their file
#     names, each under the kernel line that calls it, and the held-out
#     matrix multiply's lines in its own file (its golden: lines_heldout)
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	if "$CUPLAY" --no-gpu --format json -c 'use tests/kernels/block_reduce.cu; lines block_reduce_sum' \
		>"$tmp/cub.json" 2>"$tmp/cub.err" </dev/null &&
		msg=$(python3 - "$tmp/cub.json" tests/kernels/block_reduce.cu <<'PY2'
import json, sys
recs = [r for r in json.load(open(sys.argv[1]))["records"] if r["type"] == "line"]
src = open(sys.argv[2]).read().split("\n")
call = 1 + next(i for i, l in enumerate(src) if "[block sum]" in l)
own = [r for r in recs if r["file"] == "block_reduce.cu"]
hdr = [r for r in recs if r["file"] != "block_reduce.cu"]
assert own and hdr, recs
assert all(r["under_line"] == call for r in hdr), [(r["file"], r["line"], r["under_line"]) for r in hdr]
assert any(r["file"].startswith("block_reduce") and r["file"].endswith(".cuh") for r in hdr), hdr
assert all(r["source"] != "(header)" for r in hdr), "a header line without its text"
assert all(r["instructions"] > 0 for r in recs)
print("%d lines of %d headers, each under line %d" % (len(hdr), len({r["file"] for r in hdr}), call))
PY2
); then
		ok; echo "lines: CUB's inlined lines under their call: $msg"
	else
		bad "lines: CUB's inlined lines: ${msg:-exit $?}"; sed 's/^/    /' "$tmp/cub.err" | head
	fi
fi

mark "2c"
# 2c. tests/bench/lines_ncu.py, the comparison with Nsight Compute's Source
#     page, on an export and records made up here: figures within 1% pass,
#     one instruction 2% off fails and is named, a column missing is named
#     with the export's column headers
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	python3 - "$tmp" <<'PY2'
import json, sys
d = sys.argv[1]
head = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)",
        "Instructions Executed", "Thread Instructions Executed", "L2 Theoretical Sectors Global",
        "L2 Theoretical Sectors Global Excessive", "L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal"]
rows = [(0x7f0000001000, 10, 4000, 100, 0, 3), (0x7f0000001010, 1000, 1000, 4000, 0, 40),
        (0x7f0000001020, 1000, 1000, 0, 32000, 50), (0x7f0000001030, 0, 0, 0, 0, 0)]
def export(path, hd, off=0):
    with open(path, "w") as f:
        f.write('"Kernel Name","k"\n' + ",".join('"%s"' % h for h in hd) + "\n")
        for a, inst, thr, gsec, shwf, samp in rows:
            vals = {"Address": "0x%x" % a, "Source": "FFMA R1, R2, R3, R4", "Instructions Executed": "{:,}".format(inst),
                    "Thread Instructions Executed": thr, "L2 Theoretical Sectors Global": gsec,
                    "L1 Wavefronts Shared": shwf + (off if a == 0x7f0000001020 else 0),
                    "Warp Stall Sampling (All Samples)": samp}
            f.write(",".join('"%s"' % vals.get(h, 0) for h in hd) + "\n")
export(d + "/ok.csv", head)
export(d + "/off.csv", head, 640)
export(d + "/nocol.csv", [h for h in head if h != "L1 Wavefronts Shared"])
recs = [{"type": "line", "pc": (a - 0x7f0000001000), "file": "k.cu", "line": 5 + i // 2, "warp_inst": inst,
         "global_sectors": gsec or None, "shared_wavefronts": shwf or None, "samples": samp}
        for i, (a, inst, thr, gsec, shwf, samp) in enumerate(rows)]
recs += [{"type": "line", "pc": None, "file": "k.cu", "line": 5, "samples": 43},
         {"type": "line", "pc": None, "file": "k.cu", "line": 6, "samples": 50}]
json.dump({"records": recs}, open(d + "/lines.json", "w"))
# a kernel with no shared accesses: ncu's export has no shared columns then
json.dump({"records": [dict(r, shared_wavefronts=None) for r in recs]}, open(d + "/noshared.json", "w"))
export(d + "/noshcol.csv", [h for h in head if not h.startswith("L1 Wavefronts Shared")])
PY2
	py=tests/bench/lines_ncu.py
	python3 $py "$tmp/ok.csv" "$tmp/lines.json" k >"$tmp/n1" 2>&1; s1=$?
	python3 $py "$tmp/off.csv" "$tmp/lines.json" k >"$tmp/n2" 2>&1; s2=$?
	python3 $py "$tmp/nocol.csv" "$tmp/lines.json" k >"$tmp/n3" 2>&1; s3=$?
	python3 $py "$tmp/noshcol.csv" "$tmp/noshared.json" k >"$tmp/n4" 2>&1; s4=$?
	if [ $s1 = 0 ] && grep -q 'warp instructions *3 of *3 instructions within 1%' "$tmp/n1" && grep -q 'k: PASS' "$tmp/n1" &&
	   [ $s2 = 1 ] && grep -q 'shared wavefronts *0 of *1 instructions within 1%; worst 1.96% at 0020' "$tmp/n2" &&
	   grep -q 'k: FAIL' "$tmp/n2" && [ $s3 = 1 ] &&
	   grep -q "no column 'L1 Wavefronts Shared'; its columns: Address | Source | Warp Stall" "$tmp/n3" &&
	   [ $s4 = 0 ] && grep -q 'shared wavefronts *none on either side' "$tmp/n4"; then
		ok; echo "lines_ncu.py: agreement within 1% passes, 2% off fails, a missing column named with ncu's, no shared column where no shared access"
	else
		bad "lines_ncu.py ($s1 $s2 $s3 ${s4:-})"; cat "$tmp/n1" "$tmp/n2" "$tmp/n3" "$tmp/n4" | sed 's/^/    /'
	fi
fi

mark "2b"
# 2b. the wire: the binary as a worker refuses a front end of another wire
#     version, before it loads the driver: one MSG_ERROR frame, exit 1
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	"$CUPLAY" --worker 3 4 0 0 3</dev/null 4>"$tmp/wire" 2>"$tmp/wire.err"
	st=$?
	msg=$(python3 - "$tmp/wire" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
t, n = struct.unpack("=IQ", b[:12])
assert t == 2 and len(b) == 12 + n, (t, n, len(b))
print(b[12:].decode())
PY
)
	case "$msg" in
	"the GPU worker is from another build of cuplay (wire version "*", this is 0): restart cuplay")
		if [ $st = 1 ] && [ ! -s "$tmp/wire.err" ]; then ok; echo "wire: a worker refuses a front end of another version"
		else bad "wire: worker exit status $st"; sed 's/^/    /' "$tmp/wire.err"; fi ;;
	*) bad "wire: worker of another version said '$msg'" ;;
	esac
fi

mark "3"
# 3. golden tests: tests/golden/NAME.session replayed with --no-gpu
#    --mask-times (or NAME.args: the arguments; NAME.env: the environment),
#    output and exit status compared with NAME.out. no_driver*: what a machine without a CUDA
#    driver shows (CI's); skipped where a driver is installed. They run in a
#    tree that holds the shipped kernel files and lessons alone (what a
#    missing file's message lists does not depend on one's own files).
tree=$tmp/tree
if ! shipped_tree "$tree"; then bad "the shipped tree (MANIFEST names a file that is not there)"; fi
have_driver=0
ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && have_driver=1
for s in tests/golden/*.session tests/golden/*.args; do
	[ -e "$s" ] || continue
	name=${s%.*}
	# GOLDEN=pattern: only the golden tests whose name matches
	case "${name##*/}" in ${GOLDEN:-*}) ;; *) continue ;; esac
	case "${name##*/}" in
	no_driver*) if [ $have_driver = 1 ]; then
	                echo "golden ${name##*/}: skipped: a CUDA driver is installed"; skip=$((skip + 1)); continue
	            fi ;;
	esac
	case "$s" in
	*.session) [ -e "$name.args" ] && continue
	           set -- --no-gpu --mask-times "$s" ;;
	*.args)    eval "set -- $(cat "$s")" ;;
	esac
	rm -rf "$tmp/home"; mkdir -p "$tmp/home"
	# NAME.env: VAR=VALUE words the test runs with (explain_feed's recorded runs)
	envs=()
	[ -e "$name.env" ] && read -r -a envs <"$name.env"
	(cd "$tree" && env ${envs[@]+"${envs[@]}"} HOME="$tmp/home" XDG_CACHE_HOME="$tmp/home/cache" \
		XDG_STATE_HOME="$tmp/home/state" "$CUPLAY_ABS" "$@" </dev/null >"$tmp/actual" 2>&1)
	echo "exit $?" >>"$tmp/actual"
	if [ "${UPDATE:-}" = 1 ]; then cp "$tmp/actual" "$name.out"; fi
	if diff -u "$name.out" "$tmp/actual" >"$tmp/diff" 2>&1; then
		ok
	else
		bad "golden $name"; sed 's/^/    /' "$tmp/diff" | head -40
	fi
done

mark "3b"
# 3b. every lesson in sessions/ replays in compile-only mode as its golden
#     file says (tests/golden/lessons/NAME.out); expectations say skipped
for s in $(shipped 'sessions/*.session'); do
	name=$(basename "$s" .session)
	case "lesson_$name" in ${GOLDEN:-*}) ;; *) continue ;; esac
	want=tests/golden/lessons/$name.out
	(cd "$tree" && XDG_CACHE_HOME="$tmp/lesson-cache-$name" "$CUPLAY_ABS" --no-gpu --mask-times "$s" \
		</dev/null >"$tmp/actual" 2>&1)
	echo "exit $?" >>"$tmp/actual"
	if [ "${UPDATE:-}" = 1 ]; then cp "$tmp/actual" "$want"; fi
	if diff -u "$want" "$tmp/actual" >"$tmp/diff" 2>&1; then ok; else bad "lesson $name"; sed 's/^/    /' "$tmp/diff" | head -30; fi
done

# the notebook tests (3f, compile-only) beside the rest from here, where the
# others started beside it (the goldens above are done with the tree)
if [ $beside = 1 ] && command -v python3 >/dev/null; then
	bg notebook env CUPLAY="$CUPLAY_ABS" TREE="$tree" XDG_CACHE_HOME="$tmp/cache-notebook" python3 tests/notebook.py
fi

mark "3c"
# 3c. record: the file it writes replays to the same output
if [ -z "${GOLDEN:-}" ]; then
	rm -f "$tmp/rec.session"
	XDG_CACHE_HOME="$tmp/rec-cache" "$CUPLAY" --no-gpu --mask-times -c "use transpose; set N=1000; record $tmp/rec.session; set PAD=0; run transpose_tiled; nonsense; say recorded" \
		</dev/null 2>&1 | grep -v 'recording to\|^recorded to\|unknown command' >"$tmp/rec1"
	XDG_CACHE_HOME="$tmp/rec-cache2" "$CUPLAY" --no-gpu --mask-times "$tmp/rec.session" </dev/null 2>&1 |
		sed -n '/compile-only mode/,$p' >"$tmp/rec2"
	sed -n '/compile-only mode/,$p' "$tmp/rec1" >"$tmp/rec1b"
	if diff -u "$tmp/rec1b" "$tmp/rec2" >"$tmp/diff" && ! grep -q nonsense "$tmp/rec.session" &&
	   [ "$(head -n 2 "$tmp/rec.session")" = "$(printf 'use kernels_src/transpose.cu\nset N=1000')" ]; then
		ok; echo "record: the recorded session replays to the same output"
	else
		bad "record"; cat "$tmp/rec.session" | sed 's/^/    rec: /'; sed 's/^/    /' "$tmp/diff" | head -20
	fi
fi

mark "3d"
# 3d. Ctrl-C (fault row 8): back to the prompt with the state kept; a replay stops
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	gpu_flag=0
	if [ "${SKIP_GPU:-}" != 1 ] && ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && ls /dev/nvidia[0-9]* >/dev/null 2>&1; then gpu_flag=1; fi
	CUPLAY="$CUPLAY" GPU=$gpu_flag TMPDIR="$tmp" XDG_CACHE_HOME="$tmp/cache-interrupt" python3 tests/interrupt.py >"$tmp/int" 2>&1
	p=$(sed -n 's/^interrupt: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/int")
	if [ -n "$p" ]; then
		set -- $p
		pass=$((pass + $1)); fail=$((fail + $2))
		grep '^ok:\|^FAIL\|^    ' "$tmp/int" | sed 's/^ok:   /interrupt: /'
	else
		bad "interrupt tests did not finish"; sed 's/^/    /' "$tmp/int" | tail -n 20
	fi
fi

mark "3e"
# 3e. the prompt: the banner, the start-up file, edit, completion
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	has_gpu=0
	if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && ls /dev/nvidia[0-9]* >/dev/null 2>&1; then has_gpu=1; fi
	CUPLAY="$CUPLAY" GPU=$has_gpu python3 tests/prompt.py >"$tmp/prompt" 2>&1
	p=$(sed -n 's/^prompt: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$tmp/prompt")
	if [ -n "$p" ]; then
		set -- $p
		pass=$((pass + $1)); fail=$((fail + $2)); skip=$((skip + $3))
		grep '^ok:\|^FAIL\|^skipped\|^    ' "$tmp/prompt" | sed 's/^ok:   /prompt: /'
	else
		bad "prompt tests did not finish"; sed 's/^/    /' "$tmp/prompt" | tail -n 20
	fi
fi

mark "3f (prefetch)"
# 3f. the compile started when a value is typed: run waits for it; Ctrl-C,
# a new set, quit and errors stop it; nothing printed unasked
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	CUPLAY="$CUPLAY" TMPDIR="$tmp" python3 tests/prefetch.py >"$tmp/prefetch" 2>&1
	p=$(sed -n 's/^prefetch: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/prefetch")
	if [ -n "$p" ]; then
		set -- $p
		pass=$((pass + $1)); fail=$((fail + $2))
		grep '^ok:\|^FAIL\|^    ' "$tmp/prefetch" | sed 's/^ok:   /prefetch: /'
	else
		bad "prefetch tests did not finish"; sed 's/^/    /' "$tmp/prefetch" | tail -n 20
	fi
fi
mark "3e'"
# 3e'. the class board (`cuplay --board`) on a localhost port with a stand-in
#     verifier: tokens, escaping, limits, ranking, events, kill -9 and restart
#     (tests/board_server.py; skipped where cuplay was built without its libraries)
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	bgpu=0
	if [ "${SKIP_GPU:-}" != 1 ] && ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && ls /dev/nvidia[0-9]* >/dev/null 2>&1; then bgpu=1; fi
	CUPLAY="$CUPLAY_ABS" GPU=$bgpu TMPDIR="$tmp" python3 tests/board_server.py >"$tmp/board_server" 2>&1
	p=$(sed -n 's/^board_server: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$tmp/board_server")
	if [ -n "$p" ]; then
		set -- $p
		pass=$((pass + $1)); fail=$((fail + $2)); skip=$((skip + $3))
		grep '^FAIL\|^board_server: .*skipped:\|^    ' "$tmp/board_server"
		echo "board_server: $1 passed, $2 failed, $3 skipped"
	else
		bad "board_server tests did not finish"; sed 's/^/    /' "$tmp/board_server" | tail -n 20
	fi
fi
mark "3f (notebook)"
# 3f. the Jupyter kernel over `cuplay --serve`, and every lesson as a notebook
#     (tests/notebook.py; one line, skipped, where python3 lacks ipykernel,
#     jupyter_client, nbformat or nbclient)
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	fg notebook env CUPLAY="$CUPLAY_ABS" TREE="$tree" XDG_CACHE_HOME="$tmp/cache-notebook" python3 tests/notebook.py
	# the protocol's own tests run either way; the kernel's may say skipped
	if grep -q '^notebook: skipped' "$tmp/notebook"; then
		skip=$((skip + 1)); grep '^notebook: skipped' "$tmp/notebook"
	fi
	p=$(sed -n 's/^notebook: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/notebook")
	if [ -n "$p" ]; then
		set -- $p
		pass=$((pass + $1)); fail=$((fail + $2))
		grep '^ok:\|^FAIL\|^    ' "$tmp/notebook" | sed 's/^ok:   /notebook: /'
	else
		bad "notebook tests did not finish"; sed 's/^/    /' "$tmp/notebook" | tail -n 20
	fi
elif [ -z "${GOLDEN:-}" ]; then
	skip=$((skip + 1)); echo "notebook: skipped: no python3"
fi
mark "3g"
# 3g. a notebook in JupyterLab in headless Chromium at 1280 px: its table and
#     chart in the page, nothing wider than it, a screenshot (JUPYTERLAB_SHOT)
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	fg lab env CUPLAY="$CUPLAY_ABS" XDG_CACHE_HOME="$tmp/cache-lab" python3 tests/jupyterlab.py
	if grep -q '^jupyterlab: skipped' "$tmp/lab"; then
		skip=$((skip + 1)); grep '^jupyterlab: skipped' "$tmp/lab"
	else
		p=$(sed -n 's/^jupyterlab: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/lab")
		if [ -n "$p" ]; then
			set -- $p
			pass=$((pass + $1)); fail=$((fail + $2))
			grep '^ok:\|^FAIL\|^    ' "$tmp/lab" | sed 's/^ok:   /jupyterlab: /'
		else
			bad "jupyterlab tests did not finish"; sed 's/^/    /' "$tmp/lab" | tail -n 20
		fi
	fi
fi

mark "3h"
# 3h. the class board at scale, without a GPU: 200 submissions from 20
#     clients with the board killed mid-way (board_load), its live page in
#     headless Chromium (board_page), its verifications as jobs of a Slurm
#     of one node started here (board_slurm). Each closes with "NAME: N
#     passed, N failed" or says "NAME: skipped: ..."
board_test() {
	local name=$1 p; shift
	fg "$name" env CUPLAY="$CUPLAY_ABS" TMPDIR="$tmp" XDG_CACHE_HOME="$tmp/cache-$name" timeout 300 "$@"
	if grep -q "^$name: skipped" "$tmp/$name"; then
		skip=$((skip + 1)); grep "^$name: skipped" "$tmp/$name"
		return
	fi
	p=$(sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed\$/\1 \2/p" "$tmp/$name")
	if [ -n "$p" ]; then
		set -- $p
		pass=$((pass + $1)); fail=$((fail + $2))
		grep '^FAIL\|^    ' "$tmp/$name"
	else
		bad "$name tests did not finish"; sed 's/^/    /' "$tmp/$name" | tail -n 20
	fi
}
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	board_test board_load python3 tests/board_load.py
	board_test board_page python3 tests/board_page.py
	board_test board_slurm bash tests/board_slurm.sh
fi

# suite NAME: runs tests/NAME.sh, whose last line is "NAME: N passed, N
# failed, N skipped", and adds its counts; what is not "ok:" is shown
suite() {
	local name=$1 p
	fg "$name" env CUPLAY="$CUPLAY" bash "tests/$name.sh"
	p=$(sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped\$/\1 \2 \3/p" "$tmp/$name")
	if [ -n "$p" ]; then
		set -- $p
		pass=$((pass + $1)); fail=$((fail + $2)); skip=$((skip + $3))
		grep -v '^ok:' "$tmp/$name"
	else
		bad "$name tests did not finish"; sed 's/^/    /' "$tmp/$name" | tail -n 20
	fi
}

mark "4"
# 4. disk trouble under the compile cache: unwritable, read-only, full, corrupted
suite cache
if [ -z "${GOLDEN:-}" ]; then
	# 4b. the command line, help, the search path, make
	suite cli
	# 4b'. careless users and attackers: links, devices, FIFOs, full disks,
	#      partial sets, long and unprintable input
	suite harden
	# 4c. every command's output in csv, json, jsonl and markdown, parsed (the
	#     launching commands too, where a GPU is)
	suite formats
	# 4d. the lab report, opened in headless Chromium
	suite report
	# 4e. pasted idioms compile in cuplay where nvcc compiles them (nvcc as the oracle)
	suite paste
	# 4e''. a class board's submissions verified without a GPU (tests/board.sh)
	suite board
	# 4e'. the documentation covers every command, topic, //@ line and
	#     CUPLAY_ variable (tests/docs.sh)
	suite docs
fi

mark "4f"
# 4f. every example of README.md and docs/ runs: compile-only, and on the GPU
#     where there is one (tests/examples.py)
if [ -z "${GOLDEN:-}" ] && command -v python3 >/dev/null; then
	gpu=0
	if [ "${SKIP_GPU:-}" != 1 ] && ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && ls /dev/nvidia[0-9]* >/dev/null 2>&1; then gpu=1; fi
	fg examples env CUPLAY="$CUPLAY_ABS" GPU=$gpu python3 tests/examples.py
	p=$(sed -n 's/^examples: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$tmp/examples")
	if [ -n "$p" ]; then
		set -- $p
		pass=$((pass + $1)); fail=$((fail + $2)); skip=$((skip + $3))
		grep -v '^ok:' "$tmp/examples"
	else
		bad "example tests did not finish"; sed 's/^/    /' "$tmp/examples" | tail -n 20
	fi
fi

mark "5"
# 5. GPU tests
if [ "${SKIP_GPU:-}" = 1 ]; then
	echo "gpu: skipped: SKIP_GPU=1"; skip=$((skip + 1))
elif [ "${GPU_SUITE:-1}" = 0 ]; then
	echo "gpu: skipped: GPU_SUITE=0 (tests/gpu.sh run apart)"; skip=$((skip + 1))
else
	fg gpu env CUPLAY="$CUPLAY" bash tests/gpu.sh
	if [ $split = 1 ]; then fg gpu2 true; cat "$tmp/gpu2" >>"$tmp/gpu"; fi
	cat "$tmp/gpu"
	if grep -q '^gpu: skipped' "$tmp/gpu"; then skip=$((skip + 1))
	else
		# one closing line a part: each must be there
		want=1; [ $split = 0 ] || want=2
		if [ "$(grep -c '^gpu: [0-9]* passed, [0-9]* failed' "$tmp/gpu")" != $want ]; then bad "gpu tests did not finish"; fi
		while read -r p f; do pass=$((pass + p)); fail=$((fail + f)); done < <(sed -n 's/^gpu: \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' "$tmp/gpu")
	fi
fi

mark "6"
# 6. every lesson replayed once more in a fresh process, each expectation's
#    margin (tests/margins.sh; make bench-style repeats: tests/margins.sh 5)
if [ -z "${GOLDEN:-}" ] && [ "${SKIP_GPU:-}" != 1 ] && [ "${GPU_SUITE:-1}" = 0 ]; then
	echo "margins: skipped: GPU_SUITE=0 (tests/margins.sh run apart)"; skip=$((skip + 1))
elif [ -z "${GOLDEN:-}" ] && [ "${SKIP_GPU:-}" != 1 ]; then
	if [ $split = 1 ]; then st=$(cat "$tmp/margins.st" 2>/dev/null || echo 1) # run beside the others, on GPU 0
	else CUPLAY="$CUPLAY" bash tests/margins.sh 1 >"$tmp/margins" 2>&1; st=$?; fi
	if grep -q '^margins: skipped' "$tmp/margins"; then skip=$((skip + 1)); cat "$tmp/margins"
	elif [ $st = 0 ]; then ok; tail -n 1 "$tmp/margins"
	else bad "margins: a lesson failed"; cat "$tmp/margins"; fi
fi

echo "total: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
