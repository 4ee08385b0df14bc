#!/usr/bin/python3
"""runner-overhead.py - what the runner costs per boot, under TCG.

For each arch it boots the kernel the product builds (benchlib.kernel():
`kregress build` of the imported tree, the slow tests' kernel) and the
same initramfs (the workloads' /init and programs,
a short plan) alternately
  plain:    qemu-system-* -kernel -initrd -append, serial on a pipe, timed
            from the launch to the END line of the result protocol;
  kregress: `kregress boot` (libvirt connection, transient domain, console
            stream, log, destroy, result parsing), timed from the launch to
            the command's exit,
and prints the medians, the ratio, and the boot-to-first-sample time (from
the guest's start to the first sample record) as measured by both.  It
prints figures, never pass/fail, but exits 1 when a boot failed.  Needs
root and a running libvirtd; it says so and exits 0 otherwise (1 in
smoke mode).

KREGRESS_BENCH_BOOTS (default 5) boots per side and arch;
KREGRESS_BENCH_ARCHES (default "x86_64 arm64");
KREGRESS_TEST_KERNEL_<arch> to boot another kernel than the product's;
KREGRESS_BENCH_SMOKE=1: one boot a side, x86_64 (two guests).
"""
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib

BOOTS = int(os.environ.get("KREGRESS_BENCH_BOOTS",
                           "1" if benchlib.SMOKE else "5"))
ARCHES = os.environ.get("KREGRESS_BENCH_ARCHES", "x86_64" if benchlib.SMOKE
                        else "x86_64 arm64").split()
PLAN = ("kregress-plan 1\n"
        "run memset-order --size-mb 4 --iterations 3 --warmup 1\n")
WORKLOADS = ["thp-fault", "memset-order", "mremap", "zero-swap",
             "page-zero-check"]
# Domains of our own prefix: a kregressd starting on the same libvirtd
# reaps every "kregress-" domain (and our boots would fail mid-way).
os.environ.setdefault("KREGRESS_VM_PREFIX", "kregress-bench%d-" % os.getpid())


def cpio_newc(entries):
    """entries: (name, mode, data, rdev_major, rdev_minor)."""
    out = bytearray()
    for ino, (name, mode, data, ma, mi) in enumerate(entries + [
            ("TRAILER!!!", 0, b"", 0, 0)], 1):
        nm = name.encode() + b"\0"
        hdr = "070701" + "".join("%08x" % v for v in (
            ino, mode, 0, 0, 1, 0, len(data), 0, 0, ma, mi, len(nm), 0))
        out += hdr.encode() + nm
        out += b"\0" * (-len(out) % 4)
        out += data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def make_initrd(arch, path):
    wdir = benchlib.workloads_dir(arch)
    ents = [("dev", 0o40755, b"", 0, 0),
            ("dev/console", 0o20600, b"", 5, 1),
            ("bin", 0o40755, b"", 0, 0),
            ("init", 0o100755, open(os.path.join(wdir, "init"), "rb").read(),
             0, 0)]
    for w in WORKLOADS:
        ents.append(("bin/" + w, 0o100755,
                     open(os.path.join(wdir, w), "rb").read(), 0, 0))
    import gzip
    with open(path, "wb") as f:
        f.write(gzip.compress(cpio_newc(ents), 1))


def plan_cmdline():
    return 'kregress.plan="%s"' % ";".join(PLAN.strip().split("\n"))


def plain(arch, kernel, initrd):
    nonce = secrets.token_hex(8)
    if arch == "arm64":
        cmd = ["qemu-system-aarch64", "-M", "virt", "-cpu", "max"]
        console = "console=ttyAMA0"
    else:
        cmd = ["qemu-system-x86_64", "-M", "pc"]
        console = "console=ttyS0 tsc=reliable nolapic_timer"
    append = "%s panic=1 %s kregress.nonce=%s" % (console, plan_cmdline(),
                                                   nonce)
    cmd += ["-accel", "tcg", "-m", "256", "-smp", "1", "-nodefaults",
            "-no-user-config", "-display", "none", "-no-reboot",
            "-serial", "stdio", "-kernel", kernel, "-initrd", initrd,
            "-append", append]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    first = end = None
    deadline = t0 + 120
    for line in p.stdout:
        t = time.monotonic() - t0
        if first is None and b'{"type":"sample"' in line:
            first = t
        if line.startswith(("KREGRESS 1 %s END " % nonce).encode()):
            end = t
            break
        if time.monotonic() > deadline:
            break
    p.terminate()
    p.wait()
    return end, first, time.monotonic() - t0


