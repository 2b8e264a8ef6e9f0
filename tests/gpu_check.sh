#!/usr/bin/env bash
# tests/gpu_check.sh: a new configuration's data path on a GPU: random
# inputs filled on the GPU (bit for bit the host's), uploads and checked
# downloads through the staging area, the comparison chunk by
# chunk, references that move values in their own type, started before
# the upload. Each run is a fresh process. The same runs with
# CUPLAY_PAGEABLE=1 CUPLAY_REF_DOUBLES=1 (whole pageable copies, every
# reference in doubles: the way before) must give the same verdicts and
# figures. Called by tests/gpu.sh on a machine with a GPU; alone:
#   bash tests/gpu_check.sh
# Closing line: "gpu-check: N passed, N failed".
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then
	echo "gpu-check: skipped: no GPU"
	exit 0
fi
export XDG_CACHE_HOME="$tmp/cache"
BAD_TAIL=30

# fresh NAME cuplay-args...: one new process, traced: its stdout in
# $tmp/NAME.out, stdout and stderr (the trace) in $tmp/out, its status in $st
fresh() {
	local name=$1; shift
	CUPLAY_TRACE_WORKER=1 "$CUPLAY" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
	st=$?
	cat "$tmp/$name.out" "$tmp/$name.err" >"$tmp/out"
}
# old NAME cuplay-args...: the same, the way before
old() {
	CUPLAY_PAGEABLE=1 CUPLAY_REF_DOUBLES=1 fresh "$@"
}
# checkcols FILE KERNEL: the check and rel_err columns of KERNEL's CSV rows
checkcols() {
	awk -F, -v k="$2" '$1 == "kernel" { for (i = 1; i <= NF; i++) { if ($i == "check") c = i; if ($i == "rel_err") e = i }; next }
	         c && $1 == k { print $1, $c, (e ? $e : "?") }' "$1"
}
# chunks BYTES: how many 8 MiB chunks the staging area moves them in
chunks() { echo $((($1 + 8388607) / 8388608)); }

# 1. kernels that are right check ok in a fresh process, through the
# staging area, with the figures of the way before
while read -r name file kernel sets out bytes ref; do
	[ -n "$name" ] || continue
	cmd="use $file; set $sets; run $kernel"
	fresh "$name" --format csv -c "$cmd"
	if [ $st -ne 0 ] || [ "$(checkcols "$tmp/$name.out" "$kernel" | awk '{ print $2 }')" != ok ]; then
		bad "$name: '$cmd' did not check ok (exit $st)"
		continue
	fi
	n=$(chunks "$bytes")
	if ! grep -q "downloaded and compared '$out' in $n chunks\? through the staging area" "$tmp/out"; then
		bad "$name: no trace of '$out' downloaded and compared in $n chunk(s) through the staging area"
		continue
	fi
	if ! grep -q "filled '[A-Za-z0-9_]*' on the GPU" "$tmp/out" || grep -q "uploaded '[A-Za-z0-9_]*' through the staging area in" "$tmp/out"; then
		bad "$name: the random inputs were not filled on the GPU (or one was uploaded)"
		continue
	fi
	if [ "$ref" = move ] && ! grep -q "reference [a-z0-9]* of '$out': computed in .* (moved in its own type" "$tmp/out"; then
		bad "$name: the reference was not moved in its own type"
		continue
	fi
	if ! grep -q "references started on a thread of their own before the upload" "$tmp/out"; then
		bad "$name: the reference did not start before the upload"
		continue
	fi
	new_cols=$(checkcols "$tmp/$name.out" "$kernel")
	old "$name-old" --format csv -c "$cmd"
	old_cols=$(checkcols "$tmp/$name-old.out" "$kernel")
	if [ $st -ne 0 ] || ! grep -q "downloaded '$out'" "$tmp/out" || grep -q "staging area in\|through the staging area (" "$tmp/out"; then
		bad "$name: the way before (CUPLAY_PAGEABLE=1) did not download whole (exit $st)"
	elif grep -q "filled '[A-Za-z0-9_]*' on the GPU" "$tmp/out" || ! grep -q "no GPU fill (off" "$tmp/out"; then
		bad "$name: the way before (CUPLAY_PAGEABLE=1) filled on the GPU"
	elif [ -z "$new_cols" ] || [ "$new_cols" != "$old_cols" ]; then
		bad "$name: check figures differ: staged '$new_cols', the way before '$old_cols'"
	else
		ok "$name: ok in $n chunk(s) through the staging area, as the way before ($new_cols)"
	fi
done <<EOF
transpose-8192 kernels_src/transpose.cu transpose_tiled N=8192 out 268435456 move
transpose-1000 kernels_src/transpose.cu transpose_tiled N=1000 out 4000000 move
square kernels_src/coalescing.cu square_coalesced N=67108864 B 268435456 doubles
vadd-odd kernels_src/vector_add.cu vadd_naive N=1048573 c 4194292 doubles
vadd-64M kernels_src/vector_add.cu vadd_naive N=67108864 c 268435456 doubles
EOF

