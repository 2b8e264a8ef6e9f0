#!/usr/bin/env python3
"""tests/notebook.py: the Jupyter kernel (jupyter/cuplay_kernel) over
`cuplay --serve`, in compile-only mode (GPU=1: on the GPU). The kernelspec
is installed by jupyter/install.py into a folder of the test's own;
jupyter_client starts the kernel and runs cells: a command cell (its result
table as an HTML table, parsed), a kernel-file cell, error cells (the
message names the cell's line, or the kernel file's), Tab, Shift-Tab, an
interrupt during a long cell (three times), interrupts while the kernel relays a
flood of output (a stand-in for cuplay), the GPU notebook's cells
(tests/notebook_cells.py) that recorded runs serve, the roofline (SVG, parsed as XML), a restart
(no cuplay left of the old kernel). Then nbclient executes every shipped
lesson converted by `cuplay --notebook`, with --mask-times: each runs to the
end and its text is the replay's (`cuplay --mask-times LESSON`), and it fails
where the replay does. Where
Python lacks the packages it prints one line, "notebook: skipped: ...".
Prints "notebook: N passed, N failed"."""
import glob
import html.parser
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUPLAY = os.path.abspath(os.environ.get("CUPLAY", os.path.join(ROOT, "cuplay")))
TREE = os.path.abspath(os.environ.get("TREE", ROOT))  # the shipped tree, as the goldens ran in
GPU = os.environ.get("GPU") == "1"
ONLY = os.environ.get("NOTEBOOK_ONLY", "")  # "kernel" or "lessons": one half
passed = failed = 0

def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok:   " + what)
    else:
        failed += 1
        print("FAIL: " + what + ("\n    " + str(detail).replace("\n", "\n    ") if detail else ""))


