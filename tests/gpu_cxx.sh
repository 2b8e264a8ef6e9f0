#!/usr/bin/env bash
# tests/gpu_cxx.sh: the C++ kernels of tests/cxx run and check ok on a GPU:
# toolkit headers (fp16, bf16, cooperative groups, CUB, cuda/std, assert.h,
# stdint.h), templates, namespaces, extern "C", the user's headers, and the
# kernels pasted from CUDA's samples and CUB's examples; the commands that
# take a kernel name take theirs. Called by tests/gpu.sh.
# Closing line: "gpu-cxx: N passed, N failed".
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "gpu-cxx: skipped: no GPU"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache"

# all_ok FILE: every kernel that `use` listed has a csv row, and every row
# checks ok, but for a kernel that FILE's header says `check none` of (the
# reference of the others): "no check" (python's csv: a kernel name such as
# scale_t<float,4> is a quoted field)
all_ok() {
	python3 - "$tmp/out" "$1" <<'PY'
import csv, re, sys
text = open(sys.argv[1]).read().splitlines()
unchecked = set(re.findall(r"^//@ kernel\s+(\S+)\s+check\s+none\b", open(sys.argv[2]).read(), re.M))
names, header, rows = [], None, []
for line in text:
    m = re.match(r"^\S+\.cu: \d+ kernels? \((.*)\)$", line)
    if m:
        names = m.group(1).split(", ")
        continue
    r = next(csv.reader([line]), [])
    if r[:1] == ["kernel"]:
        header = r
    elif header and "check" in header and len(r) == len(header):
        rows.append((r[0], r[header.index("check")]))
seen = {k for k, c in rows if k in names}
bad = ["%s: %s" % (k, c) for k, c in rows
       if k in names and c != ("no check" if k in unchecked else "ok")]
if not names or seen != set(names) or bad:
    print("kernels %s, rows for %s, not ok: %s" % (names, sorted(seen), bad))
    sys.exit(1)
print("%d kernels: %s" % (len(names), ", ".join(names)))
PY
}

# 1. every file: each kernel runs and checks ok (at its defaults, then at a
#    size that is not a multiple of the block where the file has an n)
for f in tests/cxx/*.cu; do
	case $f in */err_*) continue ;; esac
	n=$(basename "$f" .cu)
	"$CUPLAY" --format csv -c "use $f; run" >"$tmp/out" 2>&1 </dev/null
	st=$?
	if [ $st = 0 ] && what=$(all_ok "$f"); then ok "$n: $what"; else bad "$n (exit $st): $what"; fi
done
for f in fp16 bf16 coop_groups cub_reduce cuda_std assert stdint template_header template_explicit namespace extern_c user_include \
         types_half types_bf16 types_int types_vec globals async_copy; do
	"$CUPLAY" --format csv -c "use tests/cxx/$f.cu; set n=4099; run" >"$tmp/out" 2>&1 </dev/null
	st=$?
	if [ $st = 0 ] && what=$(all_ok "tests/cxx/$f.cu"); then ok "$f at n=4099: $what"; else bad "$f at n=4099 (exit $st): $what"; fi
done

# 1b. TMA at sizes that leave part of the edge boxes outside the tensor:
#     TMA fills what it reads there with zeros and writes none of it back
"$CUPLAY" --format csv -c 'use tests/cxx/tma.cu; set M=77; set K=36; run' >"$tmp/out" 2>&1 </dev/null
st=$?
if [ $st = 0 ] && what=$(all_ok tests/cxx/tma.cu); then ok "tma at M=77 K=36: $what"; else bad "tma at M=77 K=36 (exit $st): $what"; fi

# 2. a define that is a template argument: sweep compiles one instantiation a value
#    (the sweep table: the values, the kernel, its check, ...)
"$CUPLAY" -c 'use tests/cxx/template_header.cu; sweep BS=64,128,512,1024 reduce_t<BS>' >"$tmp/out" 2>&1 </dev/null
st=$?
if [ $st = 0 ] && [ "$(grep -c 'reduce_t<BS>  *ok ' "$tmp/out")" = 4 ]; then
	ok "sweep BS=64,128,512,1024 reduce_t<BS>: 4 instantiations ok"
