#!/usr/bin/env bash
# tests/cache.sh: disk trouble under the compile cache (CI fault row 12).
# Each case: the exact one-line warning (said once), exit status 0, and a
# later command of the same session that uses what was set before.
#   - XDG_CACHE_HOME is a file, not a directory
#   - the cache directory is on a read-only file system
#   - the disk is full (a 4 KiB tmpfs)
#   - cache entries corrupted (bytes flipped, truncated, emptied): recompiled,
#     replaced, never a crash
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
	for how in flip-middle flip-header flip-end truncate empty garbage; do
		cp "$tmp/pristine" "$entry"
		case $how in
		flip-middle) printf '\xff\x00\xff\x00' | dd of="$entry" bs=1 seek=$((size / 2)) conv=notrunc status=none ;;
		flip-header) printf 'X' | dd of="$entry" bs=1 seek=3 conv=notrunc status=none ;;
		flip-end)    printf '\x01' | dd of="$entry" bs=1 seek=$((size - 1)) conv=notrunc status=none ;;
		truncate)    truncate -s $((size / 3)) "$entry" ;;
		empty)       : >"$entry" ;;
		garbage)     head -c "$size" /dev/urandom >"$entry" ;;
		esac
		run "$cache" -c "use $K; set n=1000; run; run"
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

echo "cache: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
