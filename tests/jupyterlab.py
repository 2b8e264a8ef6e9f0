#!/usr/bin/env python3
"""tests/jupyterlab.py: a notebook of cuplay's opened in JupyterLab, in
headless Chromium at 1280 px: its result table and its chart are in the page
(read from the DOM through Chromium's DevTools protocol) and no element of
an output reaches past 1280 px; a screenshot is kept (JUPYTERLAB_SHOT=FILE
copies it there). The notebook is tests/notebook/gpu.ipynb where it is there
(outputs made on a GPU: `NOTEBOOK_FIXTURE=tests/notebook/gpu.ipynb bash
tests/gpu_notebook.sh` writes it), else one executed here in compile-only
mode on recorded runs (CUPLAY_EXPLAIN_FEED). Without Chromium, JupyterLab or
the kernel's packages it prints one line, "jupyterlab: skipped: ...".
Prints "jupyterlab: N passed, N failed"."""
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUPLAY = os.path.abspath(os.environ.get("CUPLAY", os.path.join(ROOT, "cuplay")))
FIXTURE = os.path.join(ROOT, "tests", "notebook", "gpu.ipynb")
WIDTH, HEIGHT = 1280, 1000
passed = failed = 0


def skipped(why):
    print("jupyterlab: skipped: " + why)
    sys.exit(0)


browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
if not browser:
    skipped("no Chromium (install the distribution's chromium package)")
try:
    import jupyterlab  # noqa: F401
    import nbformat
    from nbclient import NotebookClient
except ImportError as e:
    skipped("%s has no %s (pip install jupyterlab nbclient)" % (sys.executable, e.name))


def report(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok:   " + what)
    else:
        failed += 1
        print("FAIL: " + what + ("\n    " + str(detail).replace("\n", "\n    ") if detail else ""))



def wait_http(url, timeout):
    end = time.time() + timeout
    while time.time() < end:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.read()
        except OSError:
            time.sleep(0.3)
    return None


from devtools import DevTools, free_port  # noqa: E402


def make_notebook(work):
    """The fixture made on a GPU, or one executed here without a GPU."""
    path = os.path.join(work, "cuplay.ipynb")
    if os.path.exists(FIXTURE):
        shutil.copy(FIXTURE, path)
        return path, "made on a GPU (tests/notebook/gpu.ipynb)"
    prefix = os.path.join(work, "jp")
    subprocess.run([sys.executable, os.path.join(ROOT, "jupyter", "install.py"), "--cuplay", CUPLAY,
                    "--prefix", prefix], check=True, capture_output=True)
    os.environ["JUPYTER_PATH"] = os.path.join(prefix, "share", "jupyter")
    os.environ["CUPLAY_ARGS"] = "--no-gpu"
    os.environ["CUPLAY_EXPLAIN_FEED"] = os.path.join(ROOT, "tests", "golden", "explain_feed.txt")
    shutil.copytree(os.path.join(ROOT, "kernels_src"), os.path.join(work, "kernels_src"))
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "cuplay", "display_name": "cuplay", "language": "cuplay"}
    nb.cells = [nbformat.v4.new_markdown_cell("# cuplay in JupyterLab"),
                nbformat.v4.new_code_cell("use matmul\nexplain matmul_register_tiled"),
                nbformat.v4.new_code_cell("roofline")]
    NotebookClient(nb, kernel_name="cuplay", timeout=300, resources={"metadata": {"path": work}}).execute()
    nbformat.write(nb, path)
    return path, "executed here in compile-only mode on recorded runs"


PROBE = """(function() {
  var W = window.innerWidth, outs = document.querySelectorAll('.jp-OutputArea-output');
  var tables = 0, rows = 0, svgs = 0, bad = [];
  outs.forEach(function(o) {
    o.querySelectorAll('table').forEach(function(t) { tables++; rows += t.querySelectorAll('tr').length; });
    o.querySelectorAll('svg').forEach(function(s) { svgs++; });
    o.querySelectorAll('img').forEach(function(s) { if ((s.src || '').indexOf('svg') >= 0) svgs++; });
    [o].concat(Array.prototype.slice.call(o.querySelectorAll('*'))).forEach(function(e) {
      var r = e.getBoundingClientRect();
      if (r.width > 0 && r.right > W + 0.5) bad.push(e.tagName + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
    });
  });
  return JSON.stringify({width: W, outputs: outs.length, tables: tables, rows: rows, svgs: svgs,
                         overflow: bad.slice(0, 8), noverflow: bad.length});
})()"""