else
	bad "sweep over a template argument (exit $st)"
fi
"$CUPLAY" -c 'use tests/cxx/cub_block_reduce.cu; sweep THREADS=128,256,512' >"$tmp/out" 2>&1 </dev/null
st=$?
if [ $st = 0 ] && [ "$(grep -c 'BlockReduceKernel<THREADS,ITEMS,BLOCK_REDUCE_[A-Z_]*>  *ok ' "$tmp/out")" = 6 ]; then
	ok "CUB example: sweep THREADS=128,256,512, both algorithms ok"
else
	bad "CUB example sweep (exit $st)"
fi

# 3. the inspecting commands take the C++ names
cmds='use tests/cxx/namespace.cu; info course::copy_ns; metrics course::detail::twice; sass copy_outside'
cmds="$cmds; use tests/cxx/template_header.cu; info reduce_t<BS>; metrics reduce_t<BS>; ptx reduce_t<128>; sass reduce_t<BS>"
"$CUPLAY" -c "$cmds" >"$tmp/out" 2>&1 </dev/null
st=$?
if [ $st = 0 ] && grep -q '^kernel  *course::copy_ns (_ZN6course7copy_nsEiPKfPf)' "$tmp/out" &&
   grep -q '^kernel  *reduce_t<BS> (_Z8reduce_tILi256EEvPKfPfi)' "$tmp/out" &&
   grep -q '^// reduce_t<128>: ' "$tmp/out" && ! grep -q '__nv_name_map' "$tmp/out"; then
	ok "info, metrics, ptx and sass of course::copy_ns, course::detail::twice, reduce_t<BS>, reduce_t<128>"
else
	bad "inspecting commands with C++ names (exit $st)"
fi

# 4. the CUB kernel's recompile reads the precompiled headers (figures only)
CUPLAY_TRACE=1 "$CUPLAY" -c 'use tests/cxx/cub_reduce.cu; run; set BS=128; run; set BS=512; run' >"$tmp/out" 2>&1 </dev/null
st=$?
ms=$(sed -n 's/.*(compiled in \([0-9.]*\) ms.*/\1/p' "$tmp/out" | tr '\n' ' ')
if [ $st = 0 ] && [ "$(grep -c 'block_sum.*ok' "$tmp/out")" -ge 3 ]; then
	ok "CUB kernel with set BS=128, 512: all ok; compiled in $ms ms"
else
	bad "CUB kernel recompiles (exit $st)"
fi

# 5. element types: the check bites (a half kernel off by one element fails,
#    naming a bad element), and GB/s counts 2-byte elements
"$CUPLAY" --format csv -c 'use tests/cxx/err_check_half.cu; run' >"$tmp/out" 2>&1 </dev/null
st=$?
if [ $st = 1 ] && grep -q '^copy_wrong,.*,FAIL' "$tmp/out" && grep -q "copy_wrong: 'y' differs from reference 'copy'.*first bad index" "$tmp/out"; then
	ok "a wrong half kernel fails its check: $(grep -o 'relative error.*' "$tmp/out" | head -n 1)"
else
	bad "a wrong half kernel (exit $st): its check should fail"
fi
"$CUPLAY" --format csv -c 'use tests/cxx/types_half.cu; run scale_h' >"$tmp/out" 2>&1 </dev/null
if python3 - "$tmp/out" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next(r for r in rows if r[0] == "kernel")
row = next(r for r in rows if r[0] == "scale_h")
med = float(row[head.index("median_ms")]); gbps = float(row[head.index("gbps")])
want = 2 * 1000003 * 2 / (med * 1e-3) / 1e9
assert abs(gbps - want) / want < 0.01, (gbps, want)
print("%.1f GB/s over %.4f ms" % (gbps, med))
PY
then ok "GB/s of a half kernel counts 2-byte elements"; else bad "GB/s of a half kernel"; fi

