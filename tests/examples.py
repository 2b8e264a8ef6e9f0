#!/usr/bin/env python3
"""tests/examples.py: every example of README.md and docs/*.md runs.

Like Python's doctest, the examples are read from the documents themselves,
by the info string of their fenced blocks:

  ```cu file=PATH      a kernel file (or header): written to PATH in the
                       document's tree (~/ is the tree's home); a kernel
                       file is then run (`use PATH; run`)
  ```cuplay            commands as typed at the prompt: the lines after a
                       `cuplay>` or `cuplay NAME>` prompt (or every line, where
                       there is no prompt), replayed as one session
  ```console           shell lines: each `$ ...` line that runs cuplay
                       (./cuplay or cuplay, after VAR=VALUE words) is run
  ```KIND file=PATH    any other file (a session, a start-up file): written
  ```synopsis         a usage synopsis, not run
Options after the info word: status=N (the exit status wanted, default 0),
needs=gpu|nvdisasm (skipped, saying so, where that is missing).

Each document runs in a tree of its own: the shipped kernel files and
lessons (MANIFEST), tests/ (a link), then the document's files in the order it shows them,
with HOME inside the tree. Without a GPU (or with SKIP_GPU=1) cuplay runs in
compile-only mode (--no-gpu); with one, the examples launch.

A block that shows cuplay commands or a kernel file without one of these
info strings is an error: no example can go untested. Output shown in a
block is not compared (measured figures differ from GPU to GPU); the exit
status is. Closing line: "examples: N passed, N failed, N skipped".
  CUPLAY   the binary (default ./cuplay)
  GPU=1    launch the kernels (tests/run.sh sets it where a GPU is)
  DOCS     the documents (default README.md docs/*.md)
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
CUPLAY = os.path.abspath(os.environ.get("CUPLAY", "./cuplay"))
GPU = os.environ.get("GPU") == "1" and os.environ.get("SKIP_GPU") != "1"
DOCS = os.environ.get("DOCS", "").split() or ["README.md"] + sorted(glob.glob("docs/*.md"))
PROMPT = re.compile(r"^cuplay(?: [^>]*)?> ?(.*)$")
RUNS_CUPLAY = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:\./)?cuplay(?:\s|$)")

passed = failed = skipped = 0


def blocks(path):
    """(line, info, text) of each fenced block of a Markdown file."""
    out, info, start, body = [], None, 0, []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        m = re.match(r"^(\s*)```(.*)$", line.rstrip("\n"))
        if info is None and m:
            info, start, body = m.group(2).strip(), n, []
        elif info is not None and m and not m.group(2).strip():
            out.append((start, info, "".join(body)))
            info = None
        elif info is not None:
            body.append(line)
    return out


def has_tool(name):
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    return shutil.which(name) is not None or os.path.exists(os.path.join(cuda, "bin", name))


def make_tree(tmp):
    """A tree with the shipped kernel files and lessons, a home, and a
    ./cuplay (on PATH too) that runs the binary under test."""
    tree = os.path.join(tmp, "tree")
    for d in ("kernels_src", "sessions", "home"):
        os.makedirs(os.path.join(tree, d), exist_ok=True)
    for line in open("MANIFEST", encoding="utf-8"):
        f = line.split("#")[0].strip()
        if f:
            os.makedirs(os.path.join(tree, os.path.dirname(f)), exist_ok=True)
            shutil.copy(f, os.path.join(tree, f))
    os.symlink(os.path.join(ROOT, "tests"), os.path.join(tree, "tests"))
    wrapper = os.path.join(tree, "cuplay")
    with open(wrapper, "w") as w:
        w.write('#!/bin/sh\nexec %s%s "$@"\n' % (shlex.quote(CUPLAY), "" if GPU else " --no-gpu"))
    os.chmod(wrapper, 0o755)
    return tree


def run(cmd, tree, tmp, stdin=None):
    env = dict(os.environ, HOME=os.path.join(tree, "home"), NO_COLOR="1",
               XDG_CACHE_HOME=os.path.join(tmp, "cache"), XDG_CONFIG_HOME=os.path.join(tmp, "config"),
               XDG_STATE_HOME=os.path.join(tmp, "state"), PATH=tree + os.pathsep + os.environ["PATH"])
    env.pop("CUPLAY_PATH", None)
    p = subprocess.run(cmd, cwd=tree, env=env, input=stdin, capture_output=True, text=True,
                       timeout=600)
    return p.returncode, p.stdout + p.stderr


def check(doc, line, what, status, want, out):
    global passed, failed
    if status == want:
        passed += 1
        print("ok:   %s:%d: %s" % (doc, line, what))
    else:
        failed += 1
        print("FAIL: %s:%d: %s: exit %d, expected %d" % (doc, line, what, status, want))
        for l in out.splitlines()[-25:]:
            print("    " + l)


def example(doc, line, info, text, tree, tmp):
    global skipped, failed
    words = info.split()
    kind = words[0] if words else ""
    opts = dict(w.split("=", 1) for w in words[1:] if "=" in w)
    want = int(opts.get("status", "0"))
    needs = opts.get("needs")
    shows_cuplay = any(PROMPT.match(l) or RUNS_CUPLAY.match(l.lstrip("$ ")) for l in text.splitlines()
                       if l.startswith(("cuplay", "$ ", "./cuplay")))
    if kind == "synopsis":  # a usage synopsis (cuplay SESSION ...): not an example
        return
    if "file" in opts and kind != "cu":  # a session, a start-up file: written as shown
        f = opts["file"]
        path = os.path.join(tree, "home", f[2:]) if f.startswith("~/") else os.path.join(tree, f)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as w:
            w.write(text)
        return
    if kind not in ("cu", "cuplay", "console"):
        if "__global__" in text or "//@ " in text or shows_cuplay:
            failed += 1
            print("FAIL: %s:%d: an example of cuplay in a block marked '%s': mark it cu file=PATH, "
                  "cuplay or console so that it is run" % (doc, line, info or "(nothing)"))
        return
    if kind == "cu":
        if "file" not in opts:
            failed += 1
            print("FAIL: %s:%d: a cu block without file=PATH" % (doc, line))
            return
        f = opts["file"]
        path = os.path.join(tree, "home", f[2:]) if f.startswith("~/") else os.path.join(tree, f)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as w:
            w.write(text)
        if path.endswith(".cu") and "__global__" in text:  # a kernel file (not a header): it runs
            argv = [CUPLAY] + ([] if GPU else ["--no-gpu"]) + ["-c", "use %s; run" % path]
            status, out = run(argv, tree, tmp, stdin="")
            check(doc, line, "the kernel file %s runs" % f, status, want, out)
        return
    if needs == "gpu" and not GPU:
        skipped += 1
        print("skipped: %s:%d: needs a GPU" % (doc, line))
        return
    if needs and needs != "gpu" and not has_tool(needs):
        skipped += 1
        print("skipped: %s:%d: needs %s" % (doc, line, needs))
        return
    if kind == "cuplay":
        lines = text.splitlines()
        cmds = [m.group(1) for m in map(PROMPT.match, lines) if m]
        if not any(PROMPT.match(l) for l in lines):
            cmds = [l for l in lines if l.strip()]
        session = os.path.join(tmp, "example-%d.session" % line)
        with open(session, "w", encoding="utf-8") as w:
            w.write("\n".join(cmds) + "\n")
        argv = [CUPLAY] + ([] if GPU else ["--no-gpu"]) + [session]
        status, out = run(argv, tree, tmp, stdin="")
        check(doc, line, "the session of %d commands" % len(cmds), status, want, out)
        return
    for l in text.splitlines():
        if not l.startswith("$ "):
            continue
        cmd = l[2:].strip()
        if not RUNS_CUPLAY.match(cmd):
            continue
        # ~ as the shell expands it: the tree's home
        status, out = run(["bash", "-c", cmd], tree, tmp, stdin="")
        check(doc, line, cmd, status, want, out)


def main():
    for doc in DOCS:
        if not os.path.exists(doc):
            continue
        tmp = tempfile.mkdtemp(prefix="cuplay-examples-")
        try:
            tree = make_tree(tmp)
            for line, info, text in blocks(doc):
                example(doc, line, info, text, tree, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("examples: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
