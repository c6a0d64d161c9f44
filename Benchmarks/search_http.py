"""GET /search through `parlor serve` (release) on the search corpus: the results page a person gets, by kind of
query, one request at a time over a kept-alive connection, as 200 of its people (a session each).

Usage: python3 search_http.py CORPUS_FOLDER QUERIES   (run by `bash Benchmarks/search`)
"""
import hashlib, http.client, os, subprocess, sys, time, urllib.parse

from composed import start_parlor, cpu_seconds  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, ".build", "release", "parlor-search-bench")
PORT = 18396
PEOPLE = 200


def main():
    folder, queries = sys.argv[1], int(sys.argv[2])
    database = os.path.join(folder, "parlor.sqlite")
    ids = [f"searchsession{index}x{os.getpid()}" for index in range(PEOPLE)]
    hashes = "".join(hashlib.blake2b(i.encode(), digest_size=32).hexdigest() + "\n" for i in ids)
    subprocess.run([BENCH, "sessions", database, str(PEOPLE)], input=hashes, text=True, check=True)
    lines = subprocess.run([BENCH, "queries", database, str(queries), "7", str(PEOPLE)], capture_output=True, text=True, check=True).stdout
    asked = [line.split("\t", 3) for line in lines.splitlines() if line.count("\t") >= 3]
    with start_parlor(PORT, folder, ["--log-level", "warning"]) as parlor:
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        timings, sizes = {}, {}
        before = cpu_seconds(parlor.process.pid)
        for kind, viewer, order, text in asked:
            path = "/search?q=" + urllib.parse.quote(text) + ("&order=best" if order == "best" else "")
            began = time.perf_counter()
            connection.request("GET", path, headers={"Cookie": f"parlor_session={ids[int(viewer)]}"})
            response = connection.getresponse()
            body = response.read()
            took = time.perf_counter() - began
            if response.status != 200 or b'id="search-results"' not in body:
                raise SystemExit(f"search: {path} answered {response.status}")
            timings.setdefault(kind, []).append(took * 1000)
            sizes.setdefault(kind, []).append(len(body))
        cpu = cpu_seconds(parlor.process.pid) - before
    print(f"\nGET /search, the whole page over HTTP ({queries} each after 20 to warm up, one at a time; server CPU {cpu * 1e3 / len(asked):.2f} ms a page)")
    print(f"{'query':28} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'page KB':>8}")
    for kind, values in timings.items():
        values = sorted(values[20:])
        pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
        print(f"{kind:28} {pick(0.5):8.2f} {pick(0.99):8.2f} {values[-1]:8.2f} {sum(sizes[kind]) / len(sizes[kind]) / 1024:8.1f}")


if __name__ == "__main__":
    main()
