#!/usr/bin/env python3
"""tests/board_server.py: `cuplay --board` on a free localhost port, with a
database of its own and a stand-in verifier (CUPLAY_BOARD_VERIFY: a
program that reads the source on stdin and prints a verify line, told what
to do by the source's text), so that no test waits for a compile or needs a
GPU. The tokens, the page's escaping, the limits (413, 429), malformed
requests, unknown and closed exercises, the ranking, the live events, a
verification stopped at its limit, and a board killed (-9) and started again:
everything acknowledged is there, a submission in flight is run again.

Prints ok:/FAIL: lines and "board_server: N passed, N failed, N skipped".
CUPLAY: the binary (default ./cuplay)."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

CUPLAY = os.path.abspath(os.environ.get("CUPLAY", "./cuplay"))
passed = failed = skipped = 0
stops = []  # the exit status of each board stopped by SIGTERM

# an exercise: the stand-in reads none of it, the board its title and limits
EXERCISE = """name        %s
title       The %s race
file        transpose.cu
kernel      transpose_tiled
baseline    transpose_naive
sizes       N=2048
rank_by     median_ms
limits      time=2 memory=16384 source=65536
"""

STAND_IN = r'''#!/usr/bin/env python3
import json, os, re, sys, time
src = sys.stdin.read()
args = sys.argv[1:]
out = {"status": "ok", "reason": "", "kernel": "k", "rank_by": "median_ms",
       "gpu": "stand-in GPU", "host": "testhost", "args": args, "cwd": os.getcwd(),
       "checks": [{"name": "fresh seed", "ok": True, "detail": ""}]}
if "HANG" in src:
    time.sleep(120)
if "SLOW" in src and not os.environ.get("BOARD_TEST_FAST"):
    time.sleep(120)
if "NOLINE" in src:
    sys.stderr.write("verify: the stand-in's own failure\n")
    sys.exit(3)
if "GARBAGE" in src:
    print("{this is not json")
    sys.exit(0)
if "WRONG" in src:
    out["status"] = "wrong"
    out["reason"] = "element 7 is 3, not 4"
m = re.search(r"median=([0-9.]+)", src)
out["median_ms"] = float(m.group(1)) if m else 1.0
m = re.search(r"speedup=([0-9.]+)", src)
out["speedup"] = float(m.group(1)) if m else 1.0
if "RANKSPEEDUP" in src:
    out["rank_by"] = "speedup"
print("verify: a line on stderr", file=sys.stderr)
print(json.dumps(out))
'''


def ok(name):
    global passed
    passed += 1
    print("ok:   " + name)


def bad(name, why):
    global failed
    failed += 1
    print("FAIL: %s: %s" % (name, why))


def check(name, cond, why=""):
    if cond:
        ok(name)
    else:
        bad(name, why)


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Board:
    def __init__(self, tmp, extra=(), env=None, exercises=None, stand_in=True, db="board.db", gpus="none"):
        e = dict(os.environ)
        e.pop("CUPLAY_BOARD_VERIFY", None)
        if stand_in:
            e["CUPLAY_BOARD_VERIFY"] = os.path.join(tmp, "verify.py")
        e["TMPDIR"] = os.path.join(tmp, "run")
        e.update(env or {})
        self.p = subprocess.Popen(
            [CUPLAY, "--board", "--port", "0", "--db", os.path.join(tmp, db),
             "--exercises", exercises or os.path.join(tmp, "ex"), "--gpus", gpus] + list(extra),
            stdout=subprocess.PIPE, stderr=open(os.path.join(tmp, "board.err"), "a"), env=e, text=True, cwd=ROOT)
        line = self.p.stdout.readline()
        m = re.match(r"board: (http://127\.0\.0\.1:\d+)/  teacher token: ([0-9a-f]{32})$", line.strip())
        if not m:
            self.p.kill()
            raise RuntimeError("the board did not start: %r" % line)
        self.url, self.teacher = m.group(1), m.group(2)

    def req(self, method, path, body=None, token=None, raw=None):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        r = urllib.request.Request(self.url + path, data=data, method=method)
        if token:
            r.add_header("Authorization", "Bearer " + token)
        if data is not None:
            r.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(r, timeout=20) as f:
                text = f.read().decode()
                return f.status, text, dict(f.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(), dict(e.headers)

    def js(self, method, path, body=None, token=None, raw=None):
        st, text, _ = self.req(method, path, body, token, raw)
        try:
            return st, json.loads(text)
        except ValueError:
            return st, text

    def wait_done(self, sid, token, limit=30):
        t0 = time.time()
        while time.time() - t0 < limit:
            st, j = self.js("GET", "/api/submissions/%d" % sid, token=token)
            if st == 200 and j["state"] == "done":
                return j
            time.sleep(0.1)
        return None

    def stop(self, sig=signal.SIGTERM):
        self.p.send_signal(sig)
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        if sig == signal.SIGTERM:
            stops.append(self.p.returncode)


def student(b, name):
    st, j = b.js("POST", "/api/students", {"name": name}, token=b.teacher)
    if st != 201:
        raise RuntimeError("no student %r: %s %s" % (name, st, j))
    return j["token"]


def submit(b, token, source, exercise="transpose"):
    return b.js("POST", "/api/submissions", {"exercise": exercise, "source": source, "file": "mine.cu"}, token=token)


def test_tokens(b, ada, bob):
    st, _ = b.js("POST", "/api/students", {"name": "x"})
    check("tokens: no token on a teacher route is 401", st == 401, st)
    st, _ = b.js("POST", "/api/students", {"name": "x"}, token="0" * 32)
    check("tokens: an unknown token is 401", st == 401, st)
    st, _ = b.js("POST", "/api/students", {"name": "x"}, token=ada)
    check("tokens: a student on a teacher route is 403", st == 403, st)
    st, _ = b.js("POST", "/api/exercises/transpose/close", token=ada)
    check("tokens: a student cannot close an exercise (403)", st == 403, st)
    st, _ = submit(b, None, "x")
    check("tokens: a submission without a token is 401", st == 401, st)
    st, _ = submit(b, b.teacher, "x")
    check("tokens: the teacher's token does not submit (403)", st == 403, st)
    st, j = submit(b, ada, "median=2.0")
    check("submit: 202 with an id, queued, a position", st == 202 and j.get("state") == "queued"
          and j.get("id", 0) > 0 and j.get("position", 0) >= 1, (st, j))
    sid = j.get("id", 0)
    st, _ = b.js("GET", "/api/submissions/%d" % sid, token=bob)
    check("tokens: another student's submission is 403", st == 403, st)
    st, _ = b.js("GET", "/api/submissions/%d" % sid)
    check("tokens: a submission without a token is 401 to read", st == 401, st)
    st, _ = b.js("GET", "/api/submissions/%d" % sid, token=b.teacher)
    check("tokens: the teacher reads any submission", st == 200, st)
    r = b.wait_done(sid, ada)
    check("submit: the result comes back, ok, ranked", r is not None and r["result"]["status"] == "ok"
          and r["rank"] == 1 and r["finished"] is not None, r)
    if r:
        args = r["result"]["args"]
        check("runner: --verify EXERCISE - --seed N --compile-only, in a private directory",
              args[0] == "--verify" and args[1].endswith("/ex/transpose.exercise") and args[2] == "-"
              and args[3] == "--seed" and args[4].isdigit() and args[5] == "--compile-only"
              and "/cuplay-verify-" in r["result"]["cwd"] and not os.path.exists(r["result"]["cwd"]), args)
    return sid


def test_errors(b, ada):
    st, j = b.js("POST", "/api/submissions", raw=b"{\"exercise\": ", token=ada)
    check("malformed JSON is 400 with an error", st == 400 and "error" in j, (st, j))
    st, j = b.js("POST", "/api/submissions", raw=b"\x00\xff{}", token=ada)
    check("a body with NUL bytes is 400", st == 400, (st, j))
    st, j = b.js("POST", "/api/submissions", {"exercise": "transpose"}, token=ada)
    check("a submission without source is 400", st == 400, (st, j))
    st, j = b.js("GET", "/api/health")
    check("the board stays up after malformed requests", st == 200 and j.get("ok") is True, (st, j))
    st, j = submit(b, ada, "x", exercise="nosuch")
    check("an unknown exercise is 404", st == 404, (st, j))
    st, j = submit(b, ada, "x", exercise="../etc")
    check("an exercise named with a path is 404", st == 404, (st, j))
    st, j = b.js("POST", "/api/exercises/transpose/close", token=b.teacher)
    check("the teacher closes an exercise", st == 200 and j.get("open") is False, (st, j))
    st, j = b.js("GET", "/api/exercises")
    check("the exercises list says closed, with the exercise's title; one that does not parse left out",
          st == 200 and {"name": "transpose", "title": "The transpose race", "open": False} in j
          and not any(x["name"] == "broken" for x in j), j)
    st, j = submit(b, ada, "x")
    check("a closed exercise is 409", st == 409, (st, j))
    st, j = b.js("POST", "/api/exercises/transpose/open", token=b.teacher)
    check("the teacher opens it again", st == 200 and j.get("open") is True, (st, j))
    st, j = b.js("POST", "/api/exercises/nosuch/open", token=b.teacher)
    check("opening an unknown exercise is 404", st == 404, (st, j))
    big = json.dumps({"exercise": "transpose", "source": "x" * (256 * 1024 + 10)}).encode()
    st, j = b.js("POST", "/api/submissions", raw=big, token=ada)
    check("a body over 256 KiB is 413", st == 413, (st, j))
    st, j = b.js("GET", "/api/nothing")
    check("an unknown route is 404", st == 404, (st, j))
    st, j = b.js("POST", "/api/students", {"name": "ada"}, token=b.teacher)
    check("a student's name taken twice is 409", st == 409, (st, j))


def test_rate(b):
    tok = student(b, "rapid")
    codes = [submit(b, tok, "median=9")[0] for _ in range(7)]
    check("rate: 6 a minute accepted, the 7th is 429", codes == [202] * 6 + [429], codes)


def test_escaping(b):
    tok = student(b, "<script>alert(1)</script>")
    st, j = submit(b, tok, "median=0.5")
    r = b.wait_done(j["id"], tok) if st == 202 else None
    st, text, hdr = b.req("GET", "/")
    check("page: a name with <script> shows as text; the exercise's title shown",
          st == 200 and "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "<script>alert" not in text
          and "The transpose race" in text, r)
    check("page: self-contained (no external assets) with a content policy",
          not re.search(r'(src|href)="(https?:)?//', text) and "default-src 'none'" in hdr.get("Content-Security-Policy", ""),
          hdr)
    st, j = b.js("GET", "/api/ranking/transpose")
    check("ranking: the JSON keeps the name as it is", st == 200 and any(x["student"] == "<script>alert(1)</script>" for x in j), j)


def test_ranking(b, ada, bob):
    ids = []
    for tok, src in ((bob, "median=1.2"), (bob, "median=0.9"), (ada, "median=3.0"), (ada, "WRONG median=0.1")):
        st, j = submit(b, tok, src)
        ids.append((j["id"], tok))
    for sid, tok in ids:
        b.wait_done(sid, tok)
    st, j = b.js("GET", "/api/ranking/transpose")
    mine = [x for x in j if x["student"] in ("ada", "bob")]
    check("ranking: best ok result per student, by median ascending; a wrong result not ranked",
          [(x["student"], x["median_ms"]) for x in mine] == [("bob", 0.9), ("ada", 2.0)]
          and all(x["gpu"] == "stand-in GPU" and x["host"] == "testhost" for x in mine), mine)
    ranks = [x["rank"] for x in j]
    check("ranking: ranks 1..n in one GPU kind", ranks == list(range(1, len(j) + 1)), ranks)
    st, j = b.js("GET", "/api/submissions/%d" % ids[3][0], token=ada)
    check("a wrong result is done, its reason kept, no rank", j["result"]["status"] == "wrong" and j["rank"] is None
          and j["result"]["reason"] == "element 7 is 3, not 4", j)
    best = [x for x in mine if x["student"] == "bob"][0]
    st, j = b.js("GET", "/api/submissions/%d" % ids[0][0], token=bob)
    check("a result beaten by its student's later one: no rank, the student's best named",
          j["rank"] is None and j["best"] == {"id": ids[1][0], "rank": best["rank"]}, j)
    st, j = b.js("GET", "/api/submissions/%d" % ids[1][0], token=bob)
    check("the student's best: its rank, and itself as the best", j["rank"] == best["rank"]
          and j["best"] == {"id": ids[1][0], "rank": best["rank"]}, j)
    st, j = b.js("GET", "/api/ranking/nosuch")
    check("ranking of an unknown exercise is 404", st == 404, st)


def test_speedup(b):
    a, c = student(b, "s1"), student(b, "s2")
    x = [submit(b, a, "RANKSPEEDUP speedup=1.5", "reduce")[1], submit(b, c, "RANKSPEEDUP speedup=4", "reduce")[1]]
    for j, tok in zip(x, (a, c)):
        b.wait_done(j["id"], tok)
    st, j = b.js("GET", "/api/ranking/reduce")
    check("ranking: by speedup descending where rank_by says so",
          [(r["student"], r["speedup"]) for r in j] == [("s2", 4), ("s1", 1.5)], j)


def test_failures(b):
    tok = student(b, "breaker")
    res = {}
    for src in ("GARBAGE", "NOLINE", "HANG"):
        st, j = submit(b, tok, src)
        res[src] = b.wait_done(j["id"], tok, limit=40)
    g, n, h = res["GARBAGE"], res["NOLINE"], res["HANG"]
    check("a verifier printing no JSON is 'crashed', the board goes on",
          g and g["result"]["status"] == "crashed" and "not JSON" in g["result"]["reason"], g)
    check("a verifier printing nothing is 'crashed' with its last stderr line",
          n and n["result"]["status"] == "crashed" and "the stand-in's own failure" in n["result"]["reason"], n)
    check("a verification that hangs is stopped at its limit ('timeout')",
          h and h["result"]["status"] == "timeout", h)


def test_events(b):
    tok = student(b, "live")
    got = []

    def listen():
        s = socket.create_connection(b.url[7:].split(":"), timeout=15)
        s.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while b"event: ranking" not in data:
            try:
                chunk = s.recv(4096)
            except socket.timeout:
                break
            if not chunk:
                break
            data += chunk
        got.append(data.decode(errors="replace"))
        s.close()

    t = threading.Thread(target=listen)
    t.start()
    time.sleep(0.5)
    submit(b, tok, "median=5", exercise="reduce")
    t.join(20)
    text = got[0] if got else ""
    check("events: a finished submission is an event naming its exercise",
          "text/event-stream" in text and 'event: ranking\ndata: {"exercise":"reduce"}\n\n' in text,
          text[-300:])


def test_restart(tmp, b, ada):
    acked = []
    for i in range(3):
        st, j = submit(b, student(b, "r%d" % i), "median=%d" % (i + 1))
        if st == 202:
            acked.append(j["id"])
    slow_tok = student(b, "slowpoke")
    st, j = submit(b, slow_tok, "SLOW median=0.7")
    slow = j["id"]
    t0 = time.time()
    while time.time() - t0 < 20:
        st, s = b.js("GET", "/api/submissions/%d" % slow, token=slow_tok)
        if s["state"] == "running":
            break
        time.sleep(0.1)
    check("restart: the slow submission is running before the kill", s["state"] == "running", s)
    teacher = b.teacher
    b.stop(signal.SIGKILL)
    b2 = Board(tmp, env={"BOARD_TEST_FAST": "1"})
    check("restart: the teacher's token is the same", b2.teacher == teacher, b2.teacher)
    missing = [i for i in acked if b2.js("GET", "/api/submissions/%d" % i, token=teacher)[0] != 200]
    check("restart: every acknowledged submission is there", not missing, missing)
    r = b2.wait_done(slow, slow_tok)
    check("restart: the submission in flight at the kill is run again", r is not None and r["result"]["status"] == "ok", r)
    st, j = b2.js("GET", "/api/ranking/transpose")
    check("restart: the ranking holds what was done before", any(x["student"] == "bob" for x in j), j)
    return b2


def test_real_verify(tmp):
    """cuplay --verify itself, compile-only, on the tests' quick exercise"""
    b = Board(tmp, exercises=os.path.join(ROOT, "tests/kernels/board"), stand_in=False, db="real.db")
    try:
        tok = student(b, "real")
        src = open(os.path.join(ROOT, "tests/kernels/board/tiled.cu")).read()
        good = submit(b, tok, src, exercise="quick")[1]
        typo = submit(b, tok, open(os.path.join(ROOT, "tests/kernels/board/typo.cu")).read(), exercise="quick")[1]
        g, t = b.wait_done(good["id"], tok, limit=120), b.wait_done(typo["id"], tok, limit=120)
        check("verify: a correct kernel compiled without a GPU is 'needs_gpu', run in a directory of its own",
              g and g["result"]["status"] == "needs_gpu" and g["result"]["kernel"] == "transpose_tiled", g)
        check("verify: a kernel with a mistake is 'compile_error'",
              t and t["result"]["status"] == "compile_error", t)
    finally:
        b.stop()


