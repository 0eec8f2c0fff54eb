#!/usr/bin/env python3
"""`aggctl serve` with slow readers of a large answer: the resident size while N clients each take
/api/status a kilobyte a second, beside the size with none.

    bench_slow_readers.py AGGCTL [AGGCTL ...] [--readers 30] [--limits 100000] [--hold 20] [--work DIR]

The store is one record of make_store.py's with --limits limits in its one entry (100000 make a record of
24 MiB and an /api/status of 38 MB). Each binary given is run in turn on the same store, so two
builds' figures stand side by side in one run. Each reader asks once, with a receive buffer of 4 KiB, and
then reads 1 KiB a second: its answer stays in flight for the whole --hold. The resident size is read
from /proc/PID/status every 0.2 s; the largest is printed.

An answer held once prints about the idle size plus a block per reader; an answer copied per reader
prints the idle size plus the answer's size per reader.
"""
import argparse, os, shutil, socket, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_serve import rss_mib, serve_origin
GENERATOR = os.path.join(HERE, "Generators", "make_store.py")
NOW = "2026-11-30T12:00:00Z"


def slow_reader(port):
    connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    connection.connect(("127.0.0.1", port))
    connection.sendall(f"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    connection.setblocking(False)
    return connection


def measure(aggctl, store, work, readers, hold):
    state = os.path.join(work, "state")
    shutil.rmtree(state, ignore_errors=True)
    log = open(os.path.join(work, "serve.log"), "w+")
    server = subprocess.Popen([aggctl, "serve", "--store", store, "--listen", "127.0.0.1:0", "--now", NOW],
                              stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "AGGCTL_STATE_DIR": state})
    try:
        port = int(serve_origin(log, "bench_slow_readers").rsplit(":", 1)[1])
        size = len(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=60).read())
        idle = rss_mib(server.pid)
        connections = [slow_reader(port) for _ in range(readers)]
        peak = idle
        deadline = time.monotonic() + hold
        next_read = time.monotonic()
        while time.monotonic() < deadline:
            if time.monotonic() >= next_read:
                for connection in connections:
                    try:
                        connection.recv(1024)
                    except BlockingIOError:
                        pass
                next_read += 1
            peak = max(peak, rss_mib(server.pid))
            time.sleep(0.2)
        for connection in connections:
            connection.close()
        return size, idle, peak
    finally:
        server.terminate()
        server.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl", nargs="+")
    parser.add_argument("--readers", type=int, default=30)
    parser.add_argument("--limits", type=int, default=100000)
    parser.add_argument("--hold", type=int, default=20)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "aggctl-bench-slow-readers"))
    a = parser.parse_args()
    store = os.path.join(a.work, f"store-{a.limits}")
    if not os.path.isdir(store):
        subprocess.run([sys.executable, GENERATOR, store, "--devices", "1", "--providers", "1", "--accounts", "1",
                        "--limits", str(a.limits)], check=True, stdout=subprocess.DEVNULL)
    record = sum(os.path.getsize(os.path.join(store, name)) for name in os.listdir(store))
    print(f"record {record / 2**20:.1f} MiB, {a.readers} readers at 1 KiB/s for {a.hold} s")
    print(f"{'binary':<40} {'answer MB':>10} {'idle MiB':>9} {'peak MiB':>9} {'MiB/reader':>11}")
    for aggctl in a.aggctl:
        size, idle, peak = measure(os.path.abspath(aggctl), store, a.work, a.readers, a.hold)
        print(f"{aggctl:<40} {size / 1e6:>10.1f} {idle:>9.1f} {peak:>9.1f} {(peak - idle) / a.readers:>11.2f}")


if __name__ == "__main__":
    main()
