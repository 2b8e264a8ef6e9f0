#!/usr/bin/env bash
# tests/bench_tensor.sh: part of `make bench` (run alone: CUPLAY=./cuplay bash
# tests/bench_tensor.sh). cuBLAS (cublasLt, build/bench/cublas_gemm) for every
# precision the device has at N = 4096 and 8192, the best and the median of
# 20 launches, beside cuplay's best kernel of each precision: every kernel of
# kernels_src/ and tests/tensor/ that declares flops, run at its default
# size, its pipe (FP32 or a tensor precision) read from its code; the ratio
# is the kernel's GFLOP/s over cuBLAS's median at 4096. The tensor roofs
# `roof` measures go beside. Prints figures; never fails on them. Writes
# $BENCH_OUT/tensor.md (the table for BENCHMARKS.md) when BENCH_OUT is set.
. "$(dirname "$0")/lib.sh"
echo
echo "== tensor cores: cuBLAS beside cuplay's best kernel of each precision"
if ! have_gpu; then
	echo "skipped: no GPU"
	exit 0
fi
CUBLAS=${CUBLAS_GEMM:-build/bench/cublas_gemm}
export XDG_CACHE_HOME="$tmp/tcache"
"$CUPLAY" --format csv -c roof >"$tmp/roof.csv" 2>"$tmp/roof.err" </dev/null || sed 's/^/    /' "$tmp/roof.err"
files=""
for f in kernels_src/*.cu tests/tensor/*.cu; do grep -q '^//@ flops' "$f" && files="$files use $f; run;"; done
"$CUPLAY" --format csv -c "$files format csv; roofline" >"$tmp/lib.csv" 2>"$tmp/lib.err" </dev/null
grep -v '^trace' "$tmp/lib.err" | grep -i -E 'error|fail' | sed 's/^/    /'
if [ -x "$CUBLAS" ]; then "$CUBLAS" 4096 8192 >"$tmp/cublas" 2>&1 </dev/null; else echo "cublas: skipped: no $CUBLAS" >"$tmp/cublas"; fi
grep -v '^cublas_gemm [a-z0-9]* [0-9]* [0-9.]* ' "$tmp/cublas" | sed 's/^/    /'
out=${BENCH_OUT:-$tmp}
mkdir -p "$out"
python3 - "$tmp/roof.csv" "$tmp/lib.csv" "$tmp/cublas" "$out/tensor.md" <<'PY'
import csv, sys
roof = list(csv.DictReader(open(sys.argv[1])))
roof = roof[0] if roof else {}
best = {}
on = False
for row in csv.reader(open(sys.argv[2])):
    if row[:3] == ["kernel", "values", "flop_per_byte"]:
        on = True
        head = row
        continue
    if on and len(row) == len(head):
        r = dict(zip(head, row))
        p = r["pipe"].lower()
        g = float(r["gflops"] or 0)
        if g > best.get(p, ("", "", 0))[2]:
            best[p] = (r["kernel"], r["values"], g)
cb = {}
for line in open(sys.argv[3]):
    w = line.split()
    if len(w) >= 7 and w[0] == "cublas_gemm" and not w[3].startswith("skipped"):
        cb[(w[1], int(w[2]))] = (float(w[3]), float(w[4]))
def num(k):
    try:
        return float(roof.get(k) or 0)
    except ValueError:
        return 0
lines = ["| precision | cuBLAS 4096 best / median | cuBLAS 8192 best / median | cuplay's best kernel | its TFLOP/s | / cuBLAS 4096 | roof | datasheet |",
         "|---|---:|---:|---|---:|---:|---:|---:|"]
for p in ["fp32", "tf32", "fp16", "bf16", "int8", "fp8"]:
    c4, c8 = cb.get((p, 4096)), cb.get((p, 8192))
    if not c4 and not c8 and p not in best:
        continue
    k = best.get(p)
    r = num(p + "_gflops") / 1000
    d = num(p + "_datasheet_gflops") / 1000
    f = lambda c: "%.1f / %.1f" % c if c else "-"
    lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        p.upper() + (" (CUDA cores)" if p == "fp32" else ""), f(c4), f(c8),
        "%s (%s)" % (k[0], k[1]) if k else "none", "%.1f" % (k[2] / 1000) if k else "-",
        "%.1f%%" % (100 * k[2] / 1000 / c4[1]) if k and c4 else "-",
        "%.0f" % r if r else "-", "%.0f" % d if d else "-"))
text = "\n".join(lines) + "\n"
sys.stdout.write(text)
open(sys.argv[4], "w").write(text)
PY
echo "(TFLOP/s, TOP/s for INT8; roof: cuplay's tensor roof, the FMA roof for FP32; the kernels at their default sizes)"
