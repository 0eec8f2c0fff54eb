#!/usr/bin/env python3
"""`aggctl report` at 1000 records with two weeks of history, cold and warm, for one binary or two side by
side (interleaved, medians): what the warm run's reuse of the daily bars buys.

    bench_report.py AGGCTL [BEFORE] [--records 1000] [--runs 7] [--work DIR]

Cold: an empty state folder. Warm: the state of a run before (its caches and the kept daily bars).
Both with --now at the store's moment, so the page is the same every run.
"""
import argparse, os, random, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(HERE, "Generators", "make_store.py")
NOW = "2026-11-30T12:00:00Z"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("before", nargs="?")
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "aggctl-bench-report"))
    a = parser.parse_args()
    os.makedirs(a.work, exist_ok=True)
    store = os.path.join(a.work, f"store-{a.records}")
    if not (os.path.isdir(store) and len(os.listdir(store)) == a.records):
        shutil.rmtree(store, ignore_errors=True)
        subprocess.run([sys.executable, GENERATOR, store, "--devices", str(a.records), "--samples", "112"],
                       check=True, stdout=subprocess.DEVNULL)
    binaries = {"after": a.aggctl}
    if a.before:
        binaries["before"] = a.before

    def run(binary, state):
        started = time.perf_counter()
        subprocess.run([binary, "report", "--store", store, "--out", os.path.join(a.work, "page.html"), "--now", NOW],
                       env={"PATH": "/usr/bin:/bin", "HOME": a.work, "XDG_STATE_HOME": state}, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return (time.perf_counter() - started) * 1000

    times = {}
    for name, binary in binaries.items():
        warm = os.path.join(a.work, f"state-{name}-warm")
        shutil.rmtree(warm, ignore_errors=True)
        run(binary, warm)
    cases = [(name, kind) for name in binaries for kind in ("cold", "warm")]
    for _ in range(a.runs):
        random.shuffle(cases)
        for name, kind in cases:
            state = os.path.join(a.work, f"state-{name}-{kind}")
            if kind == "cold":
                shutil.rmtree(state, ignore_errors=True)
            times.setdefault((name, kind), []).append(run(binaries[name], state))
    print(f"report, {a.records} records with two weeks of history, medians of {a.runs} (ms):")
    for name in binaries:
        print(f"  {name:6}  cold {statistics.median(times[(name, 'cold')]):7.0f}   "
              f"warm {statistics.median(times[(name, 'warm')]):7.0f}")


if __name__ == "__main__":
    main()