def test_gpu(tmp):
    """on GPU 0 (GPU=1): a correct kernel ranked with its GPU's name, a hang
    stopped by the verification and the queue going on"""
    global skipped
    if os.environ.get("GPU") != "1":
        skipped += 1
        print("board_server: GPU part skipped: no GPU")
        return
    b = Board(tmp, exercises=os.path.join(ROOT, "tests/kernels/board"), stand_in=False, db="gpu.db", gpus="0")
    try:
        tok = student(b, "gpu")
        k = os.path.join(ROOT, "tests/kernels/board")
        ids = [submit(b, tok, open(os.path.join(k, f)).read(), exercise="quick")[1]["id"]
               for f in ("tiled.cu", "hang.cu", "tiled.cu")]
        r = [b.wait_done(i, tok, limit=180) for i in ids]
        check("gpu: a correct kernel is ok, ranked, with the GPU's name and the host",
              r[0] and r[0]["result"]["status"] == "ok" and r[0]["rank"] == 1 and r[0]["result"]["gpu"]
              and r[0]["result"]["median_ms"] > 0, r[0])
        check("gpu: a hang is 'timeout', and the queue goes on",
              r[1] and r[1]["result"]["status"] == "timeout" and r[2] and r[2]["result"]["status"] == "ok", r[1:])
        st, j = b.js("GET", "/api/ranking/quick")
        check("gpu: the ranking holds the student once", st == 200 and len(j) == 1 and j[0]["student"] == "gpu", j)
    finally:
        b.stop()