class Tables(html.parser.HTMLParser):
    """The tables of an HTML text: each a list of rows of cell texts."""

    def __init__(self):
        super().__init__()
        self.tables, self.cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.tables and self.tables[-1]:
            self.tables[-1][-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def html_tables(text):
    p = Tables()
    p.feed(text)
    p.close()
    return p.tables


class Serve:
    """`cuplay --serve` spoken to directly, as a front end does."""

    def __init__(self, cwd, env):
        self.p = subprocess.Popen([CUPLAY, "--no-gpu", "--serve"], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        self.first = json.loads(self.p.stdout.readline())

    def send(self, line):
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def answer(self):
        """The messages up to and with the done marker."""
        out = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                return out
            out.append(json.loads(line))
            if out[-1]["type"] == "done":
                return out


def protocol_tests(tmp):
    """The protocol alone (no Jupyter packages needed)."""
    work = os.path.join(tmp, "serve")
    shutil.copytree(os.path.join(ROOT, "kernels_src"), os.path.join(work, "kernels_src"))
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache-serve"))
    s = Serve(work, env)
    report(s.first.get("type") == "ready" and s.first.get("version"), "--serve: 'ready' first", s.first)
    s.send(json.dumps({"id": "a1", "type": "run", "name": "cell", "code": "use transpose\nset N=1000\nrun transpose_tiled\nrn"}))
    m = s.answer()
    types = [x["type"] for x in m]
    disp = [x for x in m if x["type"] == "display"]
    errs = [x["text"] for x in m if x["type"] == "error"]
    ok = (all(x.get("id") == "a1" for x in m) and types[-1] == "done" and m[-1]["status"] == "error"
          and m[-1]["failed"] == 1 and disp and "text/plain" in disp[0]["data"]
          and html_tables(disp[0]["data"]["text/html"])[0][1][0] == "transpose_tiled"
          and errs == ["cell:4: unknown command 'rn' (did you mean 'run'?)"]
          and types.index("display") > types.index("text") and types.index("error") > types.index("display"))
    report(ok, "--serve: a run's text, its table (text/plain and text/html), its error by line, in order, then done", m)
    s.send(json.dumps({"id": "p1", "type": "run", "name": "cell", "code": "ptx transpose_tiled"}))
    m = s.answer()
    disp = [x["data"] for x in m if x["type"] == "display"]
    report(m[-1]["status"] == "ok" and len(disp) == 1 and ".entry" in disp[0]["text/plain"]
           and disp[0]["text/html"].startswith('<pre class="cuplay-code">') and "&lt;" in disp[0]["text/html"]
           and "<b>ld.global" in disp[0]["text/html"],
           "--serve: ptx as text and as highlighted HTML", [str(x)[:300] for x in m])
    s.send("{not json")
    m = s.answer()
    report([x["type"] for x in m] == ["error", "done"] and "id" not in m[0] and m[0]["text"].startswith("not a JSON object"),
           "--serve: a line that is not JSON: an error and a done, without an id", m)
    s.send(json.dumps({"id": "a2", "type": "complete", "code": "set PA", "cursor": 6}))
    m = s.answer()
    report(m[0]["type"] == "complete" and m[0]["matches"] == ["PAD"] and m[0]["start"] == 4 and m[0]["end"] == 6,
           "--serve: complete", m)
    # SIGINT to the group, as a terminal's Ctrl-C: the command stops, the next one runs
    s.send(json.dumps({"id": "a3", "type": "run", "name": "cell",
                       "code": "sweep TILE_SIZE=4,8,16,32 PAD=0,1,2,3,4,5,6,7 BLOCK_ROWS=1,2,4\nsay not reached"}))
    m = [json.loads(s.p.stdout.readline())]
    time.sleep(0.5)
    os.killpg(s.p.pid, signal.SIGINT)
    m += s.answer()
    report(m[-1]["status"] == "interrupted" and not any("not reached" in x.get("text", "") for x in m),
           "--serve: SIGINT stops the running command, status 'interrupted'", m[-3:])
    s.send(json.dumps({"id": "a4", "type": "run", "name": "cell", "code": "set PAD=1"}))
    m = s.answer()
    report(m[-1]["status"] == "ok", "--serve: the next request runs", m)
    s.p.stdin.close()
    rc = s.p.wait(timeout=30)
    report(rc == 1, "--serve: the end of its input ends it (exit 1: a command failed)", rc)
    r = subprocess.run([CUPLAY, "--serve", "-c", "ls"], capture_output=True, text=True)
    report(r.returncode == 2 and "--serve takes its commands from stdin alone" in r.stderr, "--serve with -c: usage", r.stderr)
    r = subprocess.run([CUPLAY, "--notebook", "no_such_lesson", os.path.join(tmp, "x.ipynb")], cwd=TREE,
                       capture_output=True, text=True)
    report(r.returncode == 1 and "no lesson 'no_such_lesson'" in r.stderr, "--notebook of no lesson: one line", r.stderr)


if __name__ == "__main__" and os.access(CUPLAY, os.X_OK):
    _tmp = tempfile.mkdtemp(prefix="cuplay-serve-")
    try:
        protocol_tests(_tmp)
    finally:
        shutil.rmtree(_tmp, ignore_errors=True)

try:
    import jupyter_client  # noqa: F401
    import ipykernel  # noqa: F401
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from jupyter_client.manager import KernelManager
except ImportError as e:
    print("notebook: skipped: %s has no %s (pip install ipykernel jupyter_client nbformat nbclient)"
          % (sys.executable, e.name))
    print("notebook: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


def install_spec(tmp):
    prefix = os.path.join(tmp, "jupyter-prefix")
    # as on a host without a registry: packages installed with --target, on PYTHONPATH
    site = os.path.join(tmp, "site")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [site, os.environ.get("PYTHONPATH", "")] if p))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "jupyter", "install.py"), "--cuplay", CUPLAY,
                        "--prefix", prefix], capture_output=True, text=True, env=env)
    spec = os.path.join(prefix, "share", "jupyter", "kernels", "cuplay", "kernel.json")
    ok = r.returncode == 0 and os.path.exists(spec)
    report(ok, "install.py writes the kernelspec 'cuplay'", r.stdout + r.stderr)
    if ok:
        s = json.load(open(spec))
        report(s["argv"][0] == sys.executable and s["env"]["CUPLAY"] == CUPLAY,
               "the kernelspec runs the Python that installed it, and this cuplay", s)
        path = s["env"]["PYTHONPATH"].split(os.pathsep)
        report(path[0] == os.path.join(ROOT, "jupyter") and site in path,
               "the kernelspec's PYTHONPATH: the kernel's folder, then the installing Python's path", s["env"])
    os.environ["JUPYTER_PATH"] = os.path.join(prefix, "share", "jupyter")
    return ok


