#!/usr/bin/env python3
"""Parlor's HTTP front against the C libmicrohttpd baseline, in one run, on loopback.

usage: python3 Benchmarks/bench.py [--http] [--sse | --sse-separate] [--repeats 3] [--seconds 10]
                                   [--streams 1000,5000,10000] [--rounds 3]

HTTP: wrk -t2 -c64 keep-alive against GET / (a 12,274-byte page), servers interleaved
round by round so that machine noise hits them alike; median req/s and ratio to C.
SSE (paired, the default): both servers run at once with N idle streams each, and
load/ssepair takes 100 broadcasts a run from each in turn (A B B A ...), timing each until the
last stream has it; p50 and p99 are over every broadcast of every run. Taking turns one
broadcast at a time means a stall of this shared machine, which lasts from tens of
milliseconds to seconds, falls on both servers alike.
SSE separate (--sse-separate): the earlier method, baseline/sseload against one server at a
time, servers alternating run by run, medians over the runs.
Same flags for both servers (2 threads, epoll, 16 KiB per connection). Every server listens
on 127.0.0.1 only and is stopped by PID."""
import argparse, json, os, re, signal, socket, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")
PAGE = os.path.join(HERE, "baseline", "page.html")
SWIFT_SERVER = os.path.join(HERE, ".build", "release", "parlor-bench-server")
BROADCASTS = 100  # p99 over 100 broadcasts; with 20 it would be the single worst one


