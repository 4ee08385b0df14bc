"""benchlib.py - what the Python benchmarks of tests/bench/ share.

SMOKE is KREGRESS_BENCH_SMOKE (`make bench-smoke`: smallest sizes, one
run, failures in the exit status).  kernel() is the kernel the product
builds for an arch (`kregress build` of the imported tree's HEAD with
the shipped fragments, in KREGRESS_CACHE), the one the slow tests
build: a cache hit once they ran.  workloads_dir() holds an arch's
built guest programs, and boot() times one `kregress boot` under TCG.
"""
import json
import os
import subprocess
import time

SRC = os.environ.get("KREGRESS_SRC", os.getcwd())
BUILD = os.environ.get("KREGRESS_BUILD", os.path.join(SRC, "build"))
TREE = os.environ.get("KREGRESS_LINUX_TREE",
                      "/var/cache/kregress/trees/linux-6.1")
KR = os.path.join(BUILD, "kregress")
SMOKE = bool(os.environ.get("KREGRESS_BENCH_SMOKE"))


def kernel(arch):
    """The image path of the product's kernel for arch; raises on error."""
    out = subprocess.run([KR, "build", "--tree", TREE, "--rev", "HEAD",
                          "--arch", arch, "--json"], capture_output=True,
                         text=True, check=True, env=dict(
                             os.environ, KREGRESS_CONFIG_DIR=os.path.join(
                                 SRC, "builders/configs")))
    return json.loads(out.stdout)["image"]


def workloads_dir(arch):
    """The directory of the built /init and workloads for arch."""
    return os.path.join(BUILD, "workloads",
                        "aarch64" if arch == "arm64" else "x86_64")


def boot(arch, kernel, initrd, plan, log, timeout=300):
    """One `kregress boot` under TCG: (wall seconds, exit status, its
    output, stderr folded in)."""
    t0 = time.monotonic()
    p = subprocess.run([KR, "boot", "--kernel", kernel, "--arch", arch,
                        "--initrd", initrd, "--plan", plan, "--accel", "tcg",
                        "--timeout", str(timeout), "--log", log],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace", timeout=timeout + 60)
    return time.monotonic() - t0, p.returncode, p.stdout
