"""benchlib.py - what the Python benchmarks of tests/bench/ share.

SMOKE is KREGRESS_BENCH_SMOKE (`make bench-smoke`: smallest sizes, one
run, failures in the exit status).  kernel() is the kernel the product
builds for an arch (`kregress build` of the imported tree's HEAD with
the shipped fragments, in KREGRESS_CACHE), the one the slow tests
build: a cache hit once they ran.
"""
import json
import os
import subprocess

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
