#!/usr/bin/env python3
"""The paths a person feels, measured whole: the real `parlor serve` (release) on a real SQLite file filled
through the app, against a baseline measured in the same run.

usage: python3 Benchmarks/composed.py page [--rounds 3] [--seconds 10] [--connections 32] [--no-cache] [--screen chats] [--reactions 3]
       python3 Benchmarks/composed.py send [--seconds 10] [--connections 64]

page: GET /rooms/{id} signed in (50 chats in the list, a conversation of 50 messages open), with wrk, side by
      side with the C libmicrohttpd baseline (baseline/static.c) serving the same bytes; rounds interleaved.
      Prints requests/s, the ratio to C, and server CPU microseconds per request for both. --no-cache: the page
      cache off, so every page is read from the store and built (as after any change), for /chats (50 chats)
      and the conversation; --screen chats: the chat list alone; --reactions N: every message of the conversation
      carries N reactions (the viewer's, so each is pressed and named "You").
send: POST /rooms/{id}/messages as the page script sends them, from N connections, while both members' pages
      stream; against the store's own acknowledged rate (parlor-store-bench --sends) measured in the same run.
      Prints sends/s, the ratio, the POST p50/p99, and checks that every page got every send once and in order.
room: one room of --members people (500; the open room everyone joins), each with one open page, random members
      sending --rate messages a second; the same measures and baseline as pages.
pages: one chat, --pages open pages (500) split between its two members, --rate messages a second (20) on a
      schedule; Send -> page p50/p99 over every delivery and server CPU per delivery, against the C broadcaster
      (baseline/sse.c with baseline/sseload.c) fanning as many broadcasts out to as many streams in the same run.
photos: a 12-megapixel JPEG sent in messages by four senders at once, each --rounds photos, through the whole
      path (multipart upload, header check, the message stored pending, libvips in the image worker, the
      versions stored, the cell pushed); photos/s until the last is ready, the POST p50/p99 (what Send takes),
      and the server's peak memory over the run (VmHWM, reset before it) against its memory before. Baseline
      in the same run: vipsthumbnail making the same two files per photo, one process per file.
Every server listens on 127.0.0.1 only and is stopped by PID."""
import argparse, http.client, json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time
import asyncio, sqlite3, urllib.parse
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
PARLOR = os.environ.get("PARLOR_BINARY", os.path.join(ROOT, ".build", "release", "parlor"))
STORE_BENCH = os.path.join(HERE, ".build", "release", "parlor-store-bench")

sys.path.insert(0, HERE)
from bench import wait_port, cpu_seconds, Server  # noqa: E402


class LoggingServer(Server):
    """A server whose log goes to a file: a pipe nobody reads would fill and stop it mid-run."""

    def __init__(self, name, port, command, log):
        super().__init__(name, port, command)
        self.log = log

    def __enter__(self):
        self.log_file = open(self.log, "wb")
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=self.log_file,
                                        preexec_fn=lambda: os.setpgrp())
        if not wait_port(self.port):
            self.process.kill()
            raise SystemExit(f"{self.name} did not start; see {self.log}")
        return self

    def __exit__(self, *exc):
        super().__exit__(*exc)
        self.log_file.close()


