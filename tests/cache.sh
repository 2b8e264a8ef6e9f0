#!/usr/bin/env bash
# tests/cache.sh: disk trouble under the compile cache (CI fault row 12).
# Each case: the exact one-line warning (said once), exit status 0, and a
# later command of the same session that uses what was set before.
#   - XDG_CACHE_HOME is a file, not a directory
#   - the cache directory is on a read-only file system
#   - the disk is full (a 4 KiB tmpfs)
#   - cache entries corrupted (bytes flipped, truncated, emptied, a sparse
#     50 GB file): recompiled, replaced, never a crash, never read whole
#   - a header edited after a run (angle and quoted includes, nested): the
#     next run recompiles, in the same process and the next
#   - #include of /dev/zero or a FIFO: ignored in a comment, refused in code,
#     never read, never waited on
#   - XDG_CACHE_HOME relative (ignored), HOME that does not exist (nothing
#     made there, one note), the size bound (oldest entries pruned), a copy
#     of a kernel file under another name (its own entry)
# Read-only and full need a tmpfs: with unshare -m (root or user namespaces),
# else chmod for a read-only directory when not root; otherwise skipped, visibly.
# Closing line: "cache: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
CUPLAY=${CUPLAY:-./cuplay}
export NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
ok()   { pass=$((pass + 1)); echo "ok:   $*"; }
bad()  { fail=$((fail + 1)); echo "FAIL: $*"; sed 's/^/    /' "$tmp/out" | tail -n 20; }
skipped() { skip=$((skip + 1)); echo "skip: $*"; }

K=tests/golden/kernels/saxpy.cu
# the session each case runs: a compile, a value set, a second compile (one
# warning in all), and a run that uses the value set earlier
CMDS="use $K; set n=1000; run; set BLOCK=128; run; run"

# run CACHE_DIR [cuplay args...]: output in $tmp/out, status in $st
run() {
	local dir=$1; shift
	XDG_CACHE_HOME=$dir "$CUPLAY" --no-gpu --mask-times "$@" </dev/null >"$tmp/out" 2>&1
	st=$?
}

# expect_trouble NAME CACHE_DIR ERRNO_TEXT: the warning once, then runs that work
expect_trouble() {
	local name=$1 dir=$2 why=$3
	local want="warning: cannot write compile cache '$dir/cuplay': $why (caching in memory only)"
	local n
	n=$(grep -cxF "$want" "$tmp/out")
	if [ "$st" != 0 ]; then bad "$name: exit $st, expected 0"
	elif [ "$n" != 1 ]; then bad "$name: expected once: $want"
	elif [ "$(grep -c '^not launched (no GPU)$' "$tmp/out")" != 3 ]; then bad "$name: expected 3 runs"
	elif ! grep -q '^saxpy.cu  BLOCK=128 n=1000 alpha=2.5  (cached, sm_90)$' "$tmp/out"; then
		bad "$name: the last run did not use the values set (n=1000, BLOCK=128) from memory"
	else ok "$name: '$want'"; fi
}

# 1. XDG_CACHE_HOME is a regular file
: >"$tmp/afile"
run "$tmp/afile" -c "$CMDS"
expect_trouble "cache home is a file" "$tmp/afile" "Not a directory"

# 2 and 3 need a tmpfs of our own: a private mount namespace when possible
can_mount=0
if command -v unshare >/dev/null && mkdir -p "$tmp/probe" &&
   unshare -m sh -c "mount -t tmpfs -o size=4k tmpfs '$tmp/probe'" 2>/dev/null; then
	can_mount=1
fi
# in_tmpfs DIR OPTIONS: runs cuplay with the cache on a fresh tmpfs at DIR
in_tmpfs() {
	local dir=$1 opts=$2
	mkdir -p "$dir"
	unshare -m sh -c 'mount -t tmpfs -o "$1" tmpfs "$2" || exit 99
		XDG_CACHE_HOME=$2 "$3" --no-gpu --mask-times -c "$4"' sh "$opts" "$dir" "$CUPLAY" "$CMDS" \
		</dev/null >"$tmp/out" 2>&1
	st=$?
}

# 2. read-only cache directory
if [ $can_mount = 1 ]; then
	in_tmpfs "$tmp/ro" ro,size=64k
	expect_trouble "read-only cache (tmpfs, ro)" "$tmp/ro" "Read-only file system"