def runner(arch, kernel, initrd, planfile, log):
    t, rc, out = benchlib.boot(arch, kernel, initrd, planfile, log, 120)
    def field(name):
        m = re.search(r"^%s: ([0-9.]+)$" % name, out, re.M)
        return float(m.group(1)) if m else None
    if rc != 0:
        print("  kregress boot failed:\n" + out, file=sys.stderr)
        return None, None, None, None, None
    return t, field("first_sample_s"), field("create_s"), \
        field("last_result_s"), field("teardown_s")


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")


def main():
    if os.geteuid() != 0 or subprocess.run(
            ["virsh", "-c", "qemu:///system", "version"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            timeout=20).returncode != 0:
        print("runner-overhead: skipped (needs root and a running libvirtd)")
        return 1 if benchlib.SMOKE else 0
    tmp = tempfile.mkdtemp(prefix="kregress-bench.")
    os.chmod(tmp, 0o755)  # QEMU runs as libvirt-qemu and must read it
    planfile = os.path.join(tmp, "plan")
    open(planfile, "w").write(PLAN)
    ret = 0
    for arch in ARCHES:
        kernel = os.environ.get("KREGRESS_TEST_KERNEL_" + arch)
        try:
            kernel = kernel or benchlib.kernel(arch)
        except (subprocess.SubprocessError, OSError, ValueError) as e:
            print("runner-overhead: %s: no kernel (%s)" % (arch, e))
            ret = 1
            continue
        initrd = os.path.join(tmp, "initrd-" + arch)
        make_initrd(arch, initrd)
        pl, rn, pl_first, rn_first = [], [], [], []
        pl_exit, rn_create, rn_end, rn_down = [], [], [], []
        load0 = os.getloadavg()
        for i in range(BOOTS):
            # Alternate which side goes first, so drifts hit both.
            order = ("plain", "kregress") if i % 2 == 0 else \
                    ("kregress", "plain")
            for side in order:
                if side == "plain":
                    t, f, x = plain(arch, kernel, initrd)
                    pl.append(t)
                    pl_first.append(f)
                    pl_exit.append(x)
                else:
                    t, f, c, e, d = runner(arch, kernel, initrd, planfile,
                                           os.path.join(tmp, "log"))
                    rn.append(t)
                    rn_first.append(f)
                    rn_create.append(c)
                    rn_end.append(e)
                    rn_down.append(d)
        if None in pl or None in rn:
            print("runner-overhead: %s: a boot failed" % arch)
            ret = 1
            continue
        mp, mr = med(pl), med(rn)
        print("runner-overhead %s (TCG, %d boots per side):" % (arch, BOOTS))
        print("  plain qemu, launch to END line: median %.2f s  %s"
              % (mp, " ".join("%.2f" % x for x in pl if x is not None)))
        print("  kregress boot, launch to exit:  median %.2f s  %s"
              % (mr, " ".join("%.2f" % x for x in rn if x is not None)))
        print("  overhead ratio kregress/plain: %.3f (%+.1f%%)"
              % (mr / mp, (mr / mp - 1) * 100))
        mx = med(pl_exit)
        print("  plain qemu, launch to exit after SIGTERM at END: median "
              "%.2f s; ratio kregress/that %.3f" % (mx, mr / mx))
        print("  kregress breakdown (medians): create %.2f s, guest start "
              "to END %.2f s, teardown (guest done to vm_boot's return) "
              "%.2f s, the rest (process start, connect, parse) %.2f s"
              % (med(rn_create), med(rn_end), med(rn_down),
                 mr - med(rn_create) - med(rn_end) - med(rn_down)))
        print("  boot-to-first-sample: plain median %.2f s (from launch), "
              "kregress median %.2f s (from guest start)"
              % (med(pl_first), med(rn_first)))
        print("  load average before/after: %.2f/%.2f (1 min), %d CPUs"
              % (load0[0], os.getloadavg()[0], os.cpu_count()))
    return ret


sys.exit(main())
