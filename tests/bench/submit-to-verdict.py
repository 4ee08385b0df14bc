#!/usr/bin/python3
"""submit-to-verdict.py - submit -> verdict on the shipped defaults.

Runs kregressd on config.example.json (paths, port and token changed, and
nothing else unless --budget is given), submits the bundled example series
(tests/fixtures/examples/move-pud-revert.mbox), and watches the job table
every 0.2 s until the series is final.  Prints, per stage and arch, when it
started and how long it took, each build's and run's own figures, the boots
per side each run needed and the median boot time of each plan.

    submit-to-verdict.py --cache DIR [--budget N] [--series MBOX]...
                         [--clock instructions|real] [--calibrated]
                         [--calibration-boots N]
                         [--layout-control real-time|always|never]
                         [--arch ARCH]

Each --series is timed in turn, on the same daemon (default the bundled
move-pud-revert.mbox; tests/fixtures/examples/comment-only.mbox is a
change that should change nothing, unrelated-function.mbox one that only
moves code).  --layout-control sets stats.layout_control (the shipped
default is real-time: instruction-time runs get no layout control;
"always" makes the control of every significant change).  --arch keeps
one arch of the configuration (its arches, plans and hosts).

--cache DIR is the build cache (KREGRESS_CACHE): an empty directory gives
a cold run (no base build, no ccache), the same directory again a warm one.
--clock real boots the TCG plans with `clock real` instead of the shipped
instruction time.  --calibrated first takes the first series through once, waits
until the idle daemon has calibrated every host (calibration.idle_s 0) and
then times a second submission of it: warm in builds and calibration.
Needs root, libvirtd, the imported tree (make check's slow tests make it).
Environment: KREGRESS_BUILD, KREGRESS_SRC (make bench sets them).

Smoke mode (KREGRESS_BENCH_SMOKE=1) boots nothing: x86_64 only and no
host, on the shared cache (--cache defaults to $KREGRESS_CACHE, else
/var/cache/kregress, where the slow tests built the example's kernels),
so the series goes through fetch, apply and build and fails at the run
stage; anything else is a failure.
"""
import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import benchlib
from benchlib import BUILD, SRC, TREE

FINAL = ("done", "fetch-failed", "incomplete", "does-not-apply",
         "build-failed", "boot-failed", "failed")


def plain_tcg(tmp, path):
    """The plan at path with `clock real` for `clock instructions`."""
    text = open(path).read()
    out = os.path.join(tmp, "real-" + os.path.basename(path))
    open(out, "w").write(text.replace("\nclock instructions\n",
                                      "\nclock real\n"))
    return out


def config(tmp, budget, a):
    with open(os.path.join(SRC, "config.example.json")) as f:
        c = json.load(f)
    c["state_dir"] = os.path.join(tmp, "state")
    c["database"] = os.path.join(tmp, "state", "kregress.db")
    c["cache_dir"] = a.cache
    c["api"]["listen"] = "127.0.0.1:0"
    c["api"]["tokens"][0]["value"] = "bench-token-0123456789abcdef"
    c["trees"][0]["path"] = TREE
    c["lists"][0]["feed_url"] = "http://127.0.0.1:9/new.atom"  # nothing to poll
    c["mail"]["outbox_dir"] = os.path.join(tmp, "state", "outbox")
    for arch in c["plans"].values():
        for accel in arch:
            arch[accel] = os.path.join(SRC, arch[accel])
            if accel == "tcg" and a.clock == "real":
                arch[accel] = plain_tcg(tmp, arch[accel])
    if budget:
        c["stats"]["max_boots_per_side"] = budget
    if a.calibrated:
        c["calibration"]["idle_s"] = 0
    if a.calibration_boots:
        c["calibration"]["boots_per_side"] = a.calibration_boots
    if a.layout_control:
        c["stats"]["layout_control"] = a.layout_control
    if benchlib.SMOKE or a.arch:
        arch = a.arch or "x86_64"
        c["hosts"] = [h for h in c["hosts"] if h["arch"] == arch and
                      not benchlib.SMOKE]
        for key in ("arches", "plans"):
            c[key] = {arch: c[key][arch]}
    path = os.path.join(tmp, "config.json")
    with open(path, "w") as f:
        json.dump(c, f)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", required=not benchlib.SMOKE,
                    default=os.environ.get("KREGRESS_CACHE",
                                           "/var/cache/kregress"))
    ap.add_argument("--budget", type=int, default=0)
    ap.add_argument("--series", action="append")
    ap.add_argument("--timeout", type=int, default=7200)
    ap.add_argument("--clock", choices=("instructions", "real"),
                    default="instructions")
    ap.add_argument("--calibrated", action="store_true")
    ap.add_argument("--calibration-boots", type=int, default=0)
    ap.add_argument("--layout-control",
                    choices=("real-time", "always", "never"))
    ap.add_argument("--arch", choices=("x86_64", "arm64"))
    a = ap.parse_args()
    a.series = a.series or [os.path.join(
        SRC, "tests/fixtures/examples/move-pud-revert.mbox")]
    if not os.path.isdir(os.path.join(TREE, ".git")):
        print("submit-to-verdict: no tree at %s; skipped" % TREE)
        return 1 if benchlib.SMOKE else 0
    tmp = tempfile.mkdtemp(prefix="submit-to-verdict.")
    os.chmod(tmp, 0o755)
    cfg = config(tmp, a.budget, a)
    env = dict(os.environ, KREGRESS_CACHE=a.cache,
               KREGRESS_CONFIG_DIR=os.path.join(SRC, "builders/configs"),
               KREGRESS_VM_PREFIX="kregress-bench%d-" % os.getpid(),
               KREGRESS_TOKEN="bench-token-0123456789abcdef")
    log_path = os.path.join(tmp, "daemon.log")
    log = open(log_path, "w")
    d = subprocess.Popen([os.path.join(BUILD, "kregressd"), "-c", cfg],
                         cwd=SRC, env=env, stderr=log)
    try:
        port = ready_port(log_path, d)
        return watch(a, tmp, port, env, d)
    finally:
        d.send_signal(signal.SIGTERM)
        d.wait(timeout=120)
        if not os.environ.get("KEEP_TMP"):
            shutil.rmtree(tmp, ignore_errors=True)


