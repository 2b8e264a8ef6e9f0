#!/usr/bin/env python3
"""tests/board_load.py: the class board under load and killed: 20 clients
(threads, a student each) send 200 submissions in all; once half are
acknowledged the board is killed with SIGKILL and started again on the same
database and port while the clients go on (a submission whose request got
no answer is sent again, as a new attempt). Then every acknowledged
submission (202) is in the database once, with the source it was
acknowledged for, and reaches done with its result; no attempt is stored
twice; the database passes PRAGMA integrity_check. The verifier is a
stand-in (tests/board/verify_stand_in.sh through CUPLAY_BOARD_VERIFY) so
that the board, not a compiler, is measured; BOARD_LOAD_VERIFY=real runs
cuplay --verify in compile-only mode instead (slower). Prints "board_load:
N passed, N failed", or "board_load: skipped: ..." where cuplay has no board."""
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from board_lib import ROOT, Board, Counts, NoBoard  # noqa: E402

CLIENTS, TOTAL = 20, 200
c = Counts("board_load")


def source(student, k, attempt):
    return "// attempt %d-%d-%d // ms=%d.%d\n__global__ void transpose_tiled() {}\n" % (
        student, k, attempt, 1 + (student * 7 + k) % 9, k)


def client(b, student, token, per, acked, lost, lock, stop):
    """Sends `per` submissions, each until acknowledged; records the 202s."""
    for k in range(per):
        attempt = 0
        while not stop.is_set():
            src = source(student, k, attempt)
            st, j = b.submit(token, "transpose", src, "mine.cu")
            if st == 202 and j and isinstance(j.get("id"), int):
                with lock:
                    acked.append((j["id"], student, src))
                break
            if st == 0 or st >= 500:  # no answer (the board is down): a new attempt
                attempt += 1
                time.sleep(0.1)
            elif st == 429:  # over the student's rate: not acknowledged, sent again
                time.sleep(0.25)
            else:
                with lock:
                    lost.append((student, k, st, j))
                break


def db_rows(path):
    """integrity_check's answer and the sources stored, from the table that holds them."""
    con = sqlite3.connect(path)
    try:
        integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for t in tables:
            cols = [r[1] for r in con.execute("PRAGMA table_info(%s)" % t)]
            if "source" in cols and "id" in cols:
                return integrity, t, con.execute("SELECT id, source FROM %s" % t).fetchall()
        return integrity, None, []
    finally:
        con.close()


def main():
    work = tempfile.mkdtemp(prefix="cuplay-load-")
    env = {}
    if os.environ.get("BOARD_LOAD_VERIFY") != "real":
        env["CUPLAY_BOARD_VERIFY"] = os.path.join(ROOT, "tests", "board", "verify_stand_in.sh")
    args = ["--gpus", "none", "--jobs", "4", "--rate", "0"]  # no per-student limit: 10 each at once
    b = Board(work, args, env)
    try:
        b.start()
    except NoBoard as e:
        c.skipped("the board: %s" % e)
    t0 = time.time()
    acked, lost, lock, stop = [], [], threading.Lock(), threading.Event()
    try:
        b.open_exercise("transpose")
        tokens = [b.student("s%02d" % i) for i in range(CLIENTS)]
        threads = [threading.Thread(target=client, args=(b, i, tokens[i], TOTAL // CLIENTS, acked, lost, lock, stop))
                   for i in range(CLIENTS)]
        for t in threads:
            t.start()
        while len(acked) < TOTAL // 2 and any(t.is_alive() for t in threads) and time.time() - t0 < 120:
            time.sleep(0.01)
        before = len(acked)
        b.kill(9)
        token = b.token
        b.start()
        c.check(b.token == token, "the board killed with SIGKILL after %d acknowledged submissions starts again, "
                "the teacher's token the same" % before)
        for t in threads:
            t.join(timeout=max(1, 150 - (time.time() - t0)))
        stop.set()
        c.check(len(acked) == TOTAL and not lost, "%d clients: %d of %d submissions acknowledged" % (CLIENTS, len(acked), TOTAL),
                lost[:5])
        ids = [i for i, _, _ in acked]
        done = b.wait_done(ids, max(10, 200 - (time.time() - t0)))
        c.check(len(done) == len(ids), "every acknowledged submission reaches done (%d of %d)" % (len(done), len(ids)),
                sorted(set(ids) - set(done))[:10])
        badres = [(i, d.get("result")) for i, d in done.items() if not d.get("result") or not d["result"].get("status")]
        c.check(not badres, "each has its verify result", badres[:3])
        who = {i: s for i, s, _ in acked}
        wrong = [(i, d.get("student")) for i, d in done.items() if d.get("student") != "s%02d" % who[i]]
        c.check(not wrong, "each is its own student's", wrong[:3])
        st, health = b.api("GET", "/api/health")
        c.check(st == 200 and health and health.get("queued") == 0 and health.get("running") == 0,
                "the board's health after the run: nothing queued or running", health)
    finally:
        stop.set()
        b.stop()
    integrity, table, rows = db_rows(b.db)
    c.check(integrity == "ok", "the database passes PRAGMA integrity_check", integrity)
    stored = {}
    for i, src in rows:
        m = re.match(r"// attempt (\d+-\d+-\d+)", src or "")
        stored.setdefault(m.group(1) if m else src, []).append(i)
    twice = {k: v for k, v in stored.items() if len(v) > 1}
    c.check(table and not twice, "no attempt stored twice (%d rows in %s)" % (len(rows), table), list(twice.items())[:5])
    by_id = {i: src for i, src in rows}
    missing = [i for i, _, src in acked if by_id.get(i) != src]
    c.check(not missing, "every acknowledged submission is in the database with its source", missing[:10])
    print("board_load: %.1f s" % (time.time() - t0))
    if not c.failed:
        shutil.rmtree(work, ignore_errors=True)
    c.close()


main()