class Visitor:
    """A person in a browser without JavaScript: cookies, the CSRF token of the last page, forms."""

    def __init__(self, port):
        self.port, self.cookies, self.csrf, self.token = port, {}, "", ""

    def request(self, method, path, fields=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        body = None
        sent = dict(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in sorted(self.cookies.items()))
        if fields is not None:
            body = urllib.parse.urlencode([("csrf", self.csrf)] + fields)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                pair = value.split(";", 1)[0].split("=", 1)
                self.cookies[pair[0]] = pair[1] if len(pair) > 1 else ""
        for field, attribute in (("csrf", "csrf"), ("token", "token")):
            found = re.search(rf'name="{field}" value="([^"]*)"', text)
            if found:
                setattr(self, attribute, found.group(1))
        connection.close()
        return response.status, dict((k.lower(), v) for k, v in response.getheaders()), text

    def sign_up(self, handle, name):
        self.request("GET", "/signup")
        status, headers, _ = self.request("POST", "/signup", [("handle", handle), ("displayName", name),
                                                             ("password", "correct horse battery")])
        if status != 303:
            raise SystemExit(f"sign-up of {handle} answered {status}")

    def start_chat(self, handle):
        self.request("GET", "/chats/new")
        status, headers, _ = self.request("POST", "/chats/new", [("handle", handle)])
        if status != 303:
            raise SystemExit(f"chat with {handle} answered {status}")
        return headers["location"]

    def say(self, chat, text):
        self.request("GET", chat)
        status, _, _ = self.request("POST", chat + "/messages", [("body", text), ("token", self.token)])
        if status != 303:
            raise SystemExit(f"send to {chat} answered {status}")


def drain(pages):
    """Waits (at most 60 s) until no page has received a byte for two seconds, then stops them (parsing while
    reading would hold the readers up and make them the slow clients the server cuts off)."""
    deadline, last, quiet = time.time() + 60, -1, 0
    while time.time() < deadline and quiet < 4:
        time.sleep(0.5)
        total = sum(p.received() for p in pages)
        quiet = quiet + 1 if total == last else 0
        last = total
    for page in pages:
        page.stop()


def start_parlor(port, folder, extra=()):
    return LoggingServer("Parlor", port, [
        PARLOR, "serve", "--host", "127.0.0.1", "--port", str(port), "--database", os.path.join(folder, "parlor.sqlite"),
        "--public", os.path.join(ROOT, "Public"), "--templates", os.path.join(ROOT, "Templates"),
        "--threads", "2", "--bot-read-delay", "0", "--bot-reply-delay", "0", *extra,
        # More flags for a comparison (PARLOR_ARGS="--malloc-arenas 0").
        *os.environ.get("PARLOR_ARGS", "").split(),
    ], os.path.join(folder, "parlor.log"))


def fill(port, chats=50, conversation=50):
    """One viewer with `chats` contacts, a few messages each, and one conversation of `conversation` messages."""
    viewer = Visitor(port)
    viewer.sign_up("viewer", "Vera Viewer")
    open_chat = None
    for index in range(chats):
        contact = Visitor(port)
        handle = f"contact{index:02d}"
        contact.sign_up(handle, f"Contact {index:02d} Lastname")
        chat = contact.start_chat("viewer")
        count = conversation if index == 0 else 3
        for n in range(count):
            (contact if n % 2 == 0 else viewer).say(chat, f"Message {n} in chat {index}: see https://example.org/{n} and more words")
        if index == 0:
            open_chat = chat
    viewer.request("GET", "/chats")
    return viewer, open_chat


def wrk(port, path, cookie, seconds, connections):
    out = subprocess.run(["timeout", str(seconds + 20), "wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
                          "-H", f"Cookie: {cookie}", f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)
    return rps, requests, int(non2xx.group(1)) if non2xx else 0, p99


REACTIONS = ["👍", "🎉", "+1", "👀", "ship it", "❤️", "✅", "😂"]


def react_to_every_message(viewer, chat, count):
    """`count` reactions on every message the conversation shows, given by the viewer."""
    _, _, page = viewer.request("GET", chat)
    ids = re.findall(r'<li class="message[^"]*" id="message-(\d+)"', page)
    for message in ids:
        for text in REACTIONS[:count]:
            status, _, _ = viewer.request("POST", f"{chat}/messages/{message}/reactions", [("reaction", text)])
            if status != 303:
                raise SystemExit(f"reaction to {message} answered {status}")
    return len(ids)


def page_benchmark(rounds, seconds, connections, no_cache=False, screens=("conversation",), reactions=0):
    """Each screen against C serving its bytes, rounds interleaved. `no_cache`: Parlor runs with
    --page-cache-megabytes 0, so every page is read from the store, built and rendered, as after a change."""
    folder = tempfile.mkdtemp(prefix="parlor-page-bench-")
    extra = ["--log-level", "info"] + (["--page-cache-megabytes", "0"] if no_cache else [])
    try:
        with start_parlor(18280, folder, extra) as parlor:
            viewer, chat = fill(18280)
            if reactions:
                reacted = react_to_every_message(viewer, chat, min(reactions, len(REACTIONS)))
                print(f"{reacted} messages with {min(reactions, len(REACTIONS))} reactions each")
            cookie = "; ".join(f"{k}={v}" for k, v in viewer.cookies.items())
            for screen in screens:
                path = chat if screen == "conversation" else "/chats"
                status, _, page = viewer.request("GET", path)
                assert status == 200, status
                body_file = os.path.join(OUT, f"{screen}-page.html")
                with open(body_file, "w") as f:
                    f.write(page)
                cache = "page cache off: built from the store each time" if no_cache else "page cache on"
                print(f"\npage ({screen}): GET {path} signed in, {len(page.encode())} bytes, {cache}, wrk -t2 -c{connections}, {seconds}s x {rounds} rounds")
                with Server("C", 18281, [os.path.join(OUT, "static"), "epoll2", "18281", body_file]) as c_server:
                    results = {"C libmicrohttpd, same bytes": [], "Parlor, real page": []}
                    for _ in range(rounds):
                        for name, server, target in (("C libmicrohttpd, same bytes", c_server, "/"), ("Parlor, real page", parlor, path)):
                            before = cpu_seconds(server.process.pid)
                            rps, requests, non2xx, p99 = wrk(server.port, target, cookie, seconds, connections)
                            cpu = cpu_seconds(server.process.pid) - before
                            if non2xx:
                                raise SystemExit(f"{name}: {non2xx} answers were not 2xx")
                            results[name].append((rps, cpu * 1e6 / max(requests, 1), p99))
                base = statistics.median(r[0] for r in results["C libmicrohttpd, same bytes"])
                print(f"{'server':32} {'req/s (median)':>15} {'ratio':>7} {'CPU µs/req':>11}  p99 per round")
                for name, rows in results.items():
                    rps = statistics.median(r[0] for r in rows)
                    cpu = statistics.median(r[1] for r in rows)
                    print(f"{name:32} {rps:15,.0f} {rps / base:7.3f} {cpu:11.1f}  {' '.join(r[2] for r in rows)}")
                with open(os.path.join(OUT, f"page-{screen}{'-no-cache' if no_cache else ''}.json"), "w") as f:
                    json.dump(results, f, indent=1)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class StreamReader(threading.Thread):
    """Holds one page's event stream open and keeps every byte it receives. When the server closes the
    stream (a page that reads too slowly is cut off), it reconnects with the last event id it has, as a
    browser's EventSource does, and the server must go on from there: nothing lost, nothing twice."""

    def __init__(self, port, path, cookie):
        super().__init__(daemon=True)
        self.port, self.path, self.cookie = port, path, cookie
        self.connections = []  # the bytes of each connection, in order
        self.reconnects = 0
        self.stopped = False
        self.socket = self.connect(None)

    def connect(self, last_event_id):
        sock = socket.create_connection(("127.0.0.1", self.port))
        resume = f"Last-Event-ID: {last_event_id}\r\n" if last_event_id else ""
        sock.sendall((f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                      f"Cookie: {self.cookie}\r\n{resume}\r\n").encode())
        sock.settimeout(0.5)
        self.connections.append(bytearray())
        return sock

    def received(self):
        return sum(len(c) for c in self.connections)

    def run(self):
        while not self.stopped:
            try:
                chunk = self.socket.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError:
                chunk = b""
            if self.stopped:
                break
            if chunk:
                self.connections[-1] += chunk
                continue
            last = self.last_event_id()
            self.socket.close()
            if self.reconnects >= 50:
                break
            self.reconnects += 1
            time.sleep(0.05)
            self.socket = self.connect(last)

    def last_event_id(self):
        ids = re.findall(rb"^id: ?(\S+)$", b"".join(self.stream_body(c) for c in self.connections), re.M)
        return ids[-1].decode() if ids else None

    @staticmethod
    def stream_body(data):
        """One connection's event stream, with the HTTP head and the chunked framing taken off."""
        data = bytes(data)
        head_end = data.find(b"\r\n\r\n")
        if head_end < 0:
            return b""
        at, body = head_end + 4, bytearray()
        while True:
            line_end = data.find(b"\r\n", at)
            if line_end < 0:
                break
            size = int(data[at:line_end].split(b";")[0] or b"0", 16)
            if size == 0 or len(data) < line_end + 2 + size:
                break
            body += data[line_end + 2:line_end + 2 + size]
            at = line_end + 4 + size
        return bytes(body)

    def body(self):
        """Every connection's event stream, one after the other."""
        return b"".join(self.stream_body(c) for c in self.connections)

    def appended_messages(self):
        """Message ids in the order this page was told to append them (cells and day sections)."""
        text = self.body().decode("utf-8", "replace")
        ids = []
        for envelope in re.finditer(r'<parlor-stream action="append" target="[^"]*"><template>(.*?)</template></parlor-stream>', text, re.S):
            ids += [int(n) for n in re.findall(r'id="message-(\d+)"', envelope.group(1))]
        return ids

    def stop(self):
        self.stopped = True
        self.socket.close()


SEND_SCRIPT = """
-- `prefix` is set per thread by setup(): a global of that thread's Lua state, so every token is unique.
local counter = 0
threads = 0
function setup(thread)
  thread:set("prefix", threads)
  threads = threads + 1
end
request = function()
  counter = counter + 1
  local token = "w" .. prefix .. "n" .. counter
  return wrk.format("POST", path, nil, "csrf=" .. csrf .. "&body=" .. token .. "&token=" .. token)
end
"""


def store_rate():
    out = subprocess.run([STORE_BENCH, "--sends"], capture_output=True, text=True).stdout
    rates = [float(r) for r in re.findall(r"= (\d+) messages/s", out)]
    return statistics.median(rates), out


def send_benchmark(seconds, connections):
    folder = tempfile.mkdtemp(prefix="parlor-send-bench-")
    try:
        print(f"\nstore alone: parlor-store-bench --sends (64 concurrent senders, the same SQLite settings)")
        store, _ = store_rate()
        with start_parlor(18380, folder, ["--log-level", "warning", "--metrics-address", "127.0.0.1"]) as parlor:
            ana, ben = Visitor(18380), Visitor(18380)
            ana.sign_up("ana", "Ana Lima")
            ben.sign_up("ben", "Ben Okafor")
            chat = ana.start_chat("ben")
            chat_id = chat.rsplit("/", 1)[1]
            ana.request("GET", chat)
            ben.request("GET", chat)
            pages = []
            for visitor in (ana, ben):
                cookie = "; ".join(f"{k}={v}" for k, v in visitor.cookies.items())
                for _ in range(2):  # two open pages each
                    reader = StreamReader(18380, f"/events?chat={chat_id}", cookie)
                    reader.start()
                    pages.append(reader)
            time.sleep(1)
            script = os.path.join(folder, "send.lua")
            with open(script, "w") as f:
                f.write(f'path = "{chat}/messages"\ncsrf = "{ana.csrf}"\n' + SEND_SCRIPT)
            cookie = "; ".join(f"{k}={v}" for k, v in ana.cookies.items())
            profiler = None
            if os.environ.get("PARLOR_PROFILE"):
                profiler = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-g", "-p", str(parlor.process.pid), "-o",
                                             os.environ["PARLOR_PROFILE"], "--", "sleep", str(seconds)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            batches_before = live_batches(18380)
            before = cpu_seconds(parlor.process.pid)
            out = subprocess.run(["timeout", str(seconds + 30), "wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
                                  "-s", script, "-H", f"Cookie: {cookie}", "-H", "Content-Type: application/x-www-form-urlencoded",
                                  "-H", "X-Parlor-Script: 1", f"http://127.0.0.1:18380{chat}/messages"], capture_output=True, text=True).stdout
            cpu = cpu_seconds(parlor.process.pid) - before
            if profiler:
                profiler.wait()
            rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
            requests = int(re.search(r"(\d+) requests in", out).group(1))
            non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
            p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)
            p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)
            # Every page gets every stored message: wait for the fan-out to drain.
            drain(pages)
            seen = [page.appended_messages() for page in pages]
            batches = [after - before for after, before in zip(live_batches(18380), batches_before)]
        failed = int(non2xx.group(1)) if non2xx else 0
        print(f"\nsend: POST {chat}/messages as the script sends them, wrk -t2 -c{connections}, {seconds}s; "
              f"2 pages of each member streaming")
        print(f"{'':28} {'sends/s':>10} {'ratio':>7}")
        print(f"{'store alone (median round)':28} {store:10,.0f} {1:7.3f}")
        print(f"{'Parlor over HTTP':28} {rps:10,.0f} {rps / store:7.3f}   POST p50 {p50}, p99 {p99}, "
              f"server CPU {cpu * 1e6 / max(requests, 1):.0f} µs/send, {failed} not 2xx")
        # How many events the live pages took at a time: more per batch is less drawing per message (a chat's row
        # and badge once per batch), so a change in the ratio may be a change in batching rather than in work.
        print(f"{'':28} live: {batches[1]:,.0f} events in {batches[0]:,.0f} batches, {batches[1] / max(batches[0], 1):.2f} per batch")
        ok = True
        for index, ids in enumerate(seen):
            once = len(ids) == len(set(ids))
            ordered = ids == sorted(ids)
            complete = len(set(ids)) >= requests - failed
            ok = ok and once and ordered and complete
            refreshes = pages[index].body().count(b'action="refresh"')
            print(f"  page {index + 1}: {len(ids)} appended, each once: {once}, in order: {ordered}, "
                  f"all {requests - failed}: {complete}, reconnects: {pages[index].reconnects}, refreshes: {refreshes}")
        with open(os.path.join(OUT, "send.json"), "w") as f:
            json.dump({"store": store, "parlor": rps, "p50": p50, "p99": p99, "requests": requests, "failed": failed,
                       "cpu_us": cpu * 1e6 / max(requests, 1), "events_per_batch": batches[1] / max(batches[0], 1),
                       "pages": [len(ids) for ids in seen], "ok": ok}, f, indent=1)
        if not ok:
            raise SystemExit(f"send: a page missed a message, got one twice, or out of order (log: {folder}/parlor.log)")
        shutil.rmtree(folder, ignore_errors=True)
    except BaseException:
        print(f"send: kept {folder} (the server's log and database) for a look")
        raise


