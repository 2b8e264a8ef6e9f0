#!/usr/bin/env bash
# tests/bench/fidelity_probe.sh: where a short kernel's time goes on this
# host, by several clocks at once (build/bench/clockprobe), against Nsight
# Compute's gpu__time_duration for the same launches. Run from the
# repository root after `make build/bench/clockprobe`; writes its logs under
# ${OUT:-/tmp/fidelity_probe} and prints a table. Never changes a clock.
#   columns of the probe: CUPTI kernel record, event pair, the span the SMs
#   saw (%globaltimer, first block's start to last block's end), their
#   difference, and the SM clock inside the kernel (clock64 / globaltimer)
set -u
out=${OUT:-/tmp/fidelity_probe}
mkdir -p "$out"
probe=${PROBE:-build/bench/clockprobe}
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)}
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')

echo "== host: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')GPUs; driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1); $(nproc) CPUs"
nvidia-smi --query-gpu=index,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.draw,persistence_mode,compute_mode --format=csv 2>/dev/null |
	sed 's/^/   /'
nvidia-smi --query-gpu=index,clocks_event_reasons.active --format=csv,noheader 2>/dev/null | sed 's/^/   clock event reasons: /'
nvidia-smi topo -m 2>/dev/null | head -n $((ngpu + 1)) | sed 's/^/   /'
echo "   MPS: $(pgrep -l nvidia-cuda-mps || echo none)"

# the GPUs' clocks and power while the probes run, every 100 ms
nvidia-smi --query-gpu=timestamp,index,pstate,clocks.sm,clocks.mem,power.draw --format=csv,noheader -lms 100 >"$out/smi.csv" 2>/dev/null &
smi=$!
trap 'kill $smi 2>/dev/null' EXIT

echo
echo "== probe, device 0 (all GPUs visible): medians of 41 launches, ns"
"$probe" --device 0 | tee "$out/probe0.txt" | sed 's/^/   /'
echo
echo "== the profiler's duration in this process, device 0 (clockprobe --prof): medians, ns"
"$probe" --device 0 --prof | tee "$out/prof0.txt" | sed 's/^/   /'
echo
echo "== the GPU's path to host memory (clockprobe --link): one thread, ns per access, medians"
echo "   (where a host write and its fence take longer, the kernel record's window is wider by about as much: docs/timing.md)"
"$probe" --device 0 --link | tee "$out/link0.txt" | sed 's/^/   GPU 0: /'
[ "$ngpu" -ge 2 ] && "$probe" --device 1 --link | tee "$out/link1.txt" | sed 's/^/   GPU 1: /'
if [ "$ngpu" -ge 2 ]; then
	echo
	echo "== probe, only GPU 0 visible (CUDA_VISIBLE_DEVICES=0)"
	CUDA_VISIBLE_DEVICES=0 "$probe" --only flush | tee "$out/probe0_alone.txt" | sed 's/^/   /'
	echo
	echo "== probe, device 1"
	"$probe" --device 1 --only flush | tee "$out/probe1.txt" | sed 's/^/   /'
	echo
	echo "== probe, device 0 while device 1 runs spin kernels"
	CUDA_VISIBLE_DEVICES=1 "$probe" --busy 6 &
	busy=$!
	sleep 1
	CUDA_VISIBLE_DEVICES=0 "$probe" --only flush | tee "$out/probe0_sibling_busy.txt" | sed 's/^/   /'
	wait $busy
fi

