/*
 * t-schedule.c - ABBA order, host choice, retries and host health.
 */
#include "schedule.h"
#include "tap.h"

#define X86	arch_find("x86_64")
#define ARM	arch_find("arm64")

static int count(const enum analyze_side *s, size_t from, size_t n,
		 enum analyze_side side)
{
	int c = 0;
	size_t i;

	for (i = from; i < from + n; i++)
		c += s[i] == side;
	return c;
}

int main(void)
{
	enum analyze_side a[40], b[40];
	struct schedule_rng r;
	struct schedule_host hosts[3];
	size_t i;
	int balanced = 1, abba = 1, differ = 0, starts_b = 0, starts_p = 0;
	int seed;

	schedule_rng_init(&r, 42);
	schedule_abba(&r, 20, a);
	schedule_rng_init(&r, 42);
	schedule_abba(&r, 20, b);
	ok(!memcmp(a, b, sizeof(a)), "the same seed gives the same order");
	for (i = 0; i < 40; i += 4) {
		if (count(a, i, 4, ANALYZE_BASE) != 2)
			balanced = 0;
		if (a[i] == a[i + 1] || a[i] != a[i + 3] ||
		    a[i + 1] != a[i + 2])
			abba = 0;
	}
	ok(balanced, "every block of four is two base, two patched");
	ok(abba, "every block is ABBA or BAAB");
	for (seed = 0; seed < 64; seed++) {
		schedule_rng_init(&r, (uint64_t)seed);
		schedule_abba(&r, 20, b);
		differ += memcmp(a, b, sizeof(a)) != 0;
		starts_b += b[0] == ANALYZE_BASE;
		starts_p += b[0] == ANALYZE_PATCHED;
	}
	ok(differ >= 63, "other seeds give other orders (%d/64)", differ);
	ok(starts_b > 16 && starts_p > 16,
	   "blocks start with either side (%d base, %d patched)",
	   starts_b, starts_p);
	schedule_rng_init(&r, 7);
	schedule_abba(&r, 3, a);
	is_int(count(a, 0, 6, ANALYZE_BASE), 3, "odd pairs: balanced");
	ok(a[4] != a[5], "odd pairs: the last pair is AB or BA");
	for (i = 0, differ = 0; i < 64; i++) {
		uint64_t s1 = schedule_seed_new(), s2 = schedule_seed_new();

		differ += s1 != s2 && s1 < UINT64_C(1) << 53 &&
			  s2 < UINT64_C(1) << 53;
	}
	is_int(differ, 64, "fresh seeds differ and fit a JavaScript number");

	memset(hosts, 0, sizeof(hosts));
	hosts[0] = (struct schedule_host){ "qemu:///system", X86,
					   ARCH_TCG, 2, 0, 0, 1 };
	hosts[1] = (struct schedule_host){ "qemu+tcp://b/system",
					   X86, ARCH_KVM, 1, 0,
					   0, 1 };
	hosts[2] = (struct schedule_host){ "qemu+tcp://c/system",
					   ARM, ARCH_TCG, 4, 0,
					   0, 1 };
	is_int(schedule_pick(hosts, 3, ARM, -1, -1), 2,
	       "arm64 goes to the arm64 host");
	is_int(schedule_pick(hosts, 3, X86, ARCH_KVM, -1), 1,
	       "kvm goes to the kvm host");
	is_int(schedule_pick(hosts, 3, X86, -1, -1), 0,
	       "ties go to the first host");
	hosts[0].running = 1;
	is_int(schedule_pick(hosts, 3, X86, -1, -1), 1,
	       "least loaded: 0/1 beats 1/2");
	hosts[1].running = 1;
	is_int(schedule_pick(hosts, 3, X86, -1, -1), 0,
	       "then the one with capacity left");
	hosts[0].running = 2;
	is_int(schedule_pick(hosts, 3, X86, -1, -1), -1,
	       "no capacity: nothing");
	hosts[0].running = hosts[1].running = 0;
	is_int(schedule_pick(hosts, 3, X86, -1, 0), 1,
	       "a retry avoids the host that failed");
	is_int(schedule_pick(hosts, 3, ARM, -1, 2), 2,
	       "... unless it is the only one");

	ok(schedule_should_retry(VM_STATUS_PANIC, 1), "first failure retried");
	ok(!schedule_should_retry(VM_STATUS_PANIC, 2), "second one is not");
	ok(!schedule_should_retry(VM_STATUS_OK, 1), "success is not");

	hosts[0].running = 1;
	schedule_done(&hosts[0], VM_STATUS_PANIC);
	is_int(hosts[0].running, 0, "done frees the slot");
	is_int(hosts[0].failures, 0, "a guest panic is not the host's fault");
	for (i = 0; i < SCHEDULE_UNHEALTHY_AFTER - 1; i++)
		schedule_done(&hosts[0], VM_STATUS_ERROR);
	ok(hosts[0].healthy, "still healthy after %d host failures",
	   SCHEDULE_UNHEALTHY_AFTER - 1);
	schedule_done(&hosts[0], VM_STATUS_OK);
	is_int(hosts[0].failures, 0, "a success resets the count");
	for (i = 0; i < SCHEDULE_UNHEALTHY_AFTER; i++)
		schedule_done(&hosts[0], VM_STATUS_STOPPED);
	ok(!hosts[0].healthy, "unhealthy after %d in a row",
	   SCHEDULE_UNHEALTHY_AFTER);
	is_int(schedule_pick(hosts, 3, X86, ARCH_TCG, -1), -1,
	       "an unhealthy host gets no work");
	ok(schedule_any_healthy(hosts, 3, X86, -1),
	   "x86_64 work can still move to the kvm host");
	ok(!schedule_any_healthy(hosts, 3, X86, ARCH_TCG),
	   "but no x86_64 tcg host is left");
	return done_testing();
}
