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
. tests/shipped.sh
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

# ---- help: 80 columns, a paragraph and examples for each command ----------
t "help fits 80 columns" '
	"$CUPLAY" -c help >"$tmp/o" && [ $(wc -l <"$tmp/o") -gt 30 ] && [ -z "$(awk "length > 80" "$tmp/o")" ]'
t "help CMD: usage, a paragraph and an example, within 80 columns, for every command" '
	for c in $("$CUPLAY" -c help | sed -n "s/^  \([a-z][a-z]*\) .*/\1/p"); do
		"$CUPLAY" -c "help $c" >"$tmp/o" &&
		head -n 1 "$tmp/o" | grep -q "^usage: $c" && grep -q "^Examples*:$" "$tmp/o" &&
		grep -q "^  $c\( \|$\)" "$tmp/o" && [ -z "$(awk "length > 80" "$tmp/o")" ] ||
		{ echo "help $c:"; cat "$tmp/o"; exit 1; }
	done'
t "help header, help refs, help buffers: within 80 columns" '
	for topic in header refs buffers; do
		"$CUPLAY" -c "help $topic" >"$tmp/o" && [ $(wc -l <"$tmp/o") -gt 10 ] &&
		[ -z "$(awk "length > 80" "$tmp/o")" ] || { echo "help $topic:"; cat "$tmp/o"; exit 1; }
	done &&
	"$CUPLAY" -c "help refs" | grep -q "^  saxpy(alpha, x, y)$" &&
	"$CUPLAY" -c "help sweep" | grep -q "^usage: sweep .*\[on all\]$"'
t "README: every command in its table; docs/header.md: every reference of help refs" '
	for c in $("$CUPLAY" -c help | sed -n "s/^  \([a-z][a-z]*\) .*/\1/p"); do
		grep -q "^| .*\`$c[] \`]" README.md || { echo "README has no row for $c"; exit 1; }
	done &&
	"$CUPLAY" -c "help refs" | sed -n "s/^  \([a-z]*\)(\(.*\))$/\1(\2)/p" >"$tmp/refs" &&
	[ $(wc -l <"$tmp/refs") -ge 11 ] &&
	while read -r r; do grep -qF "\`$r\`" docs/header.md || { echo "docs/header.md lacks $r"; exit 1; }; done <"$tmp/refs"'
t "help: a misspelt topic gets the nearest" '
	[ "$("$CUPLAY" -c "help hedaer" 2>&1)" = "error: no command or topic '"'hedaer'"' (did you mean '"'header'"'?)" ]'

# ---- kernel files ---------------------------------------------------------
t "ls counts the kernels that use counts" '
	cd "$tmp/own" &&
	"$CUPLAY" --no-gpu -c "use mine" | grep -q "^kernels_src/mine.cu: 2 kernels (copy_a, copy_b)$" &&
	"$CUPLAY" --no-gpu -c ls | grep -q "^mine  *2  "'

t "sweep gives shared memory in the units run gives it" '
	"$CUPLAY" --no-gpu -c "use transpose; run transpose_tiled; sweep PAD=1 transpose_tiled" >"$tmp/o" 2>&1 &&
	run=$(sed -n "s/^transpose_tiled  *[0-9]*  *\([0-9.]* [KM]*i*B\)  .*/\1/p" "$tmp/o") &&
	sweep=$(sed -n "s/.*not launched (no GPU): [0-9]* regs, \(.*\) smem$/\1/p" "$tmp/o") &&
	[ -n "$run" ] && [ "$run" = "$sweep" ] || { echo "run: ${run:-} sweep: ${sweep:-}"; cat "$tmp/o"; false; }'

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

