#!/usr/bin/python3
"""boot-phases.py - where the wall time of a TCG boot of the shipped plan goes.

For each arch and clock, boots the kernel the product builds
(benchlib.kernel()) with `kregress boot` under TCG:
  boot      the shipped plan's machine, clock and swap with one token
            run (page-zero-check, 10 checks, once): the cost of a boot
            itself (libvirt, firmware, the kernel's start, /init, power-off)
  RUN ...   the same with one run line of the shipped plan instead
            (after the `thp` line it follows there)
  plan      workloads/plans/default-tcg.plan as shipped
and prints each variant's median wall time over --boots boots, what a run
line adds to the bare boot, and the sum of those against the whole plan.
Boots of one arch take turns variant by variant, the arches side by side,
so that load hits all variants alike.  "instructions" is the shipped clock
(QEMU -icount shift=0,sleep=off), "real" the same plan with `clock real`.

    boot-phases.py [--boots N] [--arches x86_64,arm64]
                   [--clocks instructions,real]

Prints figures only; it never passes or fails, but exits 1 when a boot
failed.  Needs root, libvirtd and the imported tree (make check's slow
tests make them).  Environment: KREGRESS_BUILD, KREGRESS_SRC,
KREGRESS_LINUX_TREE.  Smoke mode (KREGRESS_BENCH_SMOKE=1): x86_64 in
instruction time, one boot of the bare boot and one of the whole plan.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading

import benchlib
from benchlib import KR, SRC, TREE

SHIPPED = os.path.join(SRC, "workloads/plans/default-tcg.plan")
TOKEN = ("thp never", "run page-zero-check --checks 10 --iterations 1 "
         "--warmup 0")


def variants(clock):
    """[(name, plan text)]: the bare boot, each run line, the whole plan."""
    head, runs, thp = [], [], None
    for line in open(SHIPPED).read().splitlines():
        word = line.split(" ", 1)[0]
        if not line or line.startswith("#"):
            continue
        if word == "clock":
            line = "clock " + clock
        if word == "thp":
            thp = line
        elif word == "run":
            runs.append((thp, line))
        else:
            head.append(line)
    out = [("boot", head + list(TOKEN))]
    out += [(r[4:], head + [t, r]) for t, r in runs]
    whole = [("clock " + clock if x.startswith("clock ") else x)
             for x in open(SHIPPED).read().splitlines()]
    out.append(("plan", whole))
    return [(n, "\n".join(p) + "\n") for n, p in out]


def boot_all(a, arch, clock, todo, times, tmp):
    kernel = benchlib.kernel(arch)
    wl = benchlib.workloads_dir(arch)
    files = []
    for i, (name, text) in enumerate(todo):
        plan = os.path.join(tmp, "%s-%s-%d.plan" % (arch, clock, i))
        initrd = plan[:-5] + ".cpio.gz"
        open(plan, "w").write(text)
        subprocess.run([KR, "initramfs", "--gzip", "--workloads", wl,
                        "--plan", plan, "--out", initrd], check=True,
                       capture_output=True)
        files.append((name, plan, initrd))
    for _ in range(a.boots):
        for name, plan, initrd in files:
            t, rc, out = benchlib.boot(arch, kernel, initrd, plan,
                                       os.path.join(tmp, "console.log"))
            if rc:
                a.failed += 1
                why = [x for x in out.splitlines()
                       if x.startswith("boot:")] or \
                    out.strip().splitlines()[-1:] or ["no output"]
                print("# %s %s %s: exit %d: %s" % (
                    arch, clock, name, rc, why[0]), file=sys.stderr)
                continue
            times.setdefault((arch, clock, name), []).append(t)


def main():
    smoke = benchlib.SMOKE
    ap = argparse.ArgumentParser()
    ap.add_argument("--boots", type=int, default=1 if smoke else 3)
    ap.add_argument("--arches", default="x86_64" if smoke else
                    "x86_64,arm64")
    ap.add_argument("--clocks", default="instructions" if smoke else
                    "instructions,real")
    a = ap.parse_args()
    a.failed = 0
    if not os.path.isdir(os.path.join(TREE, ".git")):
        print("boot-phases: no tree at %s; skipped" % TREE)
        return 1 if smoke else 0
    os.environ.setdefault("KREGRESS_VM_PREFIX",
                          "kregress-bench%d-" % os.getpid())
    tmp = tempfile.mkdtemp(prefix="boot-phases.")
    os.chmod(tmp, 0o755)
    load0 = os.getloadavg()[0]
    times, jobs = {}, []
    for arch in a.arches.split(","):
        work = []
        for clock in a.clocks.split(","):
            v = variants(clock)
            if smoke:
                v = [v[0], v[-1]]
            work.append((clock, v))
        sub = os.path.join(tmp, arch)
        os.mkdir(sub)
        os.chmod(sub, 0o755)
        jobs.append(threading.Thread(target=lambda arch=arch, work=work,
                                     sub=sub: [boot_all(a, arch, c, v, times,
                                                        sub)
                                               for c, v in work]))
    for j in jobs:
        j.start()
    for j in jobs:
        j.join()
    print("# boot-phases: median wall seconds of `kregress boot` over %d "
          "boot(s); load average %.1f at start, %.1f at end" % (
              a.boots, load0, os.getloadavg()[0]))
    print("%-7s %-12s %-62s %7s %7s" % ("ARCH", "CLOCK", "VARIANT", "WALL S",
                                        "ADDED"))
    for arch in a.arches.split(","):
        for clock in a.clocks.split(","):
            med = {n: statistics.median(t) for (x, c, n), t in
                   times.items() if (x, c) == (arch, clock)}
            if "boot" not in med:
                continue
            added = 0.0
            for name, _ in variants(clock):
                if name not in med:
                    continue
                extra = med[name] - med["boot"]
                if name not in ("boot", "plan"):
                    added += extra
                print("%-7s %-12s %-62s %7.2f %7s" % (
                    arch, clock, name[:62], med[name],
                    "" if name == "boot" else "%+.2f" % extra))
            if "plan" in med and len(med) > 2:
                print("%-7s %-12s %-62s %7.2f" % (
                    arch, clock, "boot + each run line's addition",
                    med["boot"] + added))
    subprocess.run(["rm", "-rf", tmp])
    return 1 if a.failed or not times else 0


if __name__ == "__main__":
    sys.exit(main())
