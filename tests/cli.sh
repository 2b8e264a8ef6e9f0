#!/usr/bin/env bash
# tests/cli.sh: what a newcomer meets first: the command line (options),
# `help`, where kernel files and sessions are found, and the Makefile
# (no relink, install and uninstall). Prints one line a failure and
# "cli: N passed, N failed, N skipped".
#   CUPLAY     the binary under test (default ./cuplay)
#   MAKE_BIN   the Makefile's name for it (default cuplay), for the relink test
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
CUPLAY=${CUPLAY:-./cuplay}
case "$CUPLAY" in /*) ;; *) CUPLAY=$ROOT/${CUPLAY#./} ;; esac
pass=0 fail=0 skip=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1 XDG_CACHE_HOME="$tmp/cache" CUPLAY_IGNORE_PTXAS_LOG=1
unset CUPLAY_PATH

ok()   { pass=$((pass + 1)); echo "ok:   $*"; }
bad()  { fail=$((fail + 1)); echo "FAIL: $*"; [ -s "$tmp/out" ] && sed 's/^/    /' "$tmp/out" | head -30; }
# t WHAT COMMAND...: passes when COMMAND (a shell string) exits 0; its
# output is in $tmp/out for the failure message
t() {
	local what=$1; shift
	if (eval "$*") >"$tmp/out" 2>&1; then ok "$what"; else bad "$what"; fi
}

# A directory of one's own, away from the repository, with a kernel file
# that has a template and a skipped kernel: neither counts as a kernel.
mkdir -p "$tmp/own/kernels_src"
cat >"$tmp/own/kernels_src/mine.cu" <<'EOF'
// mine.cu: two kernels, a template and a skipped one (a test's own file)
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 128)
//@ block  128
//@ check  y = copy(x)
//@ kernel never skip
__global__ void copy_a(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = x[i];
}
__global__ void copy_b(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = x[i];
}
template <typename T> __global__ void copy_t(int n, const T *x, T *y) {}
__global__ void never(int n, const float *x, float *y) {}
EOF

# ---- kernel files ---------------------------------------------------------
t "ls counts the kernels that use counts" '
	cd "$tmp/own" &&
	"$CUPLAY" --no-gpu -c "use mine" | grep -q "^kernels_src/mine.cu: 2 kernels (copy_a, copy_b)$" &&
	"$CUPLAY" --no-gpu -c ls | grep -q "^mine  *2  "'

# ---- the search path: ./kernels_src, CUPLAY_PATH, the installed ones ------
mkdir -p "$tmp/course/kernels_src" "$tmp/course/sessions"
cp tests/golden/kernels/saxpy.cu "$tmp/course/kernels_src/"
cp "$tmp/own/kernels_src/mine.cu" "$tmp/course/kernels_src/"   # hidden by own/'s
printf '# A lesson of the course: saxpy by name\nuse saxpy\nrun\n' >"$tmp/course/sessions/course_saxpy.session"
t "CUPLAY_PATH: kernel files of a course, after ./kernels_src" '
	cd "$tmp/own" &&
	CUPLAY_PATH="$tmp/nothere::$tmp/course" "$CUPLAY" --no-gpu -c "ls; use saxpy; use mine" >"$tmp/o" 2>&1 &&
	grep -q "^$tmp/course/kernels_src/saxpy.cu: 1 kernel (saxpy)$" "$tmp/o" &&
	grep -q "^kernels_src/mine.cu: 2 kernels" "$tmp/o" &&
	grep -q "^saxpy  *1  $tmp/course/kernels_src  " "$tmp/o" &&
	grep -q "^mine  *2  kernels_src  " "$tmp/o" &&
	grep -q "^hidden by the files above: mine in $tmp/course/kernels_src$" "$tmp/o"'
t "CUPLAY_PATH: a lesson by name, from the shell, with source and in lessons" '
	cd "$tmp/own" &&
	CUPLAY_PATH="$tmp/course" "$CUPLAY" --no-gpu --mask-times course_saxpy >"$tmp/o" 2>&1 &&
	grep -q "saxpy.cu  BLOCK=256" "$tmp/o" &&
	CUPLAY_PATH="$tmp/course" "$CUPLAY" --no-gpu --mask-times -c "source course_saxpy" | grep -q "saxpy.cu  BLOCK=256" &&
	CUPLAY_PATH="$tmp/course" "$CUPLAY" -c lessons | grep -q "^course_saxpy  A lesson of the course: saxpy by name$"'
t "a session that is nowhere: the error names it and the nearest lesson" '
	out=$("$CUPLAY" --no-gpu bank_conflict 2>&1); st=$?
	[ $st = 1 ] && [ "$out" = "error: cannot open session '"'bank_conflict'"': No such file or directory (did you mean '"'bank_conflicts'"'?)" ]'
t "lessons: each session of sessions/ with the first comment line of its file" '
	"$CUPLAY" -c lessons >"$tmp/o" &&
	for f in sessions/*.session; do
		n=$(basename "$f" .session)
		sum=$(sed -n "s/^# *//p;/^[^#]/q" "$f" | head -n 1 | cut -c1-30)
		grep "^$n " "$tmp/o" | grep -qF "$sum" || { echo "missing: $n ($sum)"; exit 1; }
	done &&
	[ $(grep -c "^[a-z]" "$tmp/o") -ge $(ls sessions/*.session | wc -l) ]'

echo "cli: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
