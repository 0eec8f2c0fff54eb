#!/usr/bin/env python3
"""`aggctl serve` under load: requests per second and p99 latency of /metrics and /api/status with 50
concurrent clients (wrk), the store reads per minute under that load, and the resident size.

    bench_serve.py AGGCTL [--records 1000] [--seconds 30] [--connections 50] [--refresh 10] [--soak SECONDS]
                   [--heap ROUNDS [--round SECONDS]] [--work DIR]

With --soak, both paths are then loaded at once (half the connections each) for that long, and the
resident size's slope after the first fifth is printed: memory flat under a steady load.

With --heap, rounds of that load (--round seconds each, 240 by default) follow, each ended by a pause
past --refresh (no answer in flight, the last views replaced) and glibc's own count of the bytes in use
(`malloc_stats`, called through gdb: needs Debian's gdb, glibc, and the right to attach to another
process, which only root has while kernel.yama.ptrace_scope is 1). The resident size under load moves
with what the allocator keeps for the next answers; the bytes in use after each round are what was not
given back, and a leak would make them grow.

The store is make_store.py's (--days of history as it makes them); serve runs with --now at the store's
moment so the figures are current. The reads come from /healthz's count; the resident size from
/proc/PID/status every second of the load.
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, threading, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(HERE, "Generators", "make_store.py")
NOW = "2026-11-30T12:00:00Z"


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def reads(origin):
    text = urllib.request.urlopen(origin + "/healthz", timeout=10).read().decode()
    return int(re.search(r"(\d+) reads of the store", text).group(1))


def serve_origin(log, who):
    """The origin `aggctl serve` printed to `log` once its first read stands (/healthz answers)."""
    for _ in range(600):
        log.seek(0)
        found = re.search(r"http://127\.0\.0\.1:\d+", log.read())
        if found:
            break
        time.sleep(0.1)
    else:
        sys.exit(f"{who}: serve did not start; see {log.name}")
    while True:
        try:
            reads(found.group(0))
            return found.group(0)
        except Exception:
            time.sleep(0.2)


def wrk(url, seconds, connections):
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    # A connection refused or cut (a limit met) is no answer at all: counted beside the wrong ones.
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    failed = (int(errors.group(1)) if errors else 0) + (sum(int(n) for n in socket.groups()) if socket else 0)
    return rate, float(p99.group(1)) * scale, failed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aggctl")
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--refresh", type=int, default=10)
    parser.add_argument("--soak", type=int, default=0)
    parser.add_argument("--heap", type=int, default=0)
    parser.add_argument("--round", type=int, default=240)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "aggctl-bench-serve"))
    a = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("bench_serve: needs wrk (Debian package wrk; script/bootstrap installs it)")
    if a.heap and not shutil.which("gdb"):
        sys.exit("bench_serve: --heap needs gdb (Debian package gdb)")
    store = os.path.join(a.work, f"store-{a.records}")
    if not (os.path.isdir(store) and len(os.listdir(store)) == a.records):
        shutil.rmtree(store, ignore_errors=True)
        subprocess.run([sys.executable, GENERATOR, store, "--devices", str(a.records)], check=True,
                       stdout=subprocess.DEVNULL)
    state = os.path.join(a.work, "state")
    shutil.rmtree(state, ignore_errors=True)
    log = open(os.path.join(a.work, "serve.log"), "w+")
    server = subprocess.Popen([a.aggctl, "serve", "--store", store, "--listen", "127.0.0.1:0", "--refresh",
                               str(a.refresh), "--now", NOW],
                              env={"PATH": "/usr/bin:/bin", "HOME": a.work, "XDG_STATE_HOME": state},
                              stdout=subprocess.DEVNULL, stderr=log)
    try:
        origin = serve_origin(log, "bench_serve")
        samples, stop = [], threading.Event()

        def sample():
            while not stop.wait(1):
                samples.append(rss_mib(server.pid))

        print(f"{a.records} records, {a.connections} connections, {a.seconds} s per path, --refresh {a.refresh}:")
        start_rss = rss_mib(server.pid)
        sampler = threading.Thread(target=sample)
        sampler.start()
        before, started = reads(origin), time.time()
        for path in ("/metrics", "/api/status"):
            rate, p99, errors = wrk(origin + path, a.seconds, a.connections)
            print(f"  {path:12} {rate:9.0f} requests/s   p99 {p99:7.2f} ms   failed {errors}")
        elapsed = time.time() - started
        after = reads(origin)
        stop.set()
        sampler.join()
        print(f"  store reads: {after - before} in {elapsed:.0f} s = {(after - before) / elapsed * 60:.1f} a minute "
              f"(one per --refresh: {60 / a.refresh:.1f})")
        print(f"  resident: {start_rss:.1f} MiB before the load, at most {max(samples, default=0):.1f}, "
              f"{samples[-1] if samples else 0:.1f} at its end")
        if a.soak:
            samples.clear()
            stop = threading.Event()
            sampler = threading.Thread(target=sample)
            sampler.start()
            before, started = reads(origin), time.time()
            both_paths(origin, a.soak, a.connections)
            elapsed = time.time() - started
            after = reads(origin)
            stop.set()
            sampler.join()
            # Growth after the first fifth (warm-up): least squares over the samples, one a second.
            settled = samples[len(samples) // 5:]
            n = len(settled)
            mean_x, mean_y = (n - 1) / 2, sum(settled) / n
            slope = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(settled)) / sum(
                (x - mean_x) ** 2 for x in range(n))
            print(f"  soak, both paths at once for {a.soak} s: {(after - before) / elapsed * 60:.1f} reads a minute; "
                  f"resident {settled[0]:.1f} MiB after warm-up, {settled[-1]:.1f} at the end, "
                  f"mean {mean_y:.1f}, slope {slope * 3600:+.2f} MiB an hour")
        if a.heap:
            print(f"  heap, rounds of both paths at once for {a.round} s, each followed by a pause:")
            time.sleep(a.refresh + 2)
            print(f"    before: resident {rss_mib(server.pid):.1f} MiB, malloc {heap(server.pid, log)}")
            for index in range(1, a.heap + 1):
                both_paths(origin, a.round, a.connections)
                time.sleep(a.refresh + 2)
                print(f"    after {index * a.round:5} s of load: resident {rss_mib(server.pid):.1f} MiB, "
                      f"malloc {heap(server.pid, log)}", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)


def both_paths(origin, seconds, connections):
    """Loads /metrics and /api/status at once, half the connections each, for `seconds`."""
    loads = [threading.Thread(target=wrk, args=(origin + path, seconds, connections // 2))
             for path in ("/metrics", "/api/status")]
    for load in loads:
        load.start()
    for load in loads:
        load.join()


def heap(pid, log):
    """glibc's totals for the process: what its arenas hold from the system, and how much of it is in use.
    `malloc_stats` writes them to the process's standard error, which is `log`."""
    log.seek(0, os.SEEK_END)
    start = log.tell()
    subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "call (void)malloc_stats()"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    for _ in range(50):
        log.seek(start)
        total = re.search(r"Total \(incl\. mmap\):\s*system bytes\s*=\s*(\d+)\s*in use bytes\s*=\s*(\d+)",
                          log.read())
        if total:
            return f"{int(total.group(1)) / 2**20:.1f} MiB held, {int(total.group(2)) / 2**20:.1f} MiB in use"
        time.sleep(0.1)
    return "unknown (malloc_stats said nothing)"


if __name__ == "__main__":
    main()
