"""A day of an organisation on one Parlor, for N people each with one open page (run it with `bash Benchmarks/day`).

For each N (default 1,000, 3,000 and 10,000): parlor-day-fill builds the organisation in a fresh SQLite file
through the store (the open room of everyone, 60 % of people in 3-8 closed rooms of 5-50 members, 10 direct
chats each, a short history everywhere, one session each); Parlor is started on it; load/day.c opens every
page and lives the day: everyone sends once a minute on average (Poisson) into the chat on screen, reads what
arrives as the page script does, opens another chat every two minutes and sends a photo once an hour. It
prints Send -> delivered p50/p99 (the cell on other people's pages showing the chat), page p99, POST p99, the
server's CPU and RSS, and its own CPU (it runs on the same two cores).
Targets at N = 10,000: delivery p99 <= 250 ms, page p99 <= 150 ms, RSS <= 2 GB."""
import argparse, hashlib, json, os, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")
FILL = os.path.join(HERE, ".build", "release", "parlor-day-fill")
sys.path.insert(0, HERE)
from composed import start_parlor  # noqa: E402

SEED = 7
PORT = 18600


def photo(megapixels):
    """A photo of `megapixels` (a phone's is 12), made once with ImageMagick."""
    path = os.path.join(OUT, f"day-photo-{megapixels}mp.jpg")
    if not os.path.exists(path):
        width = int((megapixels * 1e6 * 4 / 3) ** 0.5)
        subprocess.run(["/usr/bin/convert", "-size", f"{width}x{width * 3 // 4}", "plasma:fractal", "-blur", "0x1",
                        "-quality", "90", path], check=True)
    return path


def one_day(people, warmup, seconds, picture):
    folder = tempfile.mkdtemp(prefix=f"parlor-day-{people}-")
    try:
        hashes = "".join(hashlib.blake2b(f"daysession{i}x{SEED}".encode(), digest_size=32).hexdigest() + "\n"
                         for i in range(people))
        began = time.time()
        plan = os.path.join(folder, "plan")
        subprocess.run([FILL, os.path.join(folder, "parlor.sqlite"), str(people), str(SEED), plan], input=hashes,
                       text=True, check=True, stdout=subprocess.DEVNULL)
        print(f"N = {people}: organisation filled in {time.time() - began:.0f} s", flush=True)
        with start_parlor(PORT, folder, ["--log-level", "warning"]) as parlor:
            # PARLOR_PROFILE=file: perf records the server over the measured seconds (after the warm-up).
            profiler = None
            if os.environ.get("PARLOR_PROFILE"):
                profiler = subprocess.Popen(["sh", "-c", f"sleep {warmup + 5}; exec perf record -e cpu-clock -g -p {parlor.process.pid} "
                                             f"-o {os.environ['PARLOR_PROFILE']} -- sleep {max(seconds - 10, 5)}"],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            out = subprocess.run(["timeout", str(int(warmup + seconds + 900)), os.path.join(OUT, "day"), str(PORT),
                                  str(parlor.process.pid), plan, str(SEED), picture, str(warmup), str(seconds), "1"],
                                 capture_output=True, text=True)
            if profiler:
                profiler.wait()
        print("\n".join("  " + l for l in out.stdout.splitlines() if not l.startswith("JSON ")), flush=True)
        line = next((l for l in out.stdout.splitlines() if l.startswith("JSON ")), None)
        if line is None:
            raise SystemExit(f"day: the load client failed at N = {people}:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
        with open(os.path.join(folder, "parlor.log"), errors="replace") as log:
            warnings = [l for l in log if '"warning"' in l or "warning" in l[:60] or "error" in l[:60]]
        if warnings:
            print(f"  the server's log has {len(warnings)} warnings or errors; the first: {warnings[0].strip()[:300]}")
        if os.environ.get("PARLOR_DAY_KEEP"):
            print(f"  kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
        return json.loads(line[5:].replace(":nan", ":NaN"))  # no photo or no page in a short run: no percentile
    except BaseException:
        print(f"day: kept {folder} (the server's log and database) for a look")
        raise


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", default="1000,3000,10000", help="the organisation sizes, in order")
    parser.add_argument("--warmup", type=float, default=20, help="seconds lived before measuring")
    parser.add_argument("--seconds", type=float, default=60, help="seconds measured")
    parser.add_argument("--photo-megapixels", type=float, default=12, help="the hourly photo's size")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    picture = photo(args.photo_megapixels)
    results = [one_day(int(n), args.warmup, args.seconds, picture) for n in args.people.split(",")]
    print(f"\nday: each person one open page; sends once a minute, opens another chat every two minutes, a photo "
          f"({args.photo_megapixels:g} MP) once an hour; {args.seconds:g} s measured after {args.warmup:g} s")
    print(f"{'N':>6} {'msgs/s':>7} {'delivered':>10} {'p50':>7} {'p99':>8} {'page p99':>9} {'POST p99':>9} "
          f"{'server CPU':>11} {'RSS':>8} {'client CPU':>11}")
    for r in results:
        print(f"{r['people']:>6} {r['sends'] / r['seconds']:7.1f} {r['deliveries']:>10,} {r['delivery_p50_ms']:5.1f}ms "
              f"{r['delivery_p99_ms']:6.1f}ms {r['page_p99_ms']:7.1f}ms {r['post_p99_ms']:7.1f}ms {r['server_cpu_pct']:9.0f} % "
              f"{r['rss_peak_mb']:5} MB {r['client_cpu_pct']:9.0f} %")
    top = max(results, key=lambda r: r["people"])
    if top["people"] >= 10_000:
        checks = [("delivery p99 <= 250 ms", top["delivery_p99_ms"] <= 250), ("page p99 <= 150 ms", top["page_p99_ms"] <= 150),
                  ("RSS <= 2 GB", top["rss_peak_mb"] <= 2048)]
        print("targets at N = 10,000: " + ", ".join(f"{name} ({'met' if ok else 'NOT met'})" for name, ok in checks))
    with open(os.path.join(OUT, "day.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