elif [ "$(id -u)" != 0 ]; then
	mkdir -p "$tmp/ro" && chmod 555 "$tmp/ro"
	run "$tmp/ro" -c "$CMDS"
	expect_trouble "read-only cache (chmod 555)" "$tmp/ro" "Permission denied"
else
	skipped "read-only cache: root without a mount namespace (chmod does not stop root)"
fi

# 3. full disk: a compiled unit does not fit in 4 KiB
if [ $can_mount = 1 ]; then
	in_tmpfs "$tmp/full" size=4k
	expect_trouble "full disk (4 KiB tmpfs)" "$tmp/full" "No space left on device"
else
	skipped "full disk: cannot mount a tmpfs here (needs unshare -m)"
fi

# 4. corrupted entries: each is found out, recompiled and replaced
cache="$tmp/good"
run "$cache" -c "use $K; run"
entry=$(ls "$cache"/cuplay/*.cubin 2>/dev/null | head -n 1)
if [ "$st" != 0 ] || [ -z "$entry" ]; then
	bad "corrupted cache: the first run left no cache entry"
else
	size=$(stat -c %s "$entry")
	cp "$entry" "$tmp/pristine"
	for how in flip-middle flip-header flip-end truncate empty garbage huge; do
		cp "$tmp/pristine" "$entry"
		if [ $how = huge ] && ! truncate -s 50G "$entry" 2>/dev/null; then
			skipped "corrupted cache (huge): cannot make a sparse 50 GB file here"
			continue
		fi
		case $how in
		flip-middle) printf '\xff\x00\xff\x00' | dd of="$entry" bs=1 seek=$((size / 2)) conv=notrunc status=none ;;
		flip-header) printf 'X' | dd of="$entry" bs=1 seek=3 conv=notrunc status=none ;;
		flip-end)    printf '\x01' | dd of="$entry" bs=1 seek=$((size - 1)) conv=notrunc status=none ;;
		truncate)    truncate -s $((size / 3)) "$entry" ;;
		empty)       : >"$entry" ;;
		garbage)     head -c "$size" /dev/urandom >"$entry" ;;
		esac
		# huge: read whole, it would take memory until none is left; a bound
		# on the address space makes that an exit, not a machine swapping
		# (not under ASan, whose shadow memory needs more)
		lim=unlimited
		[ $how = huge ] && [ -z "${ASAN_OPTIONS:-}" ] && lim=$((4 * 1024 * 1024))
		({ [ $lim = unlimited ] || ulimit -v $lim; } && run "$cache" -c "use $K; set n=1000; run; run" && exit $st)
		st=$?
		if [ "$st" != 0 ]; then bad "corrupted cache ($how): exit $st, expected 0"
		elif ! grep -q '^saxpy.cu  BLOCK=256 n=1000 alpha=2.5  (compiled in <t>, sm_90)$' "$tmp/out"; then
			bad "corrupted cache ($how): not recompiled"
		elif ! grep -q '^saxpy.cu  BLOCK=256 n=1000 alpha=2.5  (cached, sm_90)$' "$tmp/out"; then
			bad "corrupted cache ($how): the second run did not use the recompiled unit"
		elif ! cmp -s "$entry" "$tmp/pristine"; then
			bad "corrupted cache ($how): the entry was not replaced"
		else
			run "$cache" -c "use $K; run"
			if [ "$st" = 0 ] && grep -q '(cached, sm_90)$' "$tmp/out"; then
				ok "corrupted cache ($how): recompiled, replaced, then read back"
			else
				bad "corrupted cache ($how): the replaced entry was not used by the next process"
			fi
		fi
	done
fi

# 5. a header edited after a run: recompiled, here and in the next process
#    k.cu: #include <b.cuh> (next to k.cu, found through the -I list) and
#    #include "sub/a.cuh", whose a.cuh has #include "c.cuh" (next to k.cu)
hdr="$tmp/hdr"
mkdir -p "$hdr/sub"
cat >"$hdr/k.cu" <<'CU'
//@ buffer x float[32] random output
//@ grid 1
//@ block 32
//@ check none
#include <b.cuh>
#include "sub/a.cuh"
__global__ void k(float *x) { __shared__ float t[SM + C]; t[threadIdx.x] = x[threadIdx.x]; __syncthreads(); x[threadIdx.x] = t[31 - threadIdx.x]; }
CU
echo '#define SM 16' >"$hdr/b.cuh"
echo '#include "c.cuh"' >"$hdr/sub/a.cuh"
echo '#define C 16' >"$hdr/c.cuh"
smem_of() { sed -n 's/^k  *[0-9][0-9]*  *\([0-9.]* [KM]*i*B\) .*/\1/p' "$tmp/out" | tr '\n' ' '; }
for how in angle nested; do
	case $how in
	angle)  echo '#define SM 16' >"$hdr/b.cuh"; before="128 B"
	        edit() { echo '#define SM 1024' >"$hdr/b.cuh"; }; after="4.1 KiB" ;;
	nested) echo '#define C 16' >"$hdr/c.cuh"; before="4.1 KiB"
	        edit() { echo '#define C 1024' >"$hdr/c.cuh"; }; after="8.0 KiB" ;;
	esac
	run "$tmp/hdrcache" -c "use $hdr/k.cu; run"
	first=$(smem_of)
	edit
	run "$tmp/hdrcache" -c "use $hdr/k.cu; run"
	second=$(smem_of)
	if [ "$first" != "$before " ]; then bad "header edit ($how): first run shows '$first', expected '$before'"
	elif [ "$second" != "$after " ]; then bad "header edit ($how): after the edit '$second', expected '$after' (a stale cache entry)"
	elif ! grep -q '(compiled in' "$tmp/out"; then bad "header edit ($how): not recompiled"
	else ok "header edit ($how include): recompiled in the next process ($first-> $second)"; fi
