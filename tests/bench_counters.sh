#!/usr/bin/env bash
# tests/bench_counters.sh: cuplay's hardware counters against Nsight
# Compute's for the same kernel and configuration (ncu --clock-control
# none), and what one profiled run costs; a section of `make bench`, also
# run alone: `bash tests/bench_counters.sh`. Prints figures; never fails.
. "$(dirname "$0")/lib.sh"
if ! have_gpu; then echo "counters: skipped: no GPU"; exit 0; fi
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -n 1)
echo
echo "== counters: cuplay's metrics against ncu --clock-control none, same kernel and configuration"
RAW="gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum dram__throughput.avg.pct_of_peak_sustained_elapsed l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum sm__warps_active.avg.pct_of_peak_sustained_active l1tex__t_sector_hit_rate.pct lts__t_sector_hit_rate.pct"
counters() { # counters LABEL FILE KERNEL SETTINGS
	local label=$1 file=$2 k=$3 set=$4
	XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" --format csv -c "use $file; $set metrics $k $RAW" 2>"$tmp/m.err" |
		awk -F, '{ gsub(/"/, "") } $2 ~ /__/ { print $2, $3; next }
		         $6 ~ /__/ && $6 ~ /^[A-Za-z0-9_.]+$/ { print $6, $3 }' > "$tmp/ours" # a raw name a figure shows comes under the figure's name
	if [ ! -s "$tmp/ours" ]; then echo "$label: cuplay gave no counters: $(head -c 200 "$tmp/m.err")"; return; fi
	local want got
	want=$(echo $RAW | wc -w); got=$(wc -l <"$tmp/ours")
	if [ "$got" -lt "$want" ]; then
		echo "$label: cuplay gave $got of the $want counters asked for: $(grep -v '^trace' "$tmp/m.err" | head -n 3 | tr '\n' ' ' | head -c 300)"
	fi
	if [ -z "$NCU" ]; then echo "$label: ncu not present; cuplay's values:"; sed 's/^/    /' "$tmp/ours"; return; fi
	"$NCU" --clock-control none --print-units base --csv --metrics "$(echo $RAW | tr ' ' ',')" --kernel-name "$k" --launch-count 1 \
		env XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" -c "use $file; $set check off; warmup 0; reps 1; timing min 0 wall 0; run $k" \
		> "$tmp/ncu2.csv" 2>"$tmp/ncu2.err"
	awk -F'","' '/__/ { n = $(NF-2); v = $NF; gsub(/[",]/, "", v); gsub(/"/, "", n); print n, v }' "$tmp/ncu2.csv" > "$tmp/theirs"
	echo "$label"
	awk 'NR == FNR { ours[$1] = $2; next } { theirs[$1] = $2 }
	     END { for (m in ours) { a = ours[m]; b = theirs[m];
	             if (b == "") { printf "    %-62s cuplay %14.6g   ncu: no value\n", m, a; continue }
	             d = (b == 0 ? (a == 0 ? 0 : 100) : 100 * (a - b) / b);
	             printf "    %-62s cuplay %14.6g   ncu %14.6g   %+7.2f%%%s\n", m, a, b, d, (d > 2 || d < -2) ? "  (over 2%)" : "" } }' \
		"$tmp/ours" "$tmp/theirs" | sort
}
counters "square_coalesced (N=64M)" coalescing square_coalesced ""
counters "square_uncoalesced (N=64M)" coalescing square_uncoalesced ""
counters "transpose_tiled N=8192 PAD=0" transpose transpose_tiled "set N=8192 PAD=0;"
counters "transpose_tiled N=8192 PAD=1" transpose transpose_tiled "set N=8192 PAD=1;"
# an untimed run first: a device's first run measures its roofs and checks
# the kernel clock (seconds on some hosts), which neither timed run should pay
XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" -c 'use transpose; set N=8192; run transpose_tiled' >/dev/null 2>&1
settle
t0=$(ms_now)
XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" -c 'use transpose; set N=8192; run transpose_tiled' >/dev/null 2>&1
t1=$(ms_now)
settle
t2=$(ms_now)
XDG_CACHE_HOME="$tmp/kcache" "$CUPLAY" -c 'use transpose; set N=8192; run transpose_tiled; metrics transpose_tiled' >/dev/null 2>&1
t3=$(ms_now)
echo "cost of one profiled run (default set, transpose_tiled N=8192): $(( (t3 - t2 - (t1 - t0)) / 1000000 )) ms wall"
