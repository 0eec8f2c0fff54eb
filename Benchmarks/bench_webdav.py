#!/usr/bin/env python3
"""Benchmark of `aggctl status --json` on a 1000-record store served by real WebDAV servers on loopback.

    bench_webdav.py AGGCTL_BINARY [--devices 1000] [--runs 5] [--servers rclone,apache,nginx] [--work DIR]

The store comes from Benchmarks/Generators/make_store.py (kept in --work). Each server (script/webdav-server)
serves a copy of it. Measured side by side in one run, interleaved, median of --runs:
  folder cold   aggctl on the same records in a local folder, fresh state (no caches)
  folder warm   the same with the caches of an earlier run (what an unchanged store costs without a network)
  curl all      the floor for a cold read over HTTP: one curl process, one PROPFIND and a GET of every
                record over one reused connection
  dav cold      aggctl on the WebDAV store, fresh state: one PROPFIND, then every record, 8 at a time
  curl propfind the floor for an unchanged store: one curl process, one PROPFIND
  dav unchanged aggctl again with the caches of an earlier run: one PROPFIND, nothing fetched
It first checks that the WebDAV and folder runs report the same accounts, and exits 1 if not.
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench_store import free_port, remote_beside_folder, store_bench_arguments, store_of_devices  # noqa: E402

NOW = "2026-11-30T12:00:00Z"
USER, PASSWORD = "bench", "bench-password"
PROPFIND = ('<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/>'
            '<D:getetag/><D:getlastmodified/><D:getcontentlength/></D:prop></D:propfind>')


def serve_copy(folder, served):
    """`served` (made afresh) holding a copy of the store `folder` as `store/`, for a server to serve."""
    shutil.rmtree(served, ignore_errors=True)
    shutil.rmtree(served + ".run", ignore_errors=True)
    os.makedirs(served)
    shutil.copytree(folder, os.path.join(served, "store"))
    for path in (os.path.dirname(served), served, os.path.join(served, "store")):
        os.chmod(path, 0o777)  # Apache serves as nobody when started by root
    return served


def start_server(kind, root):
    port = free_port()
    log = open(root + ".log", "w")
    # rclone with its own default folder cache (the tests turn it off, which costs 7 s per listing).
    env = dict(os.environ, WEBDAV_DIR_CACHE_TIME="5m")
    process = subprocess.Popen([os.path.join(ROOT, "script", "webdav-server"), kind, str(port), root, USER, PASSWORD],
                               stdout=log, stderr=log, env=env, start_new_session=True)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit(f"bench: {kind} did not start; see {root}.log")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--servers", default="rclone,apache,nginx")
    store_bench_arguments(parser, runs=5)
    args = parser.parse_args()
    folder, names = store_of_devices(args)
    megabytes = sum(os.path.getsize(os.path.join(folder, n)) for n in names) / 1e6

    rows = []
    for kind in args.servers.split(","):
        served = serve_copy(folder, os.path.join(args.work, f"dav-{kind}"))
        server, origin = start_server(kind, served)
        try:
            store = f"{origin}/store/"
            env_base = dict(os.environ, AGGCTL_WEBDAV_USER=USER, AGGCTL_WEBDAV_PASSWORD=PASSWORD)
            states = {name: os.path.join(args.work, f"state-dav-{kind}-{name}") for name in ("cold", "warm", "folder", "folder-warm")}
            envs = {name: dict(env_base, XDG_STATE_HOME=path) for name, path in states.items()}
            dav = [args.aggctl, "status", "--store", store, "--json", "--now", NOW]
            local = [args.aggctl, "status", "--store", folder, "--json", "--now", NOW]

            curl_all = ["curl", "-s", "-u", f"{USER}:{PASSWORD}", "-o", "/dev/null", "-X", "PROPFIND", "-H", "Depth: 1",
                        "--data", PROPFIND, store, "--next", "-s", "-u", f"{USER}:{PASSWORD}", "-o", "/dev/null"]
            curl_all += [f"{store}{name}" for name in names]
            curl_propfind = curl_all[:curl_all.index("--next")]

            medians, memory = remote_beside_folder(
                dav, local, states, envs, curl_all, curl_propfind, args.runs, args.work, f"dav-{kind}")
            rows.append((kind, medians, memory))
        finally:
            server.terminate()
            server.wait()

    print()
    print(f"{args.devices} records, {megabytes:.1f} MB, median of {args.runs} runs, milliseconds")
    print(f"{'server':>7} {'folder cold':>12} {'folder warm':>12} {'curl all':>9} {'dav cold':>9} {'cold/curl':>10} {'curl propfind':>14}"
          f" {'dav unchanged':>14} {'unch/propfind':>14} {'RSS cold':>9} {'RSS unch':>9}")
    for kind, t, memory in rows:
        print(f"{kind:>7} {t['folder']*1e3:>12.1f} {t['folder warm']*1e3:>12.1f} {t['floor cold']*1e3:>9.1f} {t['cold']*1e3:>9.1f}"
              f" {t['cold']/t['floor cold']:>10.2f} {t['floor unchanged']*1e3:>14.1f} {t['unchanged']*1e3:>14.1f}"
              f" {t['unchanged']/t['floor unchanged']:>14.2f} {memory['cold']/1024:>7.0f}MB {memory['unchanged']/1024:>7.0f}MB")


if __name__ == "__main__":
    main()
