#!/usr/bin/env python3
"""tests/bench_rerun.py: how soon a rerun answers after a value is changed,
for every shipped kernel file (part of `make bench`). Prints figures
measured in this run; never fails on them.

Per file, with the first define it has and the first kernel it lists:
  whole   the whole file's compile as one unit (as `info` compiles it; what
          every run compiled before kernels compiled alone), in a warm
          process (-c: nothing ahead)
  alone   the kernel's own compile, the same way; ratio = whole / alone
  typed   `set DEF=V` then, 300 ms later, `run KERNEL` typed at the prompt
          of a warm REPL (a pseudo-terminal): ms from Enter on `run` to the
          prompt after its result
  at once `set DEF=V; run KERNEL` on one line: ms from Enter to the prompt
  compile the compile the at-once run waited for (its header line)
  own     the typed run's and the at-once run's own time: the worker's round
          trip from the request to the result (CUPLAY_TRACE), its launch,
          check and timing with the new module's load and the reference's
          compute; no compile
  again   `run KERNEL` once more with nothing to compile, at the same values
          (after typed, then after at once)
  targets met or MISSED: typed at most 100 ms (the kernel's own compile plus
          30 ms where it takes 300 ms or more; the run's own time (own) plus
          30 ms where that is longer); at once at most the kernel's own
          compile (the one that run waited for, where the trace says it
          was the kernel's own unit, else the kernel's compile alone at the
          at-once values) plus the run's own time, 20 ms of slack
And the issue's own case as a row of its own: matmul_tiled at N=1024 with
its TILE_SIZE changed, at once at most 150 ms besides.
Then the first result on an empty cache (use, set N=4096, run typed as three
lines, the prompt up 1 s before) and on a warm one; the same empty-cache
first result traced (CUPLAY_TRACE, CUPLAY_TRACE_WORKER), each trace line
with the ms from Enter on `run` it came at (where the time goes); and `sweep PAD=0,1,2 TILE_SIZE=8,16,32
transpose_tiled` at N=4096 from Enter, on an empty cache and a warm one.

--first: the first result alone (empty cache, warm, traced), in seconds.
--no-gpu: everything compile-only (the machine has no GPU: the compile
figures alone mean anything then). BENCH_FILES=a,b: those files alone."""
import functools, os, pty, re, select, subprocess, sys, tempfile, time

