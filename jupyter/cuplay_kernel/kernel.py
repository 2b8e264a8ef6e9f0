"""The kernel: a cell holds cuplay commands, as at the prompt. A cell whose
first line is `%%file NAME.cu` is the kernel file NAME.cu: written to
kernels_src/ under the notebook's folder and loaded (`use`); `%%file
NAME.cuh` writes a header and loads nothing. `%summary [NAME]` says what a
replay says at its end (expectations held, failed, skipped) and fails where
an expectation or a command failed: the last cell of a lesson notebook."""
import json
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
from contextlib import contextmanager

from ipykernel.kernelbase import Kernel

from . import __version__

FILE_MAGIC = re.compile(r"^%%file[ \t]+(\S+)[ \t]*$")
FILE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*\.(cu|cuh)$")


LINES_HELD = 1024     # messages read ahead of the relay, at most
TEXT_BATCH = 1 << 16  # characters of consecutive text sent as one stream message


def cuplay_exe():
    return os.environ.get("CUPLAY") or "cuplay"


_NONE = object()  # no message held


class Cuplay:
    """`cuplay --serve` in a process group of its own, and the thread that
    reads its lines into a queue."""

    def __init__(self):
        args = [cuplay_exe(), "--serve"] + shlex.split(os.environ.get("CUPLAY_ARGS", ""))
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True)
        # bounded: a command that floods its output waits for the relay (as at
        # a terminal) rather than queueing without end, so that the rest of
        # its output after an interrupt is short
        self.lines = queue.Queue(maxsize=LINES_HELD)
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        self.next_id = 0
        ready = self.lines.get(timeout=60)
        if ready is None or ready.get("type") != "ready":
            raise RuntimeError("cuplay --serve did not start: " + "".join(self.stderr).strip())
        self.version = ready.get("version", "")

    def _read(self):
        for raw in self.proc.stdout:
            try:
                self.lines.put(json.loads(raw.decode("utf-8", "replace")))
            except ValueError:
                self.lines.put({"type": "text", "text": raw.decode("utf-8", "replace")})
        self.lines.put(None)

    def _read_err(self):
        for raw in self.proc.stderr:
            self.stderr.append(raw.decode("utf-8", "replace"))

    def send(self, **req):
        self.next_id += 1
        req["id"] = str(self.next_id)
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()
        return req["id"]

    def interrupt(self):
        """Ctrl-C, as the terminal sends it: to cuplay's process group."""
        try:
            os.killpg(self.proc.pid, signal.SIGINT)
        except ProcessLookupError:
            pass

    def stop(self):
        """Its input closed (it leaves, stopping its worker); then the
        whole group ended, so that no worker or compile outlives it."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                continue
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def byte_offset(text, chars):
    return len(text[:chars].encode("utf-8"))


def char_offset(text, nbytes):
    return len(text.encode("utf-8")[:nbytes].decode("utf-8", "ignore"))


class CuplayKernel(Kernel):
    implementation = "cuplay"
    implementation_version = __version__
    language = "cuplay"
    language_version = __version__
    language_info = {"name": "cuplay", "mimetype": "text/x-cuplay", "file_extension": ".session",
                     "codemirror_mode": "shell", "pygments_lexer": "bash"}
    banner = "cuplay: compile, run, check and time CUDA kernels"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.cuplay = None
        self.progress_id = 0
        # started now, on the main thread: cuplay ends with the thread that
        # started it (PR_SET_PDEATHSIG), and the first cell finds it ready
        try:
            self.cuplay = Cuplay()
        except (OSError, RuntimeError, queue.Empty):
            self.cuplay = None  # the first cell says why

    def _cuplay(self):
        if self.cuplay is None or self.cuplay.proc.poll() is not None:
            self.cuplay = Cuplay()
        return self.cuplay

    # ---- what cuplay sends, into Jupyter's messages ----

    def _stream(self, name, text):
        self.send_response(self.iopub_socket, "stream", {"name": name, "text": text})

    @contextmanager
    def _forwarding_interrupts(self, c):
        """Jupyter's interrupt (SIGINT to this process) passed on to cuplay
        while a request runs, instead of the KeyboardInterrupt ipykernel
        raises: raised between two messages (while one is being sent on,
        say) it would leave do_execute with no reply and the rest of the
        request's messages for the next cell to read."""
        if threading.current_thread() is not threading.main_thread():
            yield  # signals are the main thread's: KeyboardInterrupt, below
            return
        old = signal.signal(signal.SIGINT, lambda signum, frame: c.interrupt())
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, old)

    def _request(self, c, silent, on_reply=None, **req):
        """Sends one request and reads its messages up to its done marker."""
        with self._forwarding_interrupts(c):
            rid = c.send(**req)
            return self._answer(rid, silent, on_reply)

    def _answer(self, rid, silent, on_reply=None):
        """Reads the messages of request rid up to its done marker; shows
        text, displays, errors and progress as they come. Ctrl-C (Jupyter's
        interrupt) is passed on and the command's own end awaited. A message
        of another request (one an earlier cell left) is passed over."""
        c = self.cuplay
        errors = []
        progress = None
        held = _NONE  # a message read past a run of text, handled next
        while True:
            if held is not _NONE:
                m, held = held, _NONE
            else:
                try:
                    m = c.lines.get()
                except KeyboardInterrupt:
                    c.interrupt()
                    continue
            if m is not None and m.get("id", rid) != rid:
                continue
            if m is None:
                err = "".join(c.stderr).strip()
                code = c.proc.wait()
                msg = "cuplay stopped (exit status %s)%s" % (code, ": " + err if err else "")
                self.cuplay = None
                return {"status": "error", "failed": 1, "errors": [msg], "lost": True}
            t = m.get("type")
            if t == "done":
                if progress:
                    self.send_response(self.iopub_socket, "update_display_data",
                                       {"data": {"text/plain": ""}, "metadata": {},
                                        "transient": {"display_id": progress}})
                return {"status": m.get("status", "error"), "failed": m.get("failed", 0), "errors": errors}
            if on_reply and t in ("complete", "inspect"):
                on_reply(m)
            elif silent:
                if t == "error":
                    errors.append(m.get("text", ""))
            elif t == "text":
                # the text that has come since, sent with it: one message, not
                # one a line (a flood of lines would outrun the relay)
                parts = [m.get("text", "")]
                size = len(parts[0])
                while size < TEXT_BATCH:
                    try:
                        nxt = c.lines.get_nowait()
                    except queue.Empty:
                        break
                    if nxt is not None and nxt.get("type") == "text" and nxt.get("id", rid) == rid:
                        parts.append(nxt.get("text", ""))
                        size += len(parts[-1])
                    else:
                        held = nxt
                        break
                self._stream("stdout", "".join(parts))
            elif t == "error":
                errors.append(m.get("text", ""))
                self._stream("stderr", m.get("text", "") + "\n")
            elif t == "display":
                self.send_response(self.iopub_socket, "display_data",
                                   {"data": m.get("data", {}), "metadata": {}})
            elif t == "progress":
                content = {"data": {"text/plain": m.get("text", "")}, "metadata": {"cuplay": "progress"}}
                if progress is None:
                    self.progress_id += 1
                    progress = "cuplay-progress-%d" % self.progress_id
                    content["transient"] = {"display_id": progress}
                    self.send_response(self.iopub_socket, "display_data", content)
                else:
                    content["transient"] = {"display_id": progress}
                    self.send_response(self.iopub_socket, "update_display_data", content)

    def _kernel_file(self, name, body):
        """A `%%file NAME.cu` cell: the file written under kernels_src/; the
        cuplay lines that load it (none for a header)."""
        if not FILE_NAME.match(name):
            raise ValueError("%%%%file: '%s' is not a kernel file's name (NAME.cu or NAME.cuh, no folders)" % name)
        os.makedirs("kernels_src", exist_ok=True)
        path = os.path.join("kernels_src", name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(body if body.endswith("\n") or not body else body + "\n")
        return "use %s" % path if name.endswith(".cu") else None

    def do_execute(self, code, silent, store_history=True, user_expressions=None, allow_stdin=False):
        try:
            c = self._cuplay()
        except (OSError, RuntimeError, queue.Empty) as e:
            return self._failed(silent, "cuplay", "cannot start cuplay: %s" % e, [])
        first, _, body = code.partition("\n")
        stripped = code.strip()
        name = "In[%d]" % self.execution_count
        m = FILE_MAGIC.match(first.strip())
        if m:
            try:
                lines = self._kernel_file(m.group(1), body)
            except (OSError, ValueError) as e:
                return self._failed(silent, "cuplay", str(e), [])
            if lines is None:
                if not silent:
                    self._stream("stdout", "wrote kernels_src/%s\n" % m.group(1))
                return self._ok()
            req = {"type": "run", "code": lines, "name": ""}  # its errors name the file's lines
        elif stripped.startswith("%summary"):
            req = {"type": "summary", "name": stripped[len("%summary"):].strip()}
        else:
            req = {"type": "run", "code": code, "name": name}
        r = self._request(c, silent, **req)
        if r["status"] == "ok":
            return self._ok()
        if r["status"] == "interrupted":
            return self._failed(silent, "KeyboardInterrupt", "interrupted", r["errors"])
        if r.get("lost"):
            return self._failed(silent, "cuplay", r["errors"][0], [])
        n = r["failed"]
        what = r["errors"][0] if r["errors"] else "%d command%s failed" % (n, "" if n == 1 else "s")
        return self._failed(silent, "cuplay", what, r["errors"])

    def _ok(self):
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    def _failed(self, silent, ename, evalue, lines):
        tb = [evalue] if not lines or lines == [evalue] else lines
        if not silent:
            self.send_response(self.iopub_socket, "error",
                               {"ename": ename, "evalue": evalue, "traceback": tb})
        return {"status": "error", "execution_count": self.execution_count,
                "ename": ename, "evalue": evalue, "traceback": tb}

    def do_complete(self, code, cursor_pos):
        reply = {"matches": [], "cursor_start": cursor_pos, "cursor_end": cursor_pos,
                 "metadata": {}, "status": "ok"}
        try:
            c = self._cuplay()
        except (OSError, RuntimeError, queue.Empty):
            return reply

        def got(m):
            reply["matches"] = m.get("matches", [])
            reply["cursor_start"] = char_offset(code, m.get("start", 0))
            reply["cursor_end"] = char_offset(code, m.get("end", 0))

        self._request(c, True, got, type="complete", code=code, cursor=byte_offset(code, cursor_pos))
        return reply

    def do_inspect(self, code, cursor_pos, detail_level=0, omit_sections=()):
        reply = {"status": "ok", "found": False, "data": {}, "metadata": {}}
        try:
            c = self._cuplay()
        except (OSError, RuntimeError, queue.Empty):
            return reply

        def got(m):
            if m.get("found"):
                reply["found"] = True
                reply["data"] = {"text/plain": m.get("text", "")}

        self._request(c, True, got, type="inspect", code=code, cursor=byte_offset(code, cursor_pos))
        return reply

    def do_shutdown(self, restart):
        if self.cuplay is not None:
            self.cuplay.stop()
            self.cuplay = None
        return {"status": "ok", "restart": restart}