done
# the same process: edit the header between two runs (a session that waits on a FIFO)
echo '#define SM 16' >"$hdr/b.cuh"; echo '#define C 16' >"$hdr/c.cuh"
mkfifo "$tmp/go"
{ printf 'use %s\nrun\n' "$hdr/k.cu"; cat "$tmp/go"; printf 'run\n'; } |
	XDG_CACHE_HOME="$tmp/hdrcache2" "$CUPLAY" --no-gpu >"$tmp/out" 2>&1 &
pid=$!
# the first run's row before the edit: up to a minute on a loaded machine (a
# shorter wait let the edit land before the first compile, and the test fail)
for _ in $(seq 1 600); do grep -q '^k  ' "$tmp/out" 2>/dev/null && break; sleep 0.1; done
echo '#define SM 1024' >"$hdr/b.cuh"
echo >"$tmp/go"
wait $pid
if [ "$(smem_of)" = "128 B 4.1 KiB " ]; then ok "header edit (same process): recompiled (128 B -> 4.1 KiB)"
else bad "header edit (same process): shared memory '$(smem_of)', expected '128 B 4.1 KiB '"; fi

# 6. #include of a device or a FIFO: never read, never waited on
dz="$tmp/dz"
mkdir -p "$dz"
mkfifo "$dz/fifo.h"
cat >"$dz/comment.cu" <<'CU'
// see #include "../../../../../../../../../../dev/zero" and #include "fifo.h"
//@ buffer x float[1] zero
//@ grid 1
//@ block 1
//@ check none
__global__ void k(float *x) {}
CU
printf '//@ buffer x float[1]\n//@ grid 1\n//@ block 1\n#include "fifo.h"\n__global__ void k(float *x) {}\n' >"$dz/fifo.cu"
printf '//@ buffer x float[1]\n//@ grid 1\n//@ block 1\n\n#include "/dev/zero"\n__global__ void k(float *x) {}\n' >"$dz/zero.cu"
XDG_CACHE_HOME="$tmp/dzcache" timeout 60 "$CUPLAY" --no-gpu -c "use $dz/comment.cu; run" </dev/null >"$tmp/out" 2>&1; st=$?
if [ $st = 0 ] && grep -q '^not launched (no GPU)$' "$tmp/out"; then ok "#include of /dev/zero and a FIFO in a comment: ignored"
else bad "#include in a comment: exit $st"; fi
XDG_CACHE_HOME="$tmp/dzcache" timeout 60 "$CUPLAY" --no-gpu -c "use $dz/fifo.cu; run; use $dz/zero.cu; run; say still here" </dev/null >"$tmp/out" 2>&1; st=$?
if [ $st = 124 ]; then bad "#include of a FIFO: hung"
elif grep -qxF "$dz/fifo.cu:4:1: cannot include 'fifo.h': '$dz/fifo.h' is a FIFO, not a file" "$tmp/out" &&
     grep -qxF "$dz/zero.cu:5:1: cannot include '/dev/zero': '/dev/zero' is a character device, not a file" "$tmp/out" &&
     grep -qx 'still here' "$tmp/out"; then ok "#include of a FIFO and of /dev/zero in code: refused at their lines"