# ---- --arch: Blackwell targets (arch-specific, family, consumer) for
# compile-only inspection, wherever the NVRTC in use compiles for them (as
# it says); where it does not, a usage error that names what it lacks
t "--arch sm_100a, sm_100f, sm_120: info and ptx compile-only, or the NVRTC says it lacks them" '
	for a in sm_100a sm_100f sm_120; do
		"$CUPLAY" --no-gpu --arch $a -c "use vector_add; info vadd_naive; ptx vadd_naive" >"$tmp/arch" 2>&1
		st=$?
		if [ $st = 0 ]; then
			grep -q "^kernel  *vadd_naive (.*), $a\$" "$tmp/arch" && grep -q "(-arch=$a " "$tmp/arch" ||
				{ echo "--arch $a: exit 0 but not compiled for it"; cat "$tmp/arch"; exit 1; }
		elif [ $st = 2 ]; then
			grep -q "^cuplay: --arch: NVRTC [0-9.]* does not compile for $a (" "$tmp/arch" ||
				{ echo "--arch $a: exit 2 without saying what NVRTC lacks"; cat "$tmp/arch"; exit 1; }
		else echo "--arch $a: exit $st"; cat "$tmp/arch"; exit 1; fi
	done &&
	"$CUPLAY" --no-gpu --arch sm_1200 -c "use vector_add" >"$tmp/arch" 2>&1; [ $? = 2 ] &&
	grep -q "^cuplay: --arch: NVRTC [0-9.]* does not compile for sm_1200 (it compiles for sm_[0-9]* to sm_[0-9]*)" "$tmp/arch" &&
	"$CUPLAY" --no-gpu --arch sm_80a -c "use vector_add" >"$tmp/arch" 2>&1; [ $? = 2 ]'

