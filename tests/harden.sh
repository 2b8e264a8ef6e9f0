#!/usr/bin/env bash
# tests/harden.sh: what a careless user or an attacker does, on the CPU side.
#   - save, plot, report: a link is written through, a device in place (never
#     replaced), a directory or a FIFO no one reads refused; modes kept;
#     nothing left behind; a file the user may not write refused (as an
#     unprivileged user); cuplay's own files (its descriptors, the kernel file
#     in use, a session being read) refused
#   - record: a write that fails stops the recording with one error
#   - source, a session on the command line, use: a directory, a device, a
#     FIFO, a file with no __global__ function are refused in one line, exit 1
#   - stdout that cannot be written (/dev/full): one line, exit 1
#   - --step without a terminal: refused (exit 2), never a silent exit 0
#   - set: all assignments of one command or none
#   - 200,000 params (ls, use) and a set of 20,000 names: linear, in time
#   - a compile that takes minutes: 'timeout compile' stops it, values kept
#   - 0xff and NUL bytes in kernel files, headers, sessions: file:line:column
#   - messages: header errors with a column, one error for all kernels, a
#     200 KB expression not echoed whole, a define declared below, control
#     bytes of file names escaped (use, ls, the use and run banners), a '"'
#     in a file name compiles
# Closing line: "harden: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
CUPLAY=${CUPLAY:-./cuplay}
case "$CUPLAY" in /*) ;; *) CUPLAY=$ROOT/${CUPLAY#./} ;; esac
export NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" CUPLAY_IGNORE_PTXAS_LOG=1 CUPLAY_HARDEN_MARK=$$
unset CUPLAY_PATH
pass=0 fail=0 skip=0
ok()   { pass=$((pass + 1)); echo "ok:   $*"; }
bad()  { fail=$((fail + 1)); echo "FAIL: $*"; [ -s "$tmp/out" ] && sed 's/^/    /' "$tmp/out" | head -n 20; }
skipped() { skip=$((skip + 1)); echo "skip: $*"; }

# c ARGS...: cuplay --no-gpu ARGS, output in $tmp/out, status in $st
c() {
	timeout 60 "$CUPLAY" --no-gpu "$@" </dev/null >"$tmp/out" 2>&1
	st=$?
}
# has TEXT: the output holds the line TEXT
has() { grep -qxF -- "$1" "$tmp/out"; }

K=tests/golden/kernels/saxpy.cu
RUN="use $K; set n=1000; run"

# ---- save, plot, report ------------------------------------------------
d=$tmp/w
mkdir -p "$d"
echo old >"$d/target.csv"
ln -s target.csv "$d/link.csv"
c -c "$RUN; save $d/link.csv"
if [ $st = 0 ] && [ -L "$d/link.csv" ] && head -n 1 "$d/target.csv" | grep -q '^kernel,'; then
	ok "save: a link is written through (the link stays, its target gets the table)"
else bad "save through a link: exit $st"; fi

ln -s made.csv "$d/dangling.csv"
c -c "$RUN; save $d/dangling.csv"
if [ $st = 0 ] && [ -L "$d/dangling.csv" ] && [ -f "$d/made.csv" ]; then
	ok "save: a link to a file not made yet makes it"
else bad "save through a dangling link: exit $st"; fi

echo old >"$d/mine.csv"; chmod 600 "$d/mine.csv"
c -c "$RUN; save $d/mine.csv"
if [ $st = 0 ] && [ "$(stat -c %a "$d/mine.csv")" = 600 ] && grep -q '^saxpy,' "$d/mine.csv"; then
	ok "save: a file replaced keeps its mode (600)"
else bad "save keeps the mode: $(stat -c %a "$d/mine.csv")"; fi
# a file the user may not write is refused as the shell's `>` refuses it,
# though the directory is the user's: never replaced (owner, hard link kept)
# u ARGS...: as c, as a user without privileges (root: nobody, through setpriv)
u() {
	if [ "$(id -u)" = 0 ]; then
		timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_CACHE_HOME="$ud/cache" \
			"$CUPLAY" --no-gpu "$@" </dev/null >"$tmp/out" 2>&1
	else
		timeout 60 "$CUPLAY" --no-gpu "$@" </dev/null >"$tmp/out" 2>&1
	fi
	st=$?
}
ud=$tmp/unpriv
mkdir -p "$ud"
if [ "$(id -u)" = 0 ] && ! { command -v setpriv >/dev/null && chmod 711 "$tmp" && chown 65534:65534 "$ud" &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CUPLAY" -a -r "$K"; }; then
	skipped "save over a file the user may not write: no setpriv, or 'nobody' cannot run $CUPLAY"
else
	echo old >"$ud/ro.csv"; chmod 444 "$ud/ro.csv"; ln "$ud/ro.csv" "$ud/ro-link.csv"
	echo old >"$ud/ro.md"; chmod 444 "$ud/ro.md"
	[ "$(id -u)" = 0 ] && chown 65534:65534 "$ud/ro.csv" "$ud/ro.md"
	u -c "$RUN; save $ud/ro.csv; report $ud/ro.md"
	if [ $st = 1 ] && has "error: save: cannot write '$ud/ro.csv': Permission denied" &&
	   has "error: report: cannot write '$ud/ro.md': Permission denied" && [ "$(cat "$ud/ro.csv")" = old ] &&
	   [ "$(stat -c %h:%a "$ud/ro.csv")" = 2:444 ]; then
		ok "save, report over a read-only file (0444): 'Permission denied', the file and its hard link kept"
	else bad "save over a read-only file: exit $st, $(cat "$ud/ro.csv" | head -n 1), $(stat -c %h:%a "$ud/ro.csv")"; fi
	if [ "$(id -u)" = 0 ]; then
		echo old >"$ud/root.csv"; chmod 644 "$ud/root.csv"
		u -c "$RUN; save $ud/root.csv"
		if [ $st = 1 ] && has "error: save: cannot write '$ud/root.csv': Permission denied" &&
		   [ "$(stat -c %U "$ud/root.csv")" = root ] && [ "$(cat "$ud/root.csv")" = old ]; then
			ok "save over root's file (0644) by another user: 'Permission denied', the owner kept"
		else bad "save over root's file: exit $st, owner $(stat -c %U "$ud/root.csv")"; fi
		echo old >"$ud/theirs.csv"; chown 65534:65534 "$ud/theirs.csv"; chmod 640 "$ud/theirs.csv"
		c -c "$RUN; save $ud/theirs.csv"
		if [ $st = 0 ] && [ "$(stat -c %U:%a "$ud/theirs.csv")" = nobody:640 ] && grep -q '^saxpy,' "$ud/theirs.csv"; then
			ok "save by root over another's file: written, its owner and mode kept"
		else bad "save by root over another's file: exit $st, $(stat -c %U:%a "$ud/theirs.csv")"; fi
	else
		skipped "save over root's file: not root, so no second user to be"
	fi
fi
(umask 022; timeout 60 "$CUPLAY" --no-gpu -c "$RUN; save $d/new.csv; plot $d/p.svg; report $d/r.md" </dev/null >"$tmp/out" 2>&1)
if [ "$(stat -c %a "$d/new.csv")" = 644 ] && [ "$(stat -c %a "$d/r.md")" = 644 ]; then
	ok "save, report: a new file is 0666 less the umask (644)"
else bad "save: new file mode $(stat -c %a "$d/new.csv" 2>&1)"; fi
if ls -A "$d" | grep -q '^\.cuplay-\|\.tmp\.'; then bad "save left temporary files: $(ls -A "$d")"
else ok "save: no temporary file left behind"; fi

if [ -c /dev/full ]; then
	before=$(stat -c %t:%T /dev/full)
	c -c "$RUN; save /dev/full"
	if [ $st = 1 ] && has "error: save: cannot write '/dev/full': No space left on device" &&
	   [ -c /dev/full ] && [ "$(stat -c %t:%T /dev/full)" = "$before" ]; then
		ok "save /dev/full: 'No space left on device', exit 1, the device node untouched"
	else bad "save /dev/full: exit $st"; fi
else
	skipped "save /dev/full: no /dev/full"
fi

c -c "$RUN; save $d"
if [ $st = 1 ] && has "error: save: cannot write '$d': it is a directory"; then ok "save DIR: 'it is a directory'"
else bad "save DIR: exit $st"; fi

mkfifo "$d/fifo"
c -c "$RUN; save $d/fifo"
if [ $st = 1 ] && has "error: save: cannot write '$d/fifo': it is a FIFO that no program reads" && [ -p "$d/fifo" ]; then
	ok "save FIFO without a reader: refused at once, the FIFO kept"
else bad "save FIFO: exit $st"; fi
# with a reader: written through the pipe
(timeout 20 cat "$d/fifo" >"$d/from-fifo") &
reader=$!
sleep 0.2
c -c "$RUN; save $d/fifo"
wait $reader
if [ $st = 0 ] && grep -q '^saxpy,\|^saxpy ' "$d/from-fifo"; then ok "save FIFO with a reader: written through"
else bad "save FIFO with a reader: exit $st: $(head -c 200 "$d/from-fifo")"; fi

# /dev/stdout when stdout is a file: written where the output stands, the
# file neither replaced nor truncated
timeout 60 "$CUPLAY" --no-gpu -c "$RUN; save /dev/stdout" </dev/null >"$d/stdout.txt" 2>/dev/null
if grep -q '^not launched (no GPU)$' "$d/stdout.txt" && grep -q '^saved 1 rows to /dev/stdout' "$d/stdout.txt" &&
   [ "$(grep -c '^saxpy ' "$d/stdout.txt")" = 2 ]; then
	ok "save /dev/stdout into a file: appended where the output stands"
else bad "save /dev/stdout: $(cat "$d/stdout.txt")"; fi

# cuplay's own files: its descriptors (the compile server's socket, a
# recording), the kernel file in use, a session being read; one line each,
# the files untouched. A descriptor given by the shell is written.
mkdir -p "$d/own12/kernels_src"
cp $K "$d/own12/kernels_src/x.cu"
(cd "$d/own12" && timeout 60 "$CUPLAY" --no-gpu -c "use kernels_src/x.cu; set n=1000; run; save /dev/fd/3; record r.session;
	save /dev/fd/4; save r.session; save kernels_src/x.cu; save /dev/fd/9; save mine.csv; set BLOCK=128; run" \
	</dev/null >"$tmp/out" 2>&1 9>"$d/own12/given.txt")
st=$?
if [ $st = 1 ] && has "error: save: cannot write '/dev/fd/3': it is a descriptor of cuplay's own, not one it was given" &&
   has "error: save: cannot write '/dev/fd/4': it is a descriptor of cuplay's own, not one it was given" &&
   has "error: save: cannot write 'r.session': cuplay itself has it open (a session it reads, a recording, a pipe to its compile server or worker)" &&
   has "error: save: cannot write 'kernels_src/x.cu': it is the kernel file in use" &&
   cmp -s $K "$d/own12/kernels_src/x.cu" && ! grep -q '^saxpy' "$d/own12/r.session" &&
   grep -q '^saxpy' "$d/own12/given.txt" && grep -q '^saxpy,' "$d/own12/mine.csv" &&
   [ "$(grep -c '^error:' "$tmp/out")" = 4 ] && [ "$(grep -c '(compiled in .* ms, ' "$tmp/out")" = 2 ]; then
	ok "save into cuplay's own files (compile server, recording, kernel file): refused, one line each, the next compile fine"
else bad "save into cuplay's own files: exit $st"; fi
printf 'record %s\nsay hi\n' "$d/self.session" >"$d/self.session"
cp "$d/self.session" "$d/self.before"
c "$d/self.session"
if [ $st = 1 ] && cmp -s "$d/self.session" "$d/self.before" &&
   has "$d/self.session:1: record: cannot open '$d/self.session': cuplay itself has it open (a session it reads, a recording, a pipe to its compile server or worker)"; then
	ok "a session that records into itself: refused at its line, the file unchanged"
else bad "a session recording itself: exit $st, $(wc -c <"$d/self.session") bytes"; fi

# ---- record --------------------------------------------------------------
if [ -c /dev/full ]; then
	c -c "use $K; record /dev/full; set n=100; set n=200; show; record"
	n=$(grep -c "record: cannot write '/dev/full'" "$tmp/out")
	if [ $st = 1 ] && [ "$n" = 1 ] && has "error: record: cannot write '/dev/full': No space left on device: recording stopped" &&
	   has "record off"; then
		ok "record /dev/full: one error, recording stopped"
	else bad "record /dev/full: $n errors, exit $st"; fi
fi
c -c "record $d"
if [ $st = 1 ] && has "error: record: cannot open '$d': it is a directory"; then ok "record DIR: refused"
else bad "record DIR: exit $st"; fi
c -c "record $d/fifo"
if [ $st = 1 ] && has "error: record: cannot open '$d/fifo': it is a FIFO that no program reads"; then
	ok "record FIFO without a reader: refused at once"
else bad "record FIFO: exit $st"; fi

# ---- source, sessions, use -------------------------------------------------
mkdir -p "$d/somedir" "$d/dir.cu"
for f in /dev/zero "$d/somedir" "$d/fifo"; do
	case "$f" in /dev/zero) k="a character device" ;; */fifo) k="a FIFO" ;; *) k="a directory" ;; esac
	c -c "source $f; say after"
	if [ $st = 1 ] && has "error: cannot open session '$f': it is $k, not a file" && has after; then
		ok "source $f: '$k', the session goes on, exit 1"
	else bad "source $f: exit $st"; fi
	c "$f"
	if [ $st = 1 ] && has "error: cannot open session '$f': it is $k, not a file"; then ok "cuplay $f: refused, exit 1"
	else bad "cuplay $f: exit $st"; fi
