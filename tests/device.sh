#!/usr/bin/env bash
# tests/device.sh: one call on the GPU machine: build, test, the issue's REPL
# example, lessons, and (with BENCH=1) the benchmarks. Logs go to $OUT.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-./device-out}
mkdir -p "$OUT"
export NO_COLOR=1 XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/cuplay-cache}
{
	echo "== machine"
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader 2>&1
	echo "== build"
	make -s -j8 2>&1 | grep -v '^  CC\|LINK' ; ls -la cuplay
	if [ "${TEST:-1}" = 1 ]; then echo "== make test"; make test 2>&1; fi
	echo "== example"
	./cuplay -c 'use transpose; set N=8192; set PAD=0; run transpose_tiled; set PAD=1; run transpose_tiled; expect transpose_tiled[PAD=1] faster transpose_tiled[PAD=0] by 1.5' 2>&1
	if [ "${LESSONS:-0}" = 1 ]; then
		for s in $(. tests/shipped.sh; shipped 'sessions/*.session'); do echo "== lesson $s"; ./cuplay "$s" 2>&1; echo "exit $?"; done
	fi
	if [ -n "${EXTRA:-}" ]; then echo "== extra"; ./cuplay -c "$EXTRA" 2>&1; echo "exit $?"; fi
	if [ "${BENCH:-0}" = 1 ]; then echo "== make bench"; make bench 2>&1; fi
} 2>&1 | tee "$OUT/device.log"