class Cell:
    """One cell's reply and what it showed."""

    def __init__(self, kc, code, timeout=120):
        self.msgs = []
        self.reply = kc.execute_interactive(code, output_hook=self.msgs.append, timeout=timeout)["content"]

    def of(self, kind):
        return [m["content"] for m in self.msgs if m["msg_type"] == kind]

    def stdout(self):
        return "".join(c["text"] for c in self.of("stream") if c["name"] == "stdout")

    def stderr(self):
        return "".join(c["text"] for c in self.of("stream") if c["name"] == "stderr")

    def data(self, mime):
        return [c["data"][mime] for c in self.of("display_data") if mime in c["data"]]


def kernel_pids(km):
    """The kernel's process and its cuplay --serve child."""
    prov = getattr(km, "provisioner", None)
    kpid = getattr(prov, "pid", None) or getattr(getattr(prov, "process", None), "pid", None)
    kids = []
    for st in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = open(st).read().rsplit(")", 1)[1].split()
            if kpid and int(fields[1]) == kpid:
                pid = int(st.split("/")[2])
                if b"--serve" in open("/proc/%d/cmdline" % pid, "rb").read():
                    kids.append(pid)
        except (OSError, IndexError, ValueError):
            pass
    return kpid, kids


def descendants(pids):
    """pids and every process under them."""
    parent = {}
    for st in glob.glob("/proc/[0-9]*/stat"):
        try:
            parent[int(st.split("/")[2])] = int(open(st).read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            pass
    found, todo = set(pids), list(pids)
    while todo:
        p = todo.pop()
        for c, pp in parent.items():
            if pp == p and c not in found:
                found.add(c)
                todo.append(c)
    return sorted(found)


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


KFILE = """//@ param N = 4096
//@ buffer x float[N] random
//@ buffer y float[N] output
//@ grid cdiv(N, 256)
//@ block 256
//@ check y = scale(x, 2)
__global__ void twice(const float *x, float *y, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		y[i] = 2.0f * x[i];
}
"""


def kernel_tests(tmp):
    work = os.path.join(tmp, "nb")
    shutil.copytree(os.path.join(ROOT, "kernels_src"), os.path.join(work, "kernels_src"))
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache-kernel"),
               CUPLAY_ARGS="" if GPU else "--no-gpu",
               CUPLAY_EXPLAIN_FEED="" if GPU else os.path.join(ROOT, "tests/golden/explain_feed.txt"))
    km = KernelManager(kernel_name="cuplay")
    km.start_kernel(cwd=work, env=env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        kernel_cells(km, kc, work)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def kernel_cells(km, kc, work):
    # a command cell: text as it comes, the table as HTML (parsed) and text
    c = Cell(kc, "use transpose\nset N=1024\nrun transpose_tiled")
    tabs = [t for h in c.data("text/html") for t in html_tables(h)]
    plain = c.data("text/plain")
    ok = (c.reply["status"] == "ok" and "kernels_src/transpose.cu: 3 kernels" in c.stdout() and tabs
          and any(r and r[0] == "transpose_tiled" for t in tabs for r in t)
          and tabs[0][0][0] == "kernel" and plain and "transpose_tiled" in plain[0])
    report(ok, "a command cell: its text, its table as HTML (parsed) with a text/plain fallback",
           [c.reply, c.stdout(), tabs, plain])
    # values persist across cells, as at the prompt
    c = Cell(kc, "show")
    report(c.reply["status"] == "ok" and "1024" in c.stdout() + "".join(c.data("text/plain")),
           "the next cell sees the value set before (N=1024)", c.stdout())

    # a kernel-file cell: written under kernels_src/ and loaded
    c = Cell(kc, "%%file twice.cu\n" + KFILE)
    path = os.path.join(work, "kernels_src", "twice.cu")
    report(c.reply["status"] == "ok" and os.path.exists(path) and open(path).read() == KFILE
           and "twice.cu: 1 kernel" in c.stdout(),
           "a %%file cell writes kernels_src/twice.cu and loads it", [c.reply, c.stdout()])
    c = Cell(kc, "run")
    report(c.reply["status"] == "ok" and any("twice" in t for t in c.data("text/plain")),
           "the loaded file runs (compile-only: its resources)" if not GPU else "the loaded file runs and checks",
           [c.reply, c.stdout(), c.stderr()])

    # errors: the cell's line; a kernel file's line
    c = Cell(kc, "show\nbogus_command")
    want = "In[%d]:2: unknown command 'bogus_command'" % c.reply.get("execution_count", 0)
    errs = c.of("error")
    report(c.reply["status"] == "error" and want in c.stderr() and errs and want in errs[0]["evalue"],
           "an error cell: a Jupyter error naming the cell's line", [want, c.reply, c.stderr()])
    c = Cell(kc, "%%file broken.cu\n//@ param N = 16\n//@ buffer x float[N] output\n//@ grid 1\n//@ block 16\n"
                 "__global__ void k(float *x, int N)\n{\n\tx[0] = undefined_name;\n}\n")
    c = Cell(kc, "run")
    report(c.reply["status"] == "error" and "kernels_src/broken.cu:7: error" in c.stderr(),
           "a kernel file that does not compile: the error names its file and line", c.stderr())
    c = Cell(kc, "%%file badhead.cu\n//@ param N = 16\n//@ nonsense 3\n__global__ void k(float *x) {}\n")
    report(c.reply["status"] == "error" and c.stderr().startswith("kernels_src/badhead.cu:2:"),
           "a %%file cell whose header is wrong: the error names the file's line alone", c.stderr())
    c = Cell(kc, "%%file ../escape.cu\nx")
    report(c.reply["status"] == "error" and not os.path.exists(os.path.join(work, "escape.cu")),
           "%%file refuses a name with a folder", c.of("error"))
    c = Cell(kc, "pause")
    report(c.reply["status"] == "ok" and c.stdout() == "pause: waits for Enter at a terminal; a notebook goes straight on\n",
           "pause says in one line that a notebook does not wait", c.stdout())
    c = Cell(kc, "edit")
    report(c.reply["status"] == "error" and c.stderr().count("\n") == 1 and "interactive prompt" in c.stderr(),
           "a command that needs a terminal says so in one line", c.stderr())

    # Tab and Shift-Tab, through the command table
    Cell(kc, "use transpose")
    r = kc.complete("ru", 2, reply=True, timeout=30)["content"]
    report("run" in r["matches"] and r["cursor_start"] == 0 and r["cursor_end"] == 2,
           "Tab completes a command", r)
    r = kc.complete("use transp", 10, reply=True, timeout=30)["content"]
    report(r["matches"] == ["transpose"] and r["cursor_start"] == 4, "Tab completes a kernel file", r)
    r = kc.complete("run transpose_t", 15, reply=True, timeout=30)["content"]
    report(r["matches"] == ["transpose_tiled"], "Tab completes a kernel of the loaded file", r)
    r = kc.complete("set P", 5, reply=True, timeout=30)["content"]
    report(r["matches"] == ["PAD"], "Tab completes a define", r)
    r = kc.inspect("sweep PAD=0,1", 3, reply=True, timeout=30)["content"]
    report(r["found"] and r["data"]["text/plain"].startswith("usage: sweep "),
           "Shift-Tab shows 'help sweep'", r)
    r = kc.inspect("nonsense", 3, reply=True, timeout=30)["content"]
    report(not r["found"], "Shift-Tab on no command finds nothing", r)

    # the roofline as SVG (recorded runs without a GPU), explain's tables as HTML
    c = Cell(kc, "use matmul\nexplain matmul_register_tiled\nroofline")
    svgs = c.data("image/svg+xml")
    try:
        roots = [ET.fromstring(s) for s in svgs]
        ok = roots and all(r.tag.endswith("svg") for r in roots)
    except ET.ParseError as e:
        ok, roots = False, e
    report(c.reply["status"] == "ok" and ok and c.data("text/html") and
           all(t.strip() for t in c.data("text/plain")),
           "explain's tables as HTML and the roofline as SVG (parsed as XML), each with its text", [c.reply, svgs[:1]])

    # an interrupt during a long cell: the cell stops, the next one works;
    # three times, each sweep of values not compiled before (a sweep
    # already compiled ends before the interrupt), the interrupt sent as
    # soon as the progress shows, while the kernel relays the sweep's output
    Cell(kc, "use transpose")
    for k in range(3):
        pads = ",".join(str(8 * k + p) for p in range(8))
        msg = kc.execute("sweep TILE_SIZE=4,8,16,32 PAD=%s BLOCK_ROWS=1,2,4" % pads)
        seen_progress = False
        t_end = time.time() + 60
        while time.time() < t_end and not seen_progress:
            try:
                m = kc.get_iopub_msg(timeout=1)
            except Exception:
                continue
            seen_progress = (m["msg_type"] == "display_data"
                             and m["content"].get("metadata", {}).get("cuplay") == "progress")
        t0 = time.time()
        km.interrupt_kernel()
        reply = None
        while time.time() < t0 + 30:
            try:
                m = kc.get_shell_msg(timeout=1)
            except Exception:
                continue
            if m["parent_header"].get("msg_id") == msg:
                reply = m["content"]
                break
        took = time.time() - t0
        report(seen_progress, "a long sweep shows its progress while it runs (%d of 3)" % (k + 1))
        report(reply is not None and reply["status"] == "error" and reply.get("ename") == "KeyboardInterrupt",
               "Interrupt stops a long cell (%.1f s; %d of 3)" % (took, k + 1), reply)
        c = Cell(kc, "set PAD=1\nshow")
        report(c.reply["status"] == "ok" and "transpose.cu" in c.stdout()
               and "not launched" not in c.stdout(),
               "the cell after the interrupt works, with its own output alone (%d of 3)" % (k + 1),
               [c.reply, c.stdout()])

    # restart: the old cuplay is gone, the new one starts fresh
    _, serve = kernel_pids(km)
    Cell(kc, "use transpose\nset PAD=3\nrun transpose_tiled")  # the compile server started
    before = descendants(serve)
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=60)
    c = Cell(kc, "run")
    gone = len(before) >= 2 and not any(alive(p) for p in before)
    report(gone and c.reply["status"] == "error" and "no kernel file loaded" in c.stderr(),
           "Restart: no cuplay of the old kernel left, and a fresh session", [before, c.stderr()])


