#!/usr/bin/python3
"""slow-clients.py - the API under a slowloris: connections held, health.

Starts the real kregressd on a free loopback port and, for each case,
1,100 slow clients (tests/fixtures/slow-client.py: a request line, then
one header line every 5 s, never the end of the headers), then times
GET /api/v1/health from 127.0.0.1 while they trickle.  Cases:
  no load         the health check alone
  unprotected     limits as before the fix: 1,000 connections, none per
                  address, headers due after an hour (config only)
  one address     the defaults, all 1,100 from 127.0.0.2
  18 addresses    the defaults, 61 from each of 127.0.0.2-19 (1,098),
                  reconnecting as they are cut: every slot stays full
It prints the connections the server held (its kregress_http_connections
minus the health check's own, or what the clients saw when /metrics
cannot be reached), the ones refused, and the health latency (median and
worst of KREGRESS_BENCH_HEALTH requests, default 10; a request gives up
after 15 s, and a case after two that did).  It judges nothing; on a shared machine the latencies are
only as good as the CPU the run got.  It exits 1 when the health check
never answered without load.  Smoke mode (KREGRESS_BENCH_SMOKE=1): the
same cases with 40 slow clients and one health check each.
"""
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = os.environ["KREGRESS_BUILD"]
SRC = os.environ["KREGRESS_SRC"]
SLOW = os.path.join(SRC, "tests", "fixtures", "slow-client.py")
SMOKE = bool(os.environ.get("KREGRESS_BENCH_SMOKE"))
N_HEALTH = int(os.environ.get("KREGRESS_BENCH_HEALTH",
                              "1" if SMOKE else "10"))
N_SLOW = 40 if SMOKE else 1100
GIVE_UP_S = 15


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get(port, path, timeout=GIVE_UP_S):
    """(seconds, body) of one GET on a new connection; None on failure."""
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request("GET", path)
        body = c.getresponse().read()
        c.close()
    except OSError:
        return None
    return time.monotonic() - t0, body


def metrics(port):
    got = get(port, "/metrics", timeout=2)
    if not got:
        return None
    m = {}
    for line in got[1].decode().splitlines():
        if line and not line.startswith("#"):
            k, _, v = line.rpartition(" ")
            m[k] = float(v)
    return m


def start_daemon(tmp, port, limits):
    cfg = os.path.join(tmp, "config-%d.json" % port)
    with open(cfg, "w") as f:
        f.write('{"state_dir": "%s/state", "api": {"listen": '
                '"127.0.0.1:%d"}, "limits": {%s}}' % (
                    tmp, port, ", ".join('"%s": %d' % kv
                                         for kv in limits.items())))
    d = subprocess.Popen([os.path.join(BUILD, "kregressd"), "-c", cfg],
                         stderr=open(os.path.join(tmp, "log"), "a"))
    for _ in range(200):
        if get(port, "/api/v1/health", timeout=1):
            return d
        time.sleep(0.05)
    d.kill()
    sys.exit("slow-clients: kregressd did not start (see %s/log)" % tmp)


def case(tmp, name, limits, sources, reconnect=False):
    port = free_port()
    d = start_daemon(tmp, port, limits)
    slow = None
    if sources:
        per = N_SLOW // len(sources)
        cmd = [sys.executable, SLOW, "--port", str(port), "--count",
               str(per), "--interval", "5", "--max-seconds", "600"]
        for s in sources:
            cmd += ["--source", s]
        if reconnect:
            cmd.append("--reconnect")
        slow = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        slow.stdout.readline()      # "open N": all connected
        time.sleep(1)               # the server accepts or refuses them
    m = metrics(port)
    lat, failed = [], 0
    while len(lat) + failed < N_HEALTH and failed < 2:
        got = get(port, "/api/v1/health")
        if got:
            lat.append(got[0])
        else:
            failed += 1
    if m:
        held = "%d held, %d refused" % (
            m["kregress_http_connections"] - 1,
            m["kregress_http_connections_refused_total"])
    else:
        held = "all slots held (/metrics unreachable)"
    if slow:
        slow.terminate()
        slow.wait()
    d.terminate()
    d.wait()
    if lat:
        health = "median %.1f ms, worst %.1f ms" % (
            statistics.median(lat) * 1000, max(lat) * 1000)
    else:
        health = "never answered"
    if failed:
        health += ", %d of %d tried gave up after %d s" % (
            failed, len(lat) + failed, GIVE_UP_S)
    print("%-12s %-38s health: %s" % (name, held, health), flush=True)
    return bool(lat)


def main():
    unprotected = {"api_connections": 1000,
                   "api_connections_per_address": 100000,
                   "api_header_timeout_s": 3600}
    print("slow-clients: %d slow clients, one header each 5 s; "
          "%d health checks per case" % (N_SLOW, N_HEALTH))
    with tempfile.TemporaryDirectory(prefix="slow-clients.") as tmp:
        if not case(tmp, "no load", {}, []):
            return 1
        case(tmp, "unprotected", unprotected, ["127.0.0.2"])
        case(tmp, "one address", {}, ["127.0.0.2"])
        case(tmp, "18 addresses", {},
             ["127.0.0.%d" % i for i in range(2, 20)], reconnect=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
