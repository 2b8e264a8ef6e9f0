#!/usr/bin/env bash
# tests/bench/lines_ncu.sh: `lines`' per-instruction counts against Nsight
# Compute's Source page for the same launch: for each kernel below, ncu
# profiles cuplay's first launch of it (--section SourceCounters, exported
# with `ncu -i REPORT --page source --print-source sass --csv`), cuplay's
# `lines --sass` counts it again, and the two are matched instruction by
# instruction (offsets from the function's first instruction). Prints, per
# kernel, the worst relative difference of warp instructions, global
# sectors and shared wavefronts over the instructions that have them, and
# whether the three lines with the most stall samples are the same. Never
# fails on the figures (make bench); says why when ncu or a GPU is missing.
. "$(dirname "$0")/../lib.sh"
echo "== lines against ncu's Source page (SourceCounters, per instruction)"
if ! have_gpu; then echo "skip: no GPU"; exit 0; fi
NCU=${NCU:-$(command -v ncu)}
if [ -z "$NCU" ]; then echo "skip: ncu is not on PATH (set NCU)"; exit 0; fi
export XDG_CACHE_HOME="$tmp/cache"

# file|values|kernel: three of the library and two held-out (tests/)
while IFS='|' read -r file vals kernel; do
	cmds="use $file; $vals"
	rm -f "$tmp/rep.ncu-rep"
	if ! "$NCU" --target-processes all --section SourceCounters -k "$kernel" -c 1 \
		-o "$tmp/rep" "$CUPLAY" -c "$cmds; run $kernel" >"$tmp/ncu.log" 2>&1 </dev/null; then
		echo "$kernel: ncu failed: $(grep -m1 -i 'error' "$tmp/ncu.log")"
		continue
	fi
	if grep -q 'ERR_NVGPUCTRPERM\|does not have permission' "$tmp/ncu.log"; then
		echo "skip: ncu cannot read counters on this host (ERR_NVGPUCTRPERM): use one where it can"
		exit 0
	fi
	"$NCU" -i "$tmp/rep.ncu-rep" --page source --print-source sass --csv >"$tmp/ncu.csv" 2>"$tmp/ncu.err"
	"$CUPLAY" --format json -c "$cmds; lines $kernel --sass --all" >"$tmp/lines.json" 2>"$tmp/lines.err" </dev/null
	python3 - "$tmp/ncu.csv" "$tmp/lines.json" "$kernel" <<'PY'
import csv, json, sys
ncu_path, lines_path, kernel = sys.argv[1:4]
rows = list(csv.reader(open(ncu_path)))
head_at = next((i for i, r in enumerate(rows) if any(c.strip().lower() == "address" for c in r)), None)
if head_at is None:
    print("%s: no Source page in ncu's export" % kernel); sys.exit(0)
head = [c.strip().lower() for c in rows[head_at]]
def col(*words, avoid=()):
    for i, h in enumerate(head):
        if all(w in h for w in words) and not any(a in h for a in avoid):
            return i
    return None
c_addr = head.index("address")
c_inst = col("instructions executed", avoid=("thread", "predicated"))
c_gsec = col("sectors", "global", avoid=("ideal", "excessive"))
c_shwf = col("wavefronts", "shared", avoid=("ideal", "excessive"))
c_samp = col("warp stall sampling", "all", avoid=("not issued",))
def num(s):
    try: return float(s.replace(",", ""))
    except ValueError: return 0.0
ncu = {}
for r in rows[head_at + 1:]:
    if len(r) <= c_addr or not r[c_addr].strip(): continue
    try: a = int(r[c_addr], 16)
    except ValueError: continue
    ncu[a] = {k: num(r[c]) if c is not None and c < len(r) else None
              for k, c in (("inst", c_inst), ("gsec", c_gsec), ("shwf", c_shwf), ("samp", c_samp))}
base = min(ncu) if ncu else 0
ncu = {a - base: v for a, v in ncu.items()}
recs = [r for r in json.load(open(lines_path))["records"] if r["type"] == "line"]
mine = {r["pc"]: r for r in recs if r["pc"] is not None}
worst = {}
for k, key in (("inst", "warp_inst"), ("gsec", "global_sectors"), ("shwf", "shared_wavefronts")):
    w = 0.0
    for pc, v in ncu.items():
        if v[k] is None or pc not in mine: continue
        a, b = v[k], float(mine[pc][key] or 0)
        if a or b: w = max(w, abs(a - b) / max(a, b))
    worst[k] = w
# the top three lines by stall samples: ncu's per instruction added up by line
by_line = {}
for r in recs:
    if r["pc"] is not None and r["pc"] in ncu and ncu[r["pc"]]["samp"] is not None:
        by_line[(r["file"], r["line"])] = by_line.get((r["file"], r["line"]), 0) + ncu[r["pc"]]["samp"]
ncu_top = [k for k, _ in sorted(by_line.items(), key=lambda kv: -kv[1])[:3]]
own = [r for r in recs if r["pc"] is None and r["samples"]]
own_top = [(r["file"], r["line"]) for r in sorted(own, key=lambda r: -r["samples"])[:3]]
print("%-22s %4d instructions matched: worst difference inst %.2f%%, global sectors %.2f%%, shared wavefronts %.2f%%; "
      "top stall lines %s (ncu %s, cuplay %s)" % (kernel, len(set(ncu) & set(mine)), 100 * worst["inst"],
      100 * worst["gsec"], 100 * worst["shwf"], "the same" if set(ncu_top) == set(own_top) else "differ",
      ",".join(str(l) for _, l in ncu_top), ",".join(str(l) for _, l in own_top)))
PY
	grep -m1 'per-line run' "$tmp/lines.err" | sed 's/^/  /'
done <<'EOF2'
transpose|set N=4096; set PAD=0|transpose_tiled
coalescing|set N=16777216|square_uncoalesced
matmul|set N=1024|matmul_tiled
tests/kernels/local_array.cu||local_copy
tests/kernels/fill_copy.cu||fill_copy
EOF2
exit 0