done
printf 'int x;\n' >"$d/nokernel.cu"
for f in "$d/dir.cu" /dev/null "$d/nokernel.cu" /bin/ls; do
	case "$f" in
	*/dir.cu) want="error: cannot use '$f': it is a directory, not a kernel file" ;;
	/dev/null) want="error: cannot use '$f': it is a character device, not a kernel file" ;;
	*/nokernel.cu) want="error: cannot use '$f': it has no __global__ function, so no kernel to run" ;;
	/bin/ls) want="" ;;
	esac
	[ -e "$f" ] || continue
	c -c "use $f"
	if [ $st = 1 ] && { [ -z "$want" ] || has "$want"; } && [ "$(wc -l <"$tmp/out")" = 1 ]; then
		ok "use $f: one line, exit 1: $(head -n 1 "$tmp/out")"
	else bad "use $f: exit $st"; fi
done

# ---- stdout --------------------------------------------------------------
if [ -c /dev/full ]; then
	for fmt in table csv; do
		timeout 60 "$CUPLAY" --no-gpu --format $fmt -c "$RUN" </dev/null >/dev/full 2>"$tmp/out"
		st=$?
		if [ $st = 1 ] && has "cuplay: cannot write the output: No space left on device"; then
			ok "stdout to /dev/full ($fmt): one line, exit 1"
		else bad "stdout to /dev/full ($fmt): exit $st"; fi
	done
	timeout 10 "$CUPLAY" --help >/dev/full 2>"$tmp/out"
	st=$?
	if [ $st = 1 ] && has "cuplay: cannot write the output: No space left on device"; then ok "--help to /dev/full: exit 1"
	else bad "--help to /dev/full: exit $st"; fi
