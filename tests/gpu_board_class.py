#!/usr/bin/env python3
"""tests/gpu_board_class.py: a class on the board's GPUs. A board on every
GPU of this host (one queue a GPU) and 30 student processes that submit
for CLASS_MINUTES minutes (default 5), each waiting for its result before
the next submission as a student at the REPL does; most submit correct
kernels (tests/kernels/board/tiled.cu, knob.cu), every fifth student
cheats in turn: an answer stored on the first launch and copied afterwards
(stash.cu), a NaN (nan.cu), a kernel that never ends (hang.cu, stopped at
its limit), a kernel right only for the default inputs (seedprobe.cu, made
with probe.c as tests/gpu_board.sh makes it). Then
prints the board's figures: submissions verified a minute a GPU, the time
from submit to result (median, p90), and checks that every acknowledged
submission was verified (none lost), every cheat caught and every correct
kernel ranked. CLASS_STUDENTS changes the class's size. Skips without a
GPU. Prints "gpu_board_class: N passed, N failed"."""
import glob
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from board_lib import ROOT, Board, Counts, NoBoard  # noqa: E402

K = os.path.join(ROOT, "tests", "kernels", "board")
c = Counts("gpu_board_class")


def gpus():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(1 for ln in out.splitlines() if ln.startswith("GPU "))


def seedprobe(work):
    """seedprobe.cu with the default input's value filled in, or None."""
    libs = sorted(glob.glob(os.path.join(ROOT, "build", "*", "libcuplay.a")), key=os.path.getmtime)
    if not libs:
        return None
    exe = os.path.join(work, "probe")
    inc = [a for layer in ("base", "check", "kfile") for a in ("-I", os.path.join(ROOT, "src", layer))]
    r = subprocess.run(["cc", "-std=c17", "-D_GNU_SOURCE"] + inc + ["-o", exe, os.path.join(K, "probe.c"), libs[-1],
                        "-lm", "-pthread", "-ldl"], capture_output=True)
    if r.returncode != 0:
        return None
    value = subprocess.run([exe, "in"], capture_output=True, text=True).stdout.strip()
    return open(os.path.join(K, "seedprobe.cu")).read().replace("PROBE_VALUE", value)


def student(b_url, token, n, sources, end, out_path):
    """Submits until `end`, each time waiting for the result; a line per
    acknowledged submission: id kind status seconds (status "lost" when no
    result came)."""
    b = Board.__new__(Board)
    b.url = b_url
    cheats = tuple(k for k in ("stash", "nan", "hang", "seedprobe") if k in sources)
    with open(out_path, "w") as out:
        k = 0
        while time.time() < end:
            kind = cheats[(n // 5 + k) % len(cheats)] if n % 5 == 0 else ("tiled", "knob")[k % 2]
            k += 1
            t0 = time.time()
            st, j = b.submit(token, "quick", sources[kind], kind + ".cu")
            if st == 429:
                time.sleep(1)
                continue
            if st != 202 or not j:
                out.write("- %s refused-%s 0\n" % (kind, st))
                time.sleep(1)
                continue
            i, res = j["id"], None
            while res is None and time.time() < end + 600:
                st, s = b.api("GET", "/api/submissions/%d" % i, token=token)
                if st == 200 and s and s.get("state") == "done":
                    res = s.get("result") or {}
                else:
                    time.sleep(0.1)
            out.write("%d %s %s %.3f\n" % (i, kind, (res or {}).get("status", "lost"), time.time() - t0))
            out.flush()


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))] if xs else float("nan")


def main():
    ngpu = gpus()
    if ngpu == 0:
        c.skipped("no GPU")
    minutes = float(os.environ.get("CLASS_MINUTES", "5"))
    nstudents = int(os.environ.get("CLASS_STUDENTS", "30"))
    work = tempfile.mkdtemp(prefix="cuplay-class-")
    sources = {k: open(os.path.join(K, k + ".cu")).read() for k in ("tiled", "knob", "stash", "nan", "hang")}
    probe = seedprobe(work)
    if probe:
        sources["seedprobe"] = probe
    # no per-student rate: the GPUs, not the limit, set the pace measured
    b = Board(work, ["--gpus", ",".join(str(i) for i in range(ngpu)), "--exercises", K, "--rate", "0"])
    try:
        b.start()
    except NoBoard as e:
        c.check(False, "the board starts", e)
        c.close()
    try:
        b.open_exercise("quick")
        tokens = [b.student("student%02d" % i) for i in range(nstudents)]
        t0 = time.time()
        end = t0 + minutes * 60
        procs = [multiprocessing.Process(target=student, args=(b.url, tokens[i], i, sources, end,
                                                               os.path.join(work, "s%02d" % i)))
                 for i in range(nstudents)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        wall = time.time() - t0
        rows = []
        for i in range(nstudents):
            for ln in open(os.path.join(work, "s%02d" % i)):
                sid, kind, status, secs = ln.split()
                rows.append((sid, kind, status, float(secs)))
        done = [r for r in rows if r[0] != "-" and r[2] != "lost"]
        lat = [r[3] for r in done]
        per_min_gpu = len(done) / (wall / 60) / ngpu
        print("class: %d students, %.1f min, %d GPU(s): %d submissions verified, %.1f a minute a GPU" %
              (nstudents, wall / 60, ngpu, len(done), per_min_gpu))
        print("class: submit to result: median %.2f s, p90 %.2f s, max %.2f s" %
              (percentile(lat, 0.5), percentile(lat, 0.9), max(lat) if lat else float("nan")))
        kinds = {}
        for _, kind, status, _ in done:
            kinds.setdefault(kind, {}).setdefault(status, 0)
            kinds[kind][status] += 1
        for kind in sorted(kinds):
            print("class: %-9s %s" % (kind, ", ".join("%s %d" % kv for kv in sorted(kinds[kind].items()))))
        refused = [r for r in rows if r[0] == "-"]
        lost = [r for r in rows if r[2] == "lost"]
        c.check(done and not lost and not refused, "none lost: %d acknowledged, %d verified, %d refused" %
                (len(rows) - len(refused), len(done), len(refused)), (lost + refused)[:5])
        cheats = [r for r in done if r[1] in ("stash", "nan", "hang", "seedprobe")]
        caught = [r for r in cheats if r[2] != "ok"]
        c.check(cheats and len(caught) == len(cheats), "every cheat caught: %d of %d (%s)" %
                (len(caught), len(cheats), ", ".join(sorted({r[1] for r in cheats}))),
                [r for r in cheats if r[2] == "ok"][:5])
        good = [r for r in done if r[1] in ("tiled", "knob")]
        c.check(good and all(r[2] == "ok" for r in good), "every correct submission ok: %d of %d" %
                (sum(r[2] == "ok" for r in good), len(good)), [r for r in good if r[2] != "ok"][:5])
        st, rank = b.api("GET", "/api/ranking/quick")
        ranked = {e.get("student") for e in rank or []}
        honest = {"student%02d" % i for i in range(nstudents) if i % 5}
        c.check(st == 200 and honest <= ranked and not (ranked - honest),
                "the ranking holds the %d honest students and no cheat" % len(honest), sorted(ranked ^ honest)[:5])
        st, health = b.api("GET", "/api/health")
        c.check(st == 200 and health and health.get("queued") == 0 and health.get("running") == 0,
                "nothing left queued or running", health)
    finally:
        b.stop()
        shutil.rmtree(work, ignore_errors=True)
    c.close()


if __name__ == "__main__":
    main()
