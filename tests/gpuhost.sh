#!/usr/bin/env bash
# tests/gpuhost.sh test|bench [OUTDIR]: what a GPU host runs in one go,
# each log in OUTDIR (default ./gpuhost-out) with "time:" lines; prints the
# head, the FAIL/MISSED lines and the tail of each log at the end.
#   test   the build, then `make test` (on a host of several GPUs its GPU
#          tests split over GPUs 0-3); with REPLAYS set and a fourth GPU, beside
#          it on GPU 3 (a GPU of its own; only correctness is asserted
#          there) the lessons with line expectations replayed REPLAYS
#          times in fresh processes (tests/gpu_lines_replay.sh; LESSONS
#          picks)
#   PART=rest|gpu1|gpu2  make test over three calls, each under 10 minutes
#          where one would not fit (a host of one GPU: the GPU tests in
#          turn): rest = make test without tests/gpu.sh and the lessons'
#          replays (GPU_SUITE=0); gpu1 = tests/gpu.sh's part 1; gpu2 = its
#          part 2, then every lesson's replay (tests/margins.sh 1). The
#          three together are make test. Unset: make test whole.
#   bench  the build, then the rerun benchmark (tests/bench_rerun.py) on a
#          quiet host: nothing runs beside it
#   BOARD_PREFIX=DIR   the board's libraries (as for make)
#   PYSITE=DIR         where the Jupyter packages are (PYTHONPATH)
#   TEST_LIMIT=S       make test stopped after S seconds (default 540); each
#                      test's own log is kept in OUTDIR/tests either way
set -u
cd "$(dirname "$0")/.."
mode=${1:-}
out=${2:-gpuhost-out}
case $mode in test|bench) ;; *) echo "usage: tests/gpuhost.sh test|bench [OUTDIR]"; exit 2 ;; esac
case ${PART:-} in ''|rest|gpu1|gpu2) ;; *) echo "PART=$PART: expected rest, gpu1 or gpu2 (unset: make test whole)"; exit 2 ;; esac
mkdir -p "$out"
[ -z "${PYSITE:-}" ] || export PYTHONPATH=$PYSITE
t0=$SECONDS
if ! make -j"$(nproc)" ${BOARD_PREFIX:+BOARD_PREFIX=$BOARD_PREFIX} >"$out/build.log" 2>&1; then
	echo "build failed:"; tail -n 30 "$out/build.log"; exit 1
fi
echo "time: build $((SECONDS - t0)) s"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
logs= st=0
if [ "$mode" = test ]; then
	side=
	if [ -n "${REPLAYS:-}" ] && [ "$ngpu" -ge 4 ]; then
		(
			s=$SECONDS
			CUDA_VISIBLE_DEVICES=3 CUPLAY=./cuplay bash tests/gpu_lines_replay.sh >"$out/lines_replay.log" 2>&1
			echo "time: gpu_lines_replay.sh $((SECONDS - s)) s (exit $?)" >>"$out/lines_replay.log"
		) &
		side=$!
	fi
	s=$SECONDS
	case ${PART:-} in
	gpu1|gpu2)
		CUPLAY=./cuplay GPU_PART=${PART#gpu} timeout -s TERM "${TEST_LIMIT:-540}" bash tests/gpu.sh >"$out/$PART.log" 2>&1
		st=$?
		echo "time: tests/gpu.sh part ${PART#gpu} $((SECONDS - s)) s (exit $st)" >>"$out/$PART.log"
		if [ "$PART" = gpu2 ]; then
			m=$SECONDS
			left=$(( ${TEST_LIMIT:-540} - (SECONDS - s) )); [ "$left" -ge 1 ] || left=1
			CUPLAY=./cuplay timeout -s TERM "$left" bash tests/margins.sh 1 \
				>"$out/margins.log" 2>&1
			r=$?; [ $st != 0 ] || st=$r
			echo "time: tests/margins.sh $((SECONDS - m)) s (exit $r)" >>"$out/margins.log"
		fi ;;
	rest|'')
		# cut short (TEST_LIMIT seconds) rather than lose what it printed
		env ${PART:+GPU_SUITE=0} CUPLAY_TEST_KEEP=$out/tests timeout -s TERM "${TEST_LIMIT:-540}" \
			make test ${BOARD_PREFIX:+BOARD_PREFIX=$BOARD_PREFIX} >"$out/make_test.log" 2>&1
		st=$?
		# cut short, make is gone at once while tests/run.sh still cleans up
		# (and keeps the logs): wait for it, at most a minute
		for _ in $(seq 60); do pgrep -f 'tests/run.sh' >/dev/null || break; sleep 1; done
		echo "time: make test $((SECONDS - s)) s (exit $st)" >>"$out/make_test.log" ;;
	esac
	[ -z "$side" ] || wait "$side"
	# the tests' own logs as one file (many small files travel badly)
	[ ! -d "$out/tests" ] || { tar czf "$out/tests.tgz" -C "$out" tests && rm -rf "$out/tests"; }
	logs="make_test lines_replay gpu1 gpu2 margins"
else
	s=$SECONDS
	CUPLAY=./cuplay python3 tests/bench_rerun.py >"$out/bench_rerun.log" 2>&1
	st=$?
	echo "time: bench_rerun.py $((SECONDS - s)) s (exit $st)" >>"$out/bench_rerun.log"
	logs=bench_rerun
fi
for f in $logs; do
	[ -f "$out/$f.log" ] || continue
	echo "==== $f.log ($(wc -l <"$out/$f.log") lines): head"
	head -n 12 "$out/$f.log"
	echo "==== $f.log: FAIL and MISSED lines, time lines, the tail"
	grep -n 'FAIL\|MISSED' "$out/$f.log" | head -n 40
	grep -n '^time:' "$out/$f.log" | head -n 60
	tail -n 15 "$out/$f.log"
done
exit $st