# 6. device printf: the checked launch's lines, labelled; the others counted
"$CUPLAY" -c 'use tests/cxx/printf.cu; run' >"$tmp/out" 2>&1 </dev/null
st=$?
if [ $st = 0 ] && [ "$(grep -c '^printf copy_print: block [01] starts at x\[[0-9]*\] = [0-9]*$' "$tmp/out")" = 2 ] &&
   grep -q '^printf: [0-9]* more launches printed [0-9]* lines, not shown' "$tmp/out" &&
   grep -q 'copy_print  *ok' "$tmp/out"; then
	ok "printf: one launch's 2 lines shown, $(grep -o '[0-9]* more launches printed [0-9]* lines' "$tmp/out")"
else
	bad "printf (exit $st)"
fi
#    a launch that prints a line a thread: the first 20 shown, the rest counted
"$CUPLAY" -c 'use tests/cxx/printf.cu; set every=1; run' >"$tmp/out" 2>&1 </dev/null
st=$?
if [ $st = 0 ] && [ "$(grep -c '^printf copy_print: thread [0-9]*$' "$tmp/out")" = 20 ] &&
   grep -q '^printf copy_print: \.\.\. 4079 more lines from this launch, not shown$' "$tmp/out" &&
   grep -q 'copy_print  *ok' "$tmp/out"; then
	ok "printf: a line a thread: 20 shown, 4079 more counted"
else
	bad "printf, a line a thread (exit $st)"
fi

# 7. a failed device assertion prints its message and costs the worker only;
#    __trap says the kernel trapped; the next run in the same process works
"$CUPLAY" -c 'use tests/cxx/err_assert_fail.cu; run; use vector_add; set N=100000; run vadd_naive' >"$tmp/out" 2>&1 </dev/null
st=$?
# (every thread past x[i] >= 4000 fails it: the last 20 lines are shown and
# the rest counted)
n_shown=$(grep -c '^printf copy_assert: ' "$tmp/out")
if [ $st = 1 ] && grep -q 'printf copy_assert: .*Assertion .*x\[i\] < 4000.0f.* failed' "$tmp/out" &&
   [ "$n_shown" -le 21 ] && grep -q '^printf copy_assert: \.\.\. [0-9]* lines before these, not shown$' "$tmp/out" &&
   grep -q "kernel 'copy_assert' failed a device assertion" "$tmp/out" && grep -q 'vadd_naive  *ok' "$tmp/out"; then
	ok "assert: $(grep -m1 -o 'Assertion.*failed' "$tmp/out"), $(grep -o '[0-9]* lines before these' "$tmp/out"); the next run ok"
else
	bad "a failed assertion (exit $st)"
fi
"$CUPLAY" -c 'use tests/cxx/err_trap.cu; run; use vector_add; set N=100000; run vadd_naive' >"$tmp/out" 2>&1 </dev/null
st=$?
if [ $st = 1 ] && grep -q "kernel 'trapper' trapped" "$tmp/out" && grep -q 'vadd_naive  *ok' "$tmp/out"; then
	ok "__trap: the kernel trapped; the next run ok"
else
	bad "__trap (exit $st)"
fi

# 8. 100 KiB of dynamic shared memory and clusters of 2: info says what was set
"$CUPLAY" -c 'use tests/cxx/smem_big.cu; info; use tests/cxx/cluster.cu; info swap_dsmem' >"$tmp/out" 2>&1 </dev/null
st=$?
if [ $st = 0 ] && grep -q 'opted in with cuFuncSetAttribute' "$tmp/out" && grep -q '^cluster  *2 blocks a cluster' "$tmp/out"; then
	ok "info: the shared memory opt-in and the cluster shape"
else
	bad "info of smem_big and cluster (exit $st)"
fi

echo "gpu-cxx: $pass passed, $fail failed"
[ $fail -eq 0 ]
