/*
 * schedule.h - the order and placement of A/B boots (pure, no I/O but
 * the one draw of a fresh seed).
 *
 * Base and patched boots alternate in randomised ABBA blocks: each block
 * of four is ABBA or BAAB by a coin flip from a seeded generator, so that
 * slow drifts of a host (thermal, background load, time of day) hit both
 * sides alike, and the seed recorded with the run reproduces the order.
 * Boots go to healthy hosts of the right arch and accel with free
 * capacity, least loaded first.  A host whose boots fail for reasons of
 * the host (libvirt errors, a hypervisor that stops the guest) several
 * times in a row is marked unhealthy and gets no more work; what a guest
 * does (panic, oops, hang, timeout) is a property of the kernel and never
 * counts against the host.
 */
#ifndef KREGRESS_SCHEDULE_H
#define KREGRESS_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze.h"
#include "vm.h"

/* splitmix64: small, seedable, the same sequence on every machine. */
struct schedule_rng {
	uint64_t state;
};

void schedule_rng_init(struct schedule_rng *r, uint64_t seed);
/*
 * A fresh seed for a run's order, from getrandom(2), or from the clock
 * and the pid if the kernel gives no randomness.  It is below 2^53, so
 * that SQL, the JSON API and a JavaScript number hold it exactly.
 */
uint64_t schedule_seed_new(void);
uint64_t schedule_rng_next(struct schedule_rng *r);

/*
 * Fills out[0 .. 2 * pairs - 1] with randomised ABBA blocks (ABBA or
 * BAAB); when pairs is odd the last pair is AB or BA.  Each block and the
 * whole sequence have as many base as patched boots.
 */
void schedule_abba(struct schedule_rng *r, size_t pairs,
		   enum analyze_side *out);

#define SCHEDULE_UNHEALTHY_AFTER	3	/* host failures in a row */
#define SCHEDULE_ATTEMPTS		2	/* a failed boot is retried once */

struct schedule_host {
	const char *uri;	/* borrowed */
	const struct arch *arch;
	enum arch_accel accel;
	unsigned int capacity;	/* boots at once */
	unsigned int running;
	unsigned int failures;	/* host failures in a row */
	int healthy;
};

/* 1 when status says the host (not the guest kernel) failed. */
int schedule_is_host_failure(enum vm_status status);

/*
 * The host for the next boot of arch (accel < 0: any accel): healthy,
 * with running < capacity, the lowest running/capacity, then the fewest
 * failures, then the lowest index.  avoid (or -1) is a host to skip when
 * another one fits (a retry goes elsewhere if it can).  Returns the index,
 * or -1 when no host fits now.
 */
int schedule_pick(const struct schedule_host *hosts, size_t n,
		  const struct arch *arch, int accel, int avoid);

/* Records the end of a boot on h (running--, failures, health). */
void schedule_done(struct schedule_host *h, enum vm_status status);

/* 1 when a boot that ended with status after attempts tries is retried. */
int schedule_should_retry(enum vm_status status, int attempts);

/* Is any host left that could ever boot arch (accel < 0: any)? */
int schedule_any_healthy(const struct schedule_host *hosts, size_t n,
			 const struct arch *arch, int accel);

#endif
