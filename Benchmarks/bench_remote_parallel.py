#!/usr/bin/env python3
"""Two aggctl binaries reading the same store from a server, side by side: on loopback, and behind a
proxy that holds every GET of a record for --latency seconds (a server farther away than loopback).

    bench_remote_parallel.py BEFORE AFTER [--devices 1000] [--latency 0.01] [--runs 3] [--work DIR]

Serves make_store.py's store of --devices records from real nginx (WebDAV, script/webdav-server) and
SeaweedFS (S3, script/s3-server) on 127.0.0.1, puts Tests/Servers/fault_proxy.py in front of each for the
far runs, and measures cold `status --json` of both binaries with Benchmarks/compare_binaries.py (fresh
state every run, interleaved, wall and CPU medians), and on loopback also an unchanged store (the caches
of an earlier run: one listing, nothing fetched; five times the runs). The cold runs show how many records
a store really reads at once: its `readParallelism` (8 for WebDAV, 16 for S3) or, before 2026-12-03, as
many as there are cores.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_store import store_bench_arguments, store_of_devices  # noqa: E402
from bench_s3 import BUCKET, KEY, SECRET, start_fault_proxy, start_seaweedfs, upload  # noqa: E402
from bench_webdav import PASSWORD, USER, serve_copy, start_server  # noqa: E402

NOW = "2026-11-30T12:00:00Z"


def proxy(upstream, latency, keep_host=False):
    """fault_proxy.py in front of `upstream`, holding every GET of a record for `latency` seconds."""
    process, origin = start_fault_proxy(upstream, keep_host=keep_host)
    rule = json.dumps({"action": "latency", "method": "GET", "path": ".json", "count": 10**9, "seconds": latency})
    subprocess.run(["curl", "-s", "-f", "-o", "/dev/null", "-X", "POST", "--data", rule, f"{origin}/__fault__/rule"],
                   check=True)
    return process, origin


def compare(args, store, env, label, cold=True):
    print(f"\n== {label}{'' if cold else ', unchanged (caches of an earlier run)'}: {store}", flush=True)
    command = [sys.executable, os.path.join(HERE, "compare_binaries.py"), args.before, args.after,
               "--runs", str(args.runs if cold else 5 * args.runs), "--copies", "1"] + (["--cold"] if cold else []) + [
               "--", "status", "--store", store, "--json", "--now", NOW]
    output = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    print("\n".join(output.strip().splitlines()[-3:]), flush=True)


def stop(process):
    """Stops a server started in a session of its own, with its children."""
    try:
        os.killpg(process.pid, 15)
    except ProcessLookupError:
        pass
    process.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.01)
    store_bench_arguments(parser, runs=3)
    args = parser.parse_args()
    folder, names = store_of_devices(args)
    running = []
    try:
        nginx, dav = start_server("nginx", serve_copy(folder, os.path.join(args.work, "parallel-dav")))
        running.append(nginx)
        dav_proxy, dav_far = proxy(dav, args.latency)
        running.append(dav_proxy)
        dav_env = dict(os.environ, AGGCTL_WEBDAV_USER=USER, AGGCTL_WEBDAV_PASSWORD=PASSWORD)

        weed, s3 = start_seaweedfs(os.path.join(args.work, "parallel-s3"))
        running.append(weed)
        upload(s3, folder, names, "store/", os.path.join(args.work, "parallel-upload.curl"))
        s3_proxy, s3_far = proxy(s3, args.latency, keep_host=True)
        running.append(s3_proxy)
        s3_env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET, AWS_REGION="us-east-1")

        print(f"{args.devices} records; before {args.before}, after {args.after}; median of {args.runs} cold runs")
        compare(args, f"{dav}/store/", dav_env, "WebDAV (nginx) on loopback")
        compare(args, f"{dav}/store/", dav_env, "WebDAV (nginx) on loopback", cold=False)
        compare(args, f"{dav_far}/store/", dav_env, f"WebDAV (nginx) behind {args.latency * 1000:.0f} ms per GET")
        compare(args, f"s3://{BUCKET}/store/", dict(s3_env, AWS_ENDPOINT_URL=s3), "S3 (SeaweedFS) on loopback")
        compare(args, f"s3://{BUCKET}/store/", dict(s3_env, AWS_ENDPOINT_URL=s3), "S3 (SeaweedFS) on loopback",
                cold=False)
        compare(args, f"s3://{BUCKET}/store/", dict(s3_env, AWS_ENDPOINT_URL=s3_far),
                f"S3 (SeaweedFS) behind {args.latency * 1000:.0f} ms per GET")
    finally:
        for process in reversed(running):
            stop(process)


if __name__ == "__main__":
    main()