def live_batches(port):
    """The live pages' batches so far and the events in them, from /metrics (the server allows 127.0.0.1)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    connection.close()
    def total(name):
        return sum(float(m.group(1)) for m in re.finditer(rf"^{name}(?:\{{[^}}]*\}})? (\S+)$", text, re.M))
    return total("parlor_fanout_duration_seconds_count"), total("parlor_fanout_events_total")


def fill_pairs(port, chats):
    """`chats` chats of two new people each; returns, per chat, its path and id and each member's cookie and token."""
    def pair(index):
        first, second = Visitor(port), Visitor(port)
        first.sign_up(f"sender{index:04d}", f"Sender {index}")
        second.sign_up(f"reader{index:04d}", f"Reader {index}")
        chat = first.start_chat(f"reader{index:04d}")
        first.request("GET", chat)
        second.request("GET", chat)
        cookie = lambda v: "; ".join(f"{k}={v}" for k, v in v.cookies.items())
        return {"path": chat, "id": chat.rsplit("/", 1)[1], "sender": cookie(first), "csrf": first.csrf, "reader": cookie(second)}
    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(pair, range(chats)))


TOKEN = re.compile(rb"fz(\d+)x(\d+)z")


async def read_stream(port, path, cookie, pattern, seen, stop, last_byte, on_chunk=None):
    """Holds one page's event stream until `stop`, noting in `seen` when each `pattern` match first came
    (`last_byte[0]`: when any byte last came; `on_chunk(tail, chunk)`: for what else a caller counts).
    Returns whether the server closed the stream."""
    loop = asyncio.get_running_loop()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nCookie: {cookie}\r\n\r\n").encode())
    tail = b""
    try:
        while not stop.is_set():
            try:
                chunk = await asyncio.wait_for(reader.read(1 << 16), 0.5)
            except asyncio.TimeoutError:
                continue
            if not chunk:
                return True
            if on_chunk:
                on_chunk(tail, chunk)
            now = loop.time()
            last_byte[0] = now
            for match in pattern.finditer(tail + chunk):
                seen.setdefault(match.group(0), now)
            tail = chunk[-32:]
        return False
    finally:
        writer.close()


