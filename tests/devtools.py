"""tests/devtools.py: Chromium's DevTools protocol from the standard
library, for the tests that open a page in headless Chromium
(tests/jupyterlab.py, tests/board_page.py)."""
import base64
import json
import os
import socket
import struct


def free_port():
    """A TCP port on the loopback that nothing listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class DevTools:
    """Chromium's DevTools protocol over a WebSocket (RFC 6455, text
    frames, the client's masked), one command at a time."""

    def __init__(self, url):
        rest = url[len("ws://"):]
        hostport, path = rest.split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
                        % (path, hostport, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            c = self.s.recv(1)
            if not c:
                raise OSError("DevTools closed the connection")
            head += c
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise OSError("DevTools refused the WebSocket: %r" % head[:200])
        self.next = 0

    def _recv_exact(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise OSError("DevTools closed the connection")
            b += c
        return b

    def _send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytearray([0x81])
        if n < 126:
            head.append(0x80 | n)
        elif n < 65536:
            head.append(0x80 | 126)
            head += struct.pack(">H", n)
        else:
            head.append(0x80 | 127)
            head += struct.pack(">Q", n)
        self.s.sendall(bytes(head) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _recv(self):
        msg = b""
        while True:
            b0, b1 = self._recv_exact(2)
            n = b1 & 0x7f
            if n == 126:
                n = struct.unpack(">H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._recv_exact(8))[0]
            payload = self._recv_exact(n)
            op = b0 & 0x0f
            if op in (0x1, 0x0):
                msg += payload
                if b0 & 0x80:
                    return json.loads(msg.decode())
            elif op == 0x8:
                raise OSError("DevTools closed the WebSocket")

    def call(self, method, **params):
        self.next += 1
        self._send(json.dumps({"id": self.next, "method": method, "params": params}))
        while True:
            m = self._recv()
            if m.get("id") == self.next:
                if "error" in m:
                    raise OSError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        return r.get("result", {}).get("value")