def cell_text(c):
    """What a cell showed as text: its streams and its displays' text/plain."""
    return c.stdout() + c.stderr() + "".join(c.data("text/plain"))


def gpu_cells_tests(tmp):
    """The GPU notebook's cells (tests/notebook_cells.py) in compile-only
    mode, with recorded runs: each cell a recorded run serves carries its
    MIME type."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from notebook_cells import CELLS
    work = os.path.join(tmp, "gpucells")
    shutil.copytree(os.path.join(ROOT, "kernels_src"), os.path.join(work, "kernels_src"))
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache-gpucells"), CUPLAY_ARGS="--no-gpu",
               CUPLAY_EXPLAIN_FEED=os.path.join(ROOT, "tests/golden/explain_feed.txt"))
    km = KernelManager(kernel_name="cuplay")
    km.start_kernel(cwd=work, env=env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        for what, code, mime, fed in CELLS:
            c = Cell(kc, code, timeout=300)
            if not fed:
                continue
            rich = c.data(mime)
            try:
                ok = rich and all(ET.fromstring(r).tag.endswith("svg") for r in rich) if mime == "image/svg+xml" \
                    else rich and all(html_tables(r) for r in rich)
            except ET.ParseError:
                ok = False
            report(c.reply["status"] == "ok" and ok,
                   "the GPU notebook's %s cell, on recorded runs: %s" % (what, mime), cell_text(c))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


# A stand-in for `cuplay --serve` that floods: a "run" of "flood" sends
# text as fast as it can until SIGINT, then its done; any other code is
# echoed. Interrupted while it floods, the kernel is relaying a message
# almost always, not waiting for the next one.
FLOOD = r"""#!%s
import json, signal, sys
stop = []
signal.signal(signal.SIGINT, lambda *a: stop.append(1))
out = sys.stdout
out.write(json.dumps({"type": "ready", "version": "flood"}) + "\n")
out.flush()
for line in sys.stdin:
    r = json.loads(line)
    rid = r.get("id")
    if r.get("type") == "run" and r.get("code") == "flood":
        del stop[:]
        n = 0
        while not stop:
            n += 1
            out.write(json.dumps({"id": rid, "type": "text", "text": "line %%d\n" %% n}) + "\n")
        out.write(json.dumps({"id": rid, "type": "done", "status": "interrupted", "failed": 0}) + "\n")
    else:
        out.write(json.dumps({"id": rid, "type": "text", "text": "echo: %%s\n" %% r.get("code")}) + "\n")
        out.write(json.dumps({"id": rid, "type": "done", "status": "ok", "failed": 0}) + "\n")
    out.flush()