async def post_message(reader, writer, path, cookie, csrf, token):
    """Sends `token` as a message to the chat at `path` as the page script does, on an open connection, and
    answers the status once the whole answer is read."""
    body = b"csrf=" + csrf.encode() + b"&body=" + token + b"&token=" + token
    writer.write((f"POST {path}/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n"
                  f"X-Parlor-Script: 1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                  f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    head = await reader.readuntil(b"\r\n\r\n")
    length = re.search(rb"(?i)content-length: *(\d+)", head)
    if length:
        await reader.readexactly(int(length.group(1)))
    return int(head.split(b" ", 2)[1])


async def fanout_round(port, pairs, seconds, first):
    """Every chat's sender posts as fast as its answers come, each on its own connection, while both members'
    pages stream; returns when every page has been quiet for two seconds after the last send. Message numbers
    start at `first`: a token sent in an earlier round would be taken as that message sent again."""
    loop = asyncio.get_running_loop()
    sent = {}      # token -> time its POST started
    seen = []      # per page: token -> first time it appeared in the stream
    readers = []
    stop = asyncio.Event()
    last_byte = [loop.time()]
    troubles = []  # per page: refreshes received, whether the server closed the stream

    async def read(index, path, cookie):
        def count_refreshes(tail, chunk):
            troubles[index][0] += (tail + chunk).count(b'action="refresh"') - tail.count(b'action="refresh"')
        troubles[index][1] = await read_stream(port, path, cookie, TOKEN, seen[index], stop, last_byte, count_refreshes)

    for pair in pairs:
        for who in ("sender", "reader"):
            seen.append({})
            troubles.append([0, False])
            readers.append(asyncio.create_task(read(len(seen) - 1, f"/events?chat={pair['id']}", pair[who])))
    await asyncio.sleep(3)  # every page registered and sent its first state

    deadline = loop.time() + seconds
    failures = [0]

    async def send(index, pair):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        n = first
        while loop.time() < deadline:
            n += 1
            token = f"fz{index}x{n}z".encode()
            sent[token] = loop.time()
            status = await post_message(reader, writer, pair["path"], pair["sender"], pair["csrf"], token)
            if status >= 300:
                failures[0] += 1
        writer.close()

    started = loop.time()
    await asyncio.gather(*(send(index, pair) for index, pair in enumerate(pairs)))
    sending = loop.time() - started
    while loop.time() - last_byte[0] < 2 and loop.time() - started < seconds + 60:
        await asyncio.sleep(0.25)
    stop.set()
    await asyncio.gather(*readers, return_exceptions=True)

    latencies, deliveries, complete, last = [], 0, True, started
    for index, page in enumerate(seen):
        chat = index // 2
        mine = {t for t in sent if t.startswith(f"fz{chat}x".encode())}
        got = mine & page.keys()
        deliveries += len(got)
        complete = complete and got == mine
        if got != mine:
            print(f"  page {index} ({'reader' if index % 2 else 'sender'} of chat {chat}): {len(mine - got)} of {len(mine)} missing, "
                  f"refreshes {troubles[index][0]}, closed by the server: {troubles[index][1]}")
        for token in got:
            last = max(last, page[token])
            if index % 2 == 1:  # the reader's page: Send -> the other member's screen
                latencies.append(page[token] - sent[token])
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")
    return {"sends": len(sent), "sends_per_s": len(sent) / sending, "deliveries": deliveries,
            "deliveries_per_s": deliveries / max(last - started, 1e-9), "p50_ms": pick(0.5), "p99_ms": pick(0.99),
            "complete": complete, "failures": failures[0]}


def search_index(database, on, saved):
    """Turns search indexing on or off in the stopped server's database (`saved` keeps the triggers' SQL). Off, the
    index's mark is past any message, so sends index nothing, and the triggers are gone; on, the mark is the newest
    message (what was sent while off is never indexed). For comparison only: the index no longer matches."""
    db = sqlite3.connect(database)
    if not saved:
        saved.extend(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'message_search_%'").fetchall())
    for name, sql in saved:
        db.execute(f"DROP TRIGGER IF EXISTS {name}")
        if on:
            db.execute(sql)
    db.execute("UPDATE searchIndex SET doneThrough = " + ("(SELECT IFNULL(MAX(id), 0) FROM message)" if on else "9223372036854775807"))
    db.commit()
    db.close()


def fanout_benchmark(seconds, chats, lanes, search_rounds=None):
    """`chats` chats sending at once, both members' pages open, with the live pages on each lane count; or, with
    `search_rounds` ("on,off,on,off"), on one lane count with the search index kept by each send or not."""
    folder = tempfile.mkdtemp(prefix="parlor-fanout-bench-")
    try:
        with start_parlor(18390, folder, ["--log-level", "warning"]):
            began = time.time()
            pairs = fill_pairs(18390, chats)
            print(f"filled {chats} chats of two in {time.time() - began:.0f} s")
        results = []
        saved = []
        rounds = [(lanes[0], on == "on") for on in search_rounds] if search_rounds else [(count, True) for count in lanes]
        for round_number, (count, indexed) in enumerate(rounds):
            # The same database (sessions included) each time; only the lanes (or the search index) differ.
            if search_rounds:
                search_index(os.path.join(folder, "parlor.sqlite"), indexed, saved)
            with start_parlor(18390, folder, ["--log-level", "warning", "--live-lanes", str(count), "--streams-per-account", "4"]) as parlor:
                before = cpu_seconds(parlor.process.pid)
                result = asyncio.run(fanout_round(18390, pairs, seconds, (round_number + 1) * 10_000_000))
                result["cpu_s"] = cpu_seconds(parlor.process.pid) - before
                result["lanes"] = count
                result["search_index"] = indexed
                results.append(result)
        if search_rounds:
            search_index(os.path.join(folder, "parlor.sqlite"), True, saved)
            on = statistics.median([r["sends_per_s"] for r in results if r["search_index"]])
            off = statistics.median([r["sends_per_s"] for r in results if not r["search_index"]])
            for r in results:
                print(f"search index {'on ' if r['search_index'] else 'off'}: {r['sends_per_s']:9,.0f} sends/s, "
                      f"{r['cpu_s'] * 1e6 / max(r['sends'], 1):.0f} µs server CPU a send, Send->page p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms")
            print(f"sends with the search index kept: {on:,.0f}/s, without: {off:,.0f}/s: {on / off:.3f}x (target >= 0.90x)")
        print(f"\nfanout: {chats} chats sending at once ({seconds} s), both members' pages open ({2 * chats} streams)")
        print(f"{'lanes':>5} {'sends/s':>9} {'deliveries/s':>13} {'ratio':>6} {'Send->page p50':>15} {'p99':>9} {'server CPU':>11}  all delivered")
        base = results[0]["deliveries_per_s"]
        for r in results:
            print(f"{r['lanes']:>5} {r['sends_per_s']:9,.0f} {r['deliveries_per_s']:13,.0f} {r['deliveries_per_s'] / base:6.2f} "
                  f"{r['p50_ms']:12.1f} ms {r['p99_ms']:6.1f} ms {r['cpu_s']:9.1f} s  {r['complete']} ({r['failures']} not 2xx)")
        with open(os.path.join(OUT, "fanout.json"), "w") as f:
            json.dump(results, f, indent=1)
        if not all(r["complete"] and r["failures"] == 0 for r in results):
            raise SystemExit(f"fanout: a page missed a message or a send failed (log: {folder}/parlor.log)")
        shutil.rmtree(folder, ignore_errors=True)
    except BaseException:
        print(f"fanout: kept {folder} (the server's log and database) for a look")
        raise


PAGE_TOKEN = re.compile(rb"pz(\d+)z")


async def pages_round(port, pid, chat, people, pages, rate, seconds, senders=None):
    """`pages` event streams on one chat, page i as people[i % len(people)] (tabs and devices when there are fewer
    people than pages), while `senders` (the first person, unless given) send `rate` messages a second on a
    schedule, in a fixed random order (a late answer delays only the next send). Every page is checked for
    every message; returns the Send -> page times of all deliveries, and the server's CPU from the first send
    until the pages are quiet (the pages' registration before it is not counted)."""
    import random
    choose = random.Random(7)
    senders = senders or people[:1]
    loop = asyncio.get_running_loop()
    sent, seen, stop, last_byte, closed = {}, [], asyncio.Event(), [loop.time()], [0]

    async def read(index, cookie):
        closed[0] += await read_stream(port, f"/events?chat={chat['id']}", cookie, PAGE_TOKEN, seen[index], stop, last_byte)

    readers = []
    for index in range(pages):
        seen.append({})
        readers.append(asyncio.create_task(read(index, people[index % len(people)]["cookie"])))
    await asyncio.sleep(3 + pages / 250)  # every page registered and sent its first state
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    # PARLOR_PROFILE=file: perf records the server over the sends (perf report -i file).
    profiler = None
    if os.environ.get("PARLOR_PROFILE"):
        profiler = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-g", "-p", str(pid), "-o", os.environ["PARLOR_PROFILE"], "--",
                                     "sleep", str(seconds)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu_before = cpu_seconds(pid)
    started, failures, late = loop.time(), 0, 0
    for n in range(int(rate * seconds)):
        sender = choose.choice(senders)
        due = started + n / rate
        if loop.time() < due:
            await asyncio.sleep(due - loop.time())
        else:
            late += 1
        token = f"pz{n}z".encode()
        sent[token] = loop.time()
        failures += await post_message(reader, writer, chat["path"], sender["cookie"], sender["csrf"], token) >= 300
    writer.close()
    while loop.time() - last_byte[0] < 2 and loop.time() - started < seconds + 60:
        await asyncio.sleep(0.25)
    cpu = cpu_seconds(pid) - cpu_before
    if profiler:
        profiler.wait()
    stop.set()
    await asyncio.gather(*readers, return_exceptions=True)
    latencies, missing, last_per_message = [], 0, {}
    for page in seen:
        for token, at in sent.items():
            if token in page:
                latencies.append(page[token] - at)
                last_per_message[token] = max(last_per_message.get(token, 0), page[token] - at)
            else:
                missing += 1
    return {"sent": len(sent), "deliveries": len(latencies), "missing": missing, "failures": failures, "late_sends": late,
            "closed": closed[0], "cpu_s": cpu, "latencies": sorted(latencies), "last": sorted(last_per_message.values())}


def report_fanout(name, result, rate, seconds, streams, c_port, what):
    """Runs the C broadcaster (baseline/sse.c with baseline/sseload.c) with as many broadcasts to as many
    streams as `result` had, and prints both against each other; writes out/<name>.json."""
    pick = lambda values, q: values[min(len(values) - 1, int(q * len(values)))] * 1000 if values else float("nan")
    broadcasts = int(rate * seconds)
    with Server("C", c_port, [os.path.join(OUT, "sse"), str(c_port), "2", "suspend", "15", "0", "20000", "16384"]) as c_server:
        out = subprocess.run(["timeout", "600", os.path.join(OUT, "sseload"), str(c_port), str(streams), str(broadcasts),
                              str(c_server.process.pid), "2", str(int(1000 / rate))], capture_output=True, text=True)
    line = next((l for l in out.stdout.splitlines() if l.startswith("JSON ")), None)
    if line is None:
        raise SystemExit(f"sseload failed:\n{out.stdout}\n{out.stderr}")
    c = json.loads(line[5:])
    c_us = c["cpu_ms_per_broadcast"] * 1000 / streams
    # The whole server's CPU over the round (the POSTs, the store, the live pages, every stream), per delivery.
    cpu = result["cpu_s"]
    parlor_us = cpu * 1e6 / max(result["deliveries"], 1)
    p99 = pick(result["latencies"], 0.99)
    print(f"\n{name}: {what} ({broadcasts} messages, {broadcasts * streams:,} deliveries expected)")
    print(f"{'server':34} {'Send->page p50':>15} {'p99':>9} {'last page p99':>14} {'CPU µs/delivery':>16} {'ratio':>6}")
    print(f"{'C broadcaster, same fan-out':34} {'-':>15} {'-':>9} {c['last_p99_ms']:11.1f} ms {c_us:16.2f} {1.0:6.1f}")
    print(f"{'Parlor, whole path':34} {pick(result['latencies'], 0.5):12.1f} ms {p99:6.1f} ms "
          f"{pick(result['last'], 0.99):11.1f} ms {parlor_us:16.2f} {parlor_us / c_us:6.1f}")
    print(f"  Parlor: {result['deliveries']:,} delivered, {result['missing']} missing, {result['failures']} sends not 2xx, "
          f"{result['late_sends']} sends late, {result['closed']} streams closed by the server; C last-client p50 "
          f"{c['last_p50_ms']:.1f} ms, {c['missed']} missed")
    print(f"  targets: p99 <= 100 ms ({'met' if p99 <= 100 else 'NOT met'}), "
          f"CPU per delivery within 3x of C ({'met' if parlor_us / c_us <= 3 else 'NOT met'})")
    with open(os.path.join(OUT, f"{name}.json"), "w") as f:
        json.dump({"parlor": {k: v for k, v in result.items() if k not in ("latencies", "last")}, "parlor_cpu_s": cpu, "p99_ms": p99,
                   "parlor_us_per_delivery": parlor_us, "c": c, "c_us_per_delivery": c_us}, f, indent=1)


def pages_benchmark(pages, rate, seconds):
    """One chat, `pages` open pages, `rate` messages a second: Parlor's whole path (POST, store, live pages,
    render once, every stream) against the C broadcaster (baseline/sse.c) fanning the same count out to as many
    streams with baseline/sseload, in the same run. Prints Send -> page p50/p99 and server CPU per delivery."""
    folder = tempfile.mkdtemp(prefix="parlor-pages-bench-")
    try:
        with start_parlor(18490, folder, ["--log-level", "warning", "--streams-per-account", str(pages)]) as parlor:
            people = []
            first, second = Visitor(18490), Visitor(18490)
            first.sign_up("sender", "Sam Sender")
            second.sign_up("reader", "Rita Reader")
            path = first.start_chat("reader")
            for visitor in (first, second):
                visitor.request("GET", path)
                people.append({"cookie": "; ".join(f"{k}={v}" for k, v in visitor.cookies.items()), "csrf": visitor.csrf})
            chat = {"path": path, "id": path.rsplit("/", 1)[1]}
            result = asyncio.run(pages_round(18490, parlor.process.pid, chat, people, pages, rate, seconds))
        report_fanout("pages", result, rate, seconds, pages, 18491,
                      f"one chat, {pages} open pages, {rate} messages/s for {seconds} s")
        if result["missing"] or result["failures"]:
            raise SystemExit(f"pages: a page missed a message or a send failed (log: {folder}/parlor.log)")
        shutil.rmtree(folder, ignore_errors=True)
    except BaseException:
        print(f"pages: kept {folder} (the server's log and database) for a look")
        raise


def room_benchmark(members, rate, seconds):
    """One room of `members` people (the open room everyone joins), each with one open page, messages from random
    members at `rate` a second: Send -> page p50/p99 over every page and server CPU per delivery, against the C
    broadcaster fanning as many broadcasts out to as many streams in the same run."""
    folder = tempfile.mkdtemp(prefix="parlor-room-bench-")
    try:
        with start_parlor(18492, folder, ["--log-level", "warning"]) as parlor:
            def join(index):
                visitor = Visitor(18492)
                visitor.sign_up(f"member{index}", f"Member {index}")
                return visitor
            began = time.time()
            with ThreadPoolExecutor(4) as pool:
                visitors = list(pool.map(join, range(members)))
            joined = time.time() - began
            first = visitors[0]
            _, _, listing = first.request("GET", "/chats")
            found = re.search(r'<a href="(/rooms/(\d+))"[^>]*>\s*<span class="avatar-with-presence"><span class="avatar[^"]*"[^>]*>[^<]*</span>(?:<span class="presence-dot"[^>]*></span>)?</span>\s*'
                              r'<span class="chat-list-text">\s*<span class="chat-list-name" dir="auto">General</span>', listing)
            if not found:
                raise SystemExit("room: no General in the first member's list")
            chat = {"path": found.group(1), "id": found.group(2)}
            people = []
            for visitor in visitors:
                visitor.request("GET", chat["path"])
                people.append({"cookie": "; ".join(f"{k}={v}" for k, v in visitor.cookies.items()), "csrf": visitor.csrf})
            rss_before = memory(parlor.process.pid)[0]
            result = asyncio.run(pages_round(18492, parlor.process.pid, chat, people, members, rate, seconds, senders=people))
            rss_after = memory(parlor.process.pid)[0]
        report_fanout("room", result, rate, seconds, members, 18493,
                      f"one room of {members} members, each with one open page; random members send {rate} messages/s for "
                      f"{seconds} s; {members} sign-ups took {joined:.0f} s; RSS {rss_before} -> {rss_after} MB")
        if result["missing"] or result["failures"]:
            raise SystemExit(f"room: a page missed a message or a send failed (log: {folder}/parlor.log)")
        shutil.rmtree(folder, ignore_errors=True)
    except BaseException:
        print(f"room: kept {folder} (the server's log and database) for a look")
        raise


PHOTO = os.path.join(OUT, "photo-12mp.jpg")


def memory(pid):
    """The server's resident memory now and its peak since the last reset, in MB."""
    with open(f"/proc/{pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f if ":" in line)
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024


def post_photo(visitor, chat, data, token):
    boundary = "----parlorBench" + os.urandom(8).hex()
    body = b""
    for name, value in (("csrf", visitor.csrf), ("body", "From the bench"), ("token", token)):
        body += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
    body += (f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="photo.jpg"\r\n'
             f"Content-Type: image/jpeg\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    connection = http.client.HTTPConnection("127.0.0.1", visitor.port, timeout=60)
    cookie = "; ".join(f"{k}={v}" for k, v in sorted(visitor.cookies.items()))
    connection.request("POST", chat + "/messages", body=body, headers={
        "Cookie": cookie, "Content-Type": f"multipart/form-data; boundary={boundary}", "X-Parlor-Script": "1"})
    status = connection.getresponse().status
    connection.close()
    return status


def photo_states(database):
    import sqlite3
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    try:
        return dict(connection.execute("SELECT state, COUNT(*) FROM image WHERE purpose = 'message' GROUP BY state").fetchall())
    finally:
        connection.close()


def photos_benchmark(rounds):
    if not os.path.exists(PHOTO):
        # The same photo as Benchmarks/images: noise-like detail, as a camera gives.
        subprocess.run(["/usr/bin/convert", "-size", "4000x3000", "plasma:fractal", "-blur", "0x1", "-quality", "92", PHOTO], check=True)
    with open(PHOTO, "rb") as f:
        data = f.read()
    folder = tempfile.mkdtemp(prefix="parlor-photos-bench-")
    try:
        # Baseline: vipsthumbnail, twice per photo (display and thumbnail), one at a time.
        outputs = os.path.join(folder, "vips")
        os.makedirs(outputs)
        started = time.time()
        for _ in range(rounds):
            for size, name in ((1200, "display"), (320, "thumb")):
                subprocess.run(["vipsthumbnail", PHOTO, "-s", str(size), "-o", f"{outputs}/{name}.webp[Q=82,strip]"], check=True)
        vips = rounds / (time.time() - started)

        database = os.path.join(folder, "parlor.sqlite")
        # Room for every photo of the run to wait: the rate measured is the work, not 503s.
        with start_parlor(18390, folder, ["--log-level", "warning", "--image-waiting-limit", str(4 * rounds + 8)]) as parlor:
            pid = parlor.process.pid
            senders = []
            for index in range(4):
                visitor = Visitor(18390)
                visitor.sign_up(f"sender{index}", f"Sender {index}")
                senders.append(visitor)
            receiver = Visitor(18390)
            receiver.sign_up("receiver", "Rita Receiver")
            chats = [sender.start_chat("receiver") for sender in senders]
            for sender, chat in zip(senders, chats):
                sender.request("GET", chat)
            # One photo first: libvips loads its codecs on first use.
            if post_photo(senders[0], chats[0], data, "warm-up") not in (200, 204):
                raise SystemExit("photos: the warm-up upload was refused")
            deadline = time.time() + 60
            while photo_states(database).get("pending", 0) and time.time() < deadline:
                time.sleep(0.05)
            before, _ = memory(pid)
            with open(f"/proc/{pid}/clear_refs", "w") as f:
                f.write("5")  # the peak starts again from now
            latencies, refused = [], []

            def send(index):
                for number in range(rounds):
                    sent = time.time()
                    status = post_photo(senders[index], chats[index], data, f"bench-{index}-{number}")
                    latencies.append(time.time() - sent)
                    if status not in (200, 204):
                        refused.append(status)
            started = time.time()
            threads = [threading.Thread(target=send, args=(index,)) for index in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            uploaded = time.time() - started
            deadline = time.time() + 300
            while photo_states(database).get("pending", 0) and time.time() < deadline:
                time.sleep(0.02)
            elapsed = time.time() - started
            states = photo_states(database)
            _, peak = memory(pid)
        total = 4 * rounds - len(refused)
        rate = total / elapsed
        latencies.sort()
        print(f"\nphotos: a 12 MP JPEG ({len(data) // 1024} KB) sent by 4 senders at once, {rounds} each, through HTTP to ready")
        print(f"{'':34} {'photos/s':>9} {'ratio':>7}")
        print(f"{'vipsthumbnail, one at a time':34} {vips:9.2f} {1:7.3f}   (target: Parlor at least 0.80x)")
        print(f"{'Parlor, upload to ready':34} {rate:9.2f} {rate / vips:7.3f}   uploads done in {uploaded:.1f} s, "
              f"all ready in {elapsed:.1f} s; {len(refused)} refused {sorted(set(refused))}")
        print(f"  POST (what Send takes): p50 {statistics.median(latencies) * 1000:.0f} ms, "
              f"p99 {latencies[int(len(latencies) * 0.99) - 1 if len(latencies) > 1 else 0] * 1000:.0f} ms")
        print(f"  server memory: {before} MB before, peak {peak} MB while four upload at once "
              f"({peak - before} MB for the photos; target: peak under 150 MB)")
        print(f"  photos: {states}")
        with open(os.path.join(OUT, "photos.json"), "w") as f:
            json.dump({"vipsthumbnail": vips, "parlor": rate, "refused": len(refused), "before": before, "peak": peak,
                       "states": states}, f, indent=1)
        if states.get("failed", 0) or states.get("pending", 0):
            raise SystemExit(f"photos: not every photo was made ({states}; log: {folder}/parlor.log)")
        shutil.rmtree(folder, ignore_errors=True)
    except BaseException:
        print(f"photos: kept {folder} (the server's log and database) for a look")
        raise


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("which", choices=["page", "send", "photos", "fanout", "pages", "room"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=None)
    parser.add_argument("--no-cache", action="store_true", help="page: the page cache off, every page built from the store")
    parser.add_argument("--screen", action="append", choices=["conversation", "chats"],
                        help="page: which screens (repeatable; default the conversation, with --no-cache both)")
    parser.add_argument("--reactions", type=int, default=0, help="page: reactions on every message of the conversation (at most 8)")
    parser.add_argument("--chats", type=int, default=200, help="fanout: chats sending at once")
    parser.add_argument("--lanes", default="1,2", help="fanout: the live lane counts to compare")
    parser.add_argument("--search-index", default=None,
                        help="fanout: rounds with the search index kept by each send or not (on,off,on,off), on the first lane count")
    parser.add_argument("--pages", type=int, default=500, help="pages: open pages on the one chat")
    parser.add_argument("--members", type=int, default=500, help="room: members of the room, one open page each")
    parser.add_argument("--rate", type=float, default=20, help="pages: messages a second")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    if args.which == "page":
        screens = args.screen or (["chats", "conversation"] if args.no_cache else ["conversation"])
        page_benchmark(args.rounds, args.seconds, args.connections or 32, no_cache=args.no_cache, screens=screens, reactions=args.reactions)
    elif args.which == "fanout":
        search_rounds = args.search_index.split(",") if args.search_index else None
        fanout_benchmark(args.seconds, args.chats, [int(n) for n in args.lanes.split(",")], search_rounds)
    elif args.which == "photos":
        photos_benchmark(args.rounds if args.rounds != 3 else 5)
    elif args.which == "pages":
        pages_benchmark(args.pages, args.rate, args.seconds)
    elif args.which == "room":
        room_benchmark(args.members, args.rate, args.seconds)
    else:
        send_benchmark(args.seconds, args.connections or 64)


if __name__ == "__main__":
    main()