# the host thread on GPU 0's own CPUs (its NUMA node) against the others:
# a launch is fetched by the GPU from host memory the driver allocated
# where the thread ran
bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i 0 2>/dev/null | tr 'A-F' 'a-f' | sed 's/^0000//')
near=$(cat "/sys/bus/pci/devices/$bus/local_cpulist" 2>/dev/null)
far=$(python3 - "$near" <<'PY'
import os, sys
def parse(s):
    out = set()
    for part in s.split(","):
        if "-" in part:
            a, b = part.split("-"); out |= set(range(int(a), int(b) + 1))
        elif part.strip():
            out.add(int(part))
    return out
near = parse(sys.argv[1]) if sys.argv[1] else set()
far = sorted(os.sched_getaffinity(0) - near) if near else []
print(",".join(map(str, far)))
PY
)
echo
echo "== GPU 0 ($bus): local CPUs ${near:-unknown}; other CPUs ${far:-none}"
if [ -n "$near" ] && [ -n "$far" ] && command -v taskset >/dev/null; then
	echo "-- probe on GPU 0's own CPUs"
	taskset -c "$near" "$probe" --only flush | tee "$out/probe0_near.txt" | sed 's/^/   /'
	echo "-- probe on the other CPUs"
	taskset -c "$far" "$probe" --only flush | tee "$out/probe0_far.txt" | sed 's/^/   /'
	if [ -x "${CUPLAY:-./cuplay}" ]; then
		for where in near far; do
			cpus=$near
			[ $where = far ] && cpus=$far
			for k in "set N=2097152; reps 50; run vadd_float4" "reps 50; run empty_launch"; do
				taskset -c "$cpus" "${CUPLAY:-./cuplay}" --format csv -c "use vector_add; $k" 2>/dev/null |
					awk -F, -v w=$where '$1 == "vadd_float4" || $1 == "empty_launch" { printf "   cuplay on the %s CPUs: %s %.3f us\n", w, $1, $5 * 1000 }'
			done
		done | tee "$out/cuplay_numa.txt"
	fi
fi

# ncu on the same probe kernels, launch by launch against the SMs' span
ncu_pairs() { # ncu_pairs LABEL NCU-OPTIONS...
	local label=$1
	shift
	"$NCU" --clock-control none "$@" --metrics gpu__time_duration.sum --csv --kernel-name 'regex:^pr_(vadd4|spin|empty)$' \
		"$probe" --no-cupti --reps 15 --log "$out/ncu_log_$label.txt" >"$out/ncu_$label.csv" 2>"$out/ncu_$label.err"
	awk -F'","' '/gpu__time_duration.sum/ { v = $NF; u = $(NF-1); gsub(/[",]/, "", v); gsub(/"/, "", u)
		f = (u == "nsecond" || u == "ns") ? 1 : (u == "usecond" || u == "us") ? 1000 : (u == "msecond" || u == "ms") ? 1e6 : 0
		print v * f }' "$out/ncu_$label.csv" >"$out/ncu_$label.ns"
	paste -d' ' "$out/ncu_log_$label.txt" "$out/ncu_$label.ns" | awk -v l="$label" '
		$4 == 0 && NF == 5 { k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
			c[k]++; d[k, c[k]] = $5; s[k, c[k]] = $3; x[k, c[k]] = $3 < 0 ? -1 : $5 - $3 }
		function med(a, k, m,   i, j, t, v) { for (i = 1; i <= m; i++) v[i] = a[k, i]
			for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j] < v[j-1]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
			return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
		END { for (i = 1; i <= n; i++) { k = order[i]
			printf "   %-34s ncu %7.0f  span %7.0f  ncu-span %6.0f  (%d launches)\n", l ": " k, med(d, k, c[k]), med(s, k, c[k]), med(x, k, c[k]), c[k] } }'
}
if [ -n "$NCU" ]; then
	echo
	echo "== ncu gpu__time_duration on the probe kernels (ns), launch by launch against the SMs' span"
	ncu_pairs cache_all --cache-control all
	ncu_pairs cache_none --cache-control none
fi

kill $smi 2>/dev/null
echo
echo "== clocks while probing (nvidia-smi every 100 ms): GPU, samples, pstates, SM MHz min-max, memory MHz, W max"
awk -F', ' '{ g = $2; n[g]++; p[g] = p[g] ~ $3 ? p[g] : p[g] " " $3; s = $4 + 0; m = $5 + 0; w = $6 + 0
	if (!(g in lo) || s < lo[g]) lo[g] = s; if (s > hi[g]) hi[g] = s; mem[g] = m; if (w > pw[g]) pw[g] = w }
	END { for (g in n) printf "   GPU %s: %d samples,%s, SM %d-%d MHz, memory %d MHz, %.0f W max\n", g, n[g], p[g], lo[g], hi[g], mem[g], pw[g] }' "$out/smi.csv"
