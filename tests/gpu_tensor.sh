#!/usr/bin/env bash
# tests/gpu_tensor.sh: the tensor cores on the GPU. Called by tests/gpu.sh;
# run alone with `bash tests/gpu_tensor.sh` (CUPLAY=./cuplay).
#   1. `roof` measures a tensor roof for each precision the device has (sm_80
#      and later), at most 2% above the datasheet's figure where cuplay has it
#      (the datasheet's clock is the boost clock, its figures rounded)
#   2. they are kept in the cache directory: a new process takes them from
#      there
#   3. no tensor roof is below what cuBLAS reaches (build/bench/cublas_gemm,
#      N = 4096 and 8192, the best of 20 launches), each precision
#   4. every kernel of the library that declares flops runs below the roof of
#      its own pipe (FP32 or its tensor precision)
#   5. explain on a WMMA GEMM (tests/tensor/wmma_gemm.cu) names the tensor
#      pipe (FP16, HMMA) and gives a headroom of at least cuBLAS FP16's
#      speedup over the kernel and at most the datasheet's peak over it (2%)
# Closing line: "gpu-tensor: N passed, N failed".
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "gpu-tensor: skipped: no GPU"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache"
CUBLAS=${CUBLAS_GEMM:-build/bench/cublas_gemm}

# 1. the roofs
if ! "$CUPLAY" --format csv -c 'roof' >"$tmp/roof.csv" 2>"$tmp/out" </dev/null; then
	cp "$tmp/roof.csv" "$tmp/out"
	bad "roof (exit $?)"
	echo "gpu-tensor: $pass passed, $fail failed"
	exit 0
fi
# col NAME: the roof record's figure NAME ("" when null)
col() { awk -F, -v k="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } NR == 2 && c[k] { print $(c[k]) }' "$tmp/roof.csv"; }
sm=$("$CUPLAY" -c device 2>/dev/null | sed -n 's/.*, sm_\([0-9]*\),.*/\1/p' | head -n 1)
if [ -z "$sm" ] || [ "$sm" -lt 80 ]; then
	echo "gpu-tensor: skipped: sm_${sm:-?} has no tensor roofs (sm_80 and later)"
	exit 0
fi
precs="fp16 bf16 tf32 int8"
[ "$sm" -ge 89 ] && precs="$precs fp8"
missing="" above="" line=""
for p in $precs; do
	v=$(col "${p}_gflops") d=$(col "${p}_datasheet_gflops")
	awk -v v="$v" 'BEGIN { exit !(v > 0) }' || missing="$missing $p"
	[ -n "$d" ] && awk -v v="$v" -v d="$d" 'BEGIN { exit !(v > d * 1.02) }' && above="$above $p"
	line="$line $p $(awk -v v="$v" -v d="$d" 'BEGIN { printf "%.0f%s", v / 1000, d != "" ? sprintf(" (datasheet %.0f)", d / 1000) : "" }')"
done
cp "$tmp/roof.csv" "$tmp/out"
if [ -z "$missing$above" ]; then
	ok "tensor roofs, TFLOP/s (TOP/s for int8):$line"
else
	bad "tensor roofs: missing:${missing:- none}; above the datasheet:${above:- none}"
fi

# 2. kept for later processes
CUPLAY_TRACE=1 "$CUPLAY" -c 'use tests/tensor/wmma_gemm.cu; set M=256 N=256 K=256; run; roofline' >"$tmp/out" 2>&1 </dev/null
if grep -q '^trace: roof: the tensor roofs of this device from ' "$tmp/out" && ! grep -q '^trace: mma_fp16 ' "$tmp/out"; then
	ok "tensor roofs: a new process takes them from the cache"
else
	bad "tensor roofs: a new process measured them again (or said nothing)"
fi

# 3. never below cuBLAS
if [ -x "$CUBLAS" ]; then
	"$CUBLAS" 4096 8192 >"$tmp/cublas" 2>&1 </dev/null
	low="" cmp=""
	while read -r _ p n best _; do
		case "$best" in skipped*|"") continue ;; esac
		[ "$p" = fp32 ] && continue
		v=$(col "${p}_gflops")
		awk -v v="$v" -v c="$best" 'BEGIN { exit !(v / 1000 < c) }' && low="$low $p@$n"
		cmp="$cmp $p@$n $(awk -v v="$v" -v c="$best" 'BEGIN { printf "%.0f>%.0f", v / 1000, c }')"
	done < <(grep '^cublas_gemm ' "$tmp/cublas")
	cp "$tmp/cublas" "$tmp/out"
	if [ -n "$cmp" ] && [ -z "$low" ]; then
		ok "tensor roofs above cuBLAS (roof>cuBLAS TFLOP/s):$cmp"
	else
		bad "a tensor roof below cuBLAS:${low:- (no cuBLAS figures)}"
	fi
