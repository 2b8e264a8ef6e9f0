#!/usr/bin/env bash
# tests/contention.sh: what other processes on the same GPU do to each
# figure cuplay measures, run by hand on a GPU machine (not by make test):
#
#   bash tests/contention.sh [PROCS...]        default: 1 2 8
#
# For each count of processes, with the GPU lock off (CUPLAY_GPU_LOCK=0:
# raw contention) and on (cuplay's default: one process measures at a
# time), that many cuplay processes start together on GPU $DEVICE (default
# 0) and each measures, REPS times (default 3), in turn:
#   kernel   transpose_tiled at N=8192 timed on the kernel clock (globaltimer)
#   events   the same timed with CUDA events
#   cold L2  transpose_tiled at N=1024 (8 MB, inside the L2), L2 flushed
#            before each sample, kernel clock: another process's kernels
#            between the flush and the launch warm or evict the L2
#   counters dram_read and l2_hit of one profiled launch at N=8192, and how
#            often the counters could not be had (busy: another profiler)
# Each process's figure is the median of its REPS results. The table gives,
# per figure, lock and count: the median over the processes, that against
# one process alone (x1.00 = no change), the spread over the processes
# (slowest / fastest), the counters' failures, and the waits said.
# Environment: CUPLAY (default ./cuplay), DEVICE, REPS, KEEP=1 keeps the
# raw outputs (their directory is printed).
set -u
cd "$(dirname "$0")/.."
CUPLAY=${CUPLAY:-./cuplay}
DEVICE=${DEVICE:-0}
REPS=${REPS:-3}
export NO_COLOR=1
PROCS=("$@")
[ ${#PROCS[@]} = 0 ] && PROCS=(1 2 8)
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' || ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
	echo "contention: skipped: no GPU"
	exit 0
fi
tmp=$(mktemp -d)
if [ "${KEEP:-}" = 1 ]; then echo "contention: outputs in $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
export CUPLAY_LOCK_DIR="$tmp/locks" XDG_CACHE_HOME="$tmp/cache"
mkdir -p "$CUPLAY_LOCK_DIR"

cmds="use transpose"
for r in $(seq "$REPS"); do
	cmds="$cmds; set N=8192; timing clock kernel; run transpose_tiled; timing clock events; run transpose_tiled"
	cmds="$cmds; set N=1024; flush on; timing clock kernel; run transpose_tiled"
	cmds="$cmds; set N=8192; metrics transpose_tiled dram_read l2_hit"
done
# compile once, so that no process spends its time in NVRTC
"$CUPLAY" --device "$DEVICE" -c "use transpose; set N=1024; run transpose_tiled; set N=8192; run transpose_tiled" >/dev/null 2>&1 </dev/null

for lock in 0 1; do
	for n in "${PROCS[@]}"; do
		d="$tmp/lock$lock-n$n"
		mkdir -p "$d"
		pids=()
		for i in $(seq "$n"); do
			CUPLAY_GPU_LOCK=$lock "$CUPLAY" --device "$DEVICE" --format jsonl -c "$cmds" \
				>"$d/$i.jsonl" 2>"$d/$i.err" </dev/null &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p" || echo "contention: a process of $n (lock $lock) exited with status $?" >&2; done
		echo "contention: $n process(es), lock $([ $lock = 1 ] && echo on || echo off): done" >&2
	done
done

python3 - "$tmp" "${PROCS[@]}" <<'PY'
import glob, json, os, statistics, sys
tmp, procs = sys.argv[1], [int(x) for x in sys.argv[2:]]

def figures(path):
    """A process's figures: name -> [values]."""
    f = {"kernel": [], "events": [], "cold L2": [], "dram_read": [], "l2_hit": []}
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") == "run" and r.get("kernel") == "transpose_tiled" and r.get("median_ms") is not None:
            vals = r.get("values") or ""
            if "N=1024" in vals:
                f["cold L2"].append(r["median_ms"])
            elif r.get("clock") == "events":
                f["events"].append(r["median_ms"])
            else:
                f["kernel"].append(r["median_ms"])
        elif r.get("type") == "metric" and r.get("metric") in ("dram_read", "l2_hit") and r.get("value") is not None:
            f[r["metric"]].append(r["value"])
    return f

rows, base = [], {}
for lock in (0, 1):
    for n in procs:
        d = os.path.join(tmp, "lock%d-n%d" % (lock, n))
        per = [figures(p) for p in sorted(glob.glob(d + "/*.jsonl"))]
        errs = "".join(open(p, errors="replace").read() for p in glob.glob(d + "/*.err"))
        busy = errs.count("metrics: hardware counters")
        waits = errs.count("waiting for GPU") + sum(open(p).read().count("waiting for GPU") for p in glob.glob(d + "/*.jsonl"))
        for name in ("kernel", "events", "cold L2", "dram_read", "l2_hit"):
            meds = [statistics.median(p[name]) for p in per if p[name]]
            if not meds:
                rows.append((name, lock, n, None, None, None, busy, waits, 0))
                continue
            m = statistics.median(meds)
            if lock == 0 and n == procs[0]:
                base[name] = m
            spread = max(meds) / min(meds) if min(meds) > 0 else float("nan")
            rows.append((name, lock, n, m, m / base[name] if base.get(name) else None, spread, busy, waits, len(meds)))

unit = {"kernel": "ms", "events": "ms", "cold L2": "ms", "dram_read": "bytes", "l2_hit": "fraction"}
print("%-10s %-5s %5s %14s %9s %8s %6s %6s %7s" % ("figure", "lock", "procs", "median", "vs alone", "spread", "busy", "waits", "results"))
for name, lock, n, m, vs, spread, busy, waits, k in sorted(rows, key=lambda r: (list(unit).index(r[0]), r[1], r[2])):
    ms = "-" if m is None else ("%.4f %s" % (m, unit[name]) if unit[name] == "ms" else "%.4g" % m)
    print("%-10s %-5s %5d %14s %9s %8s %6s %6d %7d" % (name, "on" if lock else "off", n, ms,
          "-" if vs is None else "x%.2f" % vs, "-" if spread is None else "x%.2f" % spread,
          busy if name in ("dram_read", "l2_hit") else "", waits, k))
print("\nbusy: profiled launches whose counters another process held; waits: 'waiting for GPU' lines said")
PY
