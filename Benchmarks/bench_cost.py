#!/usr/bin/env python3
"""`aggctl cost` over a store of --devices records with --days days of ledger each (1000 x 90 by
default), cold (no cache) and warm (the months kept by a run before), beside `status --json` over the
same store, interleaved in one run: medians of --runs (ms) and peak RSS.

    bench_cost.py AGGCTL [--devices 1000] [--days 90] [--runs 5] [--work DIR]

The store comes from Generators/make_store.py and its ledger from Generators/make_ledger.py (kept in
--work between runs). `cost` is asked for the last 30 days (two UTC months) and for 90 days (four).
"""
import argparse, os, random, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
NOW = "2026-11-30T12:00:00Z"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "aggctl-bench-cost"))
    a = parser.parse_args()
    store = os.path.join(a.work, f"store-{a.devices}x{a.days}")
    if not os.path.isdir(os.path.join(store, "ledger")):
        shutil.rmtree(store, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(HERE, "Generators", "make_store.py"), store,
                        "--devices", str(a.devices)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([sys.executable, os.path.join(HERE, "Generators", "make_ledger.py"), store,
                        "--days", str(a.days), "--now", NOW], check=True, stdout=subprocess.DEVNULL)
    ledger_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(store, "ledger"))
                       for f in fs)
    commands = {
        "cost, 30 days": ["cost", "--store", store, "--tz", "UTC", "--now", NOW, "--json"],
        "cost, 90 days": ["cost", "--store", store, "--tz", "UTC", "--now", NOW, "--json", "--since", "2026-09-01"],
        "status --json": ["status", "--store", store, "--now", NOW, "--json"],
    }

    def run(arguments, state, measure_memory=False):
        env = {"PATH": "/usr/bin:/bin", "HOME": a.work, "XDG_STATE_HOME": state}
        prefix = ["/usr/bin/time", "-f", "%M"] if measure_memory else []
        started = time.perf_counter()
        done = subprocess.run(prefix + [a.aggctl] + arguments, env=env, check=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        elapsed = (time.perf_counter() - started) * 1000
        return int(done.stderr.strip().splitlines()[-1]) if measure_memory else elapsed

    cases = [(name, kind) for name in commands for kind in ("cold", "warm")]
    for name in commands:
        warm = os.path.join(a.work, f"state-{name}-warm".replace(" ", "_").replace(",", ""))
        shutil.rmtree(warm, ignore_errors=True)
        run(commands[name], warm)
    times, memory = {}, {}
    for _ in range(a.runs):
        random.shuffle(cases)
        for name, kind in cases:
            state = os.path.join(a.work, f"state-{name}-{kind}".replace(" ", "_").replace(",", ""))
            if kind == "cold":
                shutil.rmtree(state, ignore_errors=True)
            times.setdefault((name, kind), []).append(run(commands[name], state))
    for name, kind in cases:
        state = os.path.join(a.work, f"state-{name}-{kind}".replace(" ", "_").replace(",", ""))
        if kind == "cold":
            shutil.rmtree(state, ignore_errors=True)
        memory[(name, kind)] = run(commands[name], state, measure_memory=True)
    print(f"{a.devices} devices x {a.days} days of ledger ({ledger_bytes / 1e6:.0f} MB), medians of {a.runs} (ms, peak RSS):")
    for name in commands:
        print(f"  {name:14}  cold {statistics.median(times[(name, 'cold')]):7.0f} ({memory[(name, 'cold')] / 1024:5.0f} MiB)"
              f"   warm {statistics.median(times[(name, 'warm')]):7.0f} ({memory[(name, 'warm')] / 1024:5.0f} MiB)")


if __name__ == "__main__":
    main()
