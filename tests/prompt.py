#!/usr/bin/env python3
"""tests/prompt.py: the interactive prompt in a pseudo-terminal: the banner
says when there is no GPU; the start-up file runs (and -X skips it; -c never
reads it); `edit NAME` opens the file `use NAME` would load and runs it;
file names complete after source, save, record and plot; on a terminal
that can be drawn on, the line is edited (arrows, Ctrl-A/E/K/U/W, history,
Ctrl-R, Tab), with readline or, in a build without it, the line editor
built in, and the history outlives the process. GPU=1: a GPU is present
(the banner then names none missing). Prints "prompt: N passed, N failed,
N skipped"; HAVE_READLINE=0 says the build is the one without readline."""
import fcntl, os, pty, re, select, shutil, struct, subprocess, sys, tempfile, termios, threading, time

CUPLAY = os.path.abspath(os.environ.get("CUPLAY", "./cuplay"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPU = os.environ.get("GPU") == "1"
READLINE = os.environ.get("HAVE_READLINE", "1") != "0"
passed = failed = skipped = 0


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


def start(args, env, cwd):
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execvpe(args[0], args, env)
    # a terminal of 24 rows of 120 columns, as a window has
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    return pid, fd


def finish(pid, fd):
    try:
        os.write(fd, b"quit\r")
    except OSError:
        pass
    read_until(fd, "\x00", 2)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    os.close(fd)


tmp = tempfile.mkdtemp(prefix="cuplay-prompt-")
try:
    home = os.path.join(tmp, "home")
    cfg = os.path.join(tmp, "config")
    os.makedirs(os.path.join(cfg, "cuplay"))
    os.makedirs(home)
    with open(os.path.join(cfg, "cuplay", "rc"), "w") as f:
        f.write("say the start-up file ran\nreps 17\n")
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", HOME=home, XDG_CONFIG_HOME=cfg,
               XDG_STATE_HOME=os.path.join(tmp, "state"), XDG_CACHE_HOME=os.path.join(tmp, "cache"))
    env.pop("CUPLAY_PATH", None)

    # the banner, then the start-up file
    pid, fd = start([CUPLAY], env, ROOT)
    out, _ = read_until(fd, "cuplay>", 20)
    os.write(fd, b"reps\r")
    out2, _ = read_until(fd, "cuplay>", 10)
    finish(pid, fd)
    banner = out.split("cuplay>")[0]
    if GPU:
        report("compile-only" not in banner, "banner: a GPU, no compile-only notice", banner)
    else:
        report("compile-only mode" in banner, "banner: says there is no GPU before the first prompt", banner)
    report("the start-up file ran" in banner and "reps 17" in out2,
           "start-up file: $XDG_CONFIG_HOME/cuplay/rc runs at the start", out + out2)

    pid, fd = start([CUPLAY, "-X", "--no-gpu"], env, ROOT)
    out, _ = read_until(fd, "cuplay>", 20)
    os.write(fd, b"reps\r")
    out2, _ = read_until(fd, "cuplay>", 10)
    finish(pid, fd)
    report("start-up file ran" not in out and "reps 10" in out2, "start-up file: -X skips it", out + out2)
    banner = out.split("cuplay>")[0]
    report("compile-only mode (--no-gpu)" in banner, "banner: --no-gpu is said before the first prompt", banner)

    r = subprocess.run([CUPLAY, "--no-gpu", "-c", "reps"], env=env, cwd=ROOT, capture_output=True, text=True)
    report("start-up file ran" not in r.stdout and r.stdout.strip() == "reps 10 (at least this many timed launches)",
           "start-up file: -c does not read it", r.stdout + r.stderr)

    # edit NAME: resolved as `use` resolves it, and the edited file runs
    work = os.path.join(tmp, "work")
    os.makedirs(os.path.join(work, "kernels_src"))
    shutil.copy(os.path.join(ROOT, "tests/golden/kernels/saxpy.cu"), os.path.join(work, "kernels_src"))
    shutil.copy(os.path.join(ROOT, "kernels_src/vector_add.cu"), os.path.join(work, "kernels_src"))
    log = os.path.join(tmp, "edited")
    editor = os.path.join(tmp, "editor.sh")
    with open(editor, "w") as f:
        f.write('#!/bin/sh\necho "$1" >>"%s"\necho "// edited" >>"$1"\n' % log)
    os.chmod(editor, 0o755)
    eenv = dict(env, VISUAL=editor)
    pid, fd = start([CUPLAY, "-X", "--no-gpu", "--mask-times"], eenv, work)
    read_until(fd, "cuplay>", 20)
    os.write(fd, b"use vector_add\r")
    read_until(fd, "cuplay vector_add>", 20)
    os.write(fd, b"run vadd_naive\r")
    read_until(fd, "cuplay vector_add>", 60)
    os.write(fd, b"edit saxpy\r")
    out, back = read_until(fd, "cuplay saxpy>", 60)
    finish(pid, fd)
    edited = open(log).read().split() if os.path.exists(log) else []
    report(edited == ["kernels_src/saxpy.cu"], "edit NAME: opens kernels_src/NAME.cu, as use finds it",
           "editor got: %r" % edited)
    report(back and "saxpy.cu  BLOCK=256" in out and "vadd_naive" not in out,
           "edit NAME: runs the edited file, not the previous one", out[-800:])

    # watch: another file of the folder that keeps changing never holds
    # typed commands back (the debounce after a save is bounded)
    wdir = os.path.join(tmp, "watched")
    os.makedirs(wdir)
    shutil.copy(os.path.join(ROOT, "tests/golden/kernels/saxpy.cu"), os.path.join(wdir, "k.cu"))
    stop = threading.Event()
    def churn():
        while not stop.is_set():
            with open(os.path.join(wdir, "other.txt"), "w") as f:
                f.write("x")
            time.sleep(0.02)
    pid, fd = start([CUPLAY, "-X", "--no-gpu"], env, wdir)
    read_until(fd, "cuplay>", 20)
    os.write(fd, b"use k.cu\rset n=1000\rwatch\r")
    read_until(fd, "watching", 30)
    read_until(fd, "\x00", 1)
    churner = threading.Thread(target=churn)
    churner.start()
    try:
        time.sleep(0.5)
        os.write(fd, b"say typed-while-another-file-changes\r")
        out, _ = read_until(fd, "\ntyped-while-another-file-changes", 20)
        os.write(fd, b"watch off\r")
        out2, off = read_until(fd, "watch off", 20)
    finally:
        stop.set()
        churner.join()
    finish(pid, fd)
    clean = out.replace("\r", "")
    report("\ntyped-while-another-file-changes\n" in clean and off,
           "watch: a command typed while another file of the folder keeps changing runs", (out + out2)[-400:])

    # completion of file names, on a terminal the line editor draws on
    edit_env = dict(env, TERM="xterm")
    os.makedirs(os.path.join(work, "results_dir"))
    with open(os.path.join(work, "a_lesson.session"), "w") as f:
        f.write("say hi\n")
    pid, fd = start([CUPLAY, "-X", "--no-gpu"], edit_env, work)
    read_until(fd, "cuplay>", 20)
    cases = [("source a_les", "a_lesson.session"), ("save results_d", "results_dir/"),
             ("record results_d", "results_dir/"), ("plot results_d", "results_dir/"),
             ("report results_d", "results_dir/")]
    for typed, want in cases:
        os.write(fd, typed.encode() + b"\t")
        out, ok = read_until(fd, want, 5)
        os.write(fd, b"\x03")  # drop the line
        read_until(fd, "cuplay>", 5)
        report(ok, "completion: '%s<TAB>' gives %s" % (typed, want), out[-300:])
    finish(pid, fd)

    # line editing: what runs is the line as edited (a key the editor does
    # not take would leave escape codes in it, and the command would fail)
    state = os.path.join(tmp, "edit-state")
    hist_env = dict(edit_env, XDG_STATE_HOME=state)
    LEFT, RIGHT, UP = b"\x1b[D", b"\x1b[C", b"\x1b[A"
    def ctrl(c):
        return bytes([ord(c) & 0x1f])
    def said(out, want):
        """want on a line of its own, the terminal's control sequences aside"""
        clean = re.sub(r"\x1b\[[0-9;?]*[A-Za-z@]", "", out).replace("\r", "")
        return re.search(r"\n%s *\n" % re.escape(want), clean) is not None
    def await_said(fd, want, timeout):
        """the output until want is said (then until the terminal is quiet)"""
        out, end = "", time.time() + timeout
        while time.time() < end and not said(out, want):
            more, _ = read_until(fd, "\n", 0.2)
            out += more
        more, _ = read_until(fd, "\x00", 0.3)
        return out + more
    steps = [
        ("arrows: Left moves the cursor, typing inserts there", b"sy w1" + LEFT * 4 + b"a\r", "w1"),
        ("Ctrl-A: to the start of the line", b"ay w2" + ctrl("a") + b"s\r", "w2"),
        ("Ctrl-K: deletes to the end", b"say w3 junk" + ctrl("a") + RIGHT * 6 + ctrl("k") + b"\r", "w3"),
        ("Ctrl-E: to the end of the line", b"ay w4" + ctrl("a") + b"s" + ctrl("e") + b"x\r", "w4x"),
        ("Ctrl-U: deletes to the start", b"garbage" + ctrl("u") + b"say w5\r", "w5"),
        ("Ctrl-W: deletes the word before the cursor", b"say w6 junk" + ctrl("w") + b"\r", "w6"),
        ("Up: the previous line again", UP + b"\r", "w6"),
        ("Ctrl-R: a search back through the history", ctrl("r") + b"w2\r", "w2"),
        ("Tab: a command's name completed", b"warmu\t7\r" + b"warmup\r", "warmup 7"),
        ("history: the last line, for the next session", b"say w9\r", "w9"),
    ]
    pid, fd = start([CUPLAY, "-X", "--no-gpu"], hist_env, work)
    read_until(fd, "cuplay>", 20)
    for what, keys, want in steps:
        os.write(fd, keys)
        out = await_said(fd, want, 10)
        report(said(out, want) and "unknown command" not in out, "editing: " + what, repr(out[-300:]))
    finish(pid, fd)
    hist = os.path.join(state, "cuplay", "history")
    lines = open(hist).read().splitlines() if os.path.exists(hist) else []
    report(lines[-4:] == ["warmup 7", "warmup", "say w9", "quit"] and "say w1" in lines,
           "history: the lines as run, one a line, in $XDG_STATE_HOME/cuplay/history", repr(lines[-6:]))
    pid, fd = start([CUPLAY, "-X", "--no-gpu"], hist_env, work)
    read_until(fd, "cuplay>", 20)
    os.write(fd, UP + UP + b"\r")
    out = await_said(fd, "w9", 10)
    finish(pid, fd)
    report(said(out, "w9"), "history: Up in a new session gives the lines of the one before", repr(out[-300:]))

    # help on a short terminal: lines typed ahead are the prompt's, never
    # the pager's; and the pager (less) is in its secure mode, so that a
    # key typed into it saves no file
    if shutil.which("less"):
        penv = dict(edit_env)
        for v in ("PAGER", "LESS", "LESSSECURE", "LESSOPEN"):
            penv.pop(v, None)
        pwork = os.path.join(tmp, "pager")
        os.makedirs(pwork)
        def finish_or_kill(pid, fd):
            """finish, or (a pager still holding the terminal) kill cuplay"""
            try:
                os.write(fd, b"q\rquit\r")
            except OSError:
                pass
            read_until(fd, "\x00", 2)
            if os.waitpid(pid, os.WNOHANG) == (0, 0):
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            os.close(fd)
        def short_prompt():
            pid, fd = start([CUPLAY, "-X", "--no-gpu"], penv, pwork)
            fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 10, 80, 0, 0))
            read_until(fd, "cuplay>", 20)
            return pid, fd
        pid, fd = short_prompt()
        os.write(fd, b"help\rset PAD=1\rsay typed ahead\r")
        out = await_said(fd, "typed ahead", 10)
        finish_or_kill(pid, fd)
        report(said(out, "typed ahead") and os.listdir(pwork) == [],
               "help: lines typed ahead go to the prompt, not into a pager", repr(out[-300:]) + " %r" % os.listdir(pwork))
        pid, fd = short_prompt()
        os.write(fd, b"help\r")
        paged, _ = read_until(fd, "\x00", 2)
        os.write(fd, b"s")
        read_until(fd, "\x00", 0.5)
        os.write(fd, b"zz1\r")
        read_until(fd, "\x00", 0.5)
        os.write(fd, b"q")
        read_until(fd, "cuplay>", 5)
        os.write(fd, b"say back\r")
        out = await_said(fd, "back", 10)
        finish_or_kill(pid, fd)
        report("internals.md" not in paged and said(out, "back") and
               os.listdir(pwork) == [], "help: paged by less (its first screen) in its secure mode (its 's' saves no file)",
               repr(paged[-200:]) + " %r" % os.listdir(pwork))
    else:
        skipped += 1
        print("skipped: help's pager: no less")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"prompt: {passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
