#!/usr/bin/env python3
"""Abuses `aggctl serve` the three ways its issue names, and asks for the dashboard all along.

    abuse.py HOST PORT TIMEOUT_SECONDS

TIMEOUT_SECONDS is the server's AGGCTL_SERVE_TIMEOUT. Each attacker comes from a loopback address of its
own (127.0.0.2, .3, .4), so the per-address limit it meets is not the probe's (127.0.0.1). Prints one
JSON object:
  headers   a request with 1 MB of headers: the status line answered, if any, and whether the server
            closed the connection
  idle      500 connections that send nothing: how many connected, how many the server closed at once
            (refused: past the per-address limit) and how many it closed within the timeout and five
            seconds more (timed out)
  slow      a request sent one byte a second: seconds until the server cut it off (null: never)
  probes    each request for the dashboard (GET /) meanwhile: [status, milliseconds]
"""
import http.client, json, socket, sys, threading, time

host, port, timeout = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
probes = []
done = threading.Event()


def probe_loop():
    while not done.is_set():
        started = time.time()
        try:
            connection = http.client.HTTPConnection(host, port, timeout=5, source_address=("127.0.0.1", 0))
            connection.request("GET", "/")
            status = connection.getresponse().status
            connection.close()
        except Exception:
            status = 0
        probes.append([status, round((time.time() - started) * 1000)])
        done.wait(0.25)


def connect(source):
    made = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    made.bind((source, 0))
    made.settimeout(5)
    made.connect((host, port))
    return made


def closed_by_server(made, wait):
    """Whether the server closed `made` within `wait` seconds (end of stream or a reset)."""
    made.settimeout(wait)
    try:
        while True:
            data = made.recv(65536)
            if not data:
                return True
    except socket.timeout:
        return False
    except OSError:
        return True


def headers():
    made = connect("127.0.0.2")
    answer, closed = None, False
    try:
        made.sendall(b"GET /healthz HTTP/1.1\r\nHost: aggctl\r\n")
        line = b"X-Fill: " + b"a" * 1000 + b"\r\n"
        for _ in range(1024):
            made.sendall(line)
        made.sendall(b"\r\n")
    except OSError:
        closed = True
    try:
        made.settimeout(5)
        data = made.recv(4096)
        if data:
            answer = data.split(b"\r\n", 1)[0].decode("latin-1")
        closed = closed_by_server(made, 5) or closed
    except OSError:
        closed = True
    made.close()
    return {"answer": answer, "closed": closed}


def idle():
    sockets, refused = [], 0
    for _ in range(500):
        try:
            sockets.append(connect("127.0.0.3"))
        except OSError:
            refused += 1
    time.sleep(0.5)
    # One the server refused is closed at once; one it took stays open until the timeout.
    at_once = [closed_by_server(made, 0.05) for made in sockets]
    deadline = time.time() + timeout + 5
    later = [not refused_now and closed_by_server(made, max(0.05, deadline - time.time()))
             for made, refused_now in zip(sockets, at_once)]
    for made in sockets:
        made.close()
    return {"connected": len(sockets), "refusedAtOnce": sum(at_once) + refused, "timedOut": sum(later)}


def slow():
    made = connect("127.0.0.4")
    started = time.time()
    cut = None
    for byte in b"GET /healthz HTTP/1.1\r\nHost: aggctl\r\nX-Slow: " + b"s" * 100:
        try:
            made.send(bytes([byte]))
        except OSError:
            cut = time.time() - started
            break
        if closed_by_server(made, 1):
            cut = time.time() - started
            break
    made.close()
    return None if cut is None else round(cut, 1)


prober = threading.Thread(target=probe_loop)
prober.start()
try:
    result = {"headers": headers(), "idle": idle(), "slow": slow()}
finally:
    done.set()
    prober.join()
result["probes"] = probes
print(json.dumps(result))
