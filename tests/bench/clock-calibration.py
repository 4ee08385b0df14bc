#!/usr/bin/python3
"""clock-calibration.py - instruction time against plain TCG, per metric.

Boots the base kernel of each arch (the imported tree's HEAD with the
shipped fragments: `kregress build`, a cache hit once built) against
itself with the shipped workloads/plans/default-tcg.plan in both clocks:
as shipped (`clock instructions`, QEMU -icount shift=0,sleep=off) and
with that line changed to `clock real` (plain TCG).  The boots are
`kregress calibrate` runs of --per-round boots a side, the two clocks
taking turns round by round (and the arches side by side) so that the
machine's load hits both alike; every round's --json output is kept in
--raw DIR, and a later call adds rounds to it.

The figures are then those of `kregress calibrate --replay` on all the
rounds of one arch and clock together, with the runs' design of
config.example.json (threshold 3%, alpha 0.05, 5 boots a side at least,
budget 20, rounds of two pairs), per metric:

  CV         sd / mean of the per-boot values (median of a boot's
             iterations)
  FA SIM     false alarms (regression, improvement, likely-*) in
             --simulations resampled A/A runs of the design at the
             calibrated threshold
  FA REAL    the same over the real boots replayed in their order, one
             comparison after the other
  THRESH     the threshold calibration gives the metric (at least 3%)
  +2% / +10% boots per side at the first decisive look with that change
             on the patched side (median), the share of runs decisive by
             the budget, and the share whose decision found the change
  BOOT S     median wall time of a boot (create + run), per arch and clock

    clock-calibration.py --raw DIR [--rounds N] [--per-round N]
                         [--rounds-real N] [--arches x86_64,arm64]
                         [--clocks instructions,real]
                         [--simulations N] [--no-boot]

--clocks boots only those clocks (two calls on one --raw can then give
each arch the clock it still lacks rounds of); the figures are of every
round in DIR.

Prints figures only; it never passes or fails, but exits 1 when a round
did not boot.  Needs root, libvirtd and the imported tree (make check's
slow tests make them).  Environment: KREGRESS_BUILD, KREGRESS_SRC,
KREGRESS_LINUX_TREE.  Smoke mode (KREGRESS_BENCH_SMOKE=1) changes the
defaults to a temporary --raw, x86_64, one round of 2 boots a side
(calibrate's minimum) in instruction time only (--rounds-real 0) and 20
simulations.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import benchlib
from benchlib import KR, SRC, TREE

CLOCKS = ("instructions", "real")


def plans(tmp):
    shipped = os.path.join(SRC, "workloads/plans/default-tcg.plan")
    text = open(shipped).read()
    assert "\nclock instructions\n" in text, "the shipped plan changed"
    real = os.path.join(tmp, "plain-tcg.plan")
    open(real, "w").write(text.replace("\nclock instructions\n",
                                       "\nclock real\n"))
    return {"instructions": shipped, "real": real}


def boot_rounds(a, arch, plan, log):
    img = benchlib.kernel(arch)
    for r in range(a.rounds):
        for clock in a.clocks:
            done = glob.glob(os.path.join(a.raw, "%s-%s-*.json" %
                                          (arch, clock)))
            if clock == "real" and a.rounds_real is not None and \
                    len(done) >= a.rounds_real:
                continue
            path = os.path.join(a.raw, "%s-%s-%03d.json" %
                                (arch, clock, len(done)))
            logs = tempfile.mkdtemp(prefix="clock-cal-")
            os.chmod(logs, 0o755)
            t0 = time.time()
            p = subprocess.run(
                [KR, "calibrate", "--host", "qemu:///system", "--arch",
                 arch, "--kernel", img, "--plan", plan[clock], "--boots",
                 str(a.per_round), "--simulations", "0", "--log-dir",
                 logs, "--json"], capture_output=True, text=True)
            if p.returncode == 0:
                open(path, "w").write(p.stdout)
            else:
                a.failed += 1
            log.append("%s %s round %d: rc %d, %.0f s, load %.1f" % (
                arch, clock, r + 1, p.returncode, time.time() - t0,
                os.getloadavg()[0]))
            print("# " + log[-1], file=sys.stderr, flush=True)
            subprocess.run(["rm", "-rf", logs])


def merged(raw, arch, clock):
    """Every round of arch and clock as one calibrate --json document."""
    docs = [json.load(open(p)) for p in sorted(glob.glob(
        os.path.join(raw, "%s-%s-*.json" % (arch, clock))))]
    if not docs:
        return None
    keys = []
    for d in docs:
        for m in d["metrics"]:
            k = (m["workload"], m["metric"], json.dumps(
                m["params"], sort_keys=True))
            if k not in [x[0] for x in keys]:
                keys.append((k, m))
    index = {k: i for i, (k, _) in enumerate(keys)}
    per_boot, seq = [], 0
    for d in docs:
        col = [index[(m["workload"], m["metric"], json.dumps(
            m["params"], sort_keys=True))] for m in d["metrics"]]
        span = 0
        for b in d["per_boot"]:
            v = [None] * len(keys)
            for j, x in zip(col, b["v"]):
                v[j] = x
            per_boot.append({"seq": seq + b["seq"], "side": b["side"],
                             "ms": b["ms"], "v": v})
            span = max(span, b["seq"] + 1)
        seq += 2 * d["boots_per_side"]
    out = dict(docs[0])
    out["metrics"] = [m for _, m in keys]
    out["per_boot"] = per_boot
    out["boots"] = sum(d["boots"] for d in docs)
    out["failed_boots"] = sum(d["failed_boots"] for d in docs)
    out["boots_per_side"] = sum(d["boots_per_side"] for d in docs)
    ms = [b["ms"] for b in per_boot if b["ms"]]
    out["boot_ms"] = statistics.median(ms) if ms else None
    return out


def figures(a, doc, tmp):
    path = os.path.join(tmp, "merged.json")
    json.dump(doc, open(path, "w"))
    p = subprocess.run([KR, "calibrate", "--replay", path, "--simulations",
                        str(a.simulations), "--budget", str(a.budget),
                        "--changes", "2,10", "--seed", "1", "--json"],
                       capture_output=True, text=True)
    if p.returncode:
        raise SystemExit("replay failed: " + p.stderr)
    return json.loads(p.stdout)


def pct(v):
    if v is None:
        return "-"
    return "%.3g%%" % v


def change(c):
    n = "-" if c["n_median"] is None else "%.3g" % c["n_median"]
    return "%s %3.0f%% %3.0f%%" % (n, 100 * c["decided"],
                                   100 * c["detected"])


def table(res, arches):
    print("%-7s %-34s %-6s %9s %9s %7s %8s %-14s %s" % (
        "ARCH", "METRIC", "CLOCK", "CV", "FA SIM", "FA REAL", "THRESH",
        "+2%: N DEC FND", "+10%: N DEC FND"))
    for arch in arches:
        docs = {c: res.get((arch, c)) for c in CLOCKS}
        ref = docs["instructions"] or docs["real"]
        if not ref:
            continue
        for i, m in enumerate(ref["metrics"]):
            name = "%s/%s%s" % (m["workload"], m["metric"],
                                " *" if m["primary"] else "")
            for clock in CLOCKS:
                if not docs[clock]:
                    continue
                x = [y for y in docs[clock]["metrics"] if
                     (y["workload"], y["metric"], y["params"]) ==
                     (m["workload"], m["metric"], m["params"])]
                if not x:
                    continue
                x = x[0]
                print("%-7s %-34s %-6s %9s %9s %7s %8s %-14s %s" % (
                    arch, name, clock[:6], pct(100 * x["cv"] if
                                               x["cv"] is not None
                                               else None),
                    "%d/%d" % (x["false_alarms"], x["comparisons"]),
                    "%d/%d" % (x["real_false_alarms"],
                               x["real_comparisons"]),
                    pct(x["threshold_pct"]), change(x["changes"][0]),
                    change(x["changes"][1])))
            p = json.dumps(m["params"], sort_keys=True,
                           separators=(",", ":"))
            if p != "{}":
                print("        params %s" % p)


def summary(res, arches):
    print()
    print("%-7s %-12s %6s %8s %11s %12s %13s %10s %10s %-17s %-17s" % (
        "ARCH", "CLOCK", "BOOTS", "BOOT S", "MEDIAN CV*", "FA SIM*",
        "FA REAL*", "A/A STOP*", "REAL STOP*", "+2%: N* DEC FND",
        "+10%: N* DEC FND"))
    for arch in arches:
        for clock in CLOCKS:
            d = res.get((arch, clock))
            if not d:
                continue
            prim = [m for m in d["metrics"] if m["primary"]]
            cvs = [m["cv"] for m in prim if m["cv"] is not None]
            stop = [m["stop_mean"] for m in prim if m["stop_mean"]]
            real = [m["real_stop_mean"] for m in prim
                    if m["real_stop_mean"]]
            col = []
            for k in range(2):
                ns = [m["changes"][k]["n_median"] for m in prim
                      if m["changes"][k]["n_median"] is not None]
                dec = statistics.fmean(m["changes"][k]["decided"]
                                       for m in prim)
                fnd = statistics.fmean(m["changes"][k]["detected"]
                                       for m in prim)
                col.append("%-3s %3.0f%% %3.0f%%" % (
                    "%.3g" % statistics.median(ns) if ns else "-",
                    100 * dec, 100 * fnd))
            print("%-7s %-12s %6d %8.1f %11s %12s %13s %10s %10s %-17s %-17s"
                  % (arch, clock, len(d["per_boot"]),
                     (d["boot_ms"] or 0) / 1000,
                     pct(100 * statistics.median(cvs)) if cvs else "-",
                     "%d/%d" % (sum(m["false_alarms"] for m in prim),
                                sum(m["comparisons"] for m in prim)),
                     "%d/%d" % (sum(m["real_false_alarms"] for m in prim),
                                sum(m["real_comparisons"] for m in prim)),
                     "%.3g" % statistics.fmean(stop) if stop else "-",
                     "%.3g" % statistics.fmean(real) if real else "-",
                     col[0], col[1]))
    print("* over the primary metrics (FA: summed over them); real A/A "
          "comparisons per metric\nare those the boots allowed, one after "
          "the other, each stopping where the runner\nwould have; A/A STOP,"
          " REAL STOP: boots per side at the stop of resampled and real\n"
          "A/A runs; +X%: N DEC FND: median boots per side to the first "
          "decisive look\nwith a change of X%, the share of runs "
          "decisive by the budget, and of runs whose\ndecision found the "
          "change (a no-change is decisive, but a miss)")


def main():
    smoke = benchlib.SMOKE
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=not smoke)
    ap.add_argument("--rounds", type=int, default=1 if smoke else 2)
    ap.add_argument("--per-round", type=int, default=2 if smoke else 4)
    ap.add_argument("--rounds-real", type=int, default=0 if smoke else None,
                    help="plain TCG rounds in DIR at most (its noise "
                    "needs fewer boots to show than instruction time's "
                    "real A/A comparisons need)")
    ap.add_argument("--arches", default="x86_64" if smoke else
                    "x86_64,arm64")
    ap.add_argument("--clocks", default=",".join(CLOCKS))
    ap.add_argument("--simulations", type=int, default=20 if smoke else 1000)
    ap.add_argument("--budget", type=int, default=20)
    ap.add_argument("--no-boot", action="store_true")
    a = ap.parse_args()
    a.failed = 0
    own_raw = not a.raw
    if own_raw:
        a.raw = tempfile.mkdtemp(prefix="clock-cal-raw.")
    arches = a.arches.split(",")
    a.clocks = a.clocks.split(",")
    if not set(a.clocks) <= set(CLOCKS):
        ap.error("--clocks takes %s" % ",".join(CLOCKS))
    os.makedirs(a.raw, exist_ok=True)
    os.chmod(a.raw, 0o755)
    tmp = tempfile.mkdtemp(prefix="clock-cal.")
    os.chmod(tmp, 0o755)
    log = []
    load0 = os.getloadavg()[0]
    if not a.no_boot:
        if not os.path.isdir(os.path.join(TREE, ".git")):
            print("clock-calibration: no tree at %s; skipped" % TREE)
            return 1 if smoke else 0
        plan = plans(tmp)
        env = os.environ.get("KREGRESS_VM_PREFIX")
        os.environ["KREGRESS_VM_PREFIX"] = env or "kregress-bench%d-" % \
            os.getpid()
        t = [threading.Thread(target=boot_rounds, args=(a, arch, plan, log))
             for arch in arches]
        for x in t:
            x.start()
        for x in t:
            x.join()
    res = {}
    for arch in arches:
        for clock in CLOCKS:
            doc = merged(a.raw, arch, clock)
            if doc:
                res[(arch, clock)] = figures(a, doc, tmp)
    print("# clock-calibration: %s; default-tcg.plan as shipped (instruction"
          " time) and with clock real (plain TCG); %d resampled runs, budget"
          " %d; load average %.1f at start, %.1f at end" % (
              ", ".join(arches), a.simulations, a.budget, load0,
              os.getloadavg()[0]))
    table(res, arches)
    summary(res, arches)
    subprocess.run(["rm", "-rf", tmp])
    if own_raw:
        subprocess.run(["rm", "-rf", a.raw])
    return 1 if a.failed or not res else 0


if __name__ == "__main__":
    sys.exit(main())
