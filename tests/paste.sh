#!/usr/bin/env bash
# tests/paste.sh: a kernel pasted from elsewhere compiles in cuplay exactly
# where it compiles with nvcc. Each file of tests/paste/ is an idiom (INFINITY
# without an include, std::sqrt, INT_MAX, int64_t; FLT_MAX or uint32_t
# without one, which nvcc refuses as well) and says what it expects on a
# "// expect: compiles|error" line. nvcc -c -arch=sm_90 is the oracle: both
# compilers must give that answer, cuplay (compile-only) without a warning,
# and its error must be the compiler's, at a line of the file. Without nvcc
# (CUDA_HOME/bin or PATH): skipped.
# Closing line: "paste: N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$tmp/cache"
pass=0 fail=0 skip=0
ok()  { pass=$((pass + 1)); echo "ok:   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
[ -x "$nvcc" ] || nvcc=$(command -v nvcc 2>/dev/null)
files=(tests/paste/*.cu)
if [ ${#files[@]} -lt 15 ]; then
	bad "only ${#files[@]} idioms in tests/paste (15 at least)"
fi
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
	echo "skipped: no nvcc to compare with (set NVCC or CUDA_HOME)"
	echo "paste: $pass passed, $fail failed, $((skip + 1)) skipped"
	exit 0
fi

# both compilers, four files at a time: the status of each in $tmp/NAME.nvcc
# and $tmp/NAME.us, their output beside
printf '%s\n' "${files[@]}" | xargs -P 4 -I{} sh -c \
	'n=$(basename "{}" .cu); "$1" -c -arch=sm_90 "{}" -o "$2/$n.o" >"$2/$n.nvlog" 2>&1; echo $? >"$2/$n.nvcc"
	 "$3" --no-gpu -c "use {}; run" >"$2/$n.out" 2>&1 </dev/null; echo $? >"$2/$n.us"' \
	sh "$nvcc" "$tmp" "$CUPLAY"

ncomp=0 nerr=0
for f in "${files[@]}"; do
	n=$(basename "$f" .cu)
	want=$(sed -n 's,^// expect: \(compiles\|error\)$,\1,p' "$f")
	if [ -z "$want" ]; then bad "$n: no '// expect: compiles|error' line"; continue; fi
	st=$(cat "$tmp/$n.nvcc" 2>/dev/null)
	if [ "$st" = 0 ]; then by_nvcc=compiles; else by_nvcc=error; fi
	cst=$(cat "$tmp/$n.us" 2>/dev/null)
	if [ "$cst" = 0 ]; then by_us=compiles; else by_us=error; fi
	why=
	[ "$by_nvcc" = "$want" ] || why="nvcc: $by_nvcc, expected $want; $(head -n 3 "$tmp/$n.nvlog" | tr '\n' ' ')"
	[ "$by_us" = "$by_nvcc" ] || why="$why cuplay: $by_us, nvcc: $by_nvcc; $(grep -m 2 'error' "$tmp/$n.out" | tr '\n' ' ')"
	if grep -qi 'warning' "$tmp/$n.out"; then why="$why cuplay warned: $(grep -m 2 -i warning "$tmp/$n.out" | tr '\n' ' ')"; fi
	if [ "$by_us" = error ] && ! grep -q "^$f:[0-9]*: error: " "$tmp/$n.out"; then
		why="$why cuplay's error is not the compiler's at a line of the file: $(head -n 2 "$tmp/$n.out" | tr '\n' ' ')"
	fi
	if [ -z "$why" ]; then
		ok "$n: $by_nvcc with both"
		if [ "$want" = compiles ]; then ncomp=$((ncomp + 1)); else nerr=$((nerr + 1)); fi
	else
		bad "$n:$why"
	fi
done
echo "paste: nvcc and cuplay agree on $((ncomp + nerr)) of ${#files[@]} idioms ($ncomp compile, $nerr do not)"
echo "paste: $pass passed, $fail failed, $skip skipped"
