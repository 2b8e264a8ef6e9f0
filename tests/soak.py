#!/usr/bin/env python3
"""tests/soak.py: `make soak`. 10,000 runs in one cuplay REPL (batch mode on
a pipe), alternating kernels and values, with a faulting run (an
out-of-bounds write) every FAULT_EVERY runs. Every RUNS/20 runs it samples,
from outside: the front end's resident memory and open descriptors
(/proc/PID), and the GPU's memory in use (nvidia-smi). Prints the samples,
the growth from the first hundred runs to the last, and the count of
non-faulting runs that did not check ok. Exits 0 unless cuplay died."""
import os, subprocess, sys, time

RUNS = int(os.environ.get("SOAK_RUNS", "10000"))
FAULT_EVERY = int(os.environ.get("SOAK_FAULT_EVERY", "250"))
CUPLAY = os.environ.get("CUPLAY", "./cuplay")

VARIANTS = [
    ("vector_add", "set N=100003", "vadd_naive"),
    ("vector_add", "set N=100003", "vadd_float4"),
    ("transpose", "set N=257 PAD=0", "transpose_tiled"),
    ("transpose", "set N=257 PAD=1", "transpose_tiled"),
    ("reduce", "set N=100003", "reduce_warp"),
    ("coalescing", "set N=65537", "square_uncoalesced"),
]


def gpu_mem_mib():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20).stdout.split()
        return int(out[0]) if out else -1
    except Exception:
        return -1


def proc_stats(pid):
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return rss, fds


def main():
    env = dict(os.environ, NO_COLOR="1")
    p = subprocess.Popen([CUPLAY], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, bufsize=1, env=env)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    lines_seen = []

    def wait_mark(tag):
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit(f"soak: cuplay ended early (exit {p.wait()})")
            if line.strip() == tag or line.strip().endswith(tag):
                return
            lines_seen.append(line)

    send("reps 5; warmup 1; timeout 5; timing min 0 wall 0.002")
    samples = []
    every = max(RUNS // 20, 1)
    t0 = time.time()
    faults = 0
    current = None
    for i in range(RUNS):
        if FAULT_EVERY and i % FAULT_EVERY == FAULT_EVERY - 1:
            send("use tests/kernels/oob.cu; run")
            faults += 1
            current = None
        else:
            f, s, k = VARIANTS[i % len(VARIANTS)]
            if current != f:
                send(f"use {f}")
                current = f
            send(f"{s}; run {k}")
        if i % every == 0 or i == 99 or i == RUNS - 1:
            send(f"say @mark {i}")
            wait_mark(f"@mark {i}")
            rss, fds = proc_stats(p.pid)
            samples.append((i + 1, rss, fds, gpu_mem_mib(), time.time() - t0))
    send("quit")
    p.stdin.close()
    rest = p.stdout.read()
    lines_seen.extend(rest.splitlines(True))
    code = p.wait()
    wall = time.time() - t0

    ok = sum(1 for l in lines_seen if l.split()[1:2] == ["ok"])
    fail = sum(1 for l in lines_seen if l.split()[1:2] == ["FAIL"])
    fault_lines = sum(1 for l in lines_seen if "oob_write" in l and ("illegal" in l.lower() or "worker" in l))
    print(f"soak: {RUNS} runs in {wall:.1f} s ({faults} faulting), exit {code}")
    print(f"{'runs':>7} {'rss KiB':>9} {'fds':>5} {'GPU MiB':>8} {'s':>7}")
    for r, rss, fds, g, t in samples:
        print(f"{r:>7} {rss:>9} {fds:>5} {g:>8} {t:>7.1f}")
    first = next((s for s in samples if s[0] >= 100), samples[0])
    last = samples[-1]
    print(f"growth from run {first[0]} to run {last[0]}: resident {last[1] - first[1]:+d} KiB "
          f"(target under 1024), descriptors {last[2] - first[2]:+d}, GPU memory {last[3] - first[3]:+d} MiB")
    print(f"non-faulting runs checked ok: {ok} of {RUNS - faults}; FAIL: {fail}; fault lines: {fault_lines} of {faults}")
    errors = [l for l in lines_seen if "error" in l.lower() and "oob" not in l.lower()]
    for l in errors[:10]:
        print("  unexpected:", l.rstrip())
    return 0 if code in (0, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