def main():
    tmp = tempfile.mkdtemp(prefix="cuplay-lab-")
    lab = chrome = None
    try:
        nbpath, made = make_notebook(tmp)
        port, dport = free_port(), free_port()
        env = dict(os.environ, JUPYTER_CONFIG_DIR=os.path.join(tmp, "cfg"), JUPYTER_DATA_DIR=os.path.join(tmp, "data"),
                   JUPYTER_RUNTIME_DIR=os.path.join(tmp, "rt"), JUPYTERLAB_SETTINGS_DIR=os.path.join(tmp, "settings"))
        # trusted, as the outputs of one's own kernel are (JupyterLab draws
        # no SVG of a notebook it does not trust); no news prompt over it
        from nbformat.sign import NotebookNotary
        os.makedirs(env["JUPYTER_DATA_DIR"])
        nb = nbformat.read(nbpath, as_version=4)
        NotebookNotary(data_dir=env["JUPYTER_DATA_DIR"]).sign(nb)
        news = os.path.join(env["JUPYTERLAB_SETTINGS_DIR"], "@jupyterlab", "apputils-extension")
        os.makedirs(news)
        with open(os.path.join(news, "notification.jupyterlab-settings"), "w") as f:
            f.write('{"fetchNews": "false", "checkForUpdates": false}')
        lab = subprocess.Popen([sys.executable, "-m", "jupyterlab", "--no-browser", "--port=%d" % port,
                                "--ip=127.0.0.1", "--ServerApp.token=", "--ServerApp.password=",
                                "--ServerApp.root_dir=" + tmp, "--ServerApp.disable_check_xsrf=True",
                                "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                                "--LabApp.extension_manager=readonly", "--allow-root"],
                               cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "lab.log"), "w"),
                               start_new_session=True)
        up = wait_http("http://127.0.0.1:%d/api" % port, 90)
        report(up is not None, "JupyterLab serves (%s)" % made, open(os.path.join(tmp, "lab.log")).read()[-1500:])
        if up is None:
            return
        chrome = subprocess.Popen([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                   "--remote-debugging-port=%d" % dport, "--remote-allow-origins=*",
                                   "--user-data-dir=" + os.path.join(tmp, "profile"),
                                   "--window-size=%d,%d" % (WIDTH, HEIGHT), "about:blank"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        listing = wait_http("http://127.0.0.1:%d/json" % dport, 60)
        pages = [p for p in json.loads(listing or b"[]") if p.get("type") == "page"]
        report(bool(pages), "Chromium's DevTools answer")
        if not pages:
            return
        dt = DevTools(pages[0]["webSocketDebuggerUrl"])
        dt.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False)
        dt.call("Page.enable")
        dt.call("Page.navigate", url="http://127.0.0.1:%d/lab/tree/%s" % (port, os.path.basename(nbpath)))
        got, end = {}, time.time() + 120
        while time.time() < end:
            v = dt.eval(PROBE)
            got = json.loads(v) if v else {}
            if got.get("tables", 0) >= 1 and got.get("svgs", 0) >= 1:
                break
            time.sleep(1)
        time.sleep(2)  # the layout settled
        got = json.loads(dt.eval(PROBE) or "{}")
        report(got.get("tables", 0) >= 1 and got.get("rows", 0) >= 2,
               "the notebook's HTML table is in the page (%s tables, %s rows)" % (got.get("tables"), got.get("rows")), got)
        report(got.get("svgs", 0) >= 1, "its chart is in the page as SVG (%s)" % got.get("svgs"), got)
        report(got.get("width") == WIDTH and got.get("noverflow") == 0,
               "at %s px no element of an output reaches past the window" % got.get("width"), got)
        shot = base64.b64decode(dt.call("Page.captureScreenshot", format="png")["data"])
        w, h = struct.unpack(">II", shot[16:24])
        out = os.environ.get("JUPYTERLAB_SHOT") or os.path.join(tmp, "jupyterlab.png")
        with open(out, "wb") as f:
            f.write(shot)
        report(shot[:8] == b"\x89PNG\r\n\x1a\n" and w == WIDTH and len(shot) > 20000,
               "screenshot %dx%d, %d bytes%s" % (w, h, len(shot), " in " + out if os.environ.get("JUPYTERLAB_SHOT") else ""))
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        report(False, "JupyterLab in Chromium", e)
    finally:
        for p in (chrome, lab):
            if p:
                try:
                    os.killpg(p.pid, 15)
                    p.wait(timeout=10)
                except (OSError, subprocess.TimeoutExpired):
                    os.killpg(p.pid, 9)
        shutil.rmtree(tmp, ignore_errors=True)
    print("jupyterlab: %d passed, %d failed" % (passed, failed))


if __name__ == "__main__":
    main()
    sys.exit(1 if failed else 0)
