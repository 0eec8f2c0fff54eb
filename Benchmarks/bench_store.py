#!/usr/bin/env python3
"""Benchmark of `aggctl status --json` against the plain Python merge a user would script.

    bench_store.py AGGCTL_BINARY [--sizes 100,1000,10000,1000x10] [--runs 5] [--work DIR]
                   [--limits-records 1000] [--limits-runs 101] [--limits-before EARLIER_BINARY]

A size `NxK` is N records with K times the generator's history (weekly samples): memory must not grow
with history a merge does not need.

For each size it generates a store with Benchmarks/Generators/make_store.py (kept in --work between runs), then
measures side by side in one run, interleaved: reading the files (`cat`, and in-process: the benchmark's
own open/read/close loop, the floor issue 14 compares a cold run with), the baseline (Benchmarks/
merge_baseline.py), aggctl cold (a fresh state directory: no parse cache, no merge memo) and aggctl
warm (the caches of an earlier run, nothing changed). Each figure is the median of --runs runs; peak
RSS comes from /usr/bin/time in a separate run of each. It checks that aggctl and the reference merge the same accounts, and exits 1 if not.

Then the same --limits-records records with one and with four limits on every account, with none, and
with none and no weekly window, cold and warm, shuffled in each of --limits-runs rounds (with
--limits-before, an earlier binary in the same rounds): what limits cost, beside what a window costs.
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_accounts  # noqa: E402

NOW = "2026-11-30T12:00:00Z"


def store_bench_arguments(parser, runs):
    """Adds what every store benchmark takes: --runs and --work (the generated stores, kept between runs)."""
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "aggctl-bench"))


# The project's own store generator and Python merge, which every benchmark uses.
STORE_GENERATOR = os.path.join(HERE, "Generators", "make_store.py")
MERGE_BASELINE = os.path.join(HERE, "merge_baseline.py")


def generated_store(generator, folder, devices, samples=None):
    """`folder` holding a store of `devices` records from make_store.py, made when it is missing or of
    another size; returns `folder`."""
    if os.path.isdir(folder) and len(os.listdir(folder)) == devices:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    extra = ["--samples", str(samples)] if samples else []
    subprocess.run([sys.executable, generator, folder, "--devices", str(devices)] + extra, check=True,
                   stdout=subprocess.DEVNULL)
    # Records younger than the caches' settle time (2 s) are never cached: a warm run over a store
    # written a moment ago would be another cold one.
    time.sleep(2.5)
    return folder


def store_of_devices(args):
    """The store of `args.devices` records from make_store.py in --work (made when missing), and its record
    names, sorted: what the server benchmarks serve."""
    os.makedirs(args.work, exist_ok=True)
    folder = generated_store(
        STORE_GENERATOR, os.path.join(args.work, f"store-{args.devices}"), args.devices)
    return folder, sorted(os.listdir(folder))


# Runs that fill every cache of an unchanged store: the first keeps the parse cache, the second (finding
# the store as the first left it) the merge memo, the third (from the memo) `status --json`'s document.
WARM_UP_RUNS = 3


def warm_up(argv, env, stdin=None):
    """Runs argv WARM_UP_RUNS times, so that the next run is a warm one."""
    for _ in range(WARM_UP_RUNS):
        with open(stdin or os.devnull, "rb") as source:
            subprocess.run(argv, stdout=subprocess.DEVNULL, env=env, stdin=source, check=True)


def read_in_process(files):
    """Seconds to open, read to the end and close every file, in this process (no start-up)."""
    start = time.perf_counter()
    for path in files:
        descriptor = os.open(path, os.O_RDONLY)
        try:
            while os.read(descriptor, 1 << 20):
                pass
        finally:
            os.close(descriptor)
    return time.perf_counter() - start


def run(argv, env=None, stdout=subprocess.DEVNULL):
    """Runs argv once; returns its wall-clock seconds."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.DEVNULL, env=env)
    _, status = os.waitpid(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(argv)}")
    return elapsed


def peak_rss(argv, env=None):
    """Peak resident memory of argv in KiB, measured by /usr/bin/time in a run of its own.

    Not from this process's wait4: Linux records the forking parent's high-water mark into the child's
    ru_maxrss at exec, so a child of a large Python process reports at least that Python's size.
    """
    with tempfile.NamedTemporaryFile("r") as report:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name] + argv, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return int(report.read().strip().splitlines()[-1])


