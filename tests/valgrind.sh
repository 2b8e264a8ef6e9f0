#!/usr/bin/env bash
# tests/valgrind.sh: every golden test (tests/golden/*.session, *.args) replayed
# under valgrind's memcheck, from `make valgrind`. A memory error or a definite
# leak fails the test (valgrind exit 3, its report shown); so does an exit
# status or output that differs from NAME.out.
#
# NVRTC takes ~25 s a compile under valgrind, so the compile cache is warmed
# first by a plain run of every test; under valgrind a compile then reads the
# cache ("compiled in <t>" and "cached" are the same line in the comparison).
# Compile errors are never cached, so NVRTC still runs under valgrind for
# them, and one cold case compiles and writes the disk cache under valgrind.
#   CUPLAY   the binary under test (default ./cuplay)
#   JOBS     tests at once (default: the number of CPUs)
# Closing line: "valgrind: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
CUPLAY=${CUPLAY:-./cuplay}
case "$CUPLAY" in /*) ;; *) CUPLAY=$PWD/${CUPLAY#./} ;; esac
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export NO_COLOR=1
export CUPLAY_IGNORE_PTXAS_LOG=1 # as tests/run.sh: resources from the cubin
if ! command -v valgrind >/dev/null; then
	echo "valgrind: not installed (Debian: apt-get install valgrind)"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/res" "$tmp/cache"
# the tests run where the shipped kernel files and lessons are the only ones
# (as in tests/run.sh: one's own files in kernels_src/ change no output)
. tests/shipped.sh
tree=$tmp/tree
shipped_tree "$tree" || { echo "valgrind: MANIFEST names a file that is not there"; exit 1; }
supp=()
[ -e tests/valgrind.supp ] && supp=(--suppressions="$PWD/tests/valgrind.supp")
VG=(valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite
    --show-leak-kinds=definite "${supp[@]}")

# the arguments of golden test $1 (a .session or .args file), into $tmp/args/NAME
mkdir -p "$tmp/args"
tests=()
for s in tests/golden/*.session tests/golden/*.args; do
	[ -e "$s" ] || continue
	name=${s%.*}
	case "$s" in
	*.session) [ -e "$name.args" ] && continue
	           printf '%s\n' "--no-gpu --mask-times $s" >"$tmp/args/${name##*/}" ;;
	*.args)    cat "$s" >"$tmp/args/${name##*/}" ;;
	esac
	tests+=("$name")
done

# one_test NAME [valgrind]: output in $tmp/res/NAME.out, valgrind's in .vg
one_test() {
	local name=$1 base=${1##*/} home="$tmp/home-${1##*/}" args
	shift
	args=$(cat "$tmp/args/$base")
	eval "set -- \"\$@\" $args"
	rm -rf "$home"; mkdir -p "$home"
	local envs=()
	[ -e "$name.env" ] && read -r -a envs <"$name.env"
	(cd "$tree" && env ${envs[@]+"${envs[@]}"} HOME="$home" XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$home/state" \
		"$@" </dev/null >"$tmp/res/$base.out" 2>&1)
	echo "exit $?" >>"$tmp/res/$base.out"
}

# 1. warm the cache: every test once, without valgrind
for name in "${tests[@]}"; do
	one_test "$name" "$CUPLAY" >/dev/null 2>&1
done

# 2. every test under valgrind, JOBS at once; then the cold compile
normal() { sed 's/(compiled in <t>, /(cached, /'; }
vg_test() {
	local name=$1 base=${1##*/}
	one_test "$name" "${VG[@]}" "--log-file=$tmp/res/$base.vg" "$CUPLAY"
	local st
	st=$(tail -n 1 "$tmp/res/$base.out")
	if [ "$st" = "exit 3" ]; then
		{ echo "FAIL: valgrind $name"; sed 's/^/    /' "$tmp/res/$base.vg" | head -n 60; } >"$tmp/res/$base.result"
	elif [ -e "$name.out" ] && ! diff -u <(normal <"$name.out") <(normal <"$tmp/res/$base.out") >"$tmp/res/$base.diff"; then
		{ echo "FAIL: valgrind $name: output differs from $name.out"; sed 's/^/    /' "$tmp/res/$base.diff" | head -n 30; } \
			>"$tmp/res/$base.result"
	else
		echo "ok" >"$tmp/res/$base.result"
	fi
}
cold_test() {
	local out="$tmp/res/cold.out"
	HOME="$tmp/home-cold" XDG_CACHE_HOME="$tmp/cold-cache" "${VG[@]}" "--log-file=$tmp/res/cold.vg" \
		"$CUPLAY" --no-gpu --mask-times -c 'use tests/golden/kernels/saxpy.cu; run; set BLOCK=128; run' \
		</dev/null >"$out" 2>&1
	local st=$?
	if [ $st = 3 ]; then
		{ echo "FAIL: valgrind cold compile"; sed 's/^/    /' "$tmp/res/cold.vg" | head -n 60; } >"$tmp/res/cold.result"
	elif [ $st != 0 ] || [ "$(grep -c '(compiled in <t>, sm_' "$out")" != 2 ] || [ -z "$(ls "$tmp/cold-cache/cuplay")" ]; then
		{ echo "FAIL: valgrind cold compile: exit $st"; sed 's/^/    /' "$out" | head -n 30; } >"$tmp/res/cold.result"
	else
		echo "ok" >"$tmp/res/cold.result"
	fi
}

cold_test &
running=1
for name in "${tests[@]}"; do
	while [ "$running" -ge "$JOBS" ]; do
		wait -n
		running=$((running - 1))
	done
	vg_test "$name" &
	running=$((running + 1))
done
wait

# the class board (tests/board_server.py) with every cuplay it starts under
# memcheck; where cuplay was built without the board's libraries it says
# skipped and counts as passed
printf '#!/bin/sh\nexec %s --log-file=%s/board-vg.%%p "%s" "$@"\n' "${VG[*]}" "$tmp" "$CUPLAY" >"$tmp/vgboard"
chmod +x "$tmp/vgboard"
if CUPLAY="$tmp/vgboard" TMPDIR="$tmp" python3 tests/board_server.py >"$tmp/board.txt" 2>&1 &&
   ! grep -q . "$tmp"/board-vg.* 2>/dev/null; then
	echo ok >"$tmp/res/board_server.result"
else
	{ echo "FAIL: board_server under valgrind"; grep -v '^ok' "$tmp/board.txt"; cat "$tmp"/board-vg.* 2>/dev/null; } |
		head -n 60 >"$tmp/res/board_server.result"
fi

pass=0 fail=0
for r in "$tmp"/res/*.result; do
	if [ "$(cat "$r")" = ok ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		cat "$r"
	fi
done
echo "valgrind: $pass passed, $fail failed"
[ $fail -eq 0 ]
