# tests/runner.mk - the runner's benchmark (a script, not a C program): it
# boots kernels under libvirt and plain QEMU and prints the overhead.
BENCHMARKS += $(CURDIR)/tests/bench/runner-overhead.py
