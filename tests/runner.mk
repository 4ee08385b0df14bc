# tests/runner.mk - the runner's benchmark (a script, not a C program): it
# boots kernels under libvirt and plain QEMU and prints the overhead.
BENCHMARKS += $(CURDIR)/tests/bench/runner-overhead.py

# libvirt, QEMU for both arches, and the guest tooling the runner drives;
# tini reaps QEMU for libvirtd where no init does (systemd/libvirt-start.sh).
DEBIAN_PACKAGES += libvirt-daemon-system libvirt-clients qemu-system-x86 \
	qemu-system-arm qemu-utils tini