fi

# ---- --step without a terminal ---------------------------------------------
printf 'use %s\nset n=100\nshow\n' "$K" >"$d/x.session"
if command -v setsid >/dev/null; then
	timeout 20 setsid "$CUPLAY" --no-gpu --step "$d/x.session" </dev/null >"$tmp/out" 2>&1
	st=$?
	if [ $st = 2 ] && grep -q '^cuplay: --step waits for Enter at a terminal, and there is none (.*): run without --step$' "$tmp/out" &&
	   [ "$(wc -l <"$tmp/out")" = 1 ]; then
		ok "--step without a terminal: one line, exit 2"
	else bad "--step without a terminal: exit $st"; fi
else
	skipped "--step without a terminal: no setsid"
fi

# ---- set: all or nothing -----------------------------------------------------
c -c "use transpose; set PAD=0; set PAD=1 N=cdiv(; set N=100 TILE_SIZE=16 bogus; show"
if [ $st = 1 ] && grep -q '^  PAD .* 0 (set) ' "$tmp/out" && grep -q '^  N  .* 8192  ' "$tmp/out" &&
   grep -q '^  TILE_SIZE .* 32  ' "$tmp/out"; then
	ok "set: a failed assignment leaves every value of the command as it was"
else bad "set is not all or nothing: exit $st"; fi