def wait_port(port, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, name, port, command):
        self.name, self.port, self.command = name, port, command
        self.process = None

    def __enter__(self):
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        preexec_fn=lambda: os.setpgrp())
        if not wait_port(self.port):
            self.process.kill()
            raise SystemExit(f"{self.name} did not start: {self.process.stderr.read().decode()[:500]}")
        return self

    def __exit__(self, *exc):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def wrk(port, seconds):
    out = subprocess.run(["timeout", str(seconds + 20), "wrk", "-t2", "-c64", f"-d{seconds}s", "--latency",
                          f"http://127.0.0.1:{port}/"], capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    errors = re.search(r"Socket errors:.*", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)
    return rps, requests, (errors.group(0) if errors else None), int(non2xx.group(1)) if non2xx else 0, p99


def http_benchmark(repeats, seconds):
    servers = [
        Server("C libmicrohttpd (baseline)", 18180, [os.path.join(OUT, "static"), "epoll2", "18180", PAGE]),
        Server("Parlor, prepared response", 18181, [SWIFT_SERVER, "http", "18181", PAGE, "prepared"]),
        Server("Parlor, bytes built per request", 18182, [SWIFT_SERVER, "http", "18182", PAGE, "bytes"]),
    ]
    results = {s.name: [] for s in servers}
    for s in servers:
        s.__enter__()
    try:
        body = {s.name: len(subprocess.run(["curl", "-s", f"http://127.0.0.1:{s.port}/"], capture_output=True).stdout) for s in servers}
        for round_ in range(repeats):
            for s in servers:
                before = cpu_seconds(s.process.pid)
                rps, requests, errors, non2xx, p99 = wrk(s.port, seconds)
                us = (cpu_seconds(s.process.pid) - before) / max(requests, 1) * 1e6
                results[s.name].append(dict(rps=rps, server_us_per_request=us, p99=p99, errors=errors, non2xx=non2xx))
                print(f"  round {round_ + 1} {s.name:34} {rps:>9.0f} req/s  server {us:5.1f} us/req  p99 {p99}"
                      + (f"  {errors}" if errors else "") + (f"  non-2xx {non2xx}" if non2xx else ""), flush=True)
    finally:
        for s in servers:
            s.__exit__()
    baseline = statistics.median(r["rps"] for r in results[servers[0].name])
    summary = []
    print(f"\nHTTP, {seconds}s x {repeats} rounds, wrk -t2 -c64 keep-alive, body {body[servers[0].name]} bytes")
    print(f"  {'server':34} {'median req/s':>12} {'ratio to C':>10} {'server us/req':>13}")
    for s in servers:
        median = statistics.median(r["rps"] for r in results[s.name])
        us = statistics.median(r["server_us_per_request"] for r in results[s.name])
        summary.append(dict(server=s.name, median_rps=median, ratio=median / baseline, server_us_per_request=us,
                            body_bytes=body[s.name], runs=results[s.name]))
        print(f"  {s.name:34} {median:>12.0f} {median / baseline:>10.2f} {us:>13.1f}")
    return summary


def sse_run(name, port, command, streams):
    with Server(name, port, command) as s:
        out = subprocess.run(["timeout", "600", os.path.join(OUT, "sseload"), str(port), str(streams), str(BROADCASTS),
                              str(s.process.pid), "10", "150"], capture_output=True, text=True)
    line = next((l for l in out.stdout.splitlines() if l.startswith("JSON ")), None)
    if line is None:
        raise SystemExit(f"sseload failed against {name}:\n{out.stdout}\n{out.stderr}")
    result = json.loads(line[5:])
    result["kb_per_stream"] = (result["rss_idle_kb"] - result["rss_preconnect_kb"]) / streams
    return result


SSE_SERVERS = (("C broadcaster (baseline)", 18190, [os.path.join(OUT, "sse"), "18190", "2", "suspend", "15", "0", "20000", "16384"]),
               ("Parlor EventStream", 18191, [SWIFT_SERVER, "sse", "18191", "15"]))


def percentile(values, p):
    """The same rank sseload and ssepair use: the value at round(p * (n - 1)) in sorted order."""
    ordered = sorted(values)
    return ordered[int(p * (len(ordered) - 1) + 0.5)]


def sse_paired_run(streams):
    """Both servers up at once; ssepair takes their broadcasts in turn. One result per server."""
    (c_name, c_port, c_command), (p_name, p_port, p_command) = SSE_SERVERS
    with Server(c_name, c_port, c_command) as c, Server(p_name, p_port, p_command) as p:
        out = subprocess.run(["timeout", "1200", os.path.join(OUT, "ssepair"), str(streams), str(BROADCASTS), "10", "150",
                              str(c_port), str(c.process.pid), str(p_port), str(p.process.pid)],
                             capture_output=True, text=True)
    lines = [l for l in out.stdout.splitlines() if l.startswith("JSON ")]
    if len(lines) != 2:
        raise SystemExit(f"ssepair failed at {streams} streams:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    results = [json.loads(l[5:]) for l in lines]
    for result in results:
        result["kb_per_stream"] = (result["rss_idle_kb"] - result["rss_preconnect_kb"]) / streams
    return dict(zip((c_name, p_name), results))


def sse_paired_benchmark(counts, rounds):
    summary = []
    print(f"\nSSE, paired: both servers up at once with N idle streams each; {BROADCASTS} broadcasts a run from each, in turn")
    print(f"     (A B B A ...), timed until the LAST stream has it; {rounds} run(s) per N; p50/p99 over all {rounds * BROADCASTS} broadcasts")
    print("     'paired' is the median, over broadcast k of every run, of this server's time over C's for the same k")
    print(f"  {'N':>6} {'server':28} {'idle CPU':>8} {'kB/stream':>9} {'last p50':>9} {'last p99':>9} {'p50 vs C':>8} {'p99 vs C':>8}"
          f" {'paired':>6} {'cpu ms/bc':>9} {'steal':>6} {'missed':>6}  p99 of each run")
    names = [name for name, _, _ in SSE_SERVERS]
    for n in counts:
        runs = [sse_paired_run(n) for _ in range(rounds)]
        pooled = {name: [t for run in runs for t in run[name]["last_ms"] if t >= 0] for name in names}
        figures = {}
        for name in names:
            mine = [run[name] for run in runs]
            figures[name] = dict(
                last_p50_ms=percentile(pooled[name], 0.5), last_p99_ms=percentile(pooled[name], 0.99),
                idle_cpu_pct=statistics.median(r["idle_cpu_pct"] for r in mine),
                kb_per_stream=statistics.median(r["kb_per_stream"] for r in mine),
                cpu_ms_per_broadcast=statistics.median(r["cpu_ms_per_broadcast"] for r in mine),
                steal_pct=statistics.median(r["steal_pct"] for r in mine),
                missed=sum(r["missed"] for r in mine), run_p99_ms=[r["last_p99_ms"] for r in mine])
        for name in names:
            # Broadcast k of each server ran next to each other, so their ratio cancels what the machine was doing.
            figures[name]["paired_ratio_to_c"] = statistics.median(
                mine / theirs for run in runs for mine, theirs in zip(run[name]["last_ms"], run[names[0]]["last_ms"])
                if mine >= 0 and theirs > 0)
        c = figures[names[0]]
        for name in names:
            m = figures[name]
            print(f"  {n:>6} {name:28} {m['idle_cpu_pct']:>7.2f}% {m['kb_per_stream']:>9.1f} {m['last_p50_ms']:>8.1f}ms"
                  f" {m['last_p99_ms']:>8.1f}ms {m['last_p50_ms'] / c['last_p50_ms']:>8.2f} {m['last_p99_ms'] / c['last_p99_ms']:>8.2f}"
                  f" {m['paired_ratio_to_c']:>6.2f} {m['cpu_ms_per_broadcast']:>9.1f} {m['steal_pct']:>5.1f}% {m['missed']:>6}  "
                  + ", ".join(f"{p:.1f}" for p in m["run_p99_ms"]), flush=True)
            summary.append(dict(server=name, streams=n, figures=m, p99_ratio_to_c=m["last_p99_ms"] / c["last_p99_ms"],
                                runs=[run[name] for run in runs]))
    return summary


def sse_benchmark(counts, rounds):
    """C and Parlor alternate `rounds` times at each N; medians are compared, so that a stall
    of the shared machine during one run does not decide the ratio."""
    summary = []
    print(f"\nSSE: idle streams, then {BROADCASTS} broadcasts of a ~450-byte fragment (time until the LAST stream has it)")
    print(f"     C and Parlor alternate {rounds} time(s) per N; medians over the rounds")
    print(f"  {'N':>6} {'server':28} {'idle CPU':>8} {'kB/stream':>9} {'last p50':>9} {'last p99':>9} {'p99 vs C':>8} {'p50 vs C':>8} {'cpu ms/bc':>9} {'missed':>6}")
    servers = SSE_SERVERS
    for n in counts:
        runs = {name: [] for name, _, _ in servers}
        for _ in range(rounds):
            for name, port, command in servers:
                runs[name].append(sse_run(name, port, command, n))
        med = {name: {k: statistics.median(r[k] for r in rs) for k in ("idle_cpu_pct", "kb_per_stream", "last_p50_ms", "last_p99_ms", "cpu_ms_per_broadcast", "missed")}
               for name, rs in runs.items()}
        c = med[servers[0][0]]
        for name, _, _ in servers:
            m = med[name]
            print(f"  {n:>6} {name:28} {m['idle_cpu_pct']:>7.2f}% {m['kb_per_stream']:>9.1f} {m['last_p50_ms']:>8.1f}ms"
                  f" {m['last_p99_ms']:>8.1f}ms {m['last_p99_ms'] / c['last_p99_ms']:>8.2f} {m['last_p50_ms'] / c['last_p50_ms']:>8.2f}"
                  f" {m['cpu_ms_per_broadcast']:>9.1f} {m['missed']:>6.0f}", flush=True)
            summary.append(dict(server=name, streams=n, median=m, p99_ratio_to_c=m["last_p99_ms"] / c["last_p99_ms"], runs=runs[name]))
    return summary


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--sse", action="store_true", help="SSE, both servers at once, broadcasts taken in turn")
    parser.add_argument("--sse-separate", action="store_true", help="SSE, one server at a time, alternating run by run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--streams", default="1000,5000,10000")
    parser.add_argument("--rounds", type=int, default=3, help="SSE runs per N")
    args = parser.parse_args()
    both = not args.http and not args.sse and not args.sse_separate
    results = {"date": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count()}
    if args.http or both:
        results["http"] = http_benchmark(args.repeats, args.seconds)
    counts = [int(n) for n in args.streams.split(",")]
    if args.sse or both:
        results["sse"] = sse_paired_benchmark(counts, args.rounds)
    if args.sse_separate:
        results["sse_separate"] = sse_benchmark(counts, args.rounds)
    path = os.path.join(OUT, "results.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"\nwritten: {path}")


if __name__ == "__main__":
    main()
