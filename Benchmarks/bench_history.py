#!/usr/bin/env python3
"""History's cost: `status` before and after history existed, and `report`, side by side in one run.

    bench_history.py AFTER_BINARY BEFORE_BINARY [--records 1000] [--samples 112] [--runs 11] [--work DIR]
                    

Generates a store of --records records whose every provider entry carries --samples weekly samples
(Benchmarks/Generators/make_store.py --samples; 112 is 14 days at one sample every 3 hours), then measures,
interleaved so that drift hits every column alike: `status --json` and the `status` table, cold (a
fresh state and cache directory) and warm (the caches of an earlier run, nothing changed), with the
binary from before history and the current one; and `report` (current only; it reads every record
with its history, past the caches). Figures are medians in milliseconds.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_store import STORE_GENERATOR, generated_store  # noqa: E402

NOW = "2026-11-30T12:00:00Z"


def timed(argv, env):
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("after")
    parser.add_argument("before")
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=112)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "aggctl-bench-history"))
    a = parser.parse_args()
    store = generated_store(
        STORE_GENERATOR, os.path.join(a.work, f"store-{a.records}x{a.samples}"), a.records,
        samples=a.samples)
    size = sum(os.path.getsize(os.path.join(store, n)) for n in os.listdir(store)) / 1e6

    def env_for(name):
        folder = os.path.join(a.work, name)
        return folder, dict(os.environ, XDG_STATE_HOME=folder, XDG_CACHE_HOME=folder, HOME=folder, TERM="xterm")

    cases = []
    for label, binary in (("before", a.before), ("after", a.after)):
        for mode, extra in (("json", ["--json"]), ("table", [])):
            cases.append((f"status {mode} {label}", binary, ["status", "--store", store, "--now", NOW] + extra))
    cases.append(("report after", a.after,
                  ["report", "--store", store, "--out", os.path.join(a.work, "report.html"), "--now", NOW]))
    cold = {name: [] for name, _, _ in cases}
    warm = {name: [] for name, _, _ in cases}
    for name, binary, args in cases:  # the warm caches
        folder, env = env_for(name.replace(" ", "-") + "-warm")
        shutil.rmtree(folder, ignore_errors=True)
        timed([binary] + args, env)
    for _ in range(a.runs):
        for name, binary, args in cases:
            folder, env = env_for(name.replace(" ", "-") + "-cold")
            shutil.rmtree(folder, ignore_errors=True)
            cold[name].append(timed([binary] + args, env))
            _, env = env_for(name.replace(" ", "-") + "-warm")
            warm[name].append(timed([binary] + args, env))
    print(f"{a.records} records, {a.samples} weekly samples per entry, {size:.1f} MB; medians of {a.runs} runs, ms")
    print(f"{'':24}{'cold':>9}{'warm':>9}")
    for name, _, _ in cases:
        print(f"{name:24}{statistics.median(cold[name]):9.1f}{statistics.median(warm[name]):9.1f}")
    for mode in ("json", "table"):
        b, f = f"status {mode} before", f"status {mode} after"
        print(f"status {mode}: after/before cold {statistics.median(cold[f]) / statistics.median(cold[b]):.2f}, "
              f"warm {statistics.median(warm[f]) / statistics.median(warm[b]):.2f}")


if __name__ == "__main__":
    main()