def free_port():
    """A port nothing listens on right now, on 127.0.0.1."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def remote_beside_folder(remote, local, states, envs, floor_cold, floor_unchanged, runs, work, label):
    """aggctl on a server's store beside the same records in a folder, and the floors of each read.

    First checks that the remote and folder runs report the same accounts (exits if not). Then measures,
    interleaved, `runs` times: the folder cold (fresh state) and warm, `floor_cold`, the remote store cold,
    `floor_unchanged`, and the remote store unchanged (caches of an earlier run). `states` and `envs` name
    the state folders and environments "cold", "warm", "folder" and "folder-warm". Returns the medians
    (keys "folder", "folder warm", "floor cold", "cold", "floor unchanged", "unchanged") and the peak memory
    of the remote store's cold and unchanged runs, in KiB.
    """
    outputs = []
    for name, argv in (("remote", remote), ("folder", local)):
        shutil.rmtree(states["cold"], ignore_errors=True)
        path = os.path.join(work, f"{label}-{name}.json")
        with open(path, "w") as out:
            subprocess.run(argv, stdout=out, env=envs["cold"], check=True)
        outputs.append(path)
    sys.argv = ["compare"] + outputs
    if compare_accounts.main() != 0:
        raise SystemExit(f"bench: {label} and the folder disagree")

    shutil.rmtree(states["warm"], ignore_errors=True)
    subprocess.run(remote, stdout=subprocess.DEVNULL, env=envs["warm"], check=True)
    time.sleep(2.5)  # records younger than the parse cache's settle time are not cached
    warm_up(remote, envs["warm"])
    shutil.rmtree(states["folder-warm"], ignore_errors=True)
    warm_up(local, envs["folder-warm"])
    samples = {key: [] for key in ("folder", "folder warm", "floor cold", "cold", "floor unchanged", "unchanged")}
    for _ in range(runs):
        shutil.rmtree(states["folder"], ignore_errors=True)
        samples["folder"].append(run(local, envs["folder"]))
        samples["folder warm"].append(run(local, envs["folder-warm"]))
        samples["floor cold"].append(run(floor_cold))
        shutil.rmtree(states["cold"], ignore_errors=True)
        samples["cold"].append(run(remote, envs["cold"]))
        samples["floor unchanged"].append(run(floor_unchanged))
        samples["unchanged"].append(run(remote, envs["warm"]))
    shutil.rmtree(states["cold"], ignore_errors=True)
    memory = {"cold": peak_rss(remote, envs["cold"]), "unchanged": peak_rss(remote, envs["warm"])}
    return {key: statistics.median(values) for key, values in samples.items()}, memory


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("--sizes", default="100,1000,10000,1000x10")
    parser.add_argument("--limits-records", type=int, default=1000,
                        help="records of the stores with and without limits measured side by side (0: none)")
    parser.add_argument("--limits-runs", type=int, default=101,
                        help="rounds of the side-by-side (each runs every store cold and warm, in a shuffled order)")
    parser.add_argument("--limits-before", metavar="BINARY",
                        help="an earlier aggctl measured in the same rounds of the side-by-side")
    store_bench_arguments(parser, runs=5)
    args = parser.parse_args()
    generator = STORE_GENERATOR
    reference = MERGE_BASELINE
    os.makedirs(args.work, exist_ok=True)

    rows = []
    for label in args.sizes.split(","):
        size, _, factor = label.partition("x")
        size, factor = int(size), int(factor or 1)
        store = generated_store(
            generator, os.path.join(args.work, f"store-{label}" if factor > 1 else f"store-{size}"), size,
            samples=48 * factor)
        files = sorted(os.path.join(store, name) for name in os.listdir(store))
        megabytes = sum(os.path.getsize(f) for f in files) / 1e6
        runs = args.runs if size <= 1000 else max(3, args.runs // 2)

        # Agreement first, on the same store and `now`.
        state = os.path.join(args.work, f"state-{label}")
        shutil.rmtree(state, ignore_errors=True)
        env = dict(os.environ, XDG_STATE_HOME=state)
        mine_path = os.path.join(args.work, f"aggctl-{label}.json")
        reference_path = os.path.join(args.work, f"reference-{label}.json")
        status = [args.aggctl, "status", "--store", store, "--json", "--now", NOW]
        with open(mine_path, "w") as out:
            subprocess.run(status, stdout=out, env=env, check=True)
        with open(reference_path, "w") as out:
            subprocess.run([sys.executable, reference, store, "--now", NOW], stdout=out, check=True)
        sys.argv = ["compare", mine_path, reference_path]
        if compare_accounts.main() != 0:
            raise SystemExit(f"bench: aggctl and the reference disagree on store {label}")

        # Interleaved, one run of each in turn, so that drift in the machine's speed (a shared host)
        # affects all five alike instead of whichever ran during a slow spell; in an order shuffled every
        # round, because a run right after a heavy one is slower (warm always after cold made warm/cold
        # look a fifth worse than the same binaries measured in shuffled order by bench_startup.py).
        samples = {"cat": [], "read": [], "ref": [], "cold": [], "warm": []}
        warm_state = os.path.join(args.work, f"state-{label}-warm")
        warm_env = dict(os.environ, XDG_STATE_HOME=warm_state)
        shutil.rmtree(warm_state, ignore_errors=True)
        warm_up(status, warm_env)

        def cold():
            shutil.rmtree(state, ignore_errors=True)
            return run(status, env)

        measures = {
            "cat": lambda: run(["sh", "-c", 'cat "$@" > /dev/null', "cat"] + files),
            "read": lambda: read_in_process(files),
            "ref": lambda: run([sys.executable, reference, store, "--now", NOW]),
            "cold": cold,
            "warm": lambda: run(status, warm_env),
        }
        order = random.Random(size)
        for _ in range(runs):
            for name in order.sample(list(measures), len(measures)):
                samples[name].append(measures[name]())

        shutil.rmtree(state, ignore_errors=True)
        memory = {"ref": peak_rss([sys.executable, reference, store, "--now", NOW]),
                  "cold": peak_rss(status, env), "warm": peak_rss(status, warm_env), "cat": 0,
                  "read": 0}

        def summary(name):
            return statistics.median(samples[name]), memory[name]

        rows.append((label, size, megabytes, summary("cat"), summary("read"), summary("ref"), summary("cold"),
                     summary("warm")))

    print()
    print(f"{'records':>8} {'MB':>7} {'cat ms':>8} {'read ms':>8} {'ref ms':>9} {'cold ms':>8} {'MB/s':>7}"
          f" {'warm ms':>8} {'cold/ref':>9} {'cold/cat':>9} {'cold/read':>10} {'warm/cold':>10} {'RSS cold':>9}"
          f" {'RSS warm':>9} {'ref RSS':>8}")
    for label, size, megabytes, cat, read, ref, cold, warm in rows:
        print(f"{label:>8} {megabytes:>7.1f} {cat[0]*1e3:>8.1f} {read[0]*1e3:>8.1f} {ref[0]*1e3:>9.1f}"
              f" {cold[0]*1e3:>8.1f} {megabytes / cold[0]:>7.0f} {warm[0]*1e3:>8.1f} {cold[0]/ref[0]:>9.3f}"
              f" {cold[0]/cat[0]:>9.2f} {cold[0]/read[0]:>10.2f} {warm[0]/cold[0]:>10.2f} {cold[1]/1024:>7.0f}MB"
              f" {warm[1]/1024:>7.0f}MB {ref[1]/1024:>6.0f}MB")
    print()
    print("per record (cold, warm, reference) in microseconds:")
    for label, size, _, _, _, ref, cold, warm in rows:
        print(f"  {label:>7}: {cold[0]/size*1e6:8.1f} {warm[0]/size*1e6:8.1f} {ref[0]/size*1e6:8.1f}")
    if args.limits_records:
        limits_side_by_side(args)


def limits_side_by_side(args):
    """The same records with one and with four limits on every account (version 2), with none, and with
    none and no weekly window (what one window costs, for scale), cold and warm, interleaved: what limits
    cost the merge and its outputs. With --limits-before, an earlier binary in the same rounds."""
    stores = {}
    for name, flags in (("0", ["--limits", "0"]), ("1", ["--limits", "1"]), ("4", ["--limits", "4"]),
                        ("no weekly", ["--limits", "0", "--no-weekly"])):
        suffix = flags[1] + ("-noweekly" if "--no-weekly" in flags else "")
        folder = os.path.join(args.work, f"store-{args.limits_records}-limits{suffix}")
        if not (os.path.isdir(folder) and len(os.listdir(folder)) == args.limits_records):
            shutil.rmtree(folder, ignore_errors=True)
            subprocess.run([sys.executable, STORE_GENERATOR, folder, "--devices", str(args.limits_records)]
                           + flags, check=True, stdout=subprocess.DEVNULL)
            time.sleep(2.5)
        stores[name] = folder
    binaries = {"": args.aggctl}
    if args.limits_before:
        binaries = {"before": args.limits_before, "after": args.aggctl}
    samples = {}
    measures = {}
    for label, binary in binaries.items():
        for name, store in stores.items():
            status = [binary, "status", "--store", store, "--json", "--now", NOW]
            state = os.path.join(args.work, f"state-limits{label}-{name.replace(' ', '-')}")
            warm_state = state + "-warm"
            shutil.rmtree(warm_state, ignore_errors=True)
            warm_env = dict(os.environ, XDG_STATE_HOME=warm_state)
            warm_up(status, warm_env)

            def cold(status=status, state=state):
                shutil.rmtree(state, ignore_errors=True)
                return run(status, dict(os.environ, XDG_STATE_HOME=state))

            measures[("cold", label, name)] = cold
            measures[("warm", label, name)] = lambda status=status, env=warm_env: run(status, env)
    samples = {key: [] for key in measures}
    order = random.Random(4)
    # Ratios within a few percent of each other are told apart only over many rounds on a shared machine:
    # a round is about 0.1 s for each binary.
    for _ in range(max(args.limits_runs, 7)):
        for key in order.sample(list(measures), len(measures)):
            samples[key].append(measures[key]())
    median = {key: statistics.median(values) * 1e3 for key, values in samples.items()}
    print()
    print(f"{args.limits_records} records, every account with 1 and with 4 limits against none, and with none"
          f" and no weekly window (status --json, {max(args.limits_runs, 7)} rounds, ms and ratio to none):")
    for label in binaries:
        for kind in ("cold", "warm"):
            none = median[(kind, label, "0")]
            cells = "   ".join(f"{name if name != '0' else 'none'} {median[(kind, label, name)]:6.1f}"
                               + ("" if name == "0" else f" ({median[(kind, label, name)] / none:.3f})")
                               for name in stores)
            print(f"  {label + ' ' if label else ''}{kind}: {cells}")


if __name__ == "__main__":
    main()
