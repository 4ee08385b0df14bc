/*
 * hosts.h - the configured libvirt hosts as the daemon uses them.
 *
 * hosts_startup() runs once when kregressd starts: it makes the host table
 * agree with the configuration, destroys on every host the kregress
 * domains a previous daemon left running (a kill -9 during a boot), and
 * marks every probe stale, so that each host is probed again before its
 * first boot after a start.
 *
 * hosts_open() gives the run stage the hosts of one arch, ready to boot:
 * a host whose accel is "auto" is probed (probe.c: KVM if a guest really
 * boots with it, else TCG) when its probe is stale, missing or older than
 * HOSTS_PROBE_MAX_AGE_S, with the run's own kernel; hosts whose accel is
 * fixed only have their capabilities read.  The run uses one accel: KVM
 * when any healthy host of the arch has it, else TCG.
 */
#ifndef KREGRESS_HOSTS_H
#define KREGRESS_HOSTS_H

#include <stddef.h>

#include "runner.h"
#include "strbuf.h"

struct config;
struct db;

#define HOSTS_PROBE_MAX_AGE_S	3600

int hosts_startup(struct db *db, const struct config *cfg);

/* What a probe boots: the run's base kernel and the guest initramfs. */
struct hosts_probe_kit {
	const char *kernel;
	const char *initrd;
	const char *log_dir;	/* the probe's console logs go here */
};

struct hosts_set {
	struct runner_host *hosts;	/* n, vm opened, healthy */
	long long *ids;			/* host table ids */
	char **uris;			/* owned copies */
	size_t n;
	enum arch_accel accel;
};

/*
 * Opens the healthy hosts of arch for a run.  0 with
 * *set filled (release with hosts_set_release()); -1 with the reason in
 * *reason when the configuration has no host of the arch (permanent);
 * -2 when none of them can boot a guest now (try again later).
 */
int hosts_open(struct db *db, const struct config *cfg,
	       const struct arch *arch,
	       const struct hosts_probe_kit *kit, struct hosts_set *set,
	       struct strbuf *reason);

/* Records the hosts the run found unhealthy (they are probed again
 * before their next run), then closes them. */
void hosts_set_release(struct db *db, struct hosts_set *set);

#endif
