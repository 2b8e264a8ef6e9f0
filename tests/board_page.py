#!/usr/bin/env python3
"""tests/board_page.py: the class board's live page in headless Chromium
at 1280 px: 30 students' entries (one of them named with a <script> that
must show as text and never run) are all in the ranking, nothing reaches
past the window, a screenshot is kept (BOARD_PAGE_SHOT=FILE copies it
there); then one more student's submission, finished while the page is
open, appears in it without a reload (the page's Server-Sent Events; a
mark left in the window shows it was not reloaded). The verifier is a
stand-in (tests/board/verify_stand_in.sh). Prints "board_page: N passed,
N failed", or "board_page: skipped: ..." without Chromium or the board."""
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from board_lib import ROOT, Board, Counts, NoBoard, free_port  # noqa: E402
from devtools import DevTools  # noqa: E402

WIDTH, HEIGHT = 1280, 1000
ENTRIES = 30
EVIL = "<script>window.__pwned=1</script>"
c = Counts("board_page")

PROBE = """(function() {
  var W = window.innerWidth, bad = [];
  document.querySelectorAll('body *').forEach(function(e) {
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > W + 0.5) bad.push(e.tagName + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
  });
  return JSON.stringify({width: W, text: document.body ? document.body.innerText : '',
                         pwned: window.__pwned === 1, mark: window.__mark === 1, overflow: bad.slice(0, 8)});
})()"""


def probe(dt):
    v = dt.eval(PROBE)
    return json.loads(v) if v else {}


def wait_for(dt, cond, timeout):
    got, end = {}, time.time() + timeout
    while time.time() < end:
        got = probe(dt)
        if cond(got):
            break
        time.sleep(0.2)
    return got


def main():
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if not browser:
        c.skipped("no Chromium (install the distribution's chromium package)")
    work = tempfile.mkdtemp(prefix="cuplay-page-")
    b = Board(work, ["--gpus", "none"], {"CUPLAY_BOARD_VERIFY": os.path.join(ROOT, "tests", "board", "verify_stand_in.sh")})
    try:
        b.start()
    except NoBoard as e:
        c.skipped("the board: %s" % e)
    chrome = None
    try:
        b.open_exercise("transpose")
        names = ["st%02d" % i for i in range(1, ENTRIES)] + [EVIL]
        ids = []
        for i, name in enumerate(names):
            st, j = b.submit(b.student(name), "transpose", "// ms=%d.5\n__global__ void transpose_tiled() {}\n" % (i + 1))
            if st == 202 and j:
                ids.append(j["id"])
        done = b.wait_done(ids, 60)
        c.check(len(done) == ENTRIES, "%d entries verified (%d acknowledged)" % (len(done), len(ids)))
        dport = free_port()
        chrome = subprocess.Popen([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                   "--remote-debugging-port=%d" % dport, "--remote-allow-origins=*",
                                   "--user-data-dir=" + os.path.join(work, "profile"),
                                   "--window-size=%d,%d" % (WIDTH, HEIGHT), "about:blank"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        pages, end = [], time.time() + 60
        while not pages and time.time() < end:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/json" % dport, timeout=2) as r:
                    pages = [p for p in json.loads(r.read()) if p.get("type") == "page"]
            except OSError:
                time.sleep(0.2)
        if not c.check(bool(pages), "Chromium's DevTools answer"):
            return
        dt = DevTools(pages[0]["webSocketDebuggerUrl"])
        dt.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False)
        dt.call("Page.enable")
        dt.call("Page.navigate", url=b.url + "/")
        got = wait_for(dt, lambda g: all(n in g.get("text", "") for n in names), 30)
        text = got.get("text", "")
        missing = [n for n in names if n not in text]
        c.check(not missing, "the page at %s px shows all %d entries" % (got.get("width"), ENTRIES), missing[:5])
        c.check(EVIL in text and not got.get("pwned"), "a name with <script> is shown as text and does not run")
        c.check(got.get("width") == WIDTH and not got.get("overflow"), "nothing reaches past %d px" % WIDTH,
                got.get("overflow"))
        shot = base64.b64decode(dt.call("Page.captureScreenshot", format="png")["data"])
        w, h = struct.unpack(">II", shot[16:24])
        out = os.environ.get("BOARD_PAGE_SHOT") or os.path.join(work, "board.png")
        with open(out, "wb") as f:
            f.write(shot)
        c.check(shot[:8] == b"\x89PNG\r\n\x1a\n" and w == WIDTH and len(shot) > 10000,
                "screenshot %dx%d, %d bytes in %s" % (w, h, len(shot), out))
        # one more entry, finished while the page is open
        dt.eval("window.__mark = 1")
        time.sleep(1)  # the page's event stream is connected
        tok = b.student("latecomer")
        t1 = time.time()
        st, j = b.submit(tok, "transpose", "// ms=0.25\n__global__ void transpose_tiled() {}\n")
        late = b.wait_done([j["id"]] if st == 202 and j else [], 30)
        c.check(len(late) == 1, "the latecomer's submission is verified")
        got = wait_for(dt, lambda g: "latecomer" in g.get("text", ""), 15)
        c.check("latecomer" in got.get("text", "") and got.get("mark"),
                "the new entry appears without a reload (%.1f s after its submission)" % (time.time() - t1),
                got.get("text", "")[:300])
    except (OSError, ValueError, KeyError) as e:
        c.check(False, "the board's page in Chromium", e)
    finally:
        if chrome:
            chrome.kill()
            chrome.wait()
        b.stop()
        shutil.rmtree(os.path.join(work, "profile"), ignore_errors=True)
    c.close()


main()
