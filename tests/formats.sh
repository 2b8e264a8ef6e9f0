#!/usr/bin/env bash
# tests/formats.sh: every command's output under csv, json, jsonl and
# markdown is data a parser takes: one JSON document per invocation, typed
# numbers, null for what is missing, stdout data only (notes on stderr).
# Compile-only here; with a GPU, the commands that launch too.
# Closing line: "formats: N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
pass=0 fail=0 skip=0
ok()  { pass=$((pass + 1)); echo "ok:   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; sed 's/^/    /' "$tmp/err" | tail -n 15; }

mode=--no-gpu

# check NAME FORMAT CMDS WANT [STATUS]: WANT is a python expression over
# `recs` (the records, a list of dicts; csv rows are strings) that must
# hold, and the exit status STATUS (0)
check() {
	local name=$1 fmt=$2 cmds=$3 want=$4 want_st=${5:-0}
	"$CUPLAY" $mode --format "$fmt" -c "$cmds" >"$tmp/out" 2>"$tmp/err" </dev/null
	local st=$?
	if python3 - "$tmp/out" "$fmt" "$want" >>"$tmp/err" 2>&1 <<'PY'
import csv, io, json, sys
path, fmt, want = sys.argv[1:4]
text = open(path).read()
recs = []
heads = []
if fmt == "json":
    doc = json.loads(text)                      # one document, nothing else
    assert set(doc) == {"cuplay", "format", "records"} and doc["format"] == 1, doc.keys()
    recs = doc["records"]
elif fmt == "jsonl":
    recs = [json.loads(l) for l in text.splitlines()]
elif fmt == "csv":
    # tables of other columns one after another, a blank line between:
    # each a header and rows of its width; heads: the headers read
    head = None
    heads = []
    for r in csv.reader(io.StringIO(text)):
        if not r:
            head = None
        elif head is None:
            head = r
            heads.append(r)
        else:
            assert len(r) == len(head), (head, r)
            recs.append(dict(zip(head, r)))
elif fmt == "markdown":
    for block in text.split("\n\n"):
        lines = [l for l in block.splitlines() if l]
        if not lines:
            continue
        assert all(l.startswith("|") and l.endswith("|") for l in lines), lines
        assert set(lines[1].replace("|", "").split()) <= {"---", "---:"}, lines[1]
        head = [c.strip() for c in lines[0].strip("|").split("|")]
        for l in lines[2:]:
            recs.append(dict(zip(head, [c.strip() for c in l.strip("|").split(" | ")])))
if not eval(want):
    print("records:", json.dumps(recs)[:1500])
    sys.exit(1)
PY
	then
		if [ $st = "$want_st" ]; then ok "$name ($fmt)"; else bad "$name ($fmt): exit $st"; fi
	else
		bad "$name ($fmt): $want"
	fi
}

T='use transpose'
for f in json jsonl csv markdown; do
	check "use and run (compile-only)" $f "$T; run; run transpose_naive" 'len(recs) == 4'
	check ls $f "ls" 'any(r["file"] == "transpose" for r in recs)'
	check show $f "$T; show" 'any(r.get("name") == "PAD" for r in recs) and any(r.get("name") == "in" for r in recs)'
	check info $f "$T; info transpose_tiled" 'len(recs) == 1 and str(recs[0]["regs"]).isdigit()'
	check sweep $f "$T; sweep PAD=0,1" 'len(recs) == 6'
	check "metrics list" $f "metrics list" 'any(r["metric"] == "dram_read" for r in recs)'
	check ptx $f "$T; ptx transpose_naive" 'len(recs) == 1 and ".entry" in recs[0]["text"]'
	check "help, device, lessons (prose on stderr)" $f "help; help run; device; lessons" 'recs == []'
	check "an error (on stderr)" $f "$T; set NOPE=1; run transpose_naive" 'len(recs) == 1' 1
	check "explain and roofline without a GPU (notes on stderr)" $f "$T; explain transpose_tiled; roofline" 'recs == []'
	check "lines without a GPU: instructions per line" $f "$T; lines transpose_tiled" \
		'len(recs) > 5 and any(str(r["line"]) == "90" and int(r["instructions"]) > 0 for r in recs)'
done
# csv: the rows of two files' runs are one table, each row naming its file
check "runs of two files: one header" csv "$T; run transpose_tiled; use vector_add; run vadd_naive" \
	'len(heads) == 1 and [(r["kernel"], r["file"]) for r in recs] == \
	 [("transpose_tiled", "kernels_src/transpose.cu"), ("vadd_naive", "kernels_src/vector_add.cu")]'
# json: numbers are numbers, booleans booleans, what is missing null
check "typed values" json "$T; info transpose_tiled; show; ls" \
	'recs[0]["regs"] == 30 and recs[0]["smem_static_bytes"] == 4224 and recs[0]["cluster"] is None and \
	 any(r["type"] == "value" and r["name"] == "N" and r["value"] == 8192 and r["set"] is False for r in recs) and \
	 any(r["type"] == "file" and r["current"] is True for r in recs)'
check "compile-only resources" json "$T; run" \
	'[r["type"] for r in recs] == ["resources"] * 3 and recs[0]["regs"] == 12 and recs[0]["dyn_smem_bytes"] is None'
check "the format changed mid-way: two documents are not made" json "$T; run transpose_naive; format json; run transpose_naive" \
	'len(recs) == 2'
# save: the file is the document stdout has, with cuplay's version
version=$("$CUPLAY" --version | sed -n 's/^cuplay //p')
"$CUPLAY" --no-gpu -c "$T; set N=256; run; save $tmp/saved.json" >"$tmp/err" 2>&1 </dev/null
if [ -n "$version" ] && python3 - "$tmp/saved.json" "$version" >>"$tmp/err" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["cuplay"] == sys.argv[2] and doc["format"] == 1 and len(doc["records"]) == 3, doc
PY
then ok "save: the JSON file says cuplay's version ($version)"
else bad "save: the JSON file's version is not '$version'"; fi

if have_gpu; then
	mode=
	for f in json csv; do
		check run $f "$T; set N=1024; run; run" 'len(recs) == 6 and all(r["check"] == "ok" for r in recs)'
		check "runs of two files" $f "$T; set N=1024; run transpose_tiled; use vector_add; set N=4096; run vadd_naive" \
			'[(r["kernel"], r["file"]) for r in recs] == [("transpose_tiled", "kernels_src/transpose.cu"), \
			 ("vadd_naive", "kernels_src/vector_add.cu")] and ("'"$f"'" != "csv" or len(heads) == 1)'
		check sweep $f "$T; set N=1024; sweep PAD=0,1 transpose_tiled" 'len(recs) == 2'
		check compare $f "$T; set N=1024; compare transpose_tiled[PAD=0] transpose_tiled" 'len(recs) == 2'
		check metrics $f "$T; set N=1024; metrics transpose_tiled" 'len(recs) > 3'
		check "device and roof" $f "device; roof" 'len(recs) == 2'
		check explain $f "$T; set N=1024; explain transpose_tiled" \
			'[r["part"] for r in recs if r["part"] in ("limiter", "verdict", "headroom")] == ["limiter", "verdict", "headroom"]'
		check lines $f "$T; set N=1024; lines transpose_tiled" \
			'any(float(r["shared_wavefronts"] or 0) > 0 for r in recs) and any(float(r["global_sectors"] or 0) > 0 for r in recs)'
		CUPLAY_NO_COUNTERS=1 check "explain without counters" $f "$T; set N=1024; explain transpose_tiled" \
			'any(r["part"] == "needs" for r in recs) and not any(r["part"] == "sol" for r in recs)'
	done
	check "one roof: run, sweep and compare divide by what roof prints" json \
		"roof; $T; set N=4096; run transpose_tiled; sweep PAD=0,1 transpose_tiled; compare transpose_tiled[PAD=0] transpose_tiled" \
		'len([r for r in recs if r["type"] in ("run", "sweep", "compare")]) == 5 and \
		 all(abs(r["roof_frac"] * recs[0]["memory_gbps"] - r["gbps"]) <= 1e-6 * r["gbps"] \
		     for r in recs if r["type"] in ("run", "sweep", "compare"))'
	check "roof: every figure" json "roof" \
		'recs[0]["memory_gbps"] >= max(recs[0]["copy_gbps"], recs[0]["read_gbps"], recs[0]["write_gbps"], \
		 recs[0]["stream_copy_gbps"]) and recs[0]["fp32_gflops"] > 0'
	check "roofline: the kernels explained" json "use matmul; set N=1024; explain matmul_naive matmul_tiled; roofline" \
		'[r["kernel"] for r in recs if r["type"] == "roofline"] == ["matmul_naive", "matmul_tiled"] and \
		 all(r["flop_per_byte"] > 0 and 0 < r["roof_frac"] <= 1.05 for r in recs if r["type"] == "roofline")'
	check "run: typed figures" json "$T; set N=1024; run transpose_tiled" \
		'recs[0]["type"] == "run" and isinstance(recs[0]["median_ms"], float) and recs[0]["samples"] >= 10 and \
		 0 < recs[0]["gbps"] and recs[0]["gflops"] is None and recs[0]["check"] == "ok" and \
		 recs[0]["ci_lo_ms"] <= recs[0]["median_ms"] <= recs[0]["ci_hi_ms"] and \
		 recs[0]["stop"] in ("interval", "samples", "time", "wall") and isinstance(recs[0]["noise_frac"], float)'
	check "compare: the speedup and its interval" json "$T; set N=1024; compare transpose_tiled[PAD=0] transpose_tiled" \
		'recs[1]["speedup_lo"] <= recs[1]["speedup"] <= recs[1]["speedup_hi"] and recs[0]["speedup_lo"] is None'
	check "sweep of a file with flops" json "use matmul; set N=256; sweep TILE_SIZE=8,16 matmul_tiled" \
		'all(isinstance(r["gflops"], float) for r in recs)'
else
	echo "formats: GPU commands skipped: no GPU"
	skip=$((skip + 1))
fi
echo "formats: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
