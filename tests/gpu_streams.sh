#!/usr/bin/env bash
# tests/gpu_streams.sh: GPU tests of runs on host data (host buffers, pinned
# and pageable, '//@ streams' chunks) and of the timeline. Called by
# tests/gpu.sh; alone: `bash tests/gpu_streams.sh` (CUPLAY=./cuplay).
# Prints what it measured (the link's bandwidths, medians, speedups, the
# overlap share) on the way. Closing line: "gpu-streams: N passed, N failed".
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "gpu-streams: skipped: no GPU"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache"
info() { echo "      $*"; }

# cuplay ARGS...: output in $tmp/out, exit status returned
cu() { "$CUPLAY" "$@" >"$tmp/out" 2>&1 </dev/null; }

# col FILE KERNEL VALUES_RE COLUMN: a column of the last CSV row of KERNEL
# whose values match VALUES_RE (python: the header names the columns)
col() {
	python3 - "$@" <<'PY'
import csv, re, sys
path, kernel, vre, name = sys.argv[1:5]
rows = [r for r in csv.reader(open(path)) if r]
head = None
val = ""
for r in rows:
    if "kernel" in r and "values" in r:
        head = r
        continue
    if head and len(r) == len(head):
        d = dict(zip(head, r))
        if d["kernel"] == kernel and re.search(vre, d["values"]):
            val = d.get(name, "")
print(val)
PY
}

# 1. the host link: pinned beats pageable each way (roof measures both)
if "$CUPLAY" --format json -c 'roof' >"$tmp/roof.json" 2>"$tmp/out" </dev/null; then
	read -r hp hn dp dn < <(python3 - "$tmp/roof.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["records"][0]
print(r.get("h2d_pageable_gbps") or 0, r.get("h2d_pinned_gbps") or 0, r.get("d2h_pageable_gbps") or 0, r.get("d2h_pinned_gbps") or 0)
PY
)
	info "link: H2D pageable $hp GB/s, pinned $hn GB/s; D2H pageable $dp GB/s, pinned $dn GB/s"
	# pinned memory skips the driver's staging copy: 5% is a floor any host clears
	if awk -v p="$hp" -v n="$hn" 'BEGIN { exit !(p > 0 && n > 1.05 * p) }'; then
		ok "roof: pinned H2D $hn GB/s beats pageable $hp GB/s"
	else
		bad "roof: pinned H2D ($hn GB/s) does not beat pageable ($hp GB/s) by 5%"
	fi
	if awk -v p="$dp" -v n="$dn" 'BEGIN { exit !(p > 0 && n > p) }'; then
		ok "roof: pinned D2H $dn GB/s beats pageable $dp GB/s"
	else
		bad "roof: pinned D2H ($dn GB/s) does not beat pageable ($dp GB/s)"
	fi
else
	bad "roof failed"
fi

# 2. every chunked configuration checks ok: even chunks, uneven ones (a prime
#    over 3, 7 and 8 streams), one element, more streams than a warp's worth
cmds='use streams; set ITERS=64; timing max 0.05'
n_cfg=0
for cfg in "16777216 1" "16777216 4" "1000003 3" "1000003 8" "97 7" "1 1" "4096 64" "65537 2"; do
	set -- $cfg
	cmds="$cmds; set N=$1 STREAMS=$2; run vadd vadd_pageable saxpy_iter dot_chunks"
	n_cfg=$((n_cfg + 1))
done
cu --format csv -c "$cmds"
st=$?
if true; then
	bad_rows=$(python3 - "$tmp/out" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head, n, bad = None, 0, []
for r in rows:
    if "kernel" in r and "values" in r:
        head = r
        continue
    if head and len(r) == len(head):
        d = dict(zip(head, r))
        n += 1
        if d["check"] != "ok":
            bad.append("%s %s: %s" % (d["kernel"], d["values"], d["check"]))
print(n, len(bad), "; ".join(bad))
PY
)
	set -- $bad_rows
	if [ "$st" = 0 ] && [ "$1" = $((n_cfg * 4)) ] && [ "$2" = 0 ]; then
		ok "chunks: $1 runs ($n_cfg sizes x streams, 4 kernels) check ok, uneven chunks included"
	else
		bad "chunks (exit $st): $1 runs of $((n_cfg * 4)), $2 not ok: ${*:3}"
	fi
fi

