#!/usr/bin/env python3
"""What a burst of events costs `aggctl check`, per notification backend.

    bench_events.py AGGCTL_BINARY [--events 1000] [--runs 3]

Writes a store of one record with N accounts, lets a first `check` remember them at 40 % used, then
depletes every one: the next `check` has N events to deliver. Measured per backend, each in a fresh
state directory: `stdout` (to /dev/null), `command:` (a hook that reads its event and exits), and
`webhook:` (a loopback HTTP server of this script's own that answers 204). Prints the median wall time
of the delivering run and what one event costs. Only 127.0.0.1 is contacted.
"""
import argparse
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def record(events, used, at):
    providers = [{"providerID": "claude", "accountEmail": f"user{i}@example.com", "lastUpdated": at,
                  "session": {"usedPercent": used, "windowMinutes": 300, "resetsAt": "2026-11-30T15:00:00Z"}}
                 for i in range(events)]
    return {"schemaVersion": 1, "deviceID": "box", "deviceName": "box", "generatedAt": at, "providers": providers}


class Quiet(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="aggctl-bench-events-")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hook = os.path.join(work, "hook.sh")
    with open(hook, "w") as f:
        f.write("#!/bin/sh\ncat >/dev/null\n")
    os.chmod(hook, 0o755)
    backends = {"stdout": "stdout", "command": "command:" + hook,
                "webhook": f"webhook:http://127.0.0.1:{server.server_port}/hook"}
    store = os.path.join(work, "store")
    os.makedirs(store)
    try:
        print(f"{'backend':10} {'events':>7} {'ms':>9} {'ms/event':>9}")
        for name, spec in backends.items():
            times = []
            for run in range(args.runs):
                state = os.path.join(work, f"state-{name}-{run}")
                env = dict(os.environ, XDG_STATE_HOME=state, HOME=work)
                with open(os.path.join(store, "box.json"), "w") as f:
                    json.dump(record(args.events, 40, "2026-11-30T12:00:00Z"), f)
                check = [args.aggctl, "check", "--store", store, "--notify", spec]
                subprocess.run(check + ["--now", "2026-11-30T12:00:30Z"], env=env, check=True,
                               stdout=subprocess.DEVNULL)
                with open(os.path.join(store, "box.json"), "w") as f:
                    json.dump(record(args.events, 100, "2026-11-30T12:10:00Z"), f)
                started = time.perf_counter()
                subprocess.run(check + ["--now", "2026-11-30T12:10:30Z"], env=env, check=True,
                               stdout=subprocess.DEVNULL)
                times.append(time.perf_counter() - started)
            median = statistics.median(times) * 1000
            print(f"{name:10} {args.events:7} {median:9.1f} {median / args.events:9.3f}")
    finally:
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
