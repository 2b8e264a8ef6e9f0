#!/usr/bin/env bash
# tests/bench_streams.sh: the part of `make bench` about the host link and
# streams (kernels_src/streams.cu): pageable and pinned bandwidth both ways,
# and what 4 streams gain over one for a vector add and for saxpy_iter.
# Prints figures measured in this run; never fails on them.
. "$(dirname "$0")/lib.sh"

if ! have_gpu; then
	echo "streams bench: skipped: no GPU"
	exit 0
fi
echo
echo "== the host link and streams (kernels_src/streams.cu)"
if "$CUPLAY" --format json -c 'roof' >"$tmp/roof.json" 2>/dev/null; then
	python3 - "$tmp/roof.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["records"][0]
f = lambda k: "%.1f GB/s" % r[k] if r.get(k) else "unknown"
print("host to device: pageable %s, pinned %s" % (f("h2d_pageable_gbps"), f("h2d_pinned_gbps")))
print("device to host: pageable %s, pinned %s" % (f("d2h_pageable_gbps"), f("d2h_pinned_gbps")))
PY
fi
XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" --format csv -c 'use streams; run vadd; set STREAMS=4; run vadd; set STREAMS=1; run saxpy_iter; set STREAMS=4; run saxpy_iter' 2>/dev/null >"$tmp/streams.csv"
python3 - "$tmp/streams.csv" <<'PY'
import csv, re, sys
rows, head = [], None
for r in csv.reader(open(sys.argv[1])):
    if "kernel" in r and "values" in r:
        head = r
    elif head and len(r) == len(head):
        rows.append(dict(zip(head, r)))
def med(k, s):
    for d in rows:
        if d["kernel"] == k and re.search(r"(^| )STREAMS=%d( |$)" % s, d["values"]):
            return float(d["median_ms"]), d
    return None, None
for k in ("vadd", "saxpy_iter"):
    m1, d1 = med(k, 1)
    m4, d4 = med(k, 4)
    if m1 and m4:
        print("%s: 1 stream %.3f ms (%s GB/s over the link), 4 streams %.3f ms: %.2fx; overlap at 4: %s"
              % (k, m1, d1["gbps"], m4, m1 / m4, d4.get("overlap_frac") or "?"))
PY

exit 0
