"""A loopback proxy that lets the browser keep Parlor's pages in its back/forward cache.

Parlor sends its pages with `Cache-Control: no-store`, which keeps them out of Chromium's back/forward
cache on plain HTTP. Over HTTPS, browsers are starting to keep such pages too, and then every page a
person leaves stays alive with whatever it has open. This proxy passes bytes through unchanged except
that header, which it turns into `Cache-Control: private ` (same length, so every Content-Length still
holds), so the browser tests can see what a page does when it is kept.
"""

import socket
import threading

NO_STORE = b"Cache-Control: no-store"
KEPT = b"Cache-Control: private "


def _pump(source, target, rewrite):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data.replace(NO_STORE, KEPT) if rewrite else data)
    except OSError:
        pass
    finally:
        for each in (source, target):
            try:
                each.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class KeepInHistoryProxy:
    """Listens on 127.0.0.1 and an ephemeral port; forwards each connection to `port`."""

    def __init__(self, port):
        self.target = port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            upstream = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=_pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=_pump, args=(upstream, client, True), daemon=True).start()

    def close(self):
        self.listener.close()