# ---- many names: linear, not quadratic -----------------------------------------
# 200,000 params: where each name is checked against all before it (or
# every value evaluated again for each name set) this takes minutes; linear,
# a second or two. The limit (60 s) is far from both.
mkdir -p "$d/many/kernels_src"
python3 -c "
n = 200000
print('// many: two hundred thousand params')
print('//@ param p0 = 1')
for i in range(1, n): print('//@ param p%d = p%d %% 7 + 1' % (i, i - 1))
print('//@ buffer y float[p0] random output')
print('//@ grid 1')
print('//@ block 32')
print('__global__ void k(float *y) {}')" >"$d/many/kernels_src/many.cu"
python3 -c "print('use many'); print('set ' + ' '.join('p%d=%d' % (i, i % 5 + 1) for i in range(0, 200000, 10))); print('show')" \
	>"$d/many/set.session"
cd "$d/many"; c -c "ls"; cd "$ROOT"
if [ $st = 0 ] && grep -q '^many  *1  many: two hundred thousand params$' "$tmp/out"; then
	ok "ls of a file of 200,000 params: in time"
else bad "ls of a file of 200,000 params: exit $st (124: past 60 s)"; fi
cd "$d/many"; c -c "use many; set p199999=3; show"; cd "$ROOT"
if [ $st = 0 ] && grep -q '^  p199999 .* 3 (set) ' "$tmp/out"; then ok "use of a file of 200,000 params: in time"
else bad "use of a file of 200,000 params: exit $st (124: past 60 s)"; fi
cd "$d/many"; c set.session; cd "$ROOT"
if [ $st = 0 ] && [ "$(grep -c ' (set) ' "$tmp/out")" = 20000 ]; then ok "set of 20,000 names: in time"
else bad "set of 20,000 names: exit $st (124: past 60 s)"; fi

