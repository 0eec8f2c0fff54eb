#!/usr/bin/env python3
"""How long `aggctl statusline` takes, as Claude Code runs it on every update.

    bench_statusline.py AGGCTL [--records 10] [--runs 51] [--work DIR]

Feeds Tests/CollectorsTests/Fixtures/claude-statusline/input.json (a real-shaped status-line document) on
stdin, with a store of --records generated records (Benchmarks/Generators/make_store.py) whose caches are warm
(an earlier run made them), and prints the median and 90th percentile wall-clock time, beside
`aggctl --version` (start-up alone) measured in the same run, interleaved.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_store import STORE_GENERATOR, generated_store, warm_up  # noqa: E402


def timed(argv, env, stdin):
    with open(stdin, "rb") as source:
        start = time.perf_counter()
        subprocess.run(argv, env=env, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return (time.perf_counter() - start) * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("--records", type=int, default=10)
    parser.add_argument("--runs", type=int, default=51)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "aggctl-bench-statusline"))
    a = parser.parse_args()
    store = generated_store(
        STORE_GENERATOR, os.path.join(a.work, f"store-{a.records}"), a.records)
    state = os.path.join(a.work, "state")
    shutil.rmtree(state, ignore_errors=True)
    env = dict(os.environ, XDG_STATE_HOME=state, HOME=state, AGGCTL_STORE=store)
    document = os.path.join(HERE, "..", "Tests", "CollectorsTests", "Fixtures", "claude-statusline", "input.json")
    warm_up([a.aggctl, "statusline"], env, stdin=document)
    statusline, version = [], []
    for _ in range(a.runs):
        statusline.append(timed([a.aggctl, "statusline"], env, document))
        version.append(timed([a.aggctl, "--version"], env, document))
    def summary(values):
        values = sorted(values)
        return f"median {statistics.median(values):5.1f} ms, p90 {values[int(len(values) * 0.9)]:5.1f} ms"
    print(f"statusline, {a.records} records, warm caches: {summary(statusline)}")
    print(f"--version (start-up alone):       {summary(version)}")


if __name__ == "__main__":
    main()
