#!/usr/bin/env python3
"""tests/prefetch.py: the compile started when a value is typed. At the
prompt (a pseudo-terminal, compile-only), `set` starts in the background the
compile of the kernels of the file's last run, and the `run` typed after it
waits for that compile rather than start another; Ctrl-C at the prompt, a
new `set`, `quit`, a value the header refuses and a header broken under the
file stop it: no compile is left running and nothing is printed that was
not asked for; a sweep compiles its configurations, and `run` of several
kernels each kernel, at once, never more than the machine has cores, each
cached on its own. What happens is read from the trace
(CUPLAY_TRACE, stderr to a file), the compiler processes from /proc.
--gpu (tests/gpu_start.sh): on the GPU, `set` after a run starts the
compile for the worker's device, and the run typed after it waits for it
and checks ok. Prints "prefetch: N passed, N failed"."""
import os, pty, re, select, shutil, subprocess, sys, tempfile, time

CUPLAY = os.path.abspath(os.environ.get("CUPLAY", "./cuplay"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
passed = failed = 0


def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok:   " + what)
    else:
        failed += 1
        print("FAIL: " + what + ("\n    " + detail.replace("\n", "\n    ") if detail else ""))


class Repl:
    def __init__(self, tmp, cwd=ROOT, gpu=False):
        self.trace = os.path.join(tmp, "trace")
        env = dict(os.environ, NO_COLOR="1", TERM="dumb", CUPLAY_TRACE="1", HOME=tmp,
                   XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        env.pop("CUPLAY_COMPILE_INPROC", None)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(cwd)
            f = os.open(self.trace, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(f, 2)
            os.execve(CUPLAY, [CUPLAY] + ([] if gpu else ["--no-gpu"]) + ["-X"], env)
        self.out = ""
        self.read_until("> ", 20)

    def read_until(self, want, timeout):
        buf = ""
        end = time.time() + timeout
        while time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if r:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                buf += chunk.decode(errors="replace")
                if want and buf.rstrip().endswith(want.rstrip()):
                    break
        self.out += buf
        return buf

    def line(self, text, timeout=30):
        os.write(self.fd, (text + "\r").encode())
        return self.read_until("> ", timeout)

    def ctrl_c(self):
        os.write(self.fd, b"\x03")
        return self.read_until("> ", 5)

    def traced(self):
        with open(self.trace) as f:
            return [l.rstrip("\n") for l in f if "background compile" in l]

    def said(self):
        """What went to stderr that is not a trace line: errors and notes."""
        with open(self.trace) as f:
            return [l.rstrip("\n") for l in f if not l.startswith("trace:")]

    def servers(self):
        """The compile servers this process has now (its children)."""
        kids = []
        try:
            for t in os.listdir(f"/proc/{self.pid}/task"):
                with open(f"/proc/{self.pid}/task/{t}/children") as f:
                    kids += f.read().split()
        except OSError:
            return []
        out = []
        for k in kids:
            try:
                with open(f"/proc/{k}/cmdline", "rb") as f:
                    if b"--compile-server" in f.read():
                        out.append(int(k))
            except OSError:
                pass
        return out

    def quit(self):
        servers = self.servers()
        t0 = time.time()
        os.write(self.fd, b"quit\r")
        self.read_until(None, 10)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        took = time.time() - t0
        os.close(self.fd)
        time.sleep(0.2)
        alive = [p for p in servers if os.path.exists(f"/proc/{p}") and
                 open(f"/proc/{p}/stat").read().split()[2] != "Z"]
        return took, alive


def between_prompts(text):
    """What the REPL printed after a command's echo, prompts taken out."""
    lines = [l.strip() for l in text.replace("\r", "").split("\n")]
    return [l for l in lines[1:] if l and not l.startswith("cuplay ") and l != "^C"]


def on_gpu():
    tmp = tempfile.mkdtemp(prefix="cuplay-prefetch-")
    try:
        r = Repl(tmp, gpu=True)
        r.line("use transpose")
        r.line("set N=4096")
        first = r.line("run transpose_tiled", 120)
        n0 = len(r.traced())
        shown = r.line("set PAD=0")
        t = r.traced()[n0:]
        report(any("started" in l and "(1 kernel)" in l for l in t),
               "GPU: set after a run starts its kernel's compile for the worker's device", "\n".join(r.traced()))
        report(between_prompts(shown) == [], "GPU: set prints nothing", shown)
        time.sleep(0.3)
        n1 = len(r.traced())
        ran = r.line("run transpose_tiled", 120)
        t = r.traced()[n1:]
        report(not any("started" in l or "stopped" in l for l in t) and
               re.search(r"transpose_tiled +ok ", ran) is not None and "PAD=0" in ran,
               "GPU: the run typed after set waits for that compile and checks ok", first + ran + "\n".join(t))
        took, alive = r.quit()
        report(alive == [], "GPU: quit leaves no compiler process", str(alive))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"prefetch: {passed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    if "--gpu" in sys.argv:
        return on_gpu()
    tmp = tempfile.mkdtemp(prefix="cuplay-prefetch-")
    try:
        # set, then run: one compile, waited for by the run
        r = Repl(tmp)
        r.line("use matmul")
        r.line("run matmul_tiled")
        n0 = len(r.traced())
        shown = r.line("set TILE_SIZE=8")
        t = r.traced()[n0:]
        report(any("started" in l and "(1 kernel)" in l for l in t),
               "set: the compile of the last run's kernel starts in the background", "\n".join(t))
        report(between_prompts(shown) == [] and r.said() == [], "set: prints nothing", shown + "\n".join(r.said()))
        time.sleep(0.3)
        n1 = len(r.traced())
        ran = r.line("run matmul_tiled")
        t = r.traced()[n1:]
        report(not any("started" in l or "stopped" in l for l in t) and "TILE_SIZE=8" in ran and "matmul_tiled" in ran,
               "run after set: waits for the compile under way, starts none", "\n".join(t) + "\n" + ran)
        # the same values again: cached, nothing started
        n2 = len(r.traced())
        r.line("set TILE_SIZE=8")
        report(not any("started" in l for l in r.traced()[n2:]), "set of the values compiled: nothing started",
               "\n".join(r.traced()[n2:]))
        took, alive = r.quit()
        report(alive == [], "quit: no compiler process is left", str(alive))

        # the first run of a file: the compile ahead at use (every kernel, the whole file) serves a run of one
        r = Repl(tmp)
        r.line("use transpose")
        r.line("set N=4096")
        time.sleep(4)
        n0 = len(r.traced())
        ran = r.line("run transpose_tiled")
        t = r.traced()[n0:]
        report(any("kept in the cache" in l for l in t) and "compiled in" not in ran and "transpose_tiled" in ran,
               "the first run after use: one kernel from the whole file the compile ahead made, no compile",
               "\n".join(t) + "\n" + ran)
        r.quit()

        # a long compile (every kernel of sgemm.cu) stopped by Ctrl-C, a new set, quit
        r = Repl(tmp)
        r.line("use sgemm")
        time.sleep(0.2)
        before = r.servers()
        n0 = len(r.traced())
        shown = r.ctrl_c()
        t = r.traced()[n0:]
        report(any(l.endswith("background compile stopped") for l in t),
               "Ctrl-C at the prompt stops the compile in the background", "\n".join(r.traced()))
        after = r.servers()
        # the compile in the background has a spare beside it, warming NVRTC up: the compiler once it is stopped
        report(len(before) == 2 and len(after) == 1 and after[0] in before,
               "the compile in the background has a compiler warming up beside it, the next one once it is stopped",
               f"before {before}, after {after}")
        report(between_prompts(shown) == [], "Ctrl-C: nothing printed but a fresh prompt", shown)
        r.line("set WT_MINB=1")
        time.sleep(0.2)
        n1 = len(r.traced())
        shown = r.line("set WT_MINB=2")
        t = r.traced()[n1:]
        report(any("stopped" in l or "kept in the cache" in l for l in t) and any("started" in l for l in t),
               "a new set supersedes the compile under way", "\n".join(t))
        report(between_prompts(shown) == [], "the new set prints nothing", shown)
        # a value the header refuses: stopped, the error said by set alone
        n2 = len(r.traced())
        e0 = len(r.said())
        shown = r.line("set WT_MINB=1/0")
        t = r.traced()[n2:]
        report(any(l.endswith("background compile stopped") for l in t), "a refused value stops the compile",
               "\n".join(r.traced()))
        said = r.said()[e0:]
        report(between_prompts(shown) == [] and len(said) == 1 and "set WT_MINB" in said[0],
               "a refused value: its one error line, nothing else", shown + "\n".join(said))
        r.line("set WT_MINB=2")
        t0 = time.time()
        took, alive = r.quit()
        report(alive == [] and took < 3, f"quit during a compile: at once ({took:.1f} s), no compiler process left",
               str(alive))

        # a header broken under the file: run says it at its line; the compile is stopped
        work = os.path.join(tmp, "work")
        os.makedirs(os.path.join(work, "kernels_src"))
        os.makedirs(os.path.join(work, "sessions"))
        shutil.copy(os.path.join(ROOT, "kernels_src", "sgemm.cu"), os.path.join(work, "kernels_src"))
        r = Repl(tmp, cwd=work)
        r.line("use sgemm")
        r.line("set WT_MINB=1")
        path = os.path.join(work, "kernels_src", "sgemm.cu")
        with open(path) as f:
            src = f.read()
        with open(path, "w") as f:
            f.write("//@ frobnicate 1\n" + src)
        n0 = len(r.traced())
        e0 = len(r.said())
        shown = r.line("run sgemm_naive")
        t = r.traced()[n0:]
        report(any(l.endswith("background compile stopped") for l in t), "a header error stops the compile",
               "\n".join(r.traced()))
        said = r.said()[e0:]
        report(any("sgemm.cu:1:" in l for l in said), "the header error is said at its line", "\n".join(said))
        took, alive = r.quit()
        report(alive == [], "no compiler process left after the header error", str(alive))
        # a sweep compiles its configurations at once, at most a core each, each cached
        env = dict(os.environ, NO_COLOR="1", CUPLAY_TRACE="1", XDG_CACHE_HOME=os.path.join(tmp, "sweep"))
        cmd = "use transpose; set N=1024; sweep PAD=0,1,2 TILE_SIZE=8,16,32 transpose_tiled"
        runs = [subprocess.run([CUPLAY, "--no-gpu", "-c", cmd], capture_output=True, text=True, cwd=ROOT, env=env,
                               timeout=300) for _ in range(2)]
        got = [re.search(r"trace: (\d+) of (\d+) compiles made at once, (\d+) at a time", r.stderr) for r in runs]
        cores = os.cpu_count() or 1
        report(got[0] is not None and got[0].group(1) == "9" and got[0].group(2) == "9" and
               0 < int(got[0].group(3)) <= min(cores, 9),
               "sweep: nine configurations compiled at once, at most one a core", runs[0].stderr[-800:])
        report(got[1] is not None and got[1].group(1) == "0" and runs[1].stdout == runs[0].stdout,
               "sweep again: every configuration from the cache, the same output", runs[1].stderr[-800:])
        # `run` of every kernel compiles each on its own, at once, at most a core each, each cached
        env = dict(os.environ, NO_COLOR="1", CUPLAY_TRACE="1", XDG_CACHE_HOME=os.path.join(tmp, "runall"))
        def cuplay(cmd):
            return subprocess.run([CUPLAY, "--no-gpu", "--mask-times", "-c", cmd], capture_output=True, text=True,
                                  cwd=ROOT, env=env, timeout=300)
        runs = [cuplay("use matmul; set N=1024; run") for _ in range(2)]
        got = [re.search(r"trace: (\d+) of (\d+) compiles made at once, (\d+) at a time", r.stderr) for r in runs]
        report(got[0] is not None and got[0].group(1) == "3" and got[0].group(2) == "3" and
               0 < int(got[0].group(3)) <= min(cores, 3) and "(compiled in <t>, sm_90)" in runs[0].stdout,
               "run: matmul's three kernels compiled each on its own, at once, at most one a core",
               runs[0].stdout[-800:] + runs[0].stderr[-800:])
        report(got[1] is not None and got[1].group(1) == "0" and "(cached, sm_90)" in runs[1].stdout and
               runs[1].stdout == runs[0].stdout.replace("(compiled in <t>, sm_90)", "(cached, sm_90)"),
               "run again: every kernel from the cache, the same output", runs[1].stdout[-800:] + runs[1].stderr[-800:])
        one = cuplay("use matmul; set N=1024; run matmul_register_tiled")
        report("(cached, sm_90)" in one.stdout and "trace: matmul_register_tiled compile" not in one.stderr and
               "matmul_register_tiled" in one.stdout,
               "run of one of them after: its own unit from the cache", one.stdout[-800:])
        env["XDG_CACHE_HOME"] = os.path.join(tmp, "runall2")
        after = cuplay("use matmul; set N=1024; run matmul_tiled; run")
        got = re.search(r"trace: (\d+) of (\d+) compiles made at once", after.stderr)
        report(got is not None and got.group(1) == "2" and got.group(2) == "3",
               "run after run K: K's unit from the cache, the two others compiled", after.stderr[-800:])
        # a warning in code every kernel's unit holds is said once, as the whole file's compile says it
        with open(os.path.join(ROOT, "kernels_src", "matmul.cu")) as f:
            src = f.read()
        warned = os.path.join(tmp, "warned.cu")
        with open(warned, "w") as f:
            f.write(src.replace("__global__ void matmul_naive(",
                                "__device__ int unused_here() { int never_used; return 1; }\n"
                                "__global__ void matmul_naive(", 1))
        env["XDG_CACHE_HOME"] = os.path.join(tmp, "runall3")
        w = cuplay("use %s; set N=1024; run" % warned)
        report(w.stdout.count('variable "never_used" was declared but never referenced') == 1 and
               "matmul_register_tiled" in w.stdout,
               "run: a warning every kernel's unit gives is said once", w.stdout[-1200:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"prefetch: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