else bad "#include of a FIFO or /dev/zero: exit $st"; fi

# 7. where the disk cache goes
#    a relative XDG_CACHE_HOME is ignored (the XDG spec): ~/.cache is used
mkdir -p "$tmp/h1" "$tmp/cwd"
case $CUPLAY in /*) bin=$CUPLAY ;; *) bin=$PWD/$CUPLAY ;; esac
(cd "$tmp/cwd" && HOME="$tmp/h1" XDG_CACHE_HOME=rel/cache "$bin" --no-gpu -c "use $OLDPWD/$K; run" </dev/null >"$tmp/out" 2>&1); st=$?
if [ $st = 0 ] && [ ! -e "$tmp/cwd/rel" ] && ls "$tmp/h1/.cache/cuplay/"*.cubin >/dev/null 2>&1; then
	ok "a relative XDG_CACHE_HOME is ignored: ~/.cache/cuplay is used"
else bad "relative XDG_CACHE_HOME: exit $st; $(ls -R "$tmp/cwd" 2>&1 | head -3)"; fi
#    a HOME that does not exist: nothing made there, one note, runs go on
nohome="$tmp/no/such/home"
HOME="$nohome" XDG_CACHE_HOME= "$CUPLAY" --no-gpu --mask-times -c "use $K; run; set BLOCK=128; run" </dev/null >"$tmp/out" 2>&1; st=$?
want="warning: no cache directory (XDG_CACHE_HOME is not set, HOME is not a directory: $nohome): compiled kernels are kept in memory only"
if [ $st = 0 ] && [ ! -e "$tmp/no" ] && [ "$(grep -cxF "$want" "$tmp/out")" = 1 ] &&
   [ "$(grep -c '^not launched (no GPU)$' "$tmp/out")" = 2 ]; then
	ok "HOME does not exist: nothing made there, said once"
else bad "HOME does not exist: exit $st, made: $(find "$tmp/no" 2>&1 | head -n 20 | tr "\n" " ")"; fi
#    the size bound: the oldest entries go, the newest stays
for b in 64 128 256 512; do
	CUPLAY_CACHE_MAX=20K run "$tmp/bound" -c "use $K; set BLOCK=$b; run"
	sleep 0.01
done
n=$(ls "$tmp/bound/cuplay/"*.cubin 2>/dev/null | wc -l)
total=$(cat "$tmp/bound/cuplay/"*.cubin 2>/dev/null | wc -c)
CUPLAY_CACHE_MAX=20K run "$tmp/bound" -c "use $K; set BLOCK=512; run; set BLOCK=64; run"
if [ "$n" -ge 1 ] && [ "$n" -lt 4 ] && [ "$total" -le 20480 ] &&
   grep -q '^saxpy.cu  BLOCK=512 n=1000003 alpha=2.5  (cached, sm_90)$' "$tmp/out" &&
   grep -q '^saxpy.cu  BLOCK=64 n=1000003 alpha=2.5  (compiled in <t>, sm_90)$' "$tmp/out"; then
	ok "disk cache bound (20K): $n entries, $total bytes; the newest kept, the oldest pruned"
else bad "disk cache bound: $n entries, $total bytes"; fi

# 8. the same text under another name, in the same directory: its own
#    entry, its own name in ptx
mkdir -p "$tmp/cp"
cp "$K" "$tmp/cp/saxpy.cu"
cp "$K" "$tmp/cp/mine.cu"
run "$tmp/copy" -c "use $tmp/cp/mine.cu; run"
run "$tmp/copy" -c "use $tmp/cp/saxpy.cu; ptx"
if grep -q '// saxpy.cu:12 ' "$tmp/out" && ! grep -q 'mine.cu' "$tmp/out"; then ok "a copy under another name: ptx names its own file"
else bad "a copy under another name: ptx shows the other file"; fi

echo "cache: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
