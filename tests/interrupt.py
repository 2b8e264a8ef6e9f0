#!/usr/bin/env python3
"""tests/interrupt.py: Ctrl-C. In an interactive REPL (a pseudo-terminal),
Ctrl-C during a long sweep returns to the prompt and the next command still
sees the values set before; Ctrl-C at the prompt gives a fresh prompt, drops
a half-typed line and is not held over to stop the next command; in a
replay, Ctrl-C stops the replay and the exit status is 1. At the prompt
both on a terminal no line editor draws on (TERM=dumb: plain reads) and on
one it does (TERM=xterm: readline, or the editor built in without it).
With GPU=1, Ctrl-C also cuts a long timing loop short. Prints "interrupt:
N passed, N failed"."""
import os, pty, re, select, signal, subprocess, sys, time

CUPLAY = os.environ.get("CUPLAY", "./cuplay")
GPU = os.environ.get("GPU") == "1"
passed = failed = 0


def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok:   " + what)
    else:
        failed += 1
        print("FAIL: " + what + ("\n    " + detail.replace("\n", "\n    ") if detail else ""))


def read_until(fd, want, timeout):
    buf = b""
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
            if want.encode() in buf:
                return buf.decode(errors="replace"), True
    return buf.decode(errors="replace"), False


def interactive(nogpu, sweep_cmd, label, term="dumb"):
    env = dict(os.environ, NO_COLOR="1", TERM=term, HOME=os.environ.get("TMPDIR", "/tmp"))
    pid, fd = pty.fork()
    if pid == 0:
        args = [CUPLAY] + (["--no-gpu"] if nogpu else [])
        os.execvpe(args[0], args, env)
    out, ok = read_until(fd, "cuplay>", 20)
    os.write(fd, b"use transpose\r")
    read_until(fd, "cuplay transpose>", 20)
    os.write(fd, b"set PAD=0\r")
    read_until(fd, "cuplay transpose>", 20)
    os.write(fd, (sweep_cmd + "\r").encode())
    time.sleep(2.0)
    t0 = time.time()
    os.write(fd, b"\x03")  # Ctrl-C, as the terminal sends it
    # the word first, then the prompt after it (a line editor draws the
    # prompt again at every key, so a prompt alone says nothing)
    out, back = read_until(fd, "interrupted", 30)
    if back and "cuplay transpose>" not in out[out.index("interrupted"):]:
        more, back = read_until(fd, "cuplay transpose>", 10)
        out += more
    waited = time.time() - t0
    os.write(fd, b"show\r")
    shown, _ = read_until(fd, "PAD", 20)
    shown2, _ = read_until(fd, "cuplay transpose>", 10)
    os.write(fd, b"quit\r")
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    os.close(fd)
    report(back and "interrupted" in out, f"{label}: Ctrl-C returns to the prompt ({waited:.1f} s)", out[-600:])
    report("0 (set)" in shown + shown2, f"{label}: the REPL kept PAD=0 after Ctrl-C", (shown + shown2)[-600:])


def start(args, term="dumb"):
    env = dict(os.environ, NO_COLOR="1", TERM=term, HOME=os.environ.get("TMPDIR", "/tmp"))
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(args[0], args, env)
    return pid, fd


def finish(pid, fd):
    os.write(fd, b"quit\r")
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    os.close(fd)


def at_prompt(nogpu, term="dumb"):
    """Ctrl-C on an empty prompt, then a command: the command runs whole."""
    pid, fd = start([CUPLAY] + (["--no-gpu"] if nogpu else []), term)
    read_until(fd, "cuplay>", 20)
    os.write(fd, b"use transpose\r")
    read_until(fd, "cuplay transpose>", 20)
    # the value set, seen set (`show`), before Ctrl-C: a line editor redraws
    # its prompt at each key typed, so a prompt read back is no sign that
    # the command has run (and `set` itself stops at Ctrl-C)
    os.write(fd, b"set N=2000\rshow\r")
    read_until(fd, "2000 (set)", 20)
    read_until(fd, "cuplay transpose>", 20)
    os.write(fd, b"\x03")
    fresh, ok = read_until(fd, "cuplay transpose>", 10)
    os.write(fd, b"run transpose_tiled\r")
    out, _ = read_until(fd, "not launched (no GPU)" if nogpu else "\ntranspose_tiled ", 120)
    more, _ = read_until(fd, "cuplay transpose>", 20)
    out += more
    finish(pid, fd)
    label = ("compile-only" if nogpu else "GPU") + (", line editor" if term != "dumb" else "")
    done = "not launched (no GPU)" in out if nogpu else re.search(r"\ntranspose_tiled +ok ", out) is not None
    report(ok, f"{label}: Ctrl-C on an empty prompt gives a fresh prompt", fresh[-300:])
    report("interrupted" not in out and done,
           f"{label}: Ctrl-C at the prompt is not held over to stop the next command", out[-600:])


def half_typed(term="dumb"):
    """Ctrl-C drops a half-typed line, as bash, sqlite3 and psql do."""
    pid, fd = start([CUPLAY, "--no-gpu"], term)
    read_until(fd, "cuplay>", 20)
    os.write(fd, b"half typed")
    read_until(fd, "half typed", 5)
    os.write(fd, b"\x03")
    fresh, ok = read_until(fd, "cuplay>", 10)
    os.write(fd, b"\r")
    out, _ = read_until(fd, "cuplay>", 10)
    os.write(fd, b"say next line\r")
    out2, said = read_until(fd, "next line\r\n", 10)
    finish(pid, fd)
    report(ok and "unknown command" not in out + out2 and said,
           "Ctrl-C drops a half-typed line" + (" (line editor)" if term != "dumb" else ""), (fresh + out + out2)[-600:])