else
	echo "skip: tensor roofs against cuBLAS: no $CUBLAS (make $CUBLAS)"
fi

# 4. above every kernel of the library: each GFLOP/s under its own pipe's roof
files=""
for f in kernels_src/*.cu tests/tensor/*.cu; do grep -q '^//@ flops' "$f" && files="$files use $f; run;"; done
"$CUPLAY" --format csv -c "$files format csv; roofline" >"$tmp/lib" 2>&1 </dev/null
awk -F, -v fp32="$(col fp32_gflops)" -v fp16="$(col fp16_gflops)" -v bf16="$(col bf16_gflops)" \
    -v tf32="$(col tf32_gflops)" -v int8="$(col int8_gflops)" -v fp8="$(col fp8_gflops)" '
	$1 == "kernel" && $3 == "flop_per_byte" { on = 1; for (i = 1; i <= NF; i++) c[$i] = i; next }
	on && NF >= 8 {
		top = $(c["pipe"]) == "FP32" ? fp32 : $(c["pipe"]) == "FP16" ? fp16 : $(c["pipe"]) == "BF16" ? bf16 : \
		      $(c["pipe"]) == "TF32" ? tf32 : $(c["pipe"]) == "INT8" ? int8 : fp8
		n++; f = $(c["gflops"]) / top
		if (f > worst) { worst = f; who = $1 " (" $(c["pipe"]) ")" }
		if (f > 1) over = over " " $1
	}
	END { printf "%d %s %.3f %s\n", n, over == "" ? "-" : over, worst, who }' "$tmp/lib" >"$tmp/verdict"
read -r n over worst who <"$tmp/verdict"
cp "$tmp/lib" "$tmp/out"
if [ "${n:-0}" -gt 0 ] && [ "$over" = "-" ]; then
	ok "every kernel of the library ($n) below its pipe's roof: the closest, $who, at $(awk -v w="$worst" 'BEGIN { printf "%.0f%%", 100 * w }')"
else
	bad "a kernel above its pipe's roof:${over#-} (of ${n:-0})"
fi

# 5. explain on the WMMA GEMM
"$CUPLAY" --format csv -c 'use tests/tensor/wmma_gemm.cu; explain; roofline' >"$tmp/out" 2>&1 </dev/null
pipe=$(awk -F, '$2 == "pipe" { print $3 }' "$tmp/out")
hx=$(awk -F, '$2 == "headroom" && $3 == "FP16" { print $4 }' "$tmp/out")
kg=$(awk -F, '$1 == "wmma_gemm" && $NF == "FP16" { print $4 }' "$tmp/out")
cb=$(awk '$2 == "fp16" && $3 == 4096 { print $4 }' "$tmp/cublas" 2>/dev/null)
ds=$(col fp16_datasheet_gflops)
if [ "$pipe" = FP16 ] && grep -q 'tensor cores, FP16 through wmma (HMMA' "$tmp/out" && [ -n "$hx" ] && [ -n "$kg" ]; then
	ok "explain on a WMMA GEMM names the tensor pipe: FP16 through wmma (HMMA), headroom $(awk -v h="$hx" 'BEGIN { printf "%.1fx", h }') at $(awk -v g="$kg" 'BEGIN { printf "%.1f TFLOP/s", g / 1000 }')"
	if [ -n "$cb" ]; then
		if awk -v h="$hx" -v c="$cb" -v g="$kg" 'BEGIN { exit !(h >= c * 1000 / g) }'; then
			ok "its headroom $(awk -v h="$hx" 'BEGIN { printf "%.1fx", h }') is at least cuBLAS FP16's speedup over it ($(awk -v c="$cb" -v g="$kg" 'BEGIN { printf "%.1fx", c * 1000 / g }'))"
		else
			bad "its headroom $hx is below cuBLAS FP16's speedup over it ($cb TFLOP/s against $kg GFLOP/s)"
		fi
	fi
	if [ -n "$ds" ]; then
		# 2% as for the roofs above: the datasheet's figure is at its boost
		# clock, rounded
		if awk -v h="$hx" -v d="$ds" -v g="$kg" 'BEGIN { exit !(h <= d * 1.02 / g) }'; then
			ok "its headroom is at most the datasheet's peak over it ($(awk -v d="$ds" -v g="$kg" 'BEGIN { printf "%.1fx", d / g }'))"
		else
			bad "its headroom $hx is above the datasheet's peak over it ($ds against $kg GFLOP/s)"
		fi
	fi
else
	bad "explain on a WMMA GEMM: pipe '${pipe:-none}', headroom '${hx:-none}', GFLOP/s '${kg:-none}'"
fi

echo "gpu-tensor: $pass passed, $fail failed"