def main():
    global skipped
    if not os.access(CUPLAY, os.X_OK):
        print("board_server: 0 passed, 1 failed, 0 skipped\nFAIL: no binary %s" % CUPLAY)
        return 1
    tmp = tempfile.mkdtemp(prefix="cuplay-board-test-")
    try:
        os.makedirs(os.path.join(tmp, "ex"))
        os.makedirs(os.path.join(tmp, "run"))
        for n in ("transpose", "reduce"):
            with open(os.path.join(tmp, "ex", n + ".exercise"), "w") as f:
                f.write(EXERCISE % (n, n))
        with open(os.path.join(tmp, "ex", "broken.exercise"), "w") as f:
            f.write("name broken\n")
        v = os.path.join(tmp, "verify.py")
        with open(v, "w") as f:
            f.write(STAND_IN)
        os.chmod(v, 0o755)
        probe = subprocess.run([CUPLAY, "--board", "--port", "0", "--db", os.path.join(tmp, "probe.db"),
                                "--exercises", "/nonexistent-folder"], capture_output=True, text=True)
        m = re.search(r"--board needs (.*), absent", probe.stderr)
        if m:
            skipped += 1
            print("board_server: skipped: cuplay was built without %s" % m.group(1))
            print("board_server: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
            return 0
        b = Board(tmp, extra=["--grace", "1"])
        try:
            ada, bob = student(b, "ada"), student(b, "bob")
            test_tokens(b, ada, bob)
            test_errors(b, ada)
            test_rate(b)
            test_escaping(b)
            test_ranking(b, ada, bob)
            test_speedup(b)
            test_failures(b)
            test_events(b)
            b = test_restart(tmp, b, ada)
        finally:
            b.stop()
        test_real_verify(tmp)
        test_gpu(tmp)
        err = open(os.path.join(tmp, "board.err")).read()
        check("the boards stopped by SIGTERM exit 0, no sanitizer report (leaks included)",
              stops == [0] * len(stops) and len(stops) >= 2 and "runtime error" not in err and "Sanitizer" not in err, (stops, err[-2000:]))
    except Exception as e:  # a test that could not go on is a failure, said
        try:
            err = open(os.path.join(tmp, "board.err")).read()[-3000:]
        except OSError:
            err = ""
        bad("board", repr(e) + "\n    the board said:\n" + err)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("board_server: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