# ---- a compile that takes minutes: stopped at the limit, the session goes on
t0=$(date +%s%N)
c -c "use tests/kernels/slow_compile.cu; set N=16; timeout compile 1; run; timeout compile; show"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ $st = 1 ] && [ $ms -lt 10000 ] && has "timeout compile 1 s" && grep -q '^  N .* 16 (set) ' "$tmp/out" &&
   has "error: compile of 'tests/kernels/slow_compile.cu' took longer than 1 s: the compiler was stopped (settings kept; 'timeout compile SECONDS' sets the limit)"; then
	ok "timeout compile 1: a compile of minutes stopped ($ms ms in all), the values kept"
else bad "timeout compile: exit $st after $ms ms"; fi
# the compiler processes of this test (marked in their environment) are gone
sleep 0.5
left=0
for p in /proc/[0-9]*; do
	tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -q '^cuplay --compile-server' || continue
	tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qx "CUPLAY_HARDEN_MARK=$$" && left=$((left + 1))
done
if [ $left = 0 ]; then ok "no compiler process left behind"; else bad "$left compiler processes left running"; fi

# ---- messages ------------------------------------------------------------------
sed 's/float\[n\] random$/float[9000000000000000000] random/' $K >"$d/big.cu"
sed 's/^__global__ void saxpy/__global__ void saxpy2(int n, float alpha, const float *x, float *y) {}\n&/' "$d/big.cu" >"$d/big2.cu"
c -c "use $d/big2.cu; run all"
if [ $st = 1 ] && [ "$(grep -c 'too large' "$tmp/out")" = 1 ] &&
   has "$d/big2.cu:5:20: buffer 'x' is too large (9000000000000000000 elements)"; then
	ok "a buffer too large: file:line:column, said once for two kernels"