""" % sys.executable


def flood_tests(tmp):
    """Interrupts while the kernel relays a flood of output: each cell
    stops, and the next cell shows its own output alone."""
    fake = os.path.join(tmp, "flood-serve")
    with open(fake, "w") as f:
        f.write(FLOOD)
    os.chmod(fake, 0o755)
    prefix = os.path.join(tmp, "flood-prefix")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "jupyter", "install.py"), "--cuplay", fake,
                        "--prefix", prefix], capture_output=True, text=True)
    if r.returncode != 0:
        report(False, "install.py for the flooding stand-in", r.stdout + r.stderr)
        return
    saved = os.environ["JUPYTER_PATH"]
    os.environ["JUPYTER_PATH"] = os.path.join(prefix, "share", "jupyter")
    km = KernelManager(kernel_name="cuplay")
    km.start_kernel(cwd=tmp)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        for k in range(5):
            msg = kc.execute("flood")
            t_end = time.time() + 30
            flowing = False
            while time.time() < t_end and not flowing:
                try:
                    m = kc.get_iopub_msg(timeout=1)
                except Exception:
                    continue
                flowing = m["msg_type"] == "stream"
            km.interrupt_kernel()
            reply = None
            while time.time() < t_end:
                try:
                    m = kc.get_shell_msg(timeout=1)
                except Exception:
                    continue
                if m["parent_header"].get("msg_id") == msg:
                    reply = m["content"]
                    break
            if reply is None:  # say which step failed, not the next cell's timeout
                report(False, "interrupted while it relays a flood of output (%d of 5): no reply to the "
                       "interrupted cell within 30 s (output %s)" % (k + 1, "flowing" if flowing else "never seen"))
                break
            c = Cell(kc, "hello %d" % k, timeout=30)
            if c.reply["status"] == "aborted":
                # Jupyter's own stop-on-error: a request that reached the
                # kernel before it stopped aborting after the interrupted
                # cell's error is aborted ("Run All" after an error); the
                # next one runs
                c = Cell(kc, "hello %d" % k, timeout=30)
            ok = (flowing and reply is not None and reply.get("ename") == "KeyboardInterrupt"
                  and c.reply["status"] == "ok" and c.stdout() == "echo: hello %d\n" % k)
            report(ok, "interrupted while it relays a flood of output, a cell stops and the next shows its own "
                   "output alone (%d of 5)" % (k + 1), [reply, c.reply, c.stdout()[:200]])
            if not ok:
                break
    except Exception as e:  # a cell that never answers: the kernel lost its reply
        report(False, "interrupts during a flood of output", repr(e))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        os.environ["JUPYTER_PATH"] = saved


def notebook_text(nb):
    """A notebook's text as the replay prints it: narration that `say`
    prints, the code cells' text outputs (streams, displays' text/plain)."""
    out = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            if cell.metadata.get("cuplay", {}).get("narration") == "say":
                out.append("".join(line + "\n" for line in cell.source.split("\n")))
            continue
        for o in cell.get("outputs", []):
            if o.output_type == "stream":
                out.append(o.text)
            elif o.output_type in ("display_data", "execute_result"):
                if o.get("metadata", {}).get("cuplay") == "progress":
                    continue
                out.append(o.data.get("text/plain", ""))
    return "".join(out)


def lesson_tests(tmp):
    lessons = sorted(glob.glob(os.path.join(TREE, "sessions", "*.session")))
    report(len(lessons) > 0, "lessons to convert: %d" % len(lessons))
    for s in lessons:
        name = os.path.basename(s)[:-len(".session")]
        out = os.path.join(tmp, name + ".ipynb")
        r = subprocess.run([CUPLAY, "--notebook", "sessions/%s.session" % name, out], cwd=TREE,
                           capture_output=True, text=True)
        if r.returncode != 0:
            report(False, "lesson %s: --notebook" % name, r.stderr)
            continue
        nb = nbformat.read(out, as_version=4)
        nbformat.validate(nb)
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache-lesson-" + name)
        os.environ["CUPLAY_ARGS"] = "--mask-times" if GPU else "--no-gpu --mask-times"
        client = NotebookClient(nb, kernel_name="cuplay", timeout=600,
                                resources={"metadata": {"path": TREE}})
        err = None
        try:
            client.execute()
        except CellExecutionError as e:
            err = str(e).splitlines()[-1] if str(e) else "error"
        # the replay, with a compile cache as fresh as the notebook's
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache-replay-" + name))
        rp = subprocess.run([CUPLAY] + ([] if GPU else ["--no-gpu"]) + ["--mask-times", "sessions/%s.session" % name],
                            cwd=TREE, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
        want = rp.stdout.decode("utf-8", "replace")
        got = notebook_text(nb)
        ok = got == want and (err is None) == (rp.returncode == 0)
        detail = ""
        if not ok:
            import difflib
            detail = (err or "") + "\n" + "".join(list(difflib.unified_diff(
                want.splitlines(True), got.splitlines(True), "replay", "notebook"))[:30])
        report(ok, "lesson %s as a notebook runs to the end; its text is the replay's" % name, detail)


def failing_lesson(tmp):
    """A lesson whose expectation fails: its cell is marked failed, the
    run goes on, and the notebook fails at its end, as the replay exits 1."""
    work = os.path.join(tmp, "failing")
    os.makedirs(os.path.join(work, "sessions"))
    shutil.copytree(os.path.join(ROOT, "kernels_src"), os.path.join(work, "kernels_src"))
    with open(os.path.join(work, "sessions", "failing.session"), "w") as f:
        f.write("# A lesson that fails\nuse coalescing\nexplain square_coalesced\n"
                "expect square_coalesced bound compute\n\nsay and goes on\nset N=1024\nshow\n")
    out = os.path.join(work, "failing.ipynb")
    subprocess.run([CUPLAY, "--notebook", "failing", out], cwd=work, check=True, capture_output=True)
    nb = nbformat.read(out, as_version=4)
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache-failing")
    os.environ["CUPLAY_ARGS"] = "--no-gpu"
    os.environ["CUPLAY_EXPLAIN_FEED"] = os.path.join(ROOT, "tests/golden/explain_feed.txt")
    err = None
    try:
        NotebookClient(nb, kernel_name="cuplay", timeout=300, resources={"metadata": {"path": work}}).execute()
    except CellExecutionError as e:
        err = str(e)
    finally:
        del os.environ["CUPLAY_EXPLAIN_FEED"]
    code = [c for c in nb.cells if c.cell_type == "code"]
    errs = [any(o.output_type == "error" for o in c.outputs) for c in code]
    report(len(code) == 3 and errs == [True, False, True] and err and "1 held" not in err and "0 held, 1 failed" in err
           and "1024" in "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in code[1].outputs)
           and nb.cells[0].cell_type == "markdown" and nb.cells[0].source == "# A lesson that fails",
           "a failed expectation marks its cell, the run goes on and fails at the end",
           [errs, err, [c.source for c in nb.cells]])


def main():
    if not os.access(CUPLAY, os.X_OK):
        print("notebook: no cuplay binary at %s" % CUPLAY)
        return 1
    tmp = tempfile.mkdtemp(prefix="cuplay-notebook-")
    try:
        if install_spec(tmp):
            if ONLY in ("", "kernel"):
                kernel_tests(tmp)
                flood_tests(tmp)
                gpu_cells_tests(tmp)
            if ONLY in ("", "lessons"):
                failing_lesson(tmp)
                lesson_tests(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("notebook: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
