# tests/runner.mk - the runner's benchmark (a script, not a C program): it
# boots kernels under libvirt and plain QEMU and prints the overhead.  Its
# smoke mode boots the slow tests' x86_64 kernel once each way (two
# guests).
BENCHMARKS += $(CURDIR)/tests/bench/runner-overhead.py
BENCH_SMOKE += $(CURDIR)/tests/bench/runner-overhead.py
