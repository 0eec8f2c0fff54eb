#!/usr/bin/env python3
"""`aggctl publish` on a machine that kept two weeks of history: two binaries side by side.

    bench_publish_history.py BEFORE AFTER [--runs 25] [--samples 2000]

Each run starts from the same history.json in its state folder: two accounts, a session and a weekly
window each, --samples samples per window (2000, the local budget, is what two weeks of moving figures
reach), and publishes one input file into a scratch store, as a cron job does every minute: the history
read, one observation added, the history written back (flushed) and the record written. Interleaved
in shuffled order; medians in milliseconds. Also checks that both binaries leave the same history and
the same record behind.
"""
import argparse, datetime, json, os, random, shutil, statistics, subprocess, sys, tempfile, time

NOW = 1796040000  # 2026-11-30T12:00:00Z


def iso(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--samples", type=int, default=2000)
    a = parser.parse_args()
    work = tempfile.mkdtemp(prefix="aggctl-publish-history-")
    try:
        accounts = {}
        for key in ("claude:you@example.com", "codex:you@example.com"):
            windows = {}
            for name, minutes in (("session", 300), ("weekly", 10080)):
                at = NOW - 14 * 86400
                samples = []
                step = 14 * 86400 // (a.samples + 1)
                for index in range(a.samples):
                    at += step
                    samples.append({"at": iso(at), "resetsAt": iso(at - at % (minutes * 60) + minutes * 60),
                                    "usedPercent": round((index * 7.3) % 100, 2)})
                windows[name] = samples
            accounts[key] = windows
        history = os.path.join(work, "history.json")
        with open(history, "w") as out:
            json.dump({"accounts": accounts}, out, separators=(",", ":"), sort_keys=True)
        entry = lambda provider, used: {
            "providerID": provider, "accountEmail": "you@example.com", "lastUpdated": iso(NOW),
            "session": {"usedPercent": used, "windowMinutes": 300, "resetsAt": iso(NOW + 3600)},
            "weekly": {"usedPercent": used * 2, "windowMinutes": 10080, "resetsAt": iso(NOW + 86400)}}
        source = os.path.join(work, "input.json")
        with open(source, "w") as out:
            json.dump({"providers": [entry("claude", 12.5), entry("codex", 5)]}, out)

        binaries = {"before": a.before, "after": a.after}
        figures = {label: [] for label in binaries}

        def run(label):
            state = os.path.join(work, f"state-{label}")
            os.makedirs(os.path.join(state, "aggctl"), exist_ok=True)
            shutil.copyfile(history, os.path.join(state, "aggctl", "history.json"))
            start = time.perf_counter()
            subprocess.run([binaries[label], "publish", "--from", source, "--store", os.path.join(work, f"store-{label}"),
                            "--device-id", "bench", "--now", iso(NOW)],
                           env=dict(os.environ, XDG_STATE_HOME=state), check=True)
            return (time.perf_counter() - start) * 1000

        for label in binaries:
            run(label)
        left = {label: open(os.path.join(work, f"state-{label}", "aggctl", "history.json"), "rb").read()
                for label in binaries}
        records = {label: open(os.path.join(work, f"store-{label}", "bench.json"), "rb").read() for label in binaries}
        if left["before"] != left["after"] or records["before"] != records["after"]:
            raise SystemExit("bench: the two binaries left different histories or records")
        order = list(binaries)
        shuffle = random.Random(9)
        for _ in range(a.runs):
            shuffle.shuffle(order)
            for label in order:
                figures[label].append(run(label))
        print(f"history.json {os.path.getsize(history) / 1e3:.0f} KB ({a.samples} samples x 4 windows); "
              f"medians of {a.runs} runs, milliseconds")
        for label in binaries:
            print(f"{label:<7} {statistics.median(figures[label]):8.2f}")
        print(f"after/before: {statistics.median(figures['after']) / statistics.median(figures['before']):.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
