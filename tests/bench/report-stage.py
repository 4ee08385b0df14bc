#!/usr/bin/python3
"""report-stage.py - what the report stage costs per series, and how big
each kind of mail is.

kregressd runs on a temporary state directory with the default mail
policy (the outbox).  One series of each kind is written into its
database as the earlier stages leave them (tests/fixtures/report-db.py,
two arches, 3 + 40 metrics each), with its report job queued.  Printed:
per kind, the stage's own time from its log line ("in N ms": load, render,
compose, store, write the .eml) and the size of the message it wrote.
Measures; judges nothing, but exits 1 when a kind got no mail.  Smoke
mode (KREGRESS_BENCH_SMOKE=1): the 3 primary metrics a series, no extra
ones.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

EXTRA = "0" if os.environ.get("KREGRESS_BENCH_SMOKE") else "40"
KINDS = ["regression", "improvement", "no-change", "inconclusive",
         "does-not-apply", "build-failed", "boot-failed"]


def main():
    build = os.environ["KREGRESS_BUILD"]
    src = os.environ["KREGRESS_SRC"]
    tmp = tempfile.mkdtemp(prefix="report-stage.")
    log = os.path.join(tmp, "daemon.log")
    db = os.path.join(tmp, "state", "kregress.db")
    with open(os.path.join(tmp, "config.json"), "w") as f:
        f.write('{"state_dir": "%s/state", "api": {"listen": "127.0.0.1:0"}}'
                % tmp)
    d = subprocess.Popen([os.path.join(build, "kregressd"), "-c",
                          os.path.join(tmp, "config.json")],
                         stderr=open(log, "w"))
    try:
        for _ in range(100):
            if os.path.exists(log) and "ready:" in open(log).read():
                break
            time.sleep(0.1)
        ids = {}
        for k in KINDS:
            out = subprocess.run([sys.executable, os.path.join(
                src, "tests/fixtures/report-db.py"), db, k, "--queue",
                "--extra", EXTRA], capture_output=True, text=True, check=True)
            ids[k] = out.stdout.strip()
        for _ in range(300):
            done = re.findall(r"report: series (\d+): [a-z-]+: .* in (\d+) ms",
                              open(log).read())
            if len(done) == len(KINDS):
                break
            time.sleep(0.1)
        ms = dict(done)
        print("report stage, one series a kind, 2 arches x %d metrics, "
              "policy outbox" % (3 + int(EXTRA)))
        print("%-16s %8s %10s" % ("kind", "stage ms", "mail bytes"))
        missing = []
        for k in KINDS:
            files = glob.glob(os.path.join(tmp, "state", "outbox",
                                           "%s-*-%s.eml" % (ids[k], k)))
            size = os.path.getsize(files[0]) if files else 0
            print("%-16s %8s %10d" % (k, ms.get(ids[k], "-"), size))
            if not size or ids[k] not in ms:
                missing.append(k)
        if missing:
            print("report-stage: no report mail for " + ", ".join(missing))
            return 1
    finally:
        d.terminate()
        d.wait()
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
