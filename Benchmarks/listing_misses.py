#!/usr/bin/env python3
"""How often a reader misses a record that a busy writer keeps replacing, on real WebDAV servers.

    listing_misses.py AGGCTL_BINARY [--reads 1000] [--servers rclone,apache,nginx] [--devices 20]

For each server (script/webdav-server on 127.0.0.1) the store gets --devices records; then one writer
publishes the record of device `busy` again and again (a temporary name, then MOVE over the old one, as
aggctl always writes) while a reader runs `aggctl status --json` --reads times, each with the caches of
the runs before it, as a status bar or `watch` would. A read misses when `busy` is not among its devices.
Some servers drop a record from their listing for a moment while it is replaced; aggctl lists again
after a short pause when a record the last run saw is missing, so the figure to hold is 0.

Prints one line per server (reads, misses, publishes during the reads) and exits 1 on any miss.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_webdav import PASSWORD, USER, start_server  # noqa: E402


def usage_document(device):
    return json.dumps({"providers": [{
        "providerID": "codex", "accountEmail": f"{device}@example.com", "plan": "Plus",
        "lastUpdated": "2026-11-30T11:59:00Z",
        "session": {"usedPercent": 20, "windowMinutes": 300, "resetsAt": "2026-11-30T15:00:00Z"},
        "weekly": {"usedPercent": 40, "windowMinutes": 10080, "resetsAt": "2026-12-04T00:00:00Z"}}]})


def environment(home):
    os.makedirs(home, exist_ok=True)
    return dict(os.environ, HOME=home, XDG_STATE_HOME=os.path.join(home, "state"),
                XDG_CONFIG_HOME=os.path.join(home, "config"), AGGCTL_WEBDAV_USER=USER,
                AGGCTL_WEBDAV_PASSWORD=PASSWORD)


def publish(aggctl, store, device, usage, env):
    return subprocess.run([aggctl, "publish", "--store", store, "--device-id", device, "--from", usage],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def measure(aggctl, kind, work, reads, devices, verbose=False):
    root = os.path.join(work, f"dav-{kind}")
    os.makedirs(os.path.join(root, "store"))
    for path in (work, root, os.path.join(root, "store")):
        os.chmod(path, 0o777)  # Apache serves as nobody when started by root
    server, origin = start_server(kind, root)
    store = f"{origin}/store/"
    try:
        usage = os.path.join(work, "usage.json")
        with open(usage, "w") as f:
            f.write(usage_document("device"))
        writer_env = environment(os.path.join(work, f"{kind}-writer"))
        for index in range(devices - 1):
            publish(aggctl, store, f"device-{index:03}", usage, writer_env)
        publish(aggctl, store, "busy", usage, writer_env)
        stop = threading.Event()
        published = [0]

        def writer():
            while not stop.is_set():
                if publish(aggctl, store, "busy", usage, writer_env):
                    published[0] += 1

        thread = threading.Thread(target=writer)
        thread.start()
        reader_env = environment(os.path.join(work, f"{kind}-reader"))
        misses = failures = 0
        try:
            for _ in range(reads):
                run = subprocess.run([aggctl, "status", "--json", "--store", store, "--now", "2026-11-30T12:00:00Z"],
                                     env=reader_env, capture_output=True, text=True)
                if run.returncode != 0:
                    failures += 1
                    continue
                answer = json.loads(run.stdout)
                seen = {device["deviceID"] for device in answer["devices"]}
                if "busy" not in seen:
                    misses += 1
                    if verbose:
                        print(f"  miss: problems {answer['problems']}; {run.stderr.strip()}", flush=True)
        finally:
            stop.set()
            thread.join()
        return misses, failures, published[0]
    finally:
        os.killpg(server.pid, 15)
        server.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("--reads", type=int, default=1000)
    parser.add_argument("--devices", type=int, default=20)
    parser.add_argument("--servers", default="rclone,apache,nginx")
    parser.add_argument("--verbose", action="store_true", help="say what each miss reported")
    args = parser.parse_args()
    aggctl = os.path.abspath(args.aggctl)
    work = tempfile.mkdtemp(prefix="aggctl-misses-")
    bad = False
    try:
        for kind in args.servers.split(","):
            misses, failures, published = measure(aggctl, kind, work, args.reads, args.devices, args.verbose)
            print(f"{kind:7} reads {args.reads}  misses {misses}  failed reads {failures}  "
                  f"publishes meanwhile {published}", flush=True)
            bad = bad or misses > 0 or failures > 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
