#!/usr/bin/env python3
"""Whether two aggctl binaries write the same bytes: what a redesign must leave as it was.

    same_outputs.py BEFORE AFTER [--devices 200]

Two stores: the demo's (the example machines' week, replayed by Examples/week/replay.py with AFTER, as
script/demo makes it) and a generated one (Benchmarks/Generators/make_store.py, --devices records). On
each, every output a person or a program reads: `status` as a table and `--json`, the status-bar lines,
`devices`, `export` in each format and `report`, each run twice with a state folder of each binary's
own (cold, then warm from its caches: the kept answers must say what a fresh read says). Prints one line
per output and exits 1 when any differs. Reads only what it is given and writes only into a temporary
folder.
"""
import argparse, os, subprocess, sys, tempfile

MOMENT = "2026-11-30T12:00:00Z"


def outputs(store, out_dir):
    """Each output's name and its aggctl arguments; `{out}` is a file to write in `out_dir`."""
    common = ["--store", store, "--now", MOMENT]
    runs = [
        ("status", ["status"] + common),
        ("status --json", ["status", "--json"] + common),
        ("devices", ["devices"] + common),
    ]
    for fmt in ["line", "tmux", "waybar"]:
        runs.append((f"status --format {fmt}", ["status", "--format", fmt] + common))
    for fmt in ["prometheus", "csv"]:
        runs.append((f"export --format {fmt}", ["export", "--format", fmt, "--out", "-"] + common))
    runs.append(("report", ["report", "--out", "{out}"] + common))
    return runs


def run(binary, args, state, out_dir, name):
    """Exit status, the output's bytes (stdout, or the --out file) and stderr."""
    out_file = os.path.join(out_dir, name.replace(" ", "_").replace("-", "") + ".out")
    writes_file = "{out}" in args
    args = [a.replace("{out}", out_file) for a in args]
    env = dict(os.environ, XDG_STATE_HOME=state, TZ="UTC", NO_COLOR="1", LC_ALL="C")
    env.pop("AGGCTL_STORE", None)
    done = subprocess.run([binary] + args, env=env, capture_output=True)
    body = done.stdout
    if writes_file:
        body = open(out_file, "rb").read() if os.path.exists(out_file) else b""
        if os.path.exists(out_file):
            os.remove(out_file)
    return done.returncode, body, done.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--devices", type=int, default=200)
    a = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    binaries = {"before": os.path.abspath(a.before), "after": os.path.abspath(a.after)}
    differ = 0
    with tempfile.TemporaryDirectory(prefix="aggctl-same-") as tmp:
        demo = os.path.join(tmp, "demo-store")
        os.makedirs(demo)
        subprocess.run([sys.executable, os.path.join(root, "Examples/week/replay.py"), binaries["after"], demo,
                        os.path.join(tmp, "demo-week")], check=True, capture_output=True)
        generated = os.path.join(tmp, "generated")
        subprocess.run([sys.executable, os.path.join(here, "Generators/make_store.py"), "--devices",
                        str(a.devices), generated], check=True, capture_output=True)
        for label, store in [("demo", demo), (f"{a.devices} records", generated)]:
            states = {side: os.path.join(tmp, f"state-{label}-{side}") for side in binaries}
            for name, args in outputs(store, tmp):
                for attempt in ["cold", "warm"]:
                    got = {side: run(binary, args, states[side], tmp, name) for side, binary in binaries.items()}
                    same = got["before"][:2] == got["after"][:2]
                    size = len(got["after"][1])
                    verdict = "same" if same else "DIFFERENT"
                    print(f"{label:>12}  {name:<26} {attempt:<5} {size:>10} bytes  exit {got['after'][0]}  {verdict}")
                    if not same:
                        differ += 1
    print(f"{differ} output(s) differ" if differ else "every output the same, byte for byte")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
