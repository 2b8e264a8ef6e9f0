#!/usr/bin/env bash
# tests/gpu_seq.sh: sequences (`//@ sequence`) on a GPU: a two-pass sum checked
# in a fresh process, its time and its steps and gaps, graph timing, the flag
# on a figure above the roof. Called by tests/gpu.sh; alone:
# `bash tests/gpu_seq.sh` (CUPLAY=./cuplay).
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
if ! have_gpu; then
	echo "gpu-seq: skipped: no GPU"
	exit 0
fi

# a failure shows the notes (standard error: the kernel clock's note, say)
# after the document
bad() { fail=$((fail + 1)); echo "FAIL: $*"; cat "$tmp/out" "$tmp/err" 2>/dev/null | sed 's/^/    /' | tail -n 25; }

# doc: the JSON document in $tmp/out (notes may come before it), as python
# reads it; field NAME: that field of its first run record
doc='import json, sys; t = open(sys.argv[1]).read(); d = json.JSONDecoder().raw_decode(t[t.index("{\"cuplay\""):])[0]'
field() { python3 -c "$doc"'; r = [x for x in d["records"] if x.get("type") == "run"]; print(r[0].get(sys.argv[2]))' "$tmp/out" "$1" 2>/dev/null; }

# 1. the two-pass sum is ok in a fresh process: pass2 reads the partials
#    pass1 wrote in the same run, not ones left from an earlier run
if "$CUPLAY" --format json -c 'use sum_passes; run two_pass' >"$tmp/out" 2>"$tmp/err" && [ "$(field check)" = ok ]; then
	ok "two_pass: ok in a fresh process"
else
	bad "two_pass: not ok in a fresh process"
fi

# 2. its time is its steps and the gap between them: the parts are those of
#    the median sample, so they add up to it; the table's median, read from
#    the samples between the clock's step edges, lies within a clock step of
#    it (allowed: 0.1 us, or 0.5% of the median for a noisy middle)
steps=$(field steps_ms); med=$(field median_ms)
if [ -n "$steps" ] && [ "$steps" != None ] && python3 - "$steps" "$med" <<'PY'
import sys
parts = dict(p.split("=") for p in sys.argv[1].split())  # pass1=.. gap=.. pass2=..
total = sum(float(v) for v in sys.argv[1].replace("=", " ").split()[1::2])
med = float(sys.argv[2])
assert set(parts) == {"pass1", "gap", "pass2"}, parts
assert abs(total - med) <= max(1e-4, 0.005 * med), (total, med)
PY
then
	ok "two_pass: median $med ms = steps and gap ($steps)"
else
	bad "two_pass: steps and gaps do not add up to the median ('$steps', '$med')"
fi

# 3. six short kernels: launched as one CUDA graph they take less time than
#    one by one (the host launches each step in a microsecond or two, about
#    what the step runs; a graph is one launch), both timed between events
if "$CUPLAY" --format json -c 'use tests/kernels/seq_short.cu; timing graph on; run six' >"$tmp/out" 2>"$tmp/err"; then
	g=$(field graph_ms); m=$(field streamed_ms)
	if [ -n "$g" ] && [ "$g" != None ] && awk -v g="$g" -v m="$m" 'BEGIN { exit !(g < m) }'; then
		ok "six short kernels: graph $g ms < one by one $m ms"
	else
		bad "six short kernels: graph '$g' ms not below one by one '$m' ms"
	fi
else
	bad "six short kernels: the run failed"
fi

# 4. a figure over the roof is flagged in the row and in the data
if "$CUPLAY" --format json -c 'use tests/kernels/over_roof.cu; run' >"$tmp/out" 2>"$tmp/err"; then
	f=$(field roof_frac); o=$(field over_roof)
	if awk -v f="$f" 'BEGIN { exit !(f > 1.05) }' && printf '%s' "$o" | grep -q '//@ bytes counts more than this kernel moves'; then
		ok "over the roof: roof_frac $f, flagged"
	else
		bad "over the roof: roof_frac '$f', flag '$o'"
	fi
fi
if "$CUPLAY" --format json -c 'use tests/kernels/over_flops.cu; run' >"$tmp/out" 2>"$tmp/err"; then
	o=$(field over_roof)
	if printf '%s' "$o" | grep -q 'of the compute roof: //@ flops counts more than this kernel computes'; then
		ok "over the compute roof: flagged ($o)"
	else
		bad "over the compute roof: flag '$o'"
	fi
fi
if "$CUPLAY" -c 'use tests/kernels/over_roof.cu; run' >"$tmp/out" 2>&1 && grep -q 'counts more than' "$tmp/out"; then
	ok "over the roof: the row says so"
else
	bad "over the roof: the row does not say so"
fi

# 5. compare between a sequence and a fused kernel: the speedup and the DRAM
#    bytes each moves
if "$CUPLAY" --format json -c 'use softmax; compare naive softmax_fused' >"$tmp/out" 2>"$tmp/err" &&
   python3 - "$tmp/out" <<PY
$doc
r = [x for x in d["records"] if x.get("type") == "compare"]
assert len(r) == 2 and all(x.get("dram_bytes") for x in r), r
# the naive softmax reads the 64 MB input three times, the fused one once
assert r[0]["dram_bytes"] > 1.3 * r[1]["dram_bytes"], r
PY
then
	ok "compare naive softmax_fused: DRAM bytes of each"
else
	bad "compare naive softmax_fused: no DRAM bytes, or not fewer for the fused kernel"
fi

echo "gpu-seq: $pass passed, $fail failed"
