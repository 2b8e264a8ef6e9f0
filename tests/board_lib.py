"""tests/board_lib.py: the class board from the tests' side (standard
library only): a board started on a free localhost port with its URL and
teacher token read from its first line, the JSON API called, submissions
waited for. Used by tests/board_load.py, tests/board_page.py,
tests/board_slurm.sh and tests/gpu_board_class.py."""
import json
import os
import re
import subprocess
import threading
import time
import urllib.error
import urllib.request

from devtools import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUPLAY = os.path.abspath(os.environ.get("CUPLAY", os.path.join(ROOT, "cuplay")))
START = re.compile(r"board: (http://\S+?)/?\s+teacher token: (\S+)")



class NoBoard(OSError):
    """This cuplay was built without the board (its one line says so)."""


class Board:
    """A board process: start() waits for its line, stop() ends it."""

    def __init__(self, work, args=(), env=None, port=None, db=None, cuplay=CUPLAY):
        self.work, self.args, self.cuplay = work, list(args), cuplay
        self.env = dict(os.environ, **(env or {}))
        self.port = port or free_port()
        self.db = db or os.path.join(work, "board.db")
        self.log = os.path.join(work, "board.log")
        self.proc = self.url = self.token = None

    def start(self, timeout=30):
        cmd = [self.cuplay, "--board", "--port", str(self.port), "--db", self.db] + self.args
        logf = open(self.log, "a")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=logf,
                                     stdin=subprocess.DEVNULL, text=True, start_new_session=True)
        logf.close()
        found = {}

        def read():
            for line in self.proc.stdout:
                with open(self.log, "a") as f:
                    f.write(line)
                m = START.search(line)
                if m and not found:
                    found["url"], found["token"] = m.group(1), m.group(2)

        threading.Thread(target=read, daemon=True).start()
        end = time.time() + timeout
        while time.time() < end and not found and self.proc.poll() is None:
            time.sleep(0.05)
        said = [ln for ln in self.tail().splitlines()
                if re.search(r"unknown option|not built|built without|libmicrohttpd", ln)]
        if not found and self.proc.poll() is not None and said:
            raise NoBoard(said[0])
        if not found:
            raise OSError("the board did not print its URL within %d s: %s" % (timeout, self.tail()))
        self.url, self.token = found["url"].rstrip("/"), found["token"]
        return self

    def tail(self, n=1500):
        try:
            return open(self.log).read()[-n:]
        except OSError:
            return ""

    def kill(self, sig=9):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
            self.proc.wait(timeout=30)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def api(self, method, path, body=None, token=None, timeout=30):
        """(HTTP status, decoded JSON or None); (0, None) when the board does not answer."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        except OSError:
            return 0, None
        try:
            return status, json.loads(raw.decode()) if raw else None
        except ValueError:
            return status, None

    def student(self, name):
        st, j = self.api("POST", "/api/students", {"name": name}, self.token)
        if st != 201 or not j or "token" not in j:
            raise OSError("POST /api/students %r: %s %s" % (name, st, j))
        return j["token"]

    def open_exercise(self, name):
        st, j = self.api("POST", "/api/exercises/%s/open" % name, {}, self.token)
        if st not in (200, 201, 204):
            raise OSError("opening %r: %s %s" % (name, st, j))

    def submit(self, token, exercise, source, file="mine.cu"):
        return self.api("POST", "/api/submissions", {"exercise": exercise, "source": source, "file": file}, token)

    def wait_done(self, ids, timeout, token=None):
        """{id: submission} for every id once done, or those done when time ran out."""
        done, end = {}, time.time() + timeout
        while time.time() < end and len(done) < len(ids):
            for i in ids:
                if i in done:
                    continue
                st, j = self.api("GET", "/api/submissions/%d" % i, token=token or self.token)
                if st == 200 and j and j.get("state") == "done":
                    done[i] = j
            if len(done) < len(ids):
                time.sleep(0.2)
        return done


class Counts:
    """ok:/FAIL: lines and the closing "NAME: N passed, N failed"."""

    def __init__(self, name):
        self.name, self.passed, self.failed = name, 0, 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print("ok:   " + what, flush=True)
        else:
            self.failed += 1
            print("FAIL: " + what + ("\n    " + str(detail).replace("\n", "\n    ") if detail else ""), flush=True)
        return ok

    def skipped(self, why):
        print("%s: skipped: %s" % (self.name, why), flush=True)
        raise SystemExit(0)

    def close(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed), flush=True)
        raise SystemExit(1 if self.failed else 0)
