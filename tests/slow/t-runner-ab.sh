#!/bin/bash
# t-runner-ab.sh - `kregress ab` with two hosts (the local socket and the
# same libvirtd through qemu+tcp): seeded ABBA rounds spread over both
# hosts, every boot's samples parsed, a verdict per metric at the end.
# Base and patched are the same kernel (an A/A run).  Then a run whose
# lifecycle events all come late, after their boots have returned.
. "$KREGRESS_SRC/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/slow/lib-runner.sh"
need_libvirt
kernel=$(kernel_for x86_64) || bail_out "no x86_64 kernel"
initrd_workloads x86_64 "$tmp/wl.cpio.gz" ||
	bail_out "no workloads"
plan 9
relay_start || bail_out "the TCP relay to libvirtd did not start"
port=$relay_port
cat >"$tmp/plan" <<'PLAN'
kregress-plan 1
timeout 60
run memset-order --size-mb 4 --iterations 3 --warmup 1
PLAN
mkdir -p "$tmp/logs"
timeout 900 "$KREGRESS" ab --base "$kernel" --patched "$kernel" \
	--initrd "$tmp/wl.cpio.gz" --arch x86_64 --plan "$tmp/plan" \
	--host qemu:///system --host "qemu+tcp://127.0.0.1:$port/system" \
	--seed 12345 --budget 4 --pairs 2 --timeout 120 \
	--log-dir "$tmp/logs" >"$tmp/ab.out" 2>"$tmp/ab.err"
ok $? "ab exits 0"
sed 's/^/# /' "$tmp/ab.out"
grep -q '^seed: 12345$' "$tmp/ab.out"
ok $? "the seed is recorded"
grep -Eq '^end: (decided|budget) after [0-9]+ rounds, [0-9]+ boots' \
	"$tmp/ab.out"
ok $? "ended by the statistics or the budget"
# Per round, the first attempts in order form ABBA or BAAB blocks.
awk '$1 == "boot" && $6 == "attempt" && $7 == 1 {
	side[$2] = ($5 == "base") ? "A" : "B" }
     END { for (i = 0; i in side; i += 4) {
		b = side[i] side[i+1] side[i+2] side[i+3]
		if (b != "ABBA" && b != "BAAB") exit 1 } }' "$tmp/ab.out"
ok $? "boots in ABBA/BAAB blocks"
grep -q ' on qemu:///system: ok' "$tmp/ab.out" &&
	grep -q " on qemu+tcp://127.0.0.1:$port/system: ok" "$tmp/ab.out"
ok $? "boots spread over both hosts"
test "$(grep -Ec '^boot .*: ok \([1-9][0-9]* values' "$tmp/ab.out")" -ge 8
ok $? "every boot gave its per-boot values"
grep -q '^memset-order oneshot .*n=4/4' "$tmp/ab.out"
ok $? "a verdict per metric with 4 boots per side"

# libvirt runs a lifecycle callback without its lock, so one may still be
# running when its boot has deregistered it and returned, while the next
# boot runs: every event 300 ms late here (a write to a dead frame is an
# AddressSanitizer report, exit 125, under make SANITIZE=address).
mkdir -p "$tmp/late"
KREGRESS_TEST_LATE_EVENT_MS=300 timeout 600 "$KREGRESS" ab \
	--base "$kernel" --patched "$kernel" --initrd "$tmp/wl.cpio.gz" \
	--arch x86_64 --plan "$tmp/plan" --host qemu:///system --seed 1 \
	--budget 2 --pairs 2 --timeout 120 --log-dir "$tmp/late" \
	>"$tmp/late.out" 2>"$tmp/late.err"
ok $? "ab exits 0 when every lifecycle event comes 300 ms late"
is "$(grep -Ec '^boot .*: ok \([1-9][0-9]* values' "$tmp/late.out")" 4 \
	"and its 4 boots are complete"
sed -n '/ERROR: AddressSanitizer/,+6s/^/# /p' "$tmp/late.err"
done_testing