# ---- counters: every one a lesson asks for or asserts has a friendly name,
# with its meaning, in `help metrics` (a raw ncu name there would be shown
# as it is, beside figures with their meaning)
t "lessons: every counter they read or assert is a figure with a meaning" '
	"$CUPLAY" -c "help metrics" >"$tmp/figs" && python3 - "$tmp/figs" sessions/*.session kernels_src/*.cu <<"PY"
import re, sys
help = open(sys.argv[1]).read()
figs = help[help.index("\nFigures"):]
names = set(re.findall(r"^  ([a-z][a-z0-9_]*)  +\S", figs, re.M))
sets = set(re.search(r"^Sets: (.*)$", figs, re.M).group(1).split())
files = [f for f in sys.argv[2:] if f.endswith(".session")]
src = "".join(open(f).read() for f in sys.argv[2:] if f.endswith(".cu"))
kernels = set(w for w in re.findall(r"\b(\w+)\s*\(", src))
kernels |= set(re.findall(r"^//@ (?:sequence|kernel) (\S+)", src, re.M))  # sequences, instantiations
used = set()
for f in files:
    for line in open(f):
        m = re.match(r"expect \S+ metric (\S+) ", line)
        if m:
            used.add(m.group(1))
        m = re.match(r"metrics (.*)", line)
        if m:
            used |= {w for w in m.group(1).split()
                     if (w not in kernels or w in names) and w not in sets and w not in ("on", "off", "list")}
bad = sorted(u for u in used if u not in names)
assert len(names) >= 20 and len(used) >= 8, (len(names), sorted(used))
assert not bad, "not figures of help metrics: %s" % bad
print("%d counters, all figures" % len(used))
PY'

# ---- make ----------------------------------------------------------------
MAKE_BIN=${MAKE_BIN:-cuplay}
MK="make --no-print-directory"
t "make: a second make relinks nothing" '
	{ $MK -q "$MAKE_BIN" || { echo "make -q: $MAKE_BIN is out of date after make"; false; }; } &&
	$MK >"$tmp/o" 2>&1 && ! grep -q "LINK\|  CC " "$tmp/o" || { cat "$tmp/o"; false; }'
t "make -s: says nothing of what it builds (no CC or LINK lines); make says CC" '
	$MK -s BUILD="$tmp/b" "$tmp/b/base/sha256.o" >"$tmp/o" 2>&1 && [ ! -s "$tmp/o" ] &&
	MAKEFLAGS= $MK -W src/base/sha256.c BUILD="$tmp/b" "$tmp/b/base/sha256.o" 2>&1 | grep -q "^  CC    src/base/sha256.c$" ||
	{ cat "$tmp/o"; false; }'
t "make: without readline headers the link says so, and the line editor built in is compiled" '
	env -u HAVE_READLINE MAKEFLAGS= $MK -n -B BIN="$tmp/plain" READLINE_H=readline/no-such-header.h "$tmp/plain" >"$tmp/o" &&
	grep -q "readline headers not found: lines are edited by the built-in linenoise (vendor/linenoise)" "$tmp/o" &&
	grep -q "vendor/lineedit.c" "$tmp/o" && grep -q -- "-DHAVE_LINENOISE=1" "$tmp/o" || { cat "$tmp/o" | tail -5; false; }'

# MANIFEST lists the files that come with cuplay: each is there, and in a git
# checkout they are the files git tracks in kernels_src/ and sessions/
t "MANIFEST: every file it lists is there, and git tracks no other" '
	for f in $(shipped); do [ -f "$f" ] || { echo "MANIFEST lists $f, which is not there"; exit 1; }; done &&
	if git ls-files --error-unmatch kernels_src >/dev/null 2>&1; then
		want=$(git ls-files -- kernels_src sessions | sort) && have=$(shipped | sort) &&
		{ [ "$want" = "$have" ] || { echo "MANIFEST differs from git ls-files kernels_src sessions (add a new shipped file to MANIFEST):"
		                              diff <(echo "$want") <(echo "$have"); false; }; }
	fi'

# install into a DESTDIR, run the installed binary from a directory with a
# kernels_src of its own, then uninstall: nothing of ours is left behind
dest=$tmp/dest
scratch=kernels_src/zz_scratch_$$.cu   # not in MANIFEST: must not be installed
cp tests/golden/kernels/saxpy.cu "$scratch" || scratch=
trap 'rm -rf "$tmp"; [ -z "$scratch" ] || rm -f "$ROOT/$scratch"' EXIT
if $MK -s install DESTDIR="$dest" PREFIX=/opt/cuplay >"$tmp/install" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/opt/cuplay"
else
	cp "$tmp/install" "$tmp/out"; bad "make install DESTDIR=... PREFIX=/opt/cuplay"
fi
[ -n "$scratch" ] && rm -f "$scratch"
inst=$dest/opt/cuplay
t "install: the binary, the man page, and only the shipped kernel files and sessions" '
	[ -x "$inst/bin/cuplay" ] && [ -f "$inst/share/man/man1/cuplay.1" ] &&
	want=$(shipped | sort) &&
	have=$(cd "$inst/share/cuplay" && find . -type f | sed "s|^\./||" | sort) &&
	[ "$want" = "$have" ] || { echo "want: ${want:-}"; echo "have: ${have:-}"; false; }'
t "installed: finds its own kernel files and the shipped ones, from elsewhere" '
	cd "$tmp/own" && "$inst/bin/cuplay" --no-gpu -c "ls; use mine; use transpose" >"$tmp/o" 2>&1 &&
	grep -q "^kernels_src/mine.cu: 2 kernels" "$tmp/o" &&
	grep -q "^$inst/share/cuplay/kernels_src/transpose.cu: 3 kernels" "$tmp/o" &&
	grep -q "^mine  *2  kernels_src  " "$tmp/o" &&
	grep -q "^transpose  *3  $inst/share/cuplay/kernels_src  " "$tmp/o" || { cat "$tmp/o"; false; }'
lesson=$(shipped 'sessions/*.session' | head -n 1)
lesson=$(basename "${lesson:-none}" .session)
t "installed: a shipped lesson by name, from elsewhere" '
	cd "$tmp/own" && "$inst/bin/cuplay" -c lessons | grep -q "^$lesson " &&
	"$inst/bin/cuplay" --no-gpu --mask-times "$lesson" >"$tmp/o" 2>&1 || { cat "$tmp/o"; false; }'
# an unpacked release: the same install without .git, and inside another
# repository that ignores the tree (a course's own): the shipped files are
# MANIFEST's either way, not git's (which answers nothing there); BIN=cuplay:
# the binary copied in, whatever build a SANITIZE=1 run names through MAKEFLAGS
for layout in nogit nested; do
	case $layout in
	nogit)  tree=$tmp/unpacked/cuplay ;;
	nested) tree=$tmp/course/labs/cuplay
	        mkdir -p "$tmp/course/labs" && git -C "$tmp/course" init -q &&
	        echo "labs/" >"$tmp/course/.gitignore" && git -C "$tmp/course" add .gitignore &&
	        git -C "$tmp/course" -c user.name=t -c user.email=t@t commit -qm course ;;
	esac
	mkdir -p "$tree" && cp -p Makefile MANIFEST cuplay.1 README.md "$tree/" && cp -rp docs "$tree/" &&
	cp -p "$CUPLAY" "$tree/cuplay" &&
	for f in $(shipped); do mkdir -p "$tree/${f%/*}" && cp -p "$f" "$tree/$f"; done &&
	cp -p tests/golden/kernels/saxpy.cu "$tree/kernels_src/zz_mine.cu"
	t "install from an unpacked tree ($layout): MANIFEST's files alone" '
		( cd "$tree" && [ "$layout" = nogit ] || git rev-parse --show-toplevel >/dev/null 2>&1 ) &&
		( cd "$tree" && $MK -s -o cuplay install BIN=cuplay DESTDIR="$tmp/dest-$layout" PREFIX=/opt/c >"$tmp/o" 2>&1 ) &&
		want=$(shipped | sort) &&
		have=$(cd "$tmp/dest-$layout/opt/c/share/cuplay" && find . -type f | sed "s|^\./||" | sort) &&
		[ -n "$want" ] && [ "$want" = "$have" ] || { cat "$tmp/o"; echo "want: ${want:-}"; echo "have: ${have:-}"; false; }'
done

# every --option of the usage text is in the man page (its source without
# the roff escapes: \-\-no\-gpu)
man_names_options() {
	tr -d '\\' <cuplay.1 >"$tmp/man.txt"
	for o in $("$CUPLAY" --help | grep -o -- "--[a-z][a-z-]*" | sort -u); do
		grep -q -- "$o" "$tmp/man.txt" || { echo "not in cuplay.1: $o"; return 1; }
	done
}
t "man cuplay: renders without warnings and names every option of --help" '
	{ ! command -v groff >/dev/null || [ -z "$(groff -man -Tutf8 -ww -z "$inst/share/man/man1/cuplay.1" 2>&1)" ]; } &&
	man_names_options'
mkdir -p "$inst/share/cuplay/kernels_src" && echo "// not ours" >"$inst/share/cuplay/kernels_src/foreign.cu"
$MK -s uninstall DESTDIR="$dest" PREFIX=/opt/cuplay >"$tmp/uninstall" 2>&1
t "make uninstall: removes what install wrote and nothing else" '
	[ "$(cd "$dest" && find . -type f)" = "./opt/cuplay/share/cuplay/kernels_src/foreign.cu" ] &&
	grep -q "kept .*/share/cuplay/kernels_src" "$tmp/uninstall" || { find "$dest"; cat "$tmp/uninstall"; false; }'
