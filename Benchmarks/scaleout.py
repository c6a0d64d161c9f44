#!/usr/bin/env python3
"""Several instances on one PostgreSQL against one, in one run: the real `parlor serve` (release), a PostgreSQL
server started for the run in a temporary folder (fsync on, as in production), and the SQLite store beside it.

usage: python3 Benchmarks/scaleout.py [--seconds 10] [--connections 64] [--probes 200] [--chats 1] [--repeat 3]
                                     [--pages everywhere|first] [--statements]

sends: POST /rooms/{id}/messages as the page script sends them (wrk), while four pages stream (two per member,
       spread over the instances: one per member on each of two); acknowledged sends/s for SQLite (one instance), PostgreSQL with one instance, and
       PostgreSQL with two instances (wrk split between them), the last two taking turns --repeat times (the median of
       their ratios is the result). Every page must get every send once, in order.
latency: one send at a time through the first instance (--probes of them, 20 ms apart); how long until a page
       on the same instance and a page on the other has it, p50 and p99 of each.
Every server listens on 127.0.0.1 only and is stopped by PID."""
import argparse, os, re, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from composed import OUT, PARLOR, ROOT, SEND_SCRIPT, LoggingServer, StreamReader, Visitor, drain  # noqa: E402
from bench import wait_port  # noqa: E402

