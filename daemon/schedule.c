/*
 * schedule.c - ABBA order, host choice and host health (see schedule.h).
 */
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "schedule.h"

void schedule_rng_init(struct schedule_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t schedule_seed_new(void)
{
	struct schedule_rng r;
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed)) {
		schedule_rng_init(&r, (uint64_t)time(NULL) ^
				  ((uint64_t)getpid() << 32));
		seed = schedule_rng_next(&r);
	}
	return seed & ((UINT64_C(1) << 53) - 1);
}

uint64_t schedule_rng_next(struct schedule_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void schedule_abba(struct schedule_rng *r, size_t pairs,
		   enum analyze_side *out)
{
	size_t i = 0;

	while (pairs) {
		/* The top bit: the low bits of splitmix are fine too, but
		 * the top one is the conventional choice. */
		enum analyze_side a = (schedule_rng_next(r) >> 63) ?
				       ANALYZE_PATCHED : ANALYZE_BASE;
		enum analyze_side b = a == ANALYZE_BASE ?
				       ANALYZE_PATCHED : ANALYZE_BASE;

		out[i++] = a;
		out[i++] = b;
		if (pairs >= 2) {
			out[i++] = b;
			out[i++] = a;
			pairs -= 2;
		} else {
			pairs--;
		}
	}
}

int schedule_is_host_failure(enum vm_status status)
{
	return status == VM_STATUS_ERROR || status == VM_STATUS_STOPPED;
}

static int fits(const struct schedule_host *h, const struct arch *arch,
		int accel)
{
	return h->healthy && h->arch == arch &&
	       (accel < 0 || (int)h->accel == accel);
}

int schedule_pick(const struct schedule_host *hosts, size_t n,
		  const struct arch *arch, int accel, int avoid)
{
	int best = -1, pass;
	size_t i;

	/* First without the avoided host, then with it if nothing else. */
	for (pass = 0; pass < 2 && best < 0; pass++) {
		for (i = 0; i < n; i++) {
			const struct schedule_host *h = &hosts[i];
			const struct schedule_host *b;

			if (!fits(h, arch, accel) || h->running >= h->capacity)
				continue;
			if (pass == 0 && (int)i == avoid)
				continue;
			if (best < 0) {
				best = (int)i;
				continue;
			}
			b = &hosts[best];
			/* running/capacity compared without division */
			if ((unsigned long)h->running * b->capacity <
			    (unsigned long)b->running * h->capacity ||
			    ((unsigned long)h->running * b->capacity ==
			     (unsigned long)b->running * h->capacity &&
			     h->failures < b->failures))
				best = (int)i;
		}
		if (avoid < 0)
			break;
	}
	return best;
}

void schedule_done(struct schedule_host *h, enum vm_status status)
{
	if (h->running)
		h->running--;
	if (!schedule_is_host_failure(status)) {
		h->failures = 0;
		return;
	}
	if (++h->failures >= SCHEDULE_UNHEALTHY_AFTER)
		h->healthy = 0;
}

int schedule_should_retry(enum vm_status status, int attempts)
{
	return status != VM_STATUS_OK && attempts < SCHEDULE_ATTEMPTS;
}

int schedule_any_healthy(const struct schedule_host *hosts, size_t n,
			 const struct arch *arch, int accel)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fits(&hosts[i], arch, accel))
			return 1;
	return 0;
}
