#!/usr/bin/env bash
# tests/gpu_lines_replay.sh: every lesson with line expectations (an
# `expect KERNEL line "TEXT" ...` line) replayed REPLAYS times (default 5),
# each in a fresh process (the compile cache shared, warm after the first):
# a replay is green when it exits 0, no expectation failed, and each of the
# lesson's line expectations was checked and held (none skipped). Prints
# per lesson how many replays were green, and for one that was not, what
# its first failure said. Not part of tests/gpu.sh (a lesson takes seconds:
# nine lessons five times each is minutes); run alone:
#   bash tests/gpu_lines_replay.sh            (CUPLAY=./cuplay REPLAYS=5)
#   LESSONS="bank_conflicts coalescing" REPLAYS=2 bash tests/gpu_lines_replay.sh
# Closing line: "gpu-lines-replay: N passed, N failed" (a lesson each);
# exit 1 when any replay was not green.
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "gpu-lines-replay: skipped: no GPU"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache"
n=${REPLAYS:-5}
case $n in '' | *[!0-9]* | 0) echo "gpu-lines-replay: REPLAYS must be a positive number, not '$n'"; exit 2 ;; esac

lessons=$(grep -l '^expect .* line "' $(shipped 'sessions/*.session'))
if [ -z "$lessons" ]; then
	echo "FAIL: no lesson holds a line expectation"; echo "gpu-lines-replay: 0 passed, 1 failed"; exit 1
fi
for s in $lessons; do
	name=$(basename "$s" .session)
	case " ${LESSONS:-$name} " in *" $name "*) ;; *) continue ;; esac
	want=$(grep -c '^expect .* line "' "$s")
	green=0 first=""
	for i in $(seq 1 "$n"); do
		"$CUPLAY" "$s" >"$tmp/out" 2>&1 </dev/null
		st=$?
		held=$(grep -c '^expect: .* line [0-9]* ".*: ok' "$tmp/out")
		if [ $st = 0 ] && [ "$held" = "$want" ] && ! grep -q 'expectation failed\|expect .* line ".*: skipped' "$tmp/out"; then
			green=$((green + 1))
		elif [ -z "$first" ]; then
			first="replay $i: exit $st, $held of $want line expectations held: $(grep -m1 'expectation failed\|: skipped\|error' "$tmp/out")"
			cp "$tmp/out" "$tmp/first"
		fi
	done
	if [ $green = "$n" ]; then
		ok "lesson $name: $green of $n replays green ($want line expectations each)"
	else
		cp "$tmp/first" "$tmp/out"
		bad "lesson $name: $green of $n replays green ($want line expectations each); $first"
	fi
done
echo "gpu-lines-replay: $pass passed, $fail failed"
[ $fail = 0 ]
