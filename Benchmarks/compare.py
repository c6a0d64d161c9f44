#!/usr/bin/env python3
"""Two builds of Parlor in alternating runs of one composed benchmark (composed.py send or room), each build's
figures printed per run and as medians, so a change is judged against the build before it on the same machine
at the same time. The order within a round swaps every round: run in one order, the build that ran second in
each pair came out 6 to 15 % ahead.

usage: python3 Benchmarks/compare.py send|room BEFORE AFTER [--rounds 8] [-- composed.py's own flags]
       BEFORE and AFTER are `parlor` binaries (Benchmarks/compare builds them from revisions).

send: the ratio to the store alone (higher is better), server CPU µs per send, POST p99, events per live batch.
room: server CPU µs per delivery and its ratio to the C broadcaster (lower is better), Send -> page p99."""
import json, os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")

FIGURES = {
    "send": [("ratio", "ratio to the store", "{:.3f}", True), ("cpu_us", "CPU µs/send", "{:.0f}", False),
             ("p99_ms", "POST p99 ms", "{:.1f}", False), ("per_batch", "events/live batch", "{:.0f}", None)],
    "room": [("cpu_us", "CPU µs/delivery", "{:.1f}", False), ("ratio", "ratio to C", "{:.2f}", False),
             ("p99_ms", "Send->page p99 ms", "{:.1f}", False)],
}


def milliseconds(text):
    """wrk's latency ("12.3ms", "1.2s", "900us") in milliseconds."""
    for suffix, factor in (("ms", 1.0), ("us", 0.001), ("s", 1000.0)):
        if text.endswith(suffix):
            return float(text[:-len(suffix)]) * factor
    return float("nan")


def run(mode, binary, extra):
    """One run of composed.py with `binary`; its figures, read back from the JSON it writes."""
    env = dict(os.environ, PARLOR_BINARY=binary)
    done = subprocess.run([sys.executable, os.path.join(HERE, "composed.py"), mode, *extra], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stdout.write(done.stdout[-3000:] + done.stderr[-3000:])
        raise SystemExit(f"compare: composed.py {mode} failed with {binary}")
    with open(os.path.join(OUT, f"{mode}.json")) as f:
        result = json.load(f)
    if mode == "send":
        return {"ratio": result["parlor"] / result["store"], "cpu_us": result["cpu_us"], "p99_ms": milliseconds(result["p99"]),
                "per_batch": result["events_per_batch"]}
    return {"cpu_us": result["parlor_us_per_delivery"], "ratio": result["parlor_us_per_delivery"] / result["c_us_per_delivery"],
            "p99_ms": result["p99_ms"]}


def main():
    arguments = sys.argv[1:]
    extra = []
    if "--" in arguments:
        extra = arguments[arguments.index("--") + 1:]
        arguments = arguments[:arguments.index("--")]
    rounds = 8
    if "--rounds" in arguments:
        index = arguments.index("--rounds")
        rounds = int(arguments[index + 1])
        del arguments[index:index + 2]
    if len(arguments) != 3 or arguments[0] not in FIGURES or rounds < 1:
        raise SystemExit(__doc__)
    mode, before, after = arguments
    builds = {"before": before, "after": after}
    figures = FIGURES[mode]
    results = {"before": [], "after": []}
    print(f"{mode}: {rounds} rounds, before = {before}, after = {after}" + (f", flags {' '.join(extra)}" if extra else ""))
    print(f"{'round':>5} {'build':>6}  " + "  ".join(f"{label:>18}" for _, label, _, _ in figures), flush=True)
    for number in range(1, rounds + 1):
        order = ["before", "after"] if number % 2 else ["after", "before"]
        for name in order:
            figure = run(mode, builds[name], extra)
            results[name].append(figure)
            print(f"{number:>5} {name:>6}  " + "  ".join(f"{fmt.format(figure[key]):>18}" for key, _, fmt, _ in figures), flush=True)
    print("\nmedians")
    for name in ("before", "after"):
        print(f"{'':>5} {name:>6}  " + "  ".join(
            f"{fmt.format(statistics.median(r[key] for r in results[name])):>18}" for key, _, fmt, _ in figures))
    print("\nafter against before (medians)")
    for key, label, _, higher_is_better in figures:
        was = statistics.median(r[key] for r in results["before"])
        now = statistics.median(r[key] for r in results["after"])
        change = (now / was - 1) * 100 if was else float("nan")
        verdict = ""
        if higher_is_better is not None:
            worse = -change if higher_is_better else change
            verdict = "within 5 %" if worse <= 5 else f"{worse:.1f} % worse"
        print(f"  {label:>18}: {change:+.1f} %  {verdict}")
    with open(os.path.join(OUT, f"compare-{mode}.json"), "w") as f:
        json.dump({"before": before, "after": after, "flags": extra, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