PG_BIN = "/usr/lib/postgresql/15/bin"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A PostgreSQL cluster of the run's own, run as the postgres user when this runs as root."""

    def __init__(self, folder, statements=False):
        self.folder, self.port, self.statements = folder, free_port(), statements
        self.prefix = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] if os.getuid() == 0 else []

    def __enter__(self):
        if os.getuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        subprocess.run(self.prefix + [f"{PG_BIN}/initdb", "-D", f"{self.folder}/data", "-U", "parlor", "-A", "trust"],
                       check=True, stdout=subprocess.DEVNULL)
        self.log = open(os.path.join(self.folder, "postgres.log"), "wb")
        self.process = subprocess.Popen(self.prefix + [f"{PG_BIN}/postgres", "-D", f"{self.folder}/data", "-p", str(self.port),
                                        "-k", self.folder, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"]
                                        + (["-c", "shared_preload_libraries=pg_stat_statements"] if self.statements else []),
                                        stdout=subprocess.DEVNULL, stderr=self.log)
        if not wait_port(self.port):
            raise SystemExit("PostgreSQL did not start")
        time.sleep(0.5)
        return self

    def database(self, name):
        subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "parlor", "-d", "postgres", "-qc", f"CREATE DATABASE {name}"],
                       check=True)
        return f"postgres://parlor@127.0.0.1:{self.port}/{name}"

    def psql(self, database, command):
        return subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "parlor", "-d", database, "-qAtc", command],
                              check=True, stdout=subprocess.PIPE, text=True).stdout

    def top_statements(self, database, count=14):
        """The statements PostgreSQL ran most often in `database` since the last call, with their time (needs `statements`)."""
        self.psql(database, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        rows = self.psql(database, f"""SELECT calls, round(total_exec_time), rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 110)
            FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '{database}')
            ORDER BY calls DESC LIMIT {count}""")
        total = self.psql(database, f"""SELECT sum(calls), round(sum(total_exec_time)) FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '{database}')""").strip().split("|")
        self.psql(database, "SELECT pg_stat_statements_reset()")
        return rows + f"{total[0]}|{total[1]}||all statements\n"

    def __exit__(self, *exc):
        self.process.send_signal(2)  # fast shutdown
        self.process.wait(timeout=30)
        self.log.close()


def parlor(port, database, folder, name):
    return LoggingServer(f"Parlor {name}", port, [
        PARLOR, "serve", "--host", "127.0.0.1", "--port", str(port), "--database", database, "--media", os.path.join(folder, "media"),
        "--public", os.path.join(ROOT, "Public"), "--templates", os.path.join(ROOT, "Templates"), "--threads", "2",
        "--bot-read-delay", "0", "--bot-reply-delay", "0", "--log-level", "warning",
    ], os.path.join(folder, f"parlor-{name}.log"))


def people(port):
    ana, ben = Visitor(port), Visitor(port)
    ana.sign_up("ana", "Ana Lima")
    ben.sign_up("ben", "Ben Okafor")
    chat = ana.start_chat("ben")
    ana.request("GET", chat)
    ben.request("GET", chat)
    return ana, ben, chat


def cookie(visitor):
    return "; ".join(f"{k}={v}" for k, v in visitor.cookies.items())


def pages_on(port, chat, visitors, each=2):
    chat_id = chat.rsplit("/", 1)[1]
    readers = []
    for visitor in visitors:
        for _ in range(each):
            reader = StreamReader(port, f"/events?chat={chat_id}", cookie(visitor))
            reader.start()
            readers.append(reader)
    return readers


def wrk_sends(ports, chats, ana, seconds, connections, folder):
    """wrk against each port at once, the connections split, the sends taking `chats` in turn; answers (sends/s
    summed, requests, not 2xx)."""
    chat = chats[0]
    # One script per wrk process, so that their tokens differ: the same token twice is one message.
    scripts = []
    for index in range(len(ports)):
        scripts.append(os.path.join(folder, f"send-{index}.lua"))
        with open(scripts[-1], "w") as f:
            paths = ", ".join(f'"{c}/messages"' for c in chats)
            f.write(f'path = "{chat}/messages"\npaths = {{{paths}}}\ncsrf = "{ana.csrf}"\n'
                    + SEND_SCRIPT.replace('thread:set("prefix", threads)', f'thread:set("prefix", "i{index}t" .. threads)')
                    .replace('wrk.format("POST", path,', 'wrk.format("POST", paths[(counter % #paths) + 1],'))
    runs = [subprocess.Popen(["timeout", str(seconds + 30), "wrk", "-t1" if len(ports) > 1 else "-t2", f"-c{connections // len(ports)}",
                              f"-d{seconds}s", "-s", script, "-H", f"Cookie: {cookie(ana)}",
                              "-H", "Content-Type: application/x-www-form-urlencoded", "-H", "X-Parlor-Script: 1",
                              f"http://127.0.0.1:{port}{chat}/messages"], stdout=subprocess.PIPE, text=True)
            for port, script in zip(ports, scripts)]
    rate, requests, failed = 0.0, 0, 0
    for run in runs:
        out = run.communicate()[0]
        rate += float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
        requests += int(re.search(r"(\d+) requests in", out).group(1))
        non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        failed += int(non2xx.group(1)) if non2xx else 0
    return rate, requests, failed


def check(pages, expected):
    ok = True
    for index, page in enumerate(pages):
        ids = page.appended_messages()
        once, ordered, complete = len(ids) == len(set(ids)), ids == sorted(ids), len(set(ids)) >= expected
        ok = ok and once and ordered and complete
        if not (once and ordered and complete):
            late = [(a, b) for a, b in zip(ids, ids[1:]) if b < a][:5]
            refreshes = page.body().count(b'action="refresh"')
            print(f"  page {index + 1}: {len(ids)} appended of {expected}, each once: {once}, in order: {ordered} {late}, "
                  f"refreshes: {refreshes}, reconnects: {page.reconnects}")
    return ok


def sends(label, databases, seconds, connections, folder, chats=1, pages_everywhere=True):
    """One run: instances on `databases` (one per instance), pages of both members on each; answers sends/s.
    With `chats` > 1, Ana's sends take that many chats in turn and the pages show the first."""
    ports = [free_port() for _ in databases]
    servers = [parlor(port, database, folder, f"{label}-{index}") for index, (port, database) in enumerate(zip(ports, databases))]
    for server in servers:
        server.__enter__()
    try:
        ana, ben, chat = people(ports[0])
        targets = [chat]
        for index in range(1, chats):
            contact = Visitor(ports[0])
            contact.sign_up(f"contact{index}", f"Contact {index}")
            targets.append(ana.start_chat(f"contact{index}"))
        pages = []
        page_ports = ports if pages_everywhere else ports[:1]
        for port in page_ports:
            guests = []
            for visitor in (ana, ben):
                guest = Visitor(port)
                guest.cookies = dict(visitor.cookies)
                guests.append(guest)
            # Four pages in all (two per member) however many instances: the same fan-out to compare.
            pages += pages_on(port, chat, guests, each=max(1, 2 // len(page_ports)))
        time.sleep(1)
        profiler = None
        if os.environ.get("PARLOR_PROFILE") and label.startswith("PostgreSQL"):
            # The whole machine: PostgreSQL, wrk and every instance share its cores (`perf report --sort comm,pid`).
            output = os.environ["PARLOR_PROFILE"] + "-" + re.sub(r"\W+", "-", label).strip("-").lower()
            profiler = subprocess.Popen(["perf", "record", "-a", "-e", "cpu-clock", "-g", "-o", output, "--", "sleep", str(seconds)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rate, requests, failed = wrk_sends(ports, targets, ana, seconds, connections, folder)
        if profiler:
            profiler.wait()
        drain(pages)
        # With several chats, the first one's share of the sends is not counted: once and in order only.
        ok = check(pages, requests - failed if chats == 1 else 0)
        print(f"{label:34} {rate:10,.0f} sends/s   {failed} not 2xx, {len(pages)} pages each got every send once and in order: {ok}")
        return rate, ok
    finally:
        for server in servers:
            server.__exit__(None, None, None)


class Arrivals(threading.Thread):
    """One page's stream: when each probe ("probe-N-") first arrived."""

    def __init__(self, port, path, cookie_header):
        super().__init__(daemon=True)
        self.seen, self.stopped = {}, False
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nCookie: {cookie_header}\r\n\r\n").encode())
        self.sock.settimeout(0.5)
        self.tail = b""

    def run(self):
        while not self.stopped:
            try:
                chunk = self.sock.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError:
                return
            if not chunk:
                return
            now = time.monotonic()
            text = self.tail + chunk
            for found in re.finditer(rb"probe-(\d+)-", text):
                self.seen.setdefault(int(found.group(1)), now)
            self.tail = text[-32:]


def latency(database_a, database_b, probes, folder):
    ports = [free_port(), free_port()]
    servers = [parlor(ports[0], database_a, folder, "latency-0"), parlor(ports[1], database_b, folder, "latency-1")]
    for server in servers:
        server.__enter__()
    try:
        ana, ben, chat = people(ports[0])
        chat_id = chat.rsplit("/", 1)[1]
        same = Arrivals(ports[0], f"/events?chat={chat_id}", cookie(ben))
        other = Arrivals(ports[1], f"/events?chat={chat_id}", cookie(ben))
        same.start()
        other.start()
        time.sleep(1)
        sent = {}
        ana.request("GET", chat)
        for n in range(probes):
            sent[n] = time.monotonic()
            status, _, _ = ana.request("POST", chat + "/messages", [("body", f"probe-{n}-"), ("token", f"probe-{n}")], {"X-Parlor-Script": "1"})
            if status not in (200, 204, 303):
                raise SystemExit(f"probe {n} answered {status}")
            time.sleep(0.02)
        time.sleep(2)
        same.stopped = other.stopped = True
        result = {}
        for name, page in (("same instance", same), ("other instance", other)):
            delays = sorted((page.seen[n] - sent[n]) * 1000 for n in sent if n in page.seen)
            missing = probes - len(delays)
            p50 = statistics.median(delays)
            p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
            result[name] = (p50, p99, missing)
            print(f"  page on the {name:15} p50 {p50:6.1f} ms   p99 {p99:6.1f} ms   missing {missing}")
        return result
    finally:
        for server in servers:
            server.__exit__(None, None, None)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--chats", type=int, default=1, help="spread the sends over this many of Ana's chats")
    parser.add_argument("--pages", choices=["everywhere", "first"], default="everywhere",
                        help="with two instances, the four pages spread over both (one per member on each) or all on the first")
    parser.add_argument("--repeat", type=int, default=3, help="how many times the one- and two-instance runs take turns")
    parser.add_argument("--statements", action="store_true", help="print the statements PostgreSQL ran most often in each run, and their time")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-scaleout-")
    os.chmod(folder, 0o755)
    try:
        os.makedirs(os.path.join(folder, "pg"))
        with Postgres(os.path.join(folder, "pg"), args.statements) as pg:
            print(f"\nsends: wrk -c{args.connections}, {args.seconds}s, {args.chats} chat(s), four pages streaming on the first (two per member, spread over the instances)")
            sqlite, ok1 = sends("SQLite, one instance", [os.path.join(folder, "parlor.sqlite")], args.seconds, args.connections, folder, args.chats)
            # The two configurations take turns, --repeat times, each on a fresh database: on a shared machine one
            # pair can differ by a third from the next, and the median of the pairs' ratios is what is judged.
            ratios, ones, ok2, ok3 = [], [], True, True
            for turn in range(args.repeat):
                one, ok = sends("PostgreSQL, one instance", [pg.database(f"one{turn}")], args.seconds, args.connections, folder, args.chats)
                ok2 = ok2 and ok
                if args.statements:
                    print("  calls, ms, rows, statement\n" + pg.top_statements(f"one{turn}"))
                shared = pg.database(f"two{turn}")
                two, ok = sends("PostgreSQL, two instances", [shared, shared], args.seconds, args.connections, folder, args.chats,
                                args.pages == "everywhere")
                ok3 = ok3 and ok
                if args.statements:
                    print("  calls, ms, rows, statement\n" + pg.top_statements(f"two{turn}"))
                ratios.append(two / one)
                ones.append(one)
            print(f"\n  two instances / one instance: {', '.join(f'{r:.2f}x' for r in ratios)}; median {statistics.median(ratios):.2f}x (target >= 0.9)")
            print(f"  PostgreSQL / SQLite, one instance: {statistics.median(ones) / sqlite:.2f}x")
            print(f"\nlatency: {args.probes} sends through the first of two instances, 20 ms apart; until a page has it")
            probe = pg.database("latency")
            result = latency(probe, probe, args.probes, folder)
            extra = result["other instance"][1] - result["same instance"][1]
            print(f"  p99 other - same: {extra:+.1f} ms (target <= +50 ms)")
        if not (ok1 and ok2 and ok3) or any(r[2] for r in result.values()):
            raise SystemExit(f"a page missed a send, got one twice or out of order (logs: {folder})")
        shutil.rmtree(folder, ignore_errors=True)
    except BaseException:
        print(f"scaleout: kept {folder} (logs, databases) for a look")
        raise


if __name__ == "__main__":
    main()