def ready_port(log_path, d):
    """The API port from the daemon's ready line (it binds port 0)."""
    for _ in range(600):
        with open(log_path) as f:
            for line in f:
                if line.startswith("kregressd: ready:") and "API port" in line:
                    return int(line.split("API port ")[1].split(",")[0])
        if d.poll() is not None:
            break
        time.sleep(0.1)
    sys.exit("submit-to-verdict: kregressd did not get ready; see " + log_path)


def submit(path, port, env):
    out = subprocess.run(
        [os.path.join(BUILD, "kregress"), "submit", "--server",
         "http://127.0.0.1:%d" % port, path],
        env=env, capture_output=True, text=True)
    if out.returncode:
        sys.exit("submit-to-verdict: submit failed: " + out.stderr)
    return int(out.stdout.split()[2])


def warm_up(a, db, port, env):
    """The first series once, then the idle daemon's calibrations,
    untimed."""
    t0 = time.monotonic()
    sid = submit(a.series[0], port, env)
    while time.monotonic() - t0 < a.timeout:
        st = db.execute("SELECT status FROM series WHERE id = ?",
                        (sid,)).fetchone()[0]
        hosts = db.execute("SELECT count(*) FROM host").fetchone()[0]
        done = db.execute("SELECT count(DISTINCT host_id) FROM calibration "
                          "WHERE status IN ('done', 'failed')").fetchone()[0]
        if st in FINAL and hosts and done >= hosts:
            break
        time.sleep(1)
    print("warm-up: series %d %s, calibrations in %.0f s:" % (
        sid, st, time.monotonic() - t0))
    for row in db.execute(
            "SELECT c.id, h.name, c.arch, c.clock, c.status, c.reason, "
            "(SELECT count(*) FROM boot WHERE calibration_id = c.id AND "
            "status = 'ok'), c.boot_ms, (SELECT printf('%.3g..%.3g', "
            "min(threshold_pct), max(threshold_pct)) FROM "
            "calibration_metric WHERE calibration_id = c.id AND "
            "is_primary) FROM calibration c JOIN host h ON "
            "h.id = c.host_id ORDER BY c.id"):
        print("  calibration %d %s %s %s: %s (%s), %d boots, median boot "
              "%.1f s, primary thresholds %s%%" % (
                  row[0], row[1], row[2], row[3], row[4], row[5], row[6],
                  (row[7] or 0) / 1000, row[8]))


def watch(a, tmp, port, env, d):
    db_path = os.path.join(tmp, "state", "kregress.db")
    db = sqlite3.connect(db_path, timeout=10)
    if a.calibrated:
        warm_up(a, db, port, env)
    ret = 0
    for path in a.series:
        print("== %s" % os.path.basename(path))
        ret |= measure(a, db, port, env, path)
    return ret


