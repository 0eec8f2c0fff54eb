#!/usr/bin/env python3
"""Asks `aggctl serve` for a large answer and takes it a kilobyte every 0.2 s: a reader never silent for
long, that would hold the answer for hours.

    slow_reader.py HOST PORT PATH

Prints the seconds until the server cut the connection off, or null if it had not after 60 s, and the
bytes read by then.
"""
import json, socket, sys, time

host, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
made = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
made.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
made.connect((host, port))
made.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
started, cut, taken = time.time(), None, 0
made.settimeout(1)
while time.time() - started < 60:
    try:
        data = made.recv(1024)
    except socket.timeout:
        continue
    except OSError:
        data = b""
    if not data:
        cut = round(time.time() - started, 1)
        break
    taken += len(data)
    time.sleep(0.2)
made.close()
print(json.dumps({"cut": cut, "bytes": taken}))
