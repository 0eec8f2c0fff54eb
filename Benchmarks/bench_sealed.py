#!/usr/bin/env python3
"""A cold and a warm merge of sealed records beside the same records in plaintext (docs/privacy.md).

    bench_sealed.py AGGCTL [--records 1000] [--runs 11] [--work DIR]

Both stores are made the same way from make_store.py's records: each record's entries published by
`aggctl publish --from` under its device id and time, once with `--key-file` and once without, so that
they differ only in the sealing. Then `status --json` over each, cold (an empty state folder) and warm
(the caches of an earlier run), interleaved in shuffled order; medians in milliseconds.
"""
import argparse, json, os, random, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(HERE, "Generators", "make_store.py")
NOW = "2026-11-30T12:00:00Z"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "aggctl-bench-sealed"))
    a = parser.parse_args()
    os.makedirs(a.work, exist_ok=True)
    source = os.path.join(a.work, f"source-{a.records}")
    if not (os.path.isdir(source) and len(os.listdir(source)) == a.records):
        shutil.rmtree(source, ignore_errors=True)
        subprocess.run([sys.executable, GENERATOR, source, "--devices", str(a.records)], check=True,
                       stdout=subprocess.DEVNULL)
    key = os.path.join(a.work, "store.key")
    if not os.path.exists(key):
        subprocess.run([a.aggctl, "key", "new", "--out", key], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    stores = {}
    for kind, extra in (("plain", []), ("sealed", ["--key-file", key])):
        store = os.path.join(a.work, f"store-{kind}-{a.records}")
        stores[kind] = store
        if os.path.isdir(store) and len(os.listdir(store)) == a.records:
            continue
        shutil.rmtree(store, ignore_errors=True)
        state = os.path.join(a.work, "publisher-state")
        for name in sorted(os.listdir(source)):
            with open(os.path.join(source, name)) as f:
                record = json.load(f)
            shutil.rmtree(state, ignore_errors=True)
            subprocess.run(
                [a.aggctl, "publish", "--store", store, "--device-id", record["deviceID"], "--from", "-",
                 "--now", record["generatedAt"]] + extra,
                input=json.dumps({"providers": record["providers"]}).encode(), check=True,
                env=dict(os.environ, XDG_STATE_HOME=state), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2.5)  # older than the caches' settle time
    measures = {}
    for kind, store in stores.items():
        extra = ["--key-file", key] if kind == "sealed" else []
        status = [a.aggctl, "status", "--store", store, "--json", "--now", NOW] + extra
        warm_state = os.path.join(a.work, f"state-{kind}-warm")
        shutil.rmtree(warm_state, ignore_errors=True)
        for _ in range(3):
            subprocess.run(status, env=dict(os.environ, XDG_STATE_HOME=warm_state), stdout=subprocess.DEVNULL)

        def cold(status=status, kind=kind):
            state = os.path.join(a.work, f"state-{kind}-cold")
            shutil.rmtree(state, ignore_errors=True)
            return timed(status, state)

        measures[f"cold {kind}"] = cold
        measures[f"warm {kind}"] = lambda status=status, state=warm_state: timed(status, state)
    samples = {name: [] for name in measures}
    order = random.Random(5)
    for _ in range(a.runs):
        for name in order.sample(list(measures), len(measures)):
            samples[name].append(measures[name]())
    median = {name: statistics.median(values) * 1e3 for name, values in samples.items()}
    print(f"{a.records} records, status --json, medians of {a.runs} (ms):")
    for phase in ("cold", "warm"):
        plain, sealed = median[f"{phase} plain"], median[f"{phase} sealed"]
        print(f"  {phase}: plaintext {plain:7.1f}   sealed {sealed:7.1f}   ratio {sealed / plain:.3f}")


def timed(argv, state):
    start = time.perf_counter()
    subprocess.run(argv, env=dict(os.environ, XDG_STATE_HOME=state), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