else bad "buffer too large: exit $st"; fi
# 16-byte elements: a count below UINT64_MAX/8 whose bytes do not fit in 64 bits
for t in float4 double2 int4; do
	printf '//@ param n = 1000\n//@ buffer x %s[n] random\n//@ buffer y %s[2000000000000000000] random output\n//@ grid 1\n//@ block 32\n__global__ void k(int n, const %s *x, %s *y) {}\n' \
		$t $t $t $t >"$d/big16.cu"
	c -c "use $d/big16.cu; run"
	if [ $st = 1 ] && has "$d/big16.cu:3:$((15 + ${#t})): buffer 'y' is too large (2000000000000000000 elements)"; then
		ok "a $t buffer whose bytes pass 64 bits: too large, at its line"
	else bad "$t buffer whose bytes wrap: exit $st"; fi
done
sed 's/float\[9000000000000000000\] random$/float[n*n*n*n] random/' "$d/big2.cu" >"$d/ovf.cu"
c -c "use $d/ovf.cu; run all"
if [ $st = 1 ] && [ "$(grep -c 'overflow' "$tmp/out")" = 1 ]; then ok "an overflow in a buffer's size: said once for two kernels"
else bad "overflow said $(grep -c overflow "$tmp/out") times"; fi
sed 's|^//@ define BLOCK = 256|//@ define BLOCK = TWO * 128\n//@ define TWO = 2|' $K >"$d/fwd.cu"
c -c "use $d/fwd.cu; run"
if [ $st = 1 ] && has "$d/fwd.cu:2:20: 'TWO' is declared below, at line 3: a value can use only the defines and params declared above it"; then
	ok "a define that uses one declared below: says so, at the name"
