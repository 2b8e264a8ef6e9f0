#!/usr/bin/env bash
# tests/gpu.sh: tests that need a GPU. Without one: "gpu: skipped: no GPU".
# Closing line: "gpu: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
CUPLAY=${CUPLAY:-./cuplay}
export NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"

if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' || ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
	echo "gpu: skipped: no GPU"
	exit 0
fi

pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok:   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; sed 's/^/    /' "$tmp/out" | tail -n 30; }

# run NAME EXPECTED_STATUS cuplay-args...: output in $tmp/out
run() {
	local name=$1 want=$2; shift 2
	"$CUPLAY" "$@" >"$tmp/out" 2>&1 </dev/null
	local st=$?
	cp "$tmp/out" "$tmp/$name.out"
	if [ "$st" != "$want" ]; then bad "$name (exit $st, expected $want)"; return 1; fi
	return 0
}

# 1. every shipped kernel checks ok at its default size and at an awkward one
for f in kernels_src/*.cu; do
	n=$(basename "$f" .cu)
	if run "default-$n" 0 --bail -c "use $f; run"; then
		if grep -q 'FAIL' "$tmp/out"; then bad "default-$n: a check failed"; else ok "default-$n"; fi
	fi
done
if [ -e tests/gpu/awkward.session ]; then
	if run awkward 0 tests/gpu/awkward.session; then
		if grep -q 'FAIL' "$tmp/out"; then bad "awkward sizes: a check failed"; else ok "awkward sizes ($(grep -c ' ok ' "$tmp/out") kernel runs ok)"; fi
	fi
fi

# 2. at N=8192, transpose_tiled with PAD=1 is faster than with PAD=0
if run pad 0 --format csv -c 'use transpose; set N=8192; set PAD=0; run transpose_tiled; set PAD=1; run transpose_tiled'; then
	m0=$(awk -F, '$1=="transpose_tiled" && $2 ~ /PAD=0/ {print $5}' "$tmp/out")
	m1=$(awk -F, '$1=="transpose_tiled" && $2 ~ /PAD=1/ {print $5}' "$tmp/out")
	if [ -n "$m0" ] && [ -n "$m1" ] && awk -v a="$m0" -v b="$m1" 'BEGIN { exit !(b < a) }'; then
		ok "transpose_tiled N=8192: PAD=0 $m0 ms, PAD=1 $m1 ms ($(awk -v a="$m0" -v b="$m1" 'BEGIN { printf "%.2fx", a / b }'))"
	else
		bad "transpose_tiled PAD=1 not faster than PAD=0 ($m0 vs $m1 ms)"
	fi
fi

# 3. an out-of-bounds write kills the worker; the next run in the same REPL works
if run oob 1 -c 'use tests/kernels/oob.cu; run; use vector_add; set N=100000; run'; then
	if grep -qi 'illegal\|fault\|worker' "$tmp/out" && grep -q ' ok ' "$tmp/out"; then
		ok "out-of-bounds write: worker replaced, next run ok"
	else
		bad "out-of-bounds: expected a fault line, then a run that checks ok"
	fi
fi

# 4. a kernel that spins forever is stopped by the timeout; the next run works
if run spin 1 -c 'timeout 2; use tests/kernels/spin.cu; run; use vector_add; set N=100000; run'; then
	if grep -q 'no progress' "$tmp/out" && grep -q ' ok ' "$tmp/out"; then
		ok "spinning kernel: stopped by the timeout, next run ok"
	else
		bad "spin: expected a timeout line, then a run that checks ok"
	fi
fi

echo "gpu: $pass passed, $fail failed"
