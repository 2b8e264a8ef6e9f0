#!/usr/bin/env bash
# tests/gpu_claim.sh: on a host of two GPUs or more of one kind (seen by
# this process: CUDA_VISIBLE_DEVICES unset or naming several), processes
# not told which GPU to use claim one each, the least claimed: four started
# at once use two GPUs, two each, each saying which at its first result;
# --device 1 still pins one. Called by tests/gpu.sh; where make test splits
# the GPUs between tests (one each), run it alone:
#   bash tests/gpu_claim.sh
# Closing line: "gpu-claim: N passed, N failed".
. "$(dirname "$0")/lib.sh"
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if ! have_gpu || [ "${n:-0}" -lt 2 ] || { [ -n "${CUDA_VISIBLE_DEVICES+x}" ] && ! echo "$CUDA_VISIBLE_DEVICES" | grep -q ,; }; then
	echo "gpu-claim: skipped: fewer than two GPUs seen"
	echo "gpu-claim: 0 passed, 0 failed"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache" CUPLAY_LOCK_DIR="$tmp/locks"
mkdir -p "$CUPLAY_LOCK_DIR"
: >"$tmp/out"
"$CUPLAY" -c 'use vector_add; set N=1048576' >/dev/null 2>&1 </dev/null # the compile cached
# four processes at once, each holding its GPU a while (its first result,
# then a second run)
for i in 1 2 3 4; do
	"$CUPLAY" -c 'use vector_add; set N=1048576; run vadd_naive; set N=16777216; run vadd_naive' \
		>"$tmp/p$i" 2>&1 </dev/null &
done
wait
g0=0 g1=0 said=0
for i in 1 2 3 4; do
	g=$(sed -n "s/^GPU \([0-9]*\) of [0-9]* (.*): the one of its kind fewest cuplay processes use.*/\1/p" "$tmp/p$i" | head -n 1)
	[ -n "$g" ] && said=$((said + 1))
	[ "$g" = 0 ] && g0=$((g0 + 1))
	[ "$g" = 1 ] && g1=$((g1 + 1))
done
if [ $said = 4 ] && [ $g0 = 2 ] && [ $g1 = 2 ]; then
	ok "four processes at once: two on GPU 0, two on GPU 1, each saying which"
else
	bad "four processes at once: expected two on each of GPUs 0 and 1, each said; got $g0 on 0, $g1 on 1, $said said"
	cat "$tmp/p1"
fi
# the GPU said comes before the first result
if awk '/fewest cuplay processes use/ { g = NR } /^vadd_naive / && !r { r = NR } END { exit !(g && r && g < r) }' "$tmp/p1"; then
	ok "the GPU claimed is said before the first result"
else
	bad "the GPU claimed is not said before the first result"; cat "$tmp/p1"
fi
# --device 1 pins GPU 1 and claims nothing else; nothing said
"$CUPLAY" --device 1 --format csv -c 'use vector_add; set N=1048576; device; run vadd_naive' >"$tmp/pin" 2>"$tmp/pin.err" </dev/null
if ! grep -q "fewest cuplay processes use" "$tmp/pin.err" && grep -q '^1,' "$tmp/pin"; then
	ok "--device 1: GPU 1, no claim said"
else
	bad "--device 1 did not pin GPU 1"; cat "$tmp/pin" "$tmp/pin.err"
fi
echo "gpu-claim: $pass passed, $fail failed"