else bad "forward reference: exit $st"; fi
python3 -c "print('use $K\nset n=' + '1+' * 100000 + 'x')" >"$d/long.session"
c "$d/long.session"
line=$(grep 'set n:' "$tmp/out")
if [ $st = 1 ] && [ ${#line} -lt 500 ] && [[ "$line" == *"unknown param 'x'"*"at column 200001 of '... "*"+1+x')" ]]; then
	ok "a 200 KB expression: quoted around the column, not whole (${#line} bytes)"
else bad "long expression: a line of ${#line} bytes"; fi
python3 -c "print('use $K; run ' + 'a' * 100000)" >"$d/long2.session"
c "$d/long2.session"
if [ $st = 1 ] && [ "$(tail -n 1 "$tmp/out" | wc -c)" -lt 500 ]; then ok "a 100 KB kernel name: the error line cut"
else bad "long name: $(tail -n 1 "$tmp/out" | wc -c) bytes"; fi
mkdir -p "$d/own/kernels_src"
esc=$(printf 'bad\033[31mname')
cp $K "$d/own/kernels_src/$esc.cu"
CUPLAY_PATH="$d/own" c -c "ls; use '$d/own/kernels_src/$esc.cu'; use '$d/$esc'"
if ! grep -q "$(printf '\033')" "$tmp/out" && grep -q '^bad\\x1b\[31mname ' "$tmp/out" &&
   has "$d/own/kernels_src/bad\\x1b[31mname.cu: 1 kernel (saxpy)" &&
   grep -q "^error: cannot find kernel file '$d/bad\\\\x1b\[31mname'" "$tmp/out"; then
	ok "file names with control bytes: escaped by ls, use and its errors"
else bad "control bytes printed raw"; cat -v "$tmp/out" | sed 's/^/    /'; fi

# a newline in a file name: escaped in the use and run banners, never a
# line of its own (a name cannot forge output)
nl=$(printf 'a\nerror: forged.cu')
cp $K "$d/$nl"
c -c "use '$d/$nl'; set n=1000; run; use '$d/none.cu'"
if ! grep -q '^error: forged' "$tmp/out" && has "$d/a\\x0aerror: forged.cu: 1 kernel (saxpy)" &&
   grep -q '^a\\x0aerror: forged.cu  BLOCK=256 n=1000 alpha=2.5  (compiled in ' "$tmp/out" &&
   has "(still using $d/a\\x0aerror: forged.cu)"; then
	ok "a newline in a file name: escaped in the use and run banners"
else bad "a newline in a file name printed raw"; cat -A "$tmp/out" | sed 's/^/    /'; fi

# a '"' in a file name: compiles (NVRTC is given a name PTX can quote), and
# the compiler's messages name the user's file
q='q"x'
cp $K "$d/$q.cu"
sed 's/y\[i\] = alpha \* x\[i\] + y\[i\];/y[i] = alpha * x[i] + y[i] + undefined_name;/' $K >"$d/$q-bad.cu"
grep -q undefined_name "$d/$q-bad.cu" || bad "the fixture for a '\"' in a name did not change"
c -c "use '$d/$q.cu'; set n=1000; run; use '$d/$q-bad.cu'; run"
if grep -q '^q"x.cu  BLOCK=256 n=1000 alpha=2.5  (compiled in ' "$tmp/out" &&
   grep -q "^$d/q\"x-bad.cu:[0-9]*: error: identifier \"undefined_name\" is undefined\$" "$tmp/out" &&
   ! grep -q 'q_x' "$tmp/out"; then
	ok "a '\"' in a file name: compiles; errors name the file as it is"
else bad "a '\"' in a file name: exit $st"; fi

# ---- bytes NVRTC and the line reader would take for an end ------------------
# 0xff (NVRTC's end of file) and NUL, in a kernel file, in a header it
# includes, in a session: file:line:column, never a silent truncation
printf '// caf\377\n' | cat - $K >"$d/ff.cu"
c -c "use $d/ff.cu"
if [ $st = 1 ] && has "$d/ff.cu:1:7: byte 0xff, which NVRTC takes for the end of the file (is the file saved as UTF-8?)"; then
	ok "0xff in a kernel file: file:line:column"
else bad "0xff in a kernel file: exit $st"; fi
printf '#define SCALE 2 // \000 rest\n' >"$d/nul.cuh"
sed 's|^__global__|#include "nul.cuh"\n&|' $K >"$d/inc_nul.cu"
c -c "use $d/inc_nul.cu; run"
if [ $st = 1 ] && has "$d/nul.cuh:1:20: a NUL byte: the file would end here for the compiler (is it a text file?)"; then
	ok "NUL in an included header: file:line:column"
else bad "NUL in a header: exit $st"; fi
printf 'say one\000hidden\nsay two\n' >"$d/nul.session"
c "$d/nul.session"
if [ $st = 1 ] && has "$d/nul.session:1: a NUL byte at column 8: the line is not run (is '$d/nul.session' a text file?)" &&
   has two && ! has one; then
	ok "NUL in a session: the line is refused with its column, the next runs"
else bad "NUL in a session: exit $st"; fi

echo "harden: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
