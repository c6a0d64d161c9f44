#!/usr/bin/env python3
"""Makes `one-to-one/`: a small Parlor database written by the `parlor` built from this checkout, through its web
front as people use it, kept in the repository so that later releases prove they open it with nothing lost
(`ReleaseDatabaseTests`). Made once, with the release of 2026-11-26 (one-to-one chats, before rooms); run again
only to make a database of a new release, into a folder of its own.

    swift build -c release --product parlor && python3 Tests/ReleaseDatabases/make-one-to-one.py

What it holds: Ana, Ben and Chloé (and Parlor Bot with its welcome chats); Ana's chats with Ben and with Chloé;
messages with a reply, an edit and a deletion; a photo from Ben, processed; Ana's avatar; Ben has read Ana's
messages, Chloé has not; a feed followed in Ana's chat with Chloé, whose newest item was posted. Everything
listens on 127.0.0.1 only and is stopped by PID."""
import http.client, http.server, os, re, shutil, signal, socket, sqlite3, struct, subprocess, sys, tempfile, threading, time, zlib
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PARLOR = os.environ.get("PARLOR_BINARY", os.path.join(ROOT, ".build", "release", "parlor"))
OUT = os.path.join(HERE, "one-to-one")

FEED = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Parlor News</title><link>https://example.org/</link>
<item><title>Rooms are coming</title><link>https://example.org/rooms</link><pubDate>Thu, 26 Nov 2026 09:00:00 GMT</pubDate></item>
<item><title>Photos in messages</title><link>https://example.org/photos</link><pubDate>Wed, 25 Nov 2026 09:00:00 GMT</pubDate></item>
</channel></rss>"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def png(width, height, rgb):
    """A small true-colour PNG of one colour."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


class Person:
    """A browser without JavaScript: cookies, the last page's CSRF and composer tokens, forms."""

    def __init__(self, port):
        self.port, self.cookies, self.csrf, self.token = port, {}, "", ""

    def request(self, method, path, body=None, content_type=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in sorted(self.cookies.items()))
        if content_type:
            headers["Content-Type"] = content_type
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                pair = value.split(";", 1)[0].split("=", 1)
                self.cookies[pair[0]] = pair[1] if len(pair) > 1 else ""
        for field in ("csrf", "token"):
            found = re.search(rf'name="{field}" value="([^"]*)"', text)
            if found:
                setattr(self, field, found.group(1))
        connection.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, text

    def post(self, path, fields, expect=303):
        status, headers, text = self.request("POST", path, urllib.parse.urlencode([("csrf", self.csrf)] + fields),
                                             "application/x-www-form-urlencoded")
        if status != expect:
            raise SystemExit(f"POST {path} answered {status}: {text[:300]}")
        return headers.get("location", "")

    def upload(self, path, fields, file_field, filename, data):
        boundary = "parlor-release-database"
        parts = []
        for name, value in [("csrf", self.csrf)] + list(fields):
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{filename}"\r\n'
                     f'Content-Type: image/png\r\n\r\n'.encode() + data + b"\r\n")
        parts.append(f"--{boundary}--\r\n".encode())
        status, headers, text = self.request("POST", path, b"".join(parts),
                                             f"multipart/form-data; boundary={boundary}")
        if status != 303:
            raise SystemExit(f"upload to {path} answered {status}: {text[:300]}")
        return headers.get("location", "")

    def sign_up(self, handle, name):
        self.request("GET", "/signup")
        self.post("/signup", [("handle", handle), ("displayName", name), ("password", "correct horse battery"), ("timeZone", "Europe/Paris")])

    def start_chat(self, handle):
        self.request("GET", "/chats/new")
        return self.post("/chats/new", [("handle", handle)])

    def say(self, chat, text, reply_to=None):
        self.request("GET", chat)
        fields = [("body", text), ("token", self.token)] + ([("replyTo", reply_to)] if reply_to else [])
        location = self.post(chat + "/messages", fields)
        return location.rsplit("#message-", 1)[1]


def eventually(check, what, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise SystemExit(f"gave up waiting for {what}")


def main():
    if not os.path.exists(PARLOR):
        raise SystemExit(f"no {PARLOR}: swift build -c release --product parlor")
    folder = tempfile.mkdtemp(prefix="parlor-release-db-")
    feed_port, port = free_port(), free_port()

    class Feed(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/rss+xml")
            self.send_header("Content-Length", str(len(FEED)))
            self.end_headers()
            self.wfile.write(FEED)

        def log_message(self, *args):
            pass

    feed_server = http.server.HTTPServer(("127.0.0.1", feed_port), Feed)
    threading.Thread(target=feed_server.serve_forever, daemon=True).start()
    database = os.path.join(folder, "parlor.sqlite")
    server = subprocess.Popen([
        PARLOR, "serve", "--host", "127.0.0.1", "--port", str(port), "--database", database,
        "--public", os.path.join(ROOT, "Public"), "--templates", os.path.join(ROOT, "Templates"),
        "--bot-read-delay", "0", "--bot-reply-delay", "0", "--feed-allow-loopback", "--feed-port", str(feed_port), "--feed-round", "1",
    ], stdout=subprocess.DEVNULL, stderr=open(os.path.join(folder, "parlor.log"), "wb"), preexec_fn=os.setpgrp)
    try:
        eventually(lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, "parlor to listen")
        ana, ben, chloe = Person(port), Person(port), Person(port)
        ana.sign_up("ana", "Ana Lima")
        ben.sign_up("ben", "Ben Okafor")
        chloe.sign_up("chloe", "Chloé Martin")
        with_ben = ana.start_chat("ben")
        with_chloe = ana.start_chat("chloe")
        lunch = ana.say(with_ben, "Lunch at noon? https://example.org/menu")
        ben.say(with_ben, "Yes, see you there", reply_to=lunch)
        typo = ana.say(with_ben, "Bring the keys, plase")
        ana.request("GET", f"{with_ben}?edit={typo}")
        ana.post(f"{with_ben}/messages/{typo}", [("body", "Bring the keys, please")])
        wrong = ana.say(with_ben, "Wrong chat, sorry")
        ana.request("GET", f"{with_ben}?delete={wrong}")
        ana.post(f"{with_ben}/messages/{wrong}/delete", [])
        ben.request("GET", with_ben)
        ben.upload(with_ben + "/messages", [("body", "Our office"), ("token", ben.token)], "photo", "office.png", png(64, 48, (40, 120, 200)))
        eventually(lambda: "/thumbnail" in ben.request("GET", with_ben)[2], "the photo to be processed")
        ana.request("GET", "/settings")
        ana.upload("/settings/avatar", [], "avatar", "ana.png", png(96, 96, (200, 80, 60)))
        ana.say(with_chloe, "Chloé, the report is ready")
        ana.request("GET", with_chloe + "/feeds")
        ana.post(with_chloe + "/feeds", [("url", f"http://127.0.0.1:{feed_port}/feed.xml")])
        eventually(lambda: "Rooms are coming" in ana.request("GET", with_chloe)[2], "the feed's items to be posted")
        # Ben reads everything Ana sent; Chloé reads nothing.
        ben.request("GET", with_ben)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        feed_server.shutdown()
    # One file: the write-ahead log folded in.
    connection = sqlite3.connect(database)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    shutil.copy(database, os.path.join(OUT, "parlor.sqlite"))
    shutil.copytree(os.path.join(folder, "media"), os.path.join(OUT, "media"))
    shutil.rmtree(folder, ignore_errors=True)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
