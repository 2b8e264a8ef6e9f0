#!/usr/bin/env python3
"""tests/board_mock.py: a stand-in for the class board's HTTP API (the
routes `submit` calls, as docs/formats.md and the board define them), for
tests/board.sh: prints its port, then serves until killed. Token "good" is a
student's; a submission is queued for two polls, runs for one, then is done
with the result of MOCK_RESULT (ok, wrong or hang: queued for ever). What it
received goes to the file MOCK_LOG, a JSON line a request."""
import http.server, json, os, sys

result = os.environ.get("MOCK_RESULT", "ok")
log = open(os.environ["MOCK_LOG"], "a")
polls = {}

RESULTS = {
    "ok": {"status": "ok", "reason": "every check passed", "kernel": "transpose_tiled", "median_ms": 0.2451,
           "lo_ms": 0.2448, "hi_ms": 0.2456, "baseline_ms": 0.6125, "speedup": 2.4990, "rank_by": "median_ms",
           "gpu": "NVIDIA H200", "host": "gpu1", "checks": [{"name": "N=8192, timed", "ok": True, "detail": "ok"},
                                                           {"name": "N=1000, fresh inputs", "ok": True, "detail": "ok"}]},
    "wrong": {"status": "wrong", "reason": "N=1000: 'out' differs", "kernel": "transpose_tiled", "median_ms": None,
              "lo_ms": None, "hi_ms": None, "baseline_ms": None, "speedup": None, "rank_by": "median_ms",
              "gpu": "NVIDIA H200", "host": "gpu1",
              "checks": [{"name": "N=8192, timed", "ok": True, "detail": "ok"},
                         {"name": "N=1000, fresh inputs", "ok": False,
                          "detail": "'out' differs from 'transpose' at index 1000: got 0, want 1.5"}]},
}


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def authed(self):
        return self.headers.get("Authorization") == "Bearer good"

    def do_GET(self):
        log.write(json.dumps({"method": "GET", "path": self.path}) + "\n"); log.flush()
        if not self.authed():
            return self.send(401, {"error": "no or bad token"})
        if self.path == "/api/exercises":
            return self.send(200, [{"name": "reduction", "title": "Sum", "open": True, "kernel": "reduce_warp"},
                                   {"name": "transpose", "title": "Transpose", "open": True, "kernel": "transpose_tiled"},
                                   {"name": "closed", "title": "Closed", "open": False, "kernel": "transpose_tiled"}])
        if self.path.startswith("/api/submissions/"):
            n = int(self.path.rsplit("/", 1)[1])
            polls[n] = polls.get(n, 0) + 1
            k = polls[n]
            sub = {"id": n, "student": "ada", "exercise": "transpose", "created": "now", "finished": None,
                   "position": 0, "result": None, "rank": None}
            if result == "hang" or k <= 2:
                sub.update(state="queued", position=3 - k if k <= 2 else 1)
            elif k == 3:
                sub.update(state="running")
            else:
                sub.update(state="done", result=RESULTS[result], rank=3 if result == "ok" else None)
            return self.send(200, sub)
        self.send(404, {"error": "no such route"})

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(n) or b"{}")
        log.write(json.dumps({"method": "POST", "path": self.path, "body": body}) + "\n"); log.flush()
        if not self.authed():
            return self.send(401, {"error": "no or bad token"})
        if self.path == "/api/submissions":
            return self.send(202, {"id": 12, "state": "queued", "position": 2})
        self.send(404, {"error": "no such route"})


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
