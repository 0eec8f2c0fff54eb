#!/usr/bin/env python3
"""Two or more aggctl binaries on one command, side by side: wall clock and CPU time (user and system,
from the kernel's accounting of each child), medians over every run, and each one's ratios to the first.

    compare_binaries.py BEFORE AFTER [MORE ...] [--runs 25] [--copies 4] [--cold | --changing RECORD] -- status ...

A chain of steps is best measured in one run (BEFORE STEP1 STEP2 ...): on a shared host the speed of
the machine drifts from one run of this script to the next by more than one step gains.

Each binary is measured from --copies fresh copies taken in turn, and every round runs all copies in
a shuffled order: how a binary's file lies in the page cache changed the start-up of one and the same
binary by a fifth, and a run that follows a heavy one is slower. Each binary keeps a state folder of its
own (XDG_STATE_HOME), warmed by three runs first; with --cold it is emptied before every run. With
--changing, RECORD (a file of the store) is replaced before every run, as a publish replaces it (a new
file renamed over it, its content the same but for trailing white space): a team's store, where some
machine published since the last run, so that only the parse cache can help (the warm-up runs find
the store unchanged, and leave what an unchanged store leaves, as a quiet night would).
"""
import argparse, os, random, resource, shutil, statistics, subprocess, sys, tempfile, time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binaries", nargs="+", metavar="BINARY")
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--cold", action="store_true", help="an empty state folder for every run")
    parser.add_argument("--changing", metavar="RECORD", help="a record of the store, replaced before every run")
    # Everything after -- is aggctl's.
    split = sys.argv.index("--") if "--" in sys.argv else len(sys.argv)
    a = parser.parse_args(sys.argv[1:split])
    command = sys.argv[split + 1:]
    if not command:
        parser.error("give aggctl's arguments after --")
    if len(a.binaries) < 2:
        parser.error("give at least two binaries")
    # Labelled before, after (two binaries, as always), or by position and file name.
    labels = (["before", "after"] if len(a.binaries) == 2
              else [f"{n}:{os.path.basename(path)}" for n, path in enumerate(a.binaries)])
    if a.cold and a.changing:
        parser.error("--cold and --changing measure two different runs; give one")
    work = tempfile.mkdtemp(prefix="aggctl-compare-")
    kept = open(a.changing, "rb").read() if a.changing else b""
    original = kept.rstrip()
    replacements = 0

    def replace_record():
        nonlocal replacements
        replacements += 1
        staged = os.path.join(os.path.dirname(a.changing), ".compare-binaries.tmp")
        with open(staged, "wb") as out:
            out.write(original + b" " * (replacements % 2) + b"\n")
        os.rename(staged, a.changing)
        # Published a minute ago, as a cron job a minute apart would have: settled, so the run caches it
        # (a record changed within the last two seconds is never cached) and saves the cache.
        published = time.time() - 60
        os.utime(a.changing, (published, published))
    try:
        binaries = {}
        for label, path in zip(labels, a.binaries):
            binaries[label] = []
            for number in range(a.copies):
                copy = os.path.join(work, f"{label}-{number}")
                shutil.copyfile(path, copy)
                os.chmod(copy, 0o755)
                binaries[label].append(copy)

        def run(label, binary, warming=False):
            state = os.path.join(work, f"state-{label}")
            if a.cold:
                shutil.rmtree(state, ignore_errors=True)
            env = dict(os.environ, XDG_STATE_HOME=state)
            if a.changing and not warming:
                replace_record()
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([binary] + command, env=env, stdout=subprocess.DEVNULL, check=True)
            wall = time.perf_counter() - start
            now = resource.getrusage(resource.RUSAGE_CHILDREN)
            return wall * 1000, (now.ru_utime - used.ru_utime) * 1000, (now.ru_stime - used.ru_stime) * 1000

        for label, copies in binaries.items():
            for _ in range(3):
                run(label, copies[0], warming=True)
        figures = {label: [] for label in binaries}
        jobs = [(label, copy) for label, copies in binaries.items() for copy in copies]
        order = random.Random(14)
        for _ in range(a.runs):
            order.shuffle(jobs)
            for label, copy in jobs:
                figures[label].append(run(label, copy))
        medians = {}
        width = max(7, max(len(label) for label in labels))
        print(f"medians of {a.runs * a.copies} runs each, milliseconds")
        for label in binaries:
            wall, user, system = (statistics.median(run[i] for run in figures[label]) for i in range(3))
            cpu = statistics.median(run[1] + run[2] for run in figures[label])
            medians[label] = (wall, cpu)
            print(f"{label:<{width}} wall {wall:8.2f}   cpu {cpu:8.2f}   user {user:8.2f}   system {system:8.2f}")
        first = labels[0]
        for label in labels[1:]:
            print(f"{label}/{first}: wall {medians[label][0] / medians[first][0]:.3f}, "
                  f"cpu {medians[label][1] / medians[first][1]:.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if a.changing:
            with open(a.changing, "wb") as out:
                out.write(kept)


if __name__ == "__main__":
    main()
