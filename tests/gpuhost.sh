#!/usr/bin/env bash
# tests/gpuhost.sh [OUTDIR]: what a GPU host of several GPUs runs in one go
# (three or more GPUs: make test takes the first three, the rest serve
# here): the build, `make test` (its GPU tests split over GPUs 0-2), and
# beside it on GPU 3 the rerun benchmark (tests/bench_rerun.py) and every
# lesson with line expectations replayed REPLAYS times in fresh processes
# (tests/gpu_lines_replay.sh). Each log goes to OUTDIR (default
# ./gpuhost-out) with a "time:" line; prints the head and the tail of each.
#   BOARD_PREFIX=DIR   the board's libraries (as for make)
#   PYSITE=DIR         where the Jupyter packages are (PYTHONPATH)
#   REPLAYS=N          line-lesson replays (default 5)
#   SIDE=0             make test alone, nothing beside it
set -u
cd "$(dirname "$0")/.."
out=${1:-gpuhost-out}
mkdir -p "$out"
[ -z "${PYSITE:-}" ] || export PYTHONPATH=$PYSITE
t0=$SECONDS
if ! make -j"$(nproc)" ${BOARD_PREFIX:+BOARD_PREFIX=$BOARD_PREFIX} >"$out/build.log" 2>&1; then
	echo "build failed:"; tail -n 30 "$out/build.log"; exit 1
fi
echo "time: build $((SECONDS - t0)) s"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
side=
if [ "${SIDE:-1}" != 0 ] && [ "$ngpu" -ge 4 ]; then
	(
		export CUDA_VISIBLE_DEVICES=3
		s=$SECONDS
		CUPLAY=./cuplay python3 tests/bench_rerun.py >"$out/bench_rerun.log" 2>&1
		echo "time: bench_rerun.py $((SECONDS - s)) s" >>"$out/bench_rerun.log"
		s=$SECONDS
		CUPLAY=./cuplay REPLAYS=${REPLAYS:-5} bash tests/gpu_lines_replay.sh >"$out/lines_replay.log" 2>&1
		echo "time: gpu_lines_replay.sh $((SECONDS - s)) s (exit $?)" >>"$out/lines_replay.log"
	) &
	side=$!
fi
s=$SECONDS
make test ${BOARD_PREFIX:+BOARD_PREFIX=$BOARD_PREFIX} >"$out/make_test.log" 2>&1
st=$?
echo "time: make test $((SECONDS - s)) s (exit $st)" | tee -a "$out/make_test.log"
[ -z "$side" ] || wait "$side"
for f in make_test bench_rerun lines_replay; do
	[ -f "$out/$f.log" ] || continue
	echo "==== $f.log ($(wc -l <"$out/$f.log") lines): head"
	head -n 15 "$out/$f.log"
	echo "==== $f.log: FAIL lines and tail"
	grep -n 'FAIL\|MISSED' "$out/$f.log" | head -n 40
	tail -n 25 "$out/$f.log"
done
exit $st