# 3. streams against one stream, and the timeline of 4 streams
if cu --format csv -c 'use streams; run vadd vadd_pageable; set STREAMS=4; run vadd vadd_pageable; set STREAMS=1; run saxpy_iter; set STREAMS=2; run saxpy_iter; set STREAMS=8; run saxpy_iter; set STREAMS=4; run saxpy_iter'; then
	cp "$tmp/out" "$tmp/speed.csv"
	v1=$(col "$tmp/speed.csv" vadd 'STREAMS=1 ' median_ms); v4=$(col "$tmp/speed.csv" vadd 'STREAMS=4 ' median_ms)
	p1=$(col "$tmp/speed.csv" vadd_pageable 'STREAMS=1 ' median_ms); p4=$(col "$tmp/speed.csv" vadd_pageable 'STREAMS=4 ' median_ms)
	g1=$(col "$tmp/speed.csv" vadd 'STREAMS=1 ' gbps); r1=$(col "$tmp/speed.csv" vadd 'STREAMS=1 ' roof_frac)
	info "vadd (192 MiB over the link): pinned $v1 ms ($g1 GB/s, $r1 of the link's roof) at 1 stream, $v4 ms at 4; pageable $p1 ms, $p4 ms"
	for k in 1 2 4 8; do eval "s$k=\$(col \"\$tmp/speed.csv\" saxpy_iter 'STREAMS=$k ' median_ms)"; done
	ov=$(col "$tmp/speed.csv" saxpy_iter 'STREAMS=4 ' overlap_frac)
	info "saxpy_iter: STREAMS=1 $s1 ms, 2 $s2 ms, 4 $s4 ms, 8 $s8 ms; overlap at 4: $ov"
	info "speedups over one stream: $(awk -v a="$s1" -v b="$s2" -v c="$s4" -v d="$s8" 'BEGIN { printf "2: %.2fx, 4: %.2fx, 8: %.2fx", a / b, a / c, a / d }'); vadd at 4: $(awk -v a="$v1" -v b="$v4" 'BEGIN { printf "%.2fx", a / b }'); pinned over pageable at 1: $(awk -v a="$p1" -v b="$v1" 'BEGIN { printf "%.2fx", a / b }')"
	# the lesson's margin: three pipelined stages against their sum (sessions/streams.session)
	if awk -v a="$s1" -v b="$s4" 'BEGIN { exit !(a > 0 && b > 0 && a / b >= 1.25) }'; then
		ok "saxpy_iter: 4 streams $(awk -v a="$s1" -v b="$s4" 'BEGIN { printf "%.2fx", a / b }') faster than 1"
	else
		bad "saxpy_iter: 4 streams ($s4 ms) not 1.25x faster than 1 ($s1 ms)"
	fi
	if awk -v p="$p1" -v v="$v1" 'BEGIN { exit !(p > 0 && v > 0 && p / v >= 1.2) }'; then
		ok "vadd: pinned $(awk -v a="$p1" -v b="$v1" 'BEGIN { printf "%.2fx", a / b }') faster than pageable"
	else
		bad "vadd: pinned ($v1 ms) not 1.2x faster than pageable ($p1 ms)"
	fi
else
	bad "streams runs (exit status)"
fi

# 4. the timeline of STREAMS=4: copies and kernels of different streams
#    overlap in time (from the SVG's bars), the text states the share
if cu -c "use streams; set STREAMS=4; run saxpy_iter; timeline; timeline $tmp/t4.svg"; then
	sed -n '/^timeline of/,$p' "$tmp/out" | sed 's/^/      /'
	res=$(python3 - "$tmp/t4.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
rows = {}
bars = []
for r in root.iter(ns + "rect"):
    t = r.find(ns + "title")
    if t is None:
        continue
    kind = t.text.split(" ")[0] + ("" if t.text.startswith("kernel") else " " + t.text.split(" ")[1])
    y = float(r.get("y")); x = float(r.get("x")); w = float(r.get("width"))
    bars.append((kind, y, x, x + w))
kernels = [b for b in bars if b[0] == "kernel"]
copies = [b for b in bars if b[0] != "kernel"]
pairs = sum(1 for c in copies for k in kernels if c[1] != k[1] and min(c[3], k[3]) - max(c[2], k[2]) > 0.5)
print(len({b[1] for b in bars}), len(kernels), len(copies), pairs)
PY
)
	set -- $res
	share=$(sed -n 's/^  overlap: \([0-9]*\)% .*/\1/p' "$tmp/out" | head -n 1)
	if [ "${1:-0}" = 4 ] && [ "${2:-0}" = 4 ] && [ "${4:-0}" -gt 0 ] && [ -n "$share" ] && [ "$share" -ge 25 ]; then
		ok "timeline: 4 streams, $2 kernels, $3 copies, $4 copy-kernel pairs overlapping; $share% of copy time hidden"
	else
		bad "timeline: streams ${1:-?}, kernels ${2:-?}, copies ${3:-?}, overlapping pairs ${4:-?}, share ${share:-?}%"
	fi
else
	bad "timeline run (exit status)"
fi

# 5. a batch's timeline: its launches back to back on one stream
if cu -c 'use vector_add; set N=16384; timing clock events; batch 20; run vadd_naive; timeline' &&
   grep -q '^  20 kernels: ' "$tmp/out"; then
	ok "batch timeline: $(grep '^  20 kernels' "$tmp/out" | sed 's/^  //'); $(grep '^  idle:' "$tmp/out" | sed 's/^  //')"
else
	bad "batch 20: the timeline does not show 20 kernels"
fi

# 6. the lesson replays: every expectation holds
if cu sessions/streams.session; then
	ok "lesson streams: $(grep -c '^expect: .*: ok' "$tmp/out") expectations hold"
	grep '^expect: ' "$tmp/out" | sed 's/^/      /'
else
	bad "lesson streams (exit status)"
fi

echo "gpu-streams: $pass passed, $fail failed"
