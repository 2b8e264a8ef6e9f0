#!/usr/bin/env bash
# tests/bench/host_check.sh: timing fidelity on this host in a few minutes,
# for comparing kinds of machine: the probe (tests/bench/fidelity_probe.sh),
# cuplay's kernel clock against ncu's gpu__time_duration on the short
# kernels (medians of PROCS processes each, interleaved), the kernel
# clock's own check (`device` on a fresh cache), and the first result at
# the prompt (tests/first_result.py --bench). Run from the repository root
# after `make cuplay build/bench/clockprobe`; logs under ${OUT:-/tmp/host_check};
# a table at the end. Never changes a clock.
set -u
out=${OUT:-/tmp/host_check}
mkdir -p "$out"
CUPLAY=${CUPLAY:-./cuplay}
PROCS=${PROCS:-3}
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)}
host=$(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | awk '{ c = $1; $1 = ""; printf "%s%d x%s", (NR > 1 ? " + " : ""), c, $0 }')
echo "== $host, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)"

[ "${SKIP_PROBE:-}" = 1 ] || OUT="$out/probe" bash tests/bench/fidelity_probe.sh >"$out/probe.txt" 2>&1

# cuplay and ncu, process by process: "label cuplay_ms ncu_ms" medians
med() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
fid() { # fid LABEL FILE KERNEL SETTINGS
	local i o t
	: >"$out/fid.ours"; : >"$out/fid.theirs"
	for i in $(seq "$PROCS"); do
		XDG_CACHE_HOME="$out/kcache" "$CUPLAY" --format csv -c "use $2; $4 reps 50; run $3" 2>/dev/null |
			awk -F, -v k="$3" '$1 == "kernel" { for (i = 1; i <= NF; i++) { if ($i == "median_ms") m = i; if ($i == "clock_offset_us") c = i } }
			                  $1 == k { print $m, $c }' >>"$out/fid.ours"
		[ -z "$NCU" ] && continue
		"$NCU" --clock-control none --metrics gpu__time_duration.sum --csv --kernel-name "$3" --launch-skip 3 --launch-count 30 \
			env XDG_CACHE_HOME="$out/kcache" "$CUPLAY" -c "use $2; $4 reps 40; check off; run $3" >"$out/ncu.csv" 2>"$out/ncu.err"
		awk -F'","' '/gpu__time_duration.sum/ { u = $(NF-1); v = $NF; gsub(/[",]/, "", v); gsub(/"/, "", u)
			f = (u == "nsecond" || u == "ns") ? 1e-6 : (u == "usecond" || u == "us") ? 1e-3 : (u == "msecond" || u == "ms") ? 1 : 0
			print v * f }' "$out/ncu.csv" | med >>"$out/fid.theirs"
	done
	echo "$1|$(awk '{ print $1 }' "$out/fid.ours" | med)|$(med <"$out/fid.theirs")|$(awk '{ print $2 }' "$out/fid.ours" | head -n 1)" >>"$out/fid.table"
}
: >"$out/fid.table"
fid "vadd_float4 N=2M" vector_add vadd_float4 "set N=2097152;"
fid "vadd_float4 N=1M" vector_add vadd_float4 "set N=1048576;"
fid "vadd_float4 N=256K" vector_add vadd_float4 "set N=262144;"
fid "empty_launch" vector_add empty_launch ""
if [ "${SHORT:-}" != 1 ]; then
	fid "transpose_tiled N=4096" transpose transpose_tiled "set N=4096;"
	fid "transpose_tiled N=8192 PAD=0" transpose transpose_tiled "set N=8192 PAD=0;"
fi

# the kernel clock's check on a fresh cache, as a first use would make it
rm -rf "$out/ccache"
XDG_CACHE_HOME="$out/ccache" CUPLAY_TRACE=1 "$CUPLAY" -c 'use vector_add; set N=262144; run vadd_float4; device' >"$out/check.txt" 2>&1
check=$(grep '^kernel clock' "$out/check.txt" | head -n 1)

[ "${SKIP_FIRST:-}" = 1 ] || CUPLAY=$CUPLAY python3 tests/first_result.py --bench >"$out/first.txt" 2>&1

echo
echo "== the probe (ns, medians): CUPTI kernel record, events, the SMs' globaltimer span, record - span"
sed -n '/^== probe, device 0/,/^$/p' "$out/probe.txt" | grep -E 'flush |noflush |concurrent|b2b' | head -n 24
grep -A 30 '^== ncu gpu__time_duration' "$out/probe.txt" | grep 'cache_all' | head -n 12
for f in "$out"/probe/probe0_alone.txt "$out"/probe/probe1.txt "$out"/probe/probe0_sibling_busy.txt; do
	[ -s "$f" ] && { echo "-- $(basename "$f" .txt):"; grep -E '^flush +vadd4_2M|^flush +spin_4us|^flush/concurrent +vadd4_2M' "$f"; }
done
sed -n '/^== GPU 0 (/,/^$/p' "$out/probe.txt" | grep -E '^==|^--|cuplay on|^   flush +(vadd4_2M|spin_4us) '
grep -A 3 '^== clocks while probing' "$out/probe.txt"
sed -n '/^== the profiler.s duration in this process/,/^$/p' "$out/probe.txt"
sed -n '/^== the GPU.s path to host memory/,/^$/p' "$out/probe.txt"
echo
echo "== cuplay (kernel clock) against ncu gpu__time_duration, medians of $PROCS processes each"
printf '%-26s %12s %12s %9s %8s  %s\n' kernel "cuplay us" "ncu us" diff "%" "clock_offset_us"
awk -F'|' '{ d = ($3 > 0) ? ($2 - $3) * 1e3 : 0; printf "%-26s %12.3f %12.3f %+9.3f %+7.2f%%  %s\n", $1, $2 * 1e3, $3 * 1e3, d, ($3 > 0 ? 100 * ($2 - $3) / $3 : 0), $4 }' "$out/fid.table"
echo "$check"
[ -s "$out/first.txt" ] && { echo; cat "$out/first.txt"; }