CUPLAY = os.path.abspath(os.environ.get("CUPLAY", "./cuplay"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOGPU = "--no-gpu" in sys.argv
FIRST_ONLY = "--first" in sys.argv

# two values of a define that each file compiles with (neither its default;
# the second may be another define's NAME=VALUE)
VALUES = {
    "coalescing": ("BLOCK_SIZE", "128", "512"), "convolution": ("BLOCK", "128", "512"),
    "dot": ("BLOCK_SIZE", "128", "512"), "dynpar": ("BLOCK_DIM", "128", "512"),
    "histogram": ("BINS", "8192", "4096"), "matmul": ("TILE_SIZE", "16", "8"),
    "reduce": ("BLOCK_SIZE", "128", "512"), "scan": ("ITEMS", "4", "16"),
    "sgemm": ("WT_MINB", "2", "3"), "softmax": ("BLOCK", "128", "512"),
    "staging": ("TILE", "2048", "8192"), "streams": ("BLOCK_SIZE", "128", "512"),
    "sum_passes": ("BLOCK", "128", "512"), "tensor_gemm": ("STAGES", "2", "4"),
    "tensor_wgmma": ("STAGES", "3", "WG_BN=128"), "transpose": ("PAD", "0", "2"),
    "unified": ("BLOCK_SIZE", "128", "512"), "vector_add": ("BLOCK_SIZE", "128", "512"),
}
# rows of their own, after the files' (file, kernel, define, value, second
# value, what is set first, the at-once target in ms): the issue's own case,
# matmul_tiled at N=1024 with its TILE_SIZE changed (at once: 150 ms)
EXTRA = [("matmul", "matmul_tiled", "TILE_SIZE", "16", "8", "N=1024", 150)]
COMPILED = re.compile(r"\(compiled in ([0-9.]+) ms")


def env_for(cache, trace=False, worker=True):
    e = dict(os.environ, NO_COLOR="1", TERM="dumb", XDG_CACHE_HOME=cache)
    e.pop("CUPLAY_TRACE", None)
    e.pop("CUPLAY_TRACE_WORKER", None)
    if trace:
        e.update(CUPLAY_TRACE="1")
    if trace and worker:
        e.update(CUPLAY_TRACE_WORKER="1")
    return e


# CUPLAY_TRACE's line for each run: its compile, then the worker's round trip
# from the request to the result (launch, check and timing, the module's
# load and the reference's compute among them; no compile)
BACKGROUND = re.compile(r"^trace: background compile of \S+ \((\d+) kernels?\) started")
WHOLE = re.compile(r"^trace: \S+ compiles whole: ")
ROUND_TRIP = re.compile(r"^trace: (\S+) compile [0-9.]+ ms \([a-z][^)]*\), worker .*, round trip ([0-9.]+) ms")


def plain(line):
    """A line as it shows: what a carriage return (the progress line's erase)
    wrote over, and terminal escapes, left out."""
    return re.sub(r"^.*\r|\x1b\[[0-9;]*[A-Za-z]", "", line)


class Pty:
    def __init__(self, args, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(ROOT)
            os.execvpe(args[0], args, env)
        self.out = ""
        self.lines = []  # (the time a whole line came, the line)
        self.part = ""
        self.wait_prompt(30)

    def keep(self, text, when):
        """Each whole line of the output with the time its end came."""
        self.part += text
        *done, self.part = self.part.split("\n")
        self.lines += [(when, l.rstrip("\r")) for l in done]

    def wait_prompt(self, timeout):
        """Reads until a prompt ends the output: the time it came, or None."""
        end = time.monotonic() + timeout
        buf = ""
        while time.monotonic() < end:
            r, _, _ = select.select([self.fd], [], [], 0.002)
            if r:
                try:
                    c = os.read(self.fd, 65536)
                except OSError:
                    break
                if not c:
                    break
                buf += c.decode(errors="replace")
                self.keep(c.decode(errors="replace"), time.monotonic())
                if re.search(r"cuplay[^>\n]*> $", buf):
                    self.out += buf
                    return time.monotonic()
        self.out += buf
        return None

    def type(self, line):
        os.write(self.fd, (line + "\r").encode())
        return time.monotonic()

    def close(self):
        self.type("quit")
        self.wait_prompt(5)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        os.close(self.fd)


def gpu_args():
    return [CUPLAY] + (["--no-gpu"] if NOGPU else []) + ["-X"]


def compiled(cmd, cache):
    """The compile times (ms) that `-c CMD` prints, in order, compile-only
    with a cache of its own."""
    out = subprocess.run([CUPLAY, "--no-gpu", "-c", cmd], capture_output=True, text=True, cwd=ROOT,
                         env=env_for(cache), timeout=300).stdout
    return [float(x) for x in COMPILED.findall(out)]


def compiles(name, kernel, define, v, tmp, v2=None):
    """The whole file's compile and the kernel's own, in one warm process;
    with v2, the kernel's own compile at v2 as well (what the at-once run
    compiles), in a process of its own."""
    # the kernel alone first: the whole file's unit, cached, would serve it
    ms = compiled(f"use {name}; run {kernel}; set {define}={v}; run {kernel}; info",
                  os.path.join(tmp, f"c-{name}-{kernel}"))
    alone2 = None
    if v2:
        ms2 = compiled(f"use {name}; run {kernel}; set {v2 if '=' in v2 else define + '=' + v2}; run {kernel}",
                       os.path.join(tmp, f"c2-{name}-{kernel}"))
        alone2 = ms2[1] if len(ms2) >= 2 else None
    if len(ms) == 2:  # the file compiles whole: `info` found the kernel's unit
        return (ms[1], ms[1], alone2)
    return (ms[2], ms[1], alone2) if len(ms) >= 3 else (None, None, alone2)


@functools.lru_cache(maxsize=None)
def use_says(name):
    """What `use NAME` prints (once per file: its kernels)."""
    return subprocess.run([CUPLAY, "--no-gpu", "-c", f"use {name}"], capture_output=True, text=True, cwd=ROOT,
                          env=env_for("/nonexistent-cache")).stdout


def kernel_count(name):
    """How many kernels the file has, as `use` says it."""
    m = re.search(r": (\d+) kernels? \(", use_says(name))
    return int(m.group(1)) if m else None


def own_time(s, kernel, t0, t1):
    """The worker's round trips for KERNEL's runs between t0 and t1 (ms), from
    the trace: the run's own time, without the compile."""
    if t1 is None:
        return None
    got = [float(m.group(2)) for when, l in s.lines if t0 <= when <= t1
           for m in [ROUND_TRIP.match(plain(l))] if m and m.group(1) == kernel]
    return sum(got) if got else None


def compiled_in(s, t0, t1):
    """The compile a run between t0 and t1 waited for (ms), as its header
    line says it ('compiled in N ms'); None where nothing was compiled."""
    got = [float(m.group(1)) for when, l in s.lines if t1 and t0 <= when <= t1 for m in [COMPILED.search(l)] if m]
    return got[0] if got else None


def unit_of(s, t0, t1):
    """How many kernels the compile a run between t0 and t1 waited for
    holds, as the trace says it: the background compile that `set`
    started (its kernel count), 0 where the file compiles whole, None where
    the trace does not say."""
    got = None
    for when, l in s.lines:
        if t1 and t0 <= when <= t1:
            m = BACKGROUND.match(plain(l))
            if m:
                got = int(m.group(1))
            elif WHOLE.match(plain(l)):
                return 0
    return got


def typed(name, kernel, define, v1, v2, tmp, pre=None):
    s = Pty(gpu_args(), env_for(os.path.join(tmp, "t-" + name + (pre or "")), trace=True, worker=False))
    s.type(f"use {name}")
    s.wait_prompt(30)
    if pre:
        s.type(f"set {pre}")
        s.wait_prompt(10)
    time.sleep(1.5)
    s.type(f"run {kernel}")
    s.wait_prompt(300)
    s.type(f"set {define}={v1}")
    s.wait_prompt(10)
    time.sleep(0.3)
    t0 = s.type(f"run {kernel}")
    t1 = s.wait_prompt(300)
    time.sleep(0.3)
    # the same again, compiled, at the same values: the run's own launch,
    # check and timing (a define changes the run's own time as well)
    a0 = s.type(f"run {kernel}")
    a1 = s.wait_prompt(300)
    time.sleep(0.5)
    t2 = s.type(f"set {v2 if '=' in v2 else define + '=' + v2}; run {kernel}")
    t3 = s.wait_prompt(300)
    time.sleep(0.3)
    t4 = s.type(f"run {kernel}")
    t5 = s.wait_prompt(300)
    s.close()
    ms = lambda a, b: (b - a) * 1e3 if b else None
    # the typed run's lines (its trace among them), each with the ms from Enter
    said = lambda a, b: ["%8.1f  %s" % ((when - a) * 1e3, plain(l)) for when, l in s.lines if b and a <= when <= b]
    return (ms(t0, t1), ms(t2, t3), ms(a0, a1), ms(t4, t5), own_time(s, kernel, t0, t1), own_time(s, kernel, t2, t3),
            compiled_in(s, t2, t3), unit_of(s, t2, t3), (said(t0, t1), said(t2, t3)))


def targets(whole, alone, alone2, own1, own2, c_once, unit, nk, t_after, t_once, cap=None):
    """The issue's targets for one file: typed 300 ms after set, at most 100 ms
    from Enter (the kernel's own compile plus 30 ms where that compile takes
    300 ms or more; the run's own time plus 30 ms where the run itself takes
    longer than that); typed at once, at most the kernel's own compile plus
    the run's own time (20 ms of slack), never the file's compile. The
    run's own time: that run's round trips in the worker, from the request to
    its result (its launch, check and timing, the new module's load and the
    reference's compute among them; a `//@ check at` file's check pass as
    well), from CUPLAY_TRACE; the wait for the compile is what the targets
    bound. The kernel's own compile at once: the one that run waited for
    (its header line), where it was the kernel's own unit: the trace says
    the compile it waited for held fewer kernels than the file's nk, or,
    where the trace does not say, that compile was nearer the kernel's
    compile alone at those values (alone2; a compile varies by tens of ms
    from one process to the next) than the file's; the compile alone where
    the run did not say. cap: a row's own bound on at once besides (ms)."""
    if None in (alone, own1, own2, t_after, t_once):
        return "-"
    limit = alone + 30 if alone >= 300 else 100
    limit = max(limit, own1 + 30)
    a = "met" if t_after <= limit else "MISSED"
    near = alone2 if alone2 is not None else alone
    if unit is not None and nk and 0 < unit < nk:
        own_unit = c_once is not None
    else:
        own_unit = c_once is not None and (whole is None or whole <= near or c_once < (near + whole) / 2)
    b = "met" if t_once <= (c_once if own_unit else near) + own2 + 20 and t_once <= (cap or t_once) else "MISSED"
    return f"{a}/{b}"


def first_kernel(name):
    m = re.search(r"kernels? \(([^,)\s]+)", use_says(name))
    return m.group(1) if m else None


def fmt(x, f="%.0f"):
    return f % x if x is not None else "-"


PHASES = re.compile(r"^(trace: |cuplay worker: )|^transpose_tiled +ok |^the roof column comes next|"
                    r"^transpose_tiled: .*the roofs measured after its result")


def first_breakdown(tmp):
    """The first result on an empty cache again ('at once'), traced (CUPLAY_TRACE and
    CUPLAY_TRACE_WORKER): each line of the trace and of the result with the
    ms since Enter on `run` it came at, up to the next prompt: where the
    time to the first result goes (worker start, context, compile, roofs,
    the kernel clock's check, the run's setup, check and timing)."""
    print()
    print("== where the first result's time goes (empty cache, traced): ms from Enter on run, line")
    t_start = time.monotonic()
    s = Pty(gpu_args(), env_for(os.path.join(tmp, "first-traced"), trace=True))
    t_up = time.monotonic()
    time.sleep(1.0)
    s.type("use transpose")
    s.wait_prompt(30)
    s.type("set N=4096")
    s.wait_prompt(30)
    t0 = s.type("run transpose_tiled")
    t1 = s.wait_prompt(120)
    s.close()
    for when, line in s.lines:
        if t1 is not None and when > t1 + 0.001:
            break
        if not PHASES.search(line):
            continue  # (negative: before Enter: the worker's start-up, the compile ahead at use and set)
        print("%8.1f  %s" % ((when - t0) * 1e3, line[:150]))
    print("%8s  the prompt after the result (cuplay started %.0f ms, its first prompt %.0f ms, before Enter)" %
          (fmt((t1 - t0) * 1e3 if t1 else None, "%.1f"), (t0 - t_start) * 1e3, (t0 - t_up) * 1e3))


def first_result(tmp):
    """The first result on an empty cache and on a warm one, then traced."""
    print("== the first result: use transpose, set N=4096, run transpose_tiled typed as three lines (the prompt "
          "up 1 s before the first; 'at once': each line as soon as its prompt shows, '1 s apart': 1 s at each "
          "prompt); ms from Enter on run to the result row, and to the next prompt")
    for label, pause in (("at once", 0.0), ("1 s apart", 1.0)):
        for cache_label in ("empty cache", "warm cache"):
            cache = os.path.join(tmp, "first-%.0f" % pause)
            s = Pty(gpu_args(), env_for(cache))
            time.sleep(1.0)
            s.type("use transpose")
            s.wait_prompt(30)
            time.sleep(pause)
            s.type("set N=4096")
            s.wait_prompt(30)
            time.sleep(pause)
            n = len(s.lines)
            t0 = s.type("run transpose_tiled")
            t1 = s.wait_prompt(120)
            s.close()
            row = next((w for w, l in s.lines[n:] if re.match(r"transpose_tiled +ok ", l)), None)
            print("%-10s %-12s %8s ms to the result, %8s ms to the prompt" %
                  (label, cache_label, fmt((row - t0) * 1e3 if row else None), fmt((t1 - t0) * 1e3 if t1 else None)))

    first_breakdown(tmp)


def main():
    with open(os.path.join(ROOT, "MANIFEST")) as f:
        files = [os.path.basename(l.strip())[:-3] for l in f if l.startswith("kernels_src/") and l.strip().endswith(".cu")]
    only = os.environ.get("BENCH_FILES")
    if only:
        files = [f for f in files if f in only.split(",")]
    tmp = tempfile.mkdtemp(prefix="cuplay-rerun-")
    if FIRST_ONLY:
        first_result(tmp)
        subprocess.run(["rm", "-rf", tmp])
        return 0
    print(f"== set a define, then run the file's first kernel ({'compile-only' if NOGPU else 'on the GPU'};"
          f" {os.cpu_count()} cores)")
    print("%-13s %-22s %-16s %8s %8s %6s %9s %9s %9s %9s %9s  %s" % (
        "file", "kernel", "set", "whole", "alone", "ratio", "typed", "at once", "compile", "own", "again",
        "targets typed/at once"))
    print("%-13s %-22s %-16s %8s %8s %6s %9s %9s %9s %9s %9s" % ("", "", "", "ms", "ms", "", "ms", "ms", "ms",
                                                                 "ms, ms", "ms, ms"))
    met = [0, 0, 0]
    rows = []
    for name in files:
        if name not in VALUES:
            print("%-13s (no define to set)" % name)
            continue
        kernel = first_kernel(name)
        if not kernel:
            print("%-13s (no kernel found)" % name)
            continue
        rows.append((name, kernel) + VALUES[name] + (None, None))
    rows += [r for r in EXTRA if r[0] in files]
    for name, kernel, define, v1, v2, pre, cap in rows:
        whole, alone, alone2 = compiles(name, kernel, define, v1, tmp, v2)
        nk = kernel_count(name)
        t_after, t_once, again1, again2, own1, own2, c_once, unit, said = typed(name, kernel, define, v1, v2, tmp,
                                                                                 pre)
        if NOGPU:  # no worker, no round trip: the compile-only run's own time
            own1, own2 = again1, again2
        ratio = whole / alone if whole and alone else None
        verdict = targets(whole, alone, alone2, own1, own2, c_once, unit, nk, t_after, t_once, cap)
        met[0] += 1
        met[1] += verdict.startswith("met")
        met[2] += verdict.endswith("/met")
        print("%-13s %-22s %-16s %8s %8s %6s %9s %9s %9s %9s %9s  %s%s" % (
            name, kernel[:22], f"{define}={v1}", fmt(whole), fmt(alone), fmt(ratio, "%.1fx"), fmt(t_after),
            fmt(t_once), fmt(c_once), fmt(own1) + "," + fmt(own2), fmt(again1) + "," + fmt(again2), verdict,
            f" (at {pre}; at once at most {cap} ms)" if pre else ""))
        if "MISSED" in verdict:
            print("    the kernel alone at the at-once value: %s ms; the compile at once held %s of the file's %s"
                  " kernels" % (fmt(alone2), fmt(unit, "%d"), fmt(nk, "%d")))
        for i, (what, lines) in enumerate(zip(("typed", "at once"), said)):
            if verdict.split("/")[i:i + 1] == ["MISSED"]:  # where that run's time went: its lines, ms from Enter
                print("    %s:\n%s" % (what, "\n".join("    " + l for l in lines[-14:])))
        sys.stdout.flush()
    print(f"targets: typed after set met for {met[1]} of {met[0]} rows, typed at once for {met[2]} of {met[0]}"
          " (own: the typed run's and the at-once run's own time, their round trips in the worker from"
          " CUPLAY_TRACE: launch, check (a check-at file's check pass too) and timing, with the new module's load and the reference's compute;"
          " again: the same run typed once more at the same values, nothing to compile)")

    print()
    first_result(tmp)

    print()
    print("== sweep PAD=0,1,2 TILE_SIZE=8,16,32 transpose_tiled at N=4096, from Enter")
    for label in ("empty cache", "warm cache"):
        cache = os.path.join(tmp, "sweep")
        s = Pty(gpu_args(), env_for(cache))
        s.type("use transpose")
        s.wait_prompt(30)
        s.type("set N=4096")
        s.wait_prompt(30)
        time.sleep(1.0)
        t0 = s.type("sweep PAD=0,1,2 TILE_SIZE=8,16,32 transpose_tiled")
        t1 = s.wait_prompt(300)
        s.close()
        print("%-12s %s ms" % (label, fmt((t1 - t0) * 1e3 if t1 else None)))
    subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