def measure(a, db, port, env, path):
    """Submit -> final for one series, with its stages and runs."""
    t0 = time.monotonic()
    sid = submit(path, port, env)
    seen = {}          # (kind, arch) -> [first running, first done]
    status = None
    while time.monotonic() - t0 < a.timeout:
        now = time.monotonic() - t0
        for kind, arch, state in db.execute(
                "SELECT kind, ifnull(arch, ''), state FROM job "
                "WHERE series_id = ?", (sid,)):
            s = seen.setdefault((kind, arch), [None, None])
            if state == "running" and s[0] is None:
                s[0] = now
            if state in ("done", "failed") and s[1] is None:
                s[1] = now
                if s[0] is None:
                    s[0] = now
        status, reason = db.execute(
            "SELECT status, status_reason FROM series WHERE id = ?",
            (sid,)).fetchone()
        if status in FINAL:
            break
        time.sleep(0.2)
    total = time.monotonic() - t0
    order = ["fetch", "apply", "build", "run", "analyze", "layout-build",
             "layout-run", "layout-analyze", "report"]
    print("series %d: %s%s" % (sid, status, ": " + reason if reason else ""))
    print("%-22s %9s %9s" % ("stage", "start s", "took s"))
    for (kind, arch), (s, e) in sorted(
            seen.items(), key=lambda x: (order.index(x[0][0]), x[0][1])):
        took = "%.1f" % (e - s) if e is not None and s is not None else "-"
        print("%-22s %9.1f %9s" % (kind + (" " + arch if arch else ""),
                                   s or 0, took))
    print("submit -> %s: %.1f s" % (status, total))
    for arch, layout, side, cached, cold, ms, objs in db.execute(
            "SELECT b.arch, sb.layout, sb.side, b.cached, b.cold, "
            "b.duration_ms, b.objects_compiled FROM build b JOIN "
            "series_build sb ON sb.build_id = b.id WHERE sb.series_id = ? "
            "ORDER BY b.arch, sb.layout DESC, sb.side", (sid,)):
        print("build %-7s %-8s %-8s %s %7.1f s, %d objects" % (
            arch, layout, side,
            "cached" if cached else "cold" if cold else "incr",
            (ms or 0) / 1000, objs or 0))
    for rid, arch, accel, clock, layout, st, rounds in db.execute(
            "SELECT id, arch, accel, clock, layout, status, rounds FROM run "
            "WHERE series_id = ? ORDER BY id", (sid,)):
        per = dict(db.execute(
            "SELECT side, count(*) FROM boot WHERE run_id = ? AND "
            "status = 'ok' GROUP BY side", (rid,)))
        ms = sorted(r[0] for r in db.execute(
            "SELECT duration_ms FROM boot WHERE run_id = ? AND "
            "status = 'ok'", (rid,)))
        med = ms[len(ms) // 2] / 1000 if ms else 0
        thr = db.execute(
            "SELECT printf('%.3g..%.3g', min(threshold_pct), "
            "max(threshold_pct)), count(DISTINCT calibration_id), count(*) "
            "FROM comparison WHERE run_id = ? AND is_primary",
            (rid,)).fetchone()
        print("run %d %-7s %s %s %s time: %s after %d rounds; boots base "
              "%d, patched %d; median boot %.1f s" % (
                  rid, arch, layout, accel, clock, st, rounds,
                  per.get("base", 0), per.get("patched", 0), med), end="")
        if not thr[2]:
            # An aligned run's findings are the layout lines below.
            print("; no comparisons of its own")
            continue
        print("; primary thresholds %s%% (%s)" % (
            thr[0], "calibrated" if thr[1] else "configured"))
        print("  primary verdicts: %s" % ", ".join(
            "%d %s" % (n, v) for v, n in db.execute(
                "SELECT verdict, count(*) FROM comparison WHERE run_id = ? "
                "AND is_primary GROUP BY verdict ORDER BY count(*) DESC",
                (rid,))))
    for arch, verdict, chg, lo, hi in db.execute(
            "SELECT arch, verdict, change_pct, ci_low_pct, ci_high_pct "
            "FROM comparison WHERE series_id = ? AND metric = 'move_pud'",
            (sid,)):
        print("verdict %-7s mremap/move_pud: %s %+.0f%% [%+.0f%%, %+.0f%%]"
              % (arch, verdict, chg or 0, lo or 0, hi or 0))
    for row in db.execute(
            "SELECT arch, workload || '/' || metric, coalesce(layout, "
            "'no control'), verdict, change_pct, layout_verdict, "
            "layout_change_pct, layout_ci_low_pct, layout_ci_high_pct, "
            "layout_reason FROM comparison WHERE series_id = ? AND "
            "(layout IS NOT NULL OR layout_reason IS NOT NULL) "
            "ORDER BY arch DESC, id", (sid,)):
        print("layout %-7s %s: %s (%s %+.1f%% as built)%s%s" % (
            row[0], row[1], row[2], row[3], row[4] or 0,
            "; aligned %s %+.1f%% [%+.1f%%, %+.1f%%]" % (
                row[5], row[6] or 0, row[7] or 0, row[8] or 0)
            if row[5] else "", ": " + row[9] if row[9] else ""))
    if benchlib.SMOKE:
        return 0 if status == "failed" and (reason or "").startswith(
            "run: ") else 1
    return 0 if status in FINAL else 1


if __name__ == "__main__":
    sys.exit(main())