rm -f "$inst/share/cuplay/kernels_src/foreign.cu"
$MK -s uninstall DESTDIR="$dest" PREFIX=/opt/cuplay >"$tmp/uninstall" 2>&1
t "make uninstall: leaves nothing behind" '
	[ -z "$(find "$dest" -type f)" ] && [ ! -e "$inst/share/cuplay" ] || { find "$dest"; false; }'

# `//@ arch` with a target this NVRTC does not compile for: one error at the
# line, naming the NVRTC and what it compiles for (version-dependent, so not
# a golden file)
t "arch: a target NVRTC does not know is an error at its line" '
	! "$CUPLAY" --no-gpu -c "use tests/golden/kernels/arch_unknown.cu; run" >"$tmp/arch" 2>&1 &&
	grep -q "^tests/golden/kernels/arch_unknown.cu:2:10: NVRTC [0-9.]* does not compile for .sm_99. (it compiles for sm_[0-9]* to sm_[0-9]*)\$" "$tmp/arch" ||
	{ cat "$tmp/arch"; false; }'

# an input a kernel writes (its PTX says) is restored before the next
# kernel runs; one it only reads is not (tests/gpu_check.sh: on a GPU)
t "run: an input a kernel writes is marked to be restored, one it reads is not" '
	CUPLAY_TRACE=1 "$CUPLAY" --no-gpu -c "use tests/kernels/leftover.cu; run pass1 pass2" >"$tmp/left" 2>&1 &&
	[ "$(grep -c "input .* may be written" "$tmp/left")" = 1 ] &&
	grep -qxF "trace: pass1: input '"'"'zero'"'"' may be written: restored before the next run" "$tmp/left" ||
	{ cat "$tmp/left"; false; }'

echo "cli: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
