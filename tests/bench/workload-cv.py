#!/usr/bin/python3
"""workload-cv.py - run-to-run noise of the workloads on this host.

Runs `kregress bench --native` RUNS times for each variant of a plan and
prints, per workload metric, the coefficient of variation (CV = sd/mean,
in %) across runs of the per-run value (the median of the run's
iterations: one run plays the part of one boot, DESIGN.md section 6), and a
robust CV (1.4826 * MAD / median) that a few outliers do not dominate.

Variants, interleaved round by round so that drifting host load hits all
of them alike:
  single   --iterations 1 --warmup 0     one cold measurement per run
  warmup   --iterations 1 --warmup 2     same, after two unrecorded passes
  repeat   --iterations 5 --warmup 2     median of five per run
  pinned   as repeat, plus --cpu 1       sched_setaffinity to one CPU
  repeat15, pinned15: 15 iterations after 3 warm-up passes
--aggregate min takes the fastest iteration of a run instead of the median
(the least disturbed one on a busy host).

Prints figures only; it never passes or fails, but exits non-zero when a
run does not complete.  Smoke mode (KREGRESS_BENCH_SMOKE=1) changes the
defaults to one run of the "single" variant of thp-fault.  Usage:
  tests/bench/workload-cv.py [--runs 30] [--kregress build/kregress]
                             [--workloads DIR] [--variants a,b] [--raw F]
                             [--only thp-fault,mremap] [--aggregate min]
"""
import argparse, json, math, os, statistics, subprocess, sys, tempfile, time

WORKLOADS = [
    # (label, plan line without the common options)
    ("thp-fault", "thp-fault --size-mb 100"),
    ("thp-fault/huge", "thp-fault --size-mb 100 --madvise hugepage"),
    ("memset-order", "memset-order --size-mb 32"),
    ("mremap", "mremap --pud-mb 1024 --madvise nohugepage"),
    ("page-zero-check", "page-zero-check --checks 100000"),
]
VARIANTS = {  # the first four run by default
    "single": "--iterations 1 --warmup 0",
    "warmup": "--iterations 1 --warmup 2",
    "repeat": "--iterations 5 --warmup 2",
    "pinned": "--iterations 5 --warmup 2 --cpu 1",
    "repeat15": "--iterations 15 --warmup 3",
    "pinned15": "--iterations 15 --warmup 3 --cpu 1",
}


def plan_text(variant, with_swap, only):
    lines = ["kregress-plan 1", "timeout 600"]
    wl = [w for w in WORKLOADS if not only or w[0] in only]
    if with_swap and (not only or "zero-swap" in only):
        wl.append(("zero-swap", "zero-swap --size-mb 32"))
    for label, cmd in wl:
        lines.append("run %s %s" % (cmd, VARIANTS[variant]))
    return "\n".join(lines) + "\n", wl


def run_once(args, plan_path):
    cmd = [args.kregress, "bench", "--native", plan_path, "--json"]
    if args.workloads:
        cmd[3:3] = ["--workloads", args.workloads]
    p = subprocess.run(cmd, capture_output=True, text=True)
    doc = json.loads(p.stdout[p.stdout.index("{"):])
    if doc["status"] != "complete":
        raise SystemExit("run %s: %s" % (doc["status"], doc["reason"]))
    return doc["records"]


def key_of(rec):
    p = rec["params"]
    label = rec["workload"]
    if p.get("madvise") == "hugepage":
        label += "/huge"
    return (label, rec["metric"])


def cv(values):
    if len(values) < 2:
        return float("nan"), float("nan")
    mean = statistics.fmean(values)
    med = statistics.median(values)
    mad = statistics.median(abs(v - med) for v in values)
    return (100 * statistics.stdev(values) / mean,
            100 * 1.4826 * mad / med if med else float("nan"))


def main():
    smoke = bool(os.environ.get("KREGRESS_BENCH_SMOKE"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1 if smoke else 30)
    ap.add_argument("--kregress", default=os.path.join(
        os.environ.get("KREGRESS_BUILD", "build"), "kregress"))
    ap.add_argument("--workloads")
    ap.add_argument("--variants", default="single" if smoke else
                    "single,warmup,repeat,pinned")
    ap.add_argument("--raw", help="write every per-run value here (JSON)")
    ap.add_argument("--only", default="thp-fault" if smoke else None,
                    help="comma-separated workload labels")
    ap.add_argument("--aggregate", default="median",
                    help="per-run value(s) from the iterations: median, "
                    "min or median,min (one table each)")
    args = ap.parse_args()
    variants = args.variants.split(",")
    with_swap = len(open("/proc/swaps").read().strip().splitlines()) > 1
    tmp = tempfile.mkdtemp()
    plans = {}
    for v in variants:
        plans[v] = os.path.join(tmp, v + ".plan")
        open(plans[v], "w").write(plan_text(
            v, with_swap, args.only.split(",") if args.only else None)[0])
    aggs = args.aggregate.split(",")
    fn = {"median": statistics.median, "min": min}
    # aggregate -> variant -> key -> [one value per run]
    per_run = {a: {v: {} for v in variants} for a in aggs}
    t_start = time.time()
    load = []
    for r in range(args.runs):
        load.append(os.getloadavg()[0])
        for v in variants:
            iters = {}
            for rec in run_once(args, plans[v]):
                if rec["type"] == "sample":
                    iters.setdefault(key_of(rec), []).append(rec["value"])
            for k, vals in iters.items():
                for a in aggs:
                    per_run[a][v].setdefault(k, []).append(fn[a](vals))
        print("# round %d/%d done, %.0f s, load %.1f" %
              (r + 1, args.runs, time.time() - t_start, load[-1]),
              file=sys.stderr)
    if args.raw:
        json.dump({a: {v: {"%s %s" % k: vals for k, vals in d.items()}
                       for v, d in pv.items()} for a, pv in per_run.items()},
                  open(args.raw, "w"), indent=1)
    for a in aggs:
        table(per_run[a], variants, a, args.runs, load)


def table(per_run, variants, agg, runs, load):
    keys = sorted({k for d in per_run.values() for k in d})
    print("# %d runs per variant on %s, %d CPUs, load average %.1f..%.1f"
          % (runs, os.uname().nodename, os.cpu_count(), min(load),
             max(load)))
    print("# CV%% = sd/mean of per-run %ss of the iterations; "
          "rCV%% = 1.4826*MAD/median" % agg)
    head = "%-16s %-22s %12s" % ("workload", "metric", "median(ns)")
    for v in variants:
        head += " %8s %8s" % (v + " CV", "rCV")
    print(head)
    for k in keys:
        ref = per_run[variants[-1]].get(k) or per_run[variants[0]].get(k)
        line = "%-16s %-22s %12.0f" % (k[0], k[1], statistics.median(ref))
        for v in variants:
            c, rc = cv(per_run[v].get(k, []))
            line += " %8.2f %8.2f" % (c, rc)
        print(line)
    print()


if __name__ == "__main__":
    main()
