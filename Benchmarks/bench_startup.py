#!/usr/bin/env python3
"""Start-up and the warm path, side by side in one run: a Swift hello world, aggctl, and optionally an
earlier aggctl binary.

    bench_startup.py AGGCTL HELLO [--before BIN] [--runs 41] [--work DIR]

Measured interleaved (one of each in every round, in an order shuffled anew each round: a run that
follows a cold merge is slower, and a fixed order gave that cost to the same measurements every time;
medians of --runs):
  hello               a Swift hello world built the same way (release, --static-swift-stdlib)
  --version           aggctl --version: start-up alone
  statusline          aggctl statusline on Claude Code's status-line document, 10 records, caches warm
  status warm         aggctl status --json over the 1000 records of make_store.py, caches of an earlier run
  status cold         the same with a fresh state (no caches)
With --before, each aggctl figure is also measured for BIN, and the ratios after/before printed.
"""
import argparse, os, random, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench_store import STORE_GENERATOR, generated_store, warm_up  # noqa: E402

NOW = "2026-11-30T12:00:00Z"


def timed(argv, env=None, stdin=None, before=None):
    if before:
        before()
    source = open(stdin, "rb") if stdin else subprocess.DEVNULL
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    elapsed = (time.perf_counter() - start) * 1000
    if stdin:
        source.close()
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("hello")
    parser.add_argument("--before")
    parser.add_argument("--runs", type=int, default=41)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "aggctl-bench-startup"))
    a = parser.parse_args()
    generator = STORE_GENERATOR
    os.makedirs(a.work, exist_ok=True)
    stores = {count: generated_store(generator, os.path.join(a.work, f"store-{count}"), count) for count in (10, 1000)}
    document = os.path.join(ROOT, "Tests", "CollectorsTests", "Fixtures", "claude-statusline", "input.json")
    # Each program is measured from copies made now, all alike, taken in turn: how a binary's pages lie
    # in the page cache (written by the linker, by cp, long ago) changed the start-up of one and the same
    # binary by a fifth, which a side-by-side comparison reported as a difference between versions.
    def fresh_copies(path, name, count=4):
        copies = []
        for number in range(count):
            copy = os.path.join(a.work, f"{name}-{number}")
            shutil.copyfile(path, copy + ".new")
            os.chmod(copy + ".new", 0o755)
            os.replace(copy + ".new", copy)
            copies.append(copy)
        return copies

    hello = fresh_copies(a.hello, "hello")
    binaries = {"after": fresh_copies(a.aggctl, "aggctl-after")}
    if a.before:
        binaries["before"] = fresh_copies(a.before, "aggctl-before")

    rows = {"hello": []}
    cases = {}
    for label, copies in binaries.items():
        warm = os.path.join(a.work, f"state-{label}-warm")
        line = os.path.join(a.work, f"state-{label}-line")
        cold = os.path.join(a.work, f"state-{label}-cold")
        for path in (warm, line):
            shutil.rmtree(path, ignore_errors=True)
        env = lambda state: dict(os.environ, XDG_STATE_HOME=state, AGGCTL_STORE=stores[10])
        status = lambda binary: [binary, "status", "--store", stores[1000], "--json", "--now", NOW]
        # Warm the caches, after the parse cache's settle time.
        time.sleep(2.5)
        warm_up(status(copies[0]), env(warm))
        warm_up([copies[0], "statusline"], env(line), stdin=document)
        # Each case is called with the round's number and runs that round's copy.
        pick = lambda r, c=copies: c[r % len(c)]
        cases[label] = [
            ("--version", lambda r, p=pick: timed([p(r), "--version"])),
            ("statusline", lambda r, p=pick, l=line: timed([p(r), "statusline"], env(l), document)),
            ("status warm", lambda r, p=pick, w=warm: timed(status(p(r)), env(w))),
            ("status cold", lambda r, p=pick, c=cold: timed(
                status(p(r)), env(c), before=lambda: shutil.rmtree(c, ignore_errors=True))),
        ]
        for name, _ in cases[label]:
            rows[f"{name} {label}"] = []
    measurements = [("hello", lambda r: timed([hello[r % len(hello)]]))]
    for label in binaries:
        measurements += [(f"{name} {label}", run) for name, run in cases[label]]
    order = random.Random(14)
    for round_number in range(a.runs):
        order.shuffle(measurements)
        for key, run in measurements:
            rows[key].append(run(round_number))
    median = {key: statistics.median(values) for key, values in rows.items()}
    print(f"\nmedians of {a.runs} interleaved runs, milliseconds")
    print(f"hello world: {median['hello']:.2f}")
    for name, _ in cases["after"]:
        after = median[f"{name} after"]
        text = f"{name:<12} after {after:8.2f}"
        if "before" in binaries:
            before = median[f"{name} before"]
            text += f"   before {before:8.2f}   after/before {after / before:5.2f}"
        if name == "--version":
            text += f"   after/hello {after / median['hello']:4.2f}"
        if name == "status warm":
            text += f"   warm/cold {after / median['status cold after']:4.2f}"
        print(text)


if __name__ == "__main__":
    main()