# 2. a kernel that is wrong fails its check with the same first bad index
# and values as the way before, the bad element found in a later chunk
for n in 8192 1000; do
	for bug in 1 2; do
		name="bad-$n-$bug"
		if [ $n -gt 5000 ]; then idx=$((5000 * n + 1234)); else idx=$((77 * n + 12)); fi
		cmd="use tests/kernels/transpose_bad.cu; set N=$n BUG=$bug; run"
		fresh "$name" -c "$cmd"
		new_msg=$(grep "differs from reference 'transpose'" "$tmp/out" | head -n 1)
		if [ -z "$new_msg" ]; then
			bad "$name: no failed check in '$cmd' (exit $st)"
			continue
		fi
		if ! echo "$new_msg" | grep -q "index $idx "; then
			bad "$name: expected the first bad index $idx: $new_msg"
			continue
		fi
		if [ $bug = 2 ] && ! echo "$new_msg" | grep -q "1 non-finite values"; then
			bad "$name: expected one non-finite value: $new_msg"
			continue
		fi
		if ! grep -q "downloaded and compared 'out' in $(chunks $((n * n * 4))) chunks\? through the staging area" "$tmp/out"; then
			bad "$name: the output did not come down through the staging area"
			continue
		fi
		old "$name-old" -c "$cmd"
		old_msg=$(grep "differs from reference 'transpose'" "$tmp/out" | head -n 1)
		if [ "$new_msg" != "$old_msg" ]; then
			bad "$name: staged '$new_msg', the way before '$old_msg'"
		else
			ok "$name: fails as the way before: $new_msg"
		fi
	done
done

# 3. the same output again in the same process: the comparison reused by
# its hash, the verdict unchanged; a right kernel after a wrong one is ok
fresh again -c "use tests/kernels/transpose_bad.cu; set N=8192 BUG=1; run; run; set BUG=0; run"
nfail=$(grep -c "differs from reference 'transpose'.*index 40961234 " "$tmp/out")
checks=$(grep -o '^transpose_bad  *[a-zA-Z]*' "$tmp/again.out" | awk '{ printf "%s ", $2 }')
if [ "$nfail" = 2 ] && [ "$checks" = "FAIL FAIL ok " ] && grep -q "the same bits as an output compared before" "$tmp/out"; then
	ok "again: FAIL FAIL ok, both failures at index 40961234, the second by the output's hash"
else
	bad "again: expected FAIL FAIL ok, two failures at index 40961234 (got '$checks', $nfail failures)"
fi

# 4. the GPU fill writes the host fill's bits: a kernel copies random
# inputs of five types to outputs checked against the host copies (floats
# with a tolerance below any rounding step, integers exactly, and rel_err
# must be 0), at sizes that are no multiple of anything and at 64M; the
# trace shows every input filled on the GPU and nothing uploaded; with
# CUPLAY_FILL_HOST=1 every input goes up from the host, with the same
# check figures
# fillcols FILE: the check and rel_err columns of fill_copy's rows
fillcols() { checkcols "$1" fill_copy; }
for n in 1 1000003 67108864; do
	name="fill-$n"
	cmd="use tests/kernels/fill_copy.cu; set N=$n; run"
	fresh "$name" --format csv -c "$cmd"
	cols=$(fillcols "$tmp/$name.out")
	if [ $st -ne 0 ] || [ "$(echo "$cols" | awk '{ print $2 }')" != ok ] ||
	   ! echo "$cols" | awk '{ exit !($3 + 0 == 0) }'; then
		bad "$name: '$cmd' did not check ok with rel_err 0 (exit $st): '$cols'"
		continue
	fi
	nfill=$(grep -c "filled 'x[fdiul]' on the GPU" "$tmp/out")
	if [ "$nfill" != 5 ] || ! grep -q "start-up: the GPU fill kernels loaded" "$tmp/out" ||
	   ! grep -q "buffers: .*, 0.0 MiB uploaded, " "$tmp/out"; then
		bad "$name: expected 5 inputs filled on the GPU and none uploaded (got $nfill fills)"
		continue
	fi
	CUPLAY_FILL_HOST=1 fresh "$name-host" --format csv -c "$cmd"
	host_cols=$(fillcols "$tmp/$name-host.out")
	if [ $st -ne 0 ] || grep -q "filled '[A-Za-z0-9_]*' on the GPU" "$tmp/out" ||
	   ! grep -q "no GPU fill (off" "$tmp/out" || ! grep -q "buffers: .*, 0.0 MiB filled on the GPU" "$tmp/out"; then
		bad "$name: CUPLAY_FILL_HOST=1 still filled on the GPU (exit $st)"
	elif [ "$host_cols" != "$cols" ]; then
		bad "$name: check figures differ: GPU fill '$cols', CUPLAY_FILL_HOST=1 '$host_cols'"
	else
		ok "$name: 5 inputs filled on the GPU check exactly against the host fill ($cols), as with CUPLAY_FILL_HOST=1"
	fi
done

# 4. an input a kernel writes is restored before the next kernel runs:
#    pass2 copies `zero`, which pass1 wrote; on the file's own inputs (zeros)
#    its check (out = in) fails
fresh leftover --format csv -c "use tests/kernels/leftover.cu; run pass1 pass2"
got="$(checkcols "$tmp/leftover.out" pass1 | awk '{ print $2 }') $(checkcols "$tmp/leftover.out" pass2 | awk '{ print $2 }')"
if [ $st -ne 0 ] && [ "$got" = "ok FAIL" ]; then
	ok "leftover: pass2's check stands on the declared zeros, not on what pass1 wrote (pass1 ok, pass2 FAIL)"
else
	bad "leftover: expected pass1 ok and pass2 FAIL with a failing exit, got '$got' (exit $st)"
fi

echo "gpu-check: $pass passed, $fail failed"