def replay(nogpu):
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "cuplay-interrupt-%d.session" % os.getpid())
    with open(path, "w") as f:
        # 256 configurations, each compiled: longer than the wait before Ctrl-C
        # even where compiles run at once, one a core
        f.write("use transpose\nsweep TILE_SIZE=4,8,16,32 PAD=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 "
                "BLOCK_ROWS=1,2,4,8\nsay after the sweep\n")
    p = subprocess.Popen([CUPLAY] + (["--no-gpu"] if nogpu else []) + [path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=dict(os.environ, NO_COLOR="1"))
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out = p.communicate(timeout=60)[0].decode(errors="replace")
    os.unlink(path)
    report(p.returncode == 1 and "interrupted" in out and "after the sweep" not in out,
           "replay: Ctrl-C stops the replay, exit status 1", out[-600:])


def slow_compile():
    """Ctrl-C during a compile that would take minutes (tests/kernels/
    slow_compile.cu): back at the prompt within a fraction of a second, the
    values kept, and the next compile works; in a replay, exit status 1."""
    pid, fd = start([CUPLAY, "--no-gpu"])
    read_until(fd, "cuplay>", 20)
    os.write(fd, b"use tests/kernels/slow_compile.cu\r")
    read_until(fd, "cuplay slow_compile>", 20)
    os.write(fd, b"set N=16\r")
    read_until(fd, "cuplay slow_compile>", 20)
    os.write(fd, b"run\r")
    time.sleep(1.5)
    t0 = time.time()
    os.write(fd, b"\x03")
    out, back = read_until(fd, "cuplay slow_compile>", 30)
    waited = time.time() - t0
    os.write(fd, b"show\r")
    shown, _ = read_until(fd, "cuplay slow_compile>", 10)
    os.write(fd, b"use transpose\r")
    read_until(fd, "cuplay transpose>", 20)
    os.write(fd, b"set PAD=9\r")
    read_until(fd, "cuplay transpose>", 20)
    os.write(fd, b"run transpose_tiled\r")
    after, _ = read_until(fd, "cuplay transpose>", 60)
    finish(pid, fd)
    report(back and waited < 1.0 and "compile of 'tests/kernels/slow_compile.cu' interrupted" in out,
           f"slow compile: Ctrl-C returns to the prompt ({waited:.2f} s)", out[-600:])
    report("16 (set)" in shown, "slow compile: the values set are kept after Ctrl-C", shown[-600:])
    report("compiled in" in after and "not launched (no GPU)" in after,
           "slow compile: the next compile works (a new compiler process)", after[-600:])
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "cuplay-slow-%d.session" % os.getpid())
    with open(path, "w") as f:
        f.write("use tests/kernels/slow_compile.cu\nrun\nsay after the compile\n")
    p = subprocess.Popen([CUPLAY, "--no-gpu", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=dict(os.environ, NO_COLOR="1"))
    time.sleep(1.5)
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    out = p.communicate(timeout=60)[0].decode(errors="replace")
    waited = time.time() - t0
    os.unlink(path)
    report(p.returncode == 1 and waited < 1.0 and "interrupted" in out and "after the compile" not in out,
           f"slow compile: Ctrl-C stops a replay ({waited:.2f} s), exit status 1", out[-600:])


def step_eof():
    """--step: end of input at its prompt (Ctrl-D) stops the replay as a
    failure, not as a success."""
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "cuplay-step-%d.session" % os.getpid())
    with open(path, "w") as f:
        f.write("use transpose\nset N=100\nsay after\n")
    pid, fd = start([CUPLAY, "--no-gpu", "--step", path])
    first, ok1 = read_until(fd, "[Enter: run, q: stop]", 20)
    os.write(fd, b"\r")
    second, ok2 = read_until(fd, "set N=100", 20)
    read_until(fd, "[Enter: run, q: stop]", 5)
    os.write(fd, b"\x04")
    out, _ = read_until(fd, "replay stopped", 10)
    rest, _ = read_until(fd, "\x00", 2)
    try:
        _, st = os.waitpid(pid, 0)
        code = os.WEXITSTATUS(st) if os.WIFEXITED(st) else -1
    except ChildProcessError:
        code = -1
    os.close(fd)
    os.unlink(path)
    report(ok1 and ok2 and "--step: end of input at the prompt: replay stopped before 'set N=100'" in out
           and "after" not in out + rest and code == 1,
           "--step: end of input at its prompt stops the replay, exit status 1", (first + second + out + rest)[-600:])


interactive(True, "sweep TILE_SIZE=4,8,16,32 PAD=0,1,2,3,4,5,6,7 BLOCK_ROWS=1,2,4", "compile-only sweep")
slow_compile()
step_eof()
replay(True)
at_prompt(True)
half_typed()
at_prompt(True, "xterm")
half_typed("xterm")
interactive(True, "sweep TILE_SIZE=4,8,16,32 PAD=0,1,2,3,4,5,6,7 BLOCK_ROWS=1,2,4", "compile-only sweep, line editor", "xterm")
if GPU:
    at_prompt(False)
    interactive(False, "timing min 60 max 120 wall 120; reps 2000; run transpose_tiled", "timing loop")
print(f"interrupt: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
