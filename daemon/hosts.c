/*
 * hosts.c - the configured hosts: start-up reaping, probing, opening for
 * a run, and which of them an A/A calibration is due on (see hosts.h).
 * No SQL here (db_run.c, db_calib.c), no libvirt (vm.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "config.h"
#include "db_calib.h"
#include "db_run.h"
#include "hosts.h"
#include "log.h"
#include "plan.h"
#include "probe.h"
#include "sha256.h"

/* The probe's plan: one short real workload, so a probe that passes
 * proves that the guest side works too. */
#define PROBE_CMDLINE	"kregress.nonce=probe kregress.plan=\"kregress-plan " \
			"1;run page-zero-check --checks 100 --iterations 1\""

static int sync_host(struct db *db, const struct config_host *ch,
		     struct db_run_host *h)
{
	return db_run_host_sync(db, ch->name, ch->uri,
				ch->arch->name,
				arch_accel_str(ch->accel), ch->capacity, h);
}

/*
 * A daemon names its domains "kregress-<8 hex of its database path>-...",
 * so its start-up reaper destroys only what an earlier daemon of the same
 * database left: another daemon on the same libvirt (a test's, a second
 * service) keeps its guests.
 */
static void own_prefix(const struct config *cfg)
{
	struct sha256 h;
	char hex[SHA256_HEX_LEN + 1], prefix[32];

	sha256_init(&h);
	sha256_update(&h, cfg->database, strlen(cfg->database));
	sha256_final_hex(&h, hex);
	snprintf(prefix, sizeof(prefix), "kregress-%.8s-", hex);
	vm_set_name_prefix(prefix);
}

int hosts_startup(struct db *db, const struct config *cfg)
{
	size_t i, j;

	own_prefix(cfg);

	for (i = 0; i < cfg->n_hosts; i++) {
		struct db_run_host h;

		if (sync_host(db, &cfg->hosts[i], &h))
			return -1;
		db_run_host_release(&h);
	}
	if (db_run_hosts_stale(db))
		return -1;
	for (i = 0; i < cfg->n_hosts; i++) {
		const char *uri = cfg->hosts[i].uri;
		struct vm_host *vm;
		int n = 0;

		for (j = 0; j < i; j++)
			if (!strcmp(cfg->hosts[j].uri, uri))
				break;
		if (j < i)
			continue;	/* reaped already */
		/* A host that is down now is probed before its next use. */
		if (vm_host_open(uri, &vm))
			continue;
		if (!vm_reap(vm, NULL, &n) && n)
			log_info("hosts", "%s: destroyed %d domain%s left by "
				 "an earlier daemon", uri, n,
				 n == 1 ? "" : "s");
		vm_host_free(vm);
	}
	return 0;
}

/*
 * Probes (or, for a fixed accel, reads) a host whose probe is stale and
 * records what was found.  Returns the accel to use, or -1 (recorded as
 * unhealthy) when the host cannot boot anything.
 */
static int probe(struct db *db, const struct config_host *ch,
		 const struct db_run_host *dh, struct vm_host *vm,
		 const struct hosts_probe_kit *kit, const struct arch *arch)
{
	struct probe_result res;
	struct probe_spec spec;
	char reason[512];
	const char *accel;
	int ret;

	memset(&res, 0, sizeof(res));
	if (ch->accel != ARCH_AUTO) {
		accel = arch_accel_str(ch->accel);
		if (vm_host_info(vm, &res.info)) {
			db_run_host_probed(db, dh->id, NULL, NULL, 0, 0,
					   "its capabilities cannot be read");
			return -1;
		}
		db_run_host_probed(db, dh->id, accel, res.info.cpu_model,
				   res.info.cpus, res.info.memory_kib / 1024,
				   NULL);
		return ch->accel == ARCH_KVM ? ARCH_KVM :
						       ARCH_TCG;
	}
	memset(&spec, 0, sizeof(spec));
	spec.kernel = kit->kernel;
	spec.initrd = kit->initrd;
	spec.cmdline = PROBE_CMDLINE;
	spec.end_marker = "KREGRESS 1 probe END ";
	spec.arch = arch;
	spec.log_dir = kit->log_dir;
	/* The probe's guest takes room on the host like a run's. */
	runner_place_take(ch->uri, arch, (unsigned int)ch->capacity);
	ret = probe_host(vm, &spec, &res);
	runner_place_give(ch->uri, arch);
	if (ret) {
		db_run_host_probed(db, dh->id, NULL, NULL, 0, 0,
				   "libvirt cannot be asked");
		return -1;
	}
	if (!res.ok) {
		snprintf(reason, sizeof(reason), "probe: kvm %s%s%s; tcg %s: "
			 "%s", res.kvm_tried ? vm_status_str(res.kvm_status) :
			 "not offered", res.kvm_reason[0] ? ": " : "",
			 res.kvm_reason, vm_status_str(res.tcg_status),
			 res.tcg_reason);
		log_warn("hosts", "%s: %s", ch->name, reason);
		db_run_host_probed(db, dh->id, NULL, res.info.cpu_model,
				   res.info.cpus, res.info.memory_kib / 1024,
				   reason);
		return -1;
	}
	log_info("hosts", "%s: probed in %.1f s: %s%s", ch->name,
		 res.total_s, arch_accel_str(res.accel),
		 res.kvm_tried && res.accel == ARCH_TCG ?
		 " (KVM did not boot the probe kernel)" : "");
	db_run_host_probed(db, dh->id, arch_accel_str(res.accel),
			   res.info.cpu_model, res.info.cpus,
			   res.info.memory_kib / 1024, NULL);
	return (int)res.accel;
}

static int probe_stale(const struct db_run_host *h)
{
	return !strcmp(h->accel, "auto") || !h->probed_at ||
	       time(NULL) - h->probed_at > HOSTS_PROBE_MAX_AGE_S;
}

void hosts_sched_init(struct schedule_host *s, const char *uri,
		      const struct config_host *ch, const struct arch *arch,
		      enum arch_accel accel)
{
	s->uri = uri;
	s->arch = arch;
	s->accel = accel;
	s->capacity = ch && ch->capacity > 0 ? (unsigned int)ch->capacity : 1;
	s->healthy = 1;
}

/* Adds an opened host to the set (takes vm). */
static void set_add(struct hosts_set *set, const struct config_host *ch,
		    long long id, struct vm_host *vm, const struct arch *arch,
		    enum arch_accel accel)
{
	struct runner_host *rh;
	size_t n = set->n + 1;

	/* hosts, ids and uris are parallel: one capacity for the three */
	if (set->n == set->alloc) {
		ALLOC_GROW(set->hosts, n, set->alloc);
		REALLOC_ARRAY(set->ids, set->alloc);
		REALLOC_ARRAY(set->uris, set->alloc);
	}
	set->uris[set->n] = xstrdup(ch->uri);
	set->ids[set->n] = id;
	rh = &set->hosts[set->n];
	memset(rh, 0, sizeof(*rh));
	rh->vm = vm;
	hosts_sched_init(&rh->sched, set->uris[set->n], ch, arch, accel);
	set->n = n;
}

/* Drops (closes) the hosts whose accel is not set->accel. */
static void keep_accel(struct hosts_set *set)
{
	size_t i, k = 0;

	for (i = 0; i < set->n; i++) {
		if (set->hosts[i].sched.accel != set->accel) {
			vm_host_free(set->hosts[i].vm);
			free(set->uris[i]);
			continue;
		}
		set->hosts[k] = set->hosts[i];
		set->ids[k] = set->ids[i];
		set->uris[k] = set->uris[i];
		set->hosts[k].sched.uri = set->uris[k];
		k++;
	}
	set->n = k;
}

int hosts_open(struct db *db, const struct config *cfg,
	       const struct arch *arch,
	       const struct hosts_probe_kit *kit, struct hosts_set *set,
	       struct strbuf *reason)
{
	size_t i, configured = 0;
	int kvm = 0;

	memset(set, 0, sizeof(*set));
	for (i = 0; i < cfg->n_hosts; i++) {
		const struct config_host *ch = &cfg->hosts[i];
		struct db_run_host dh;
		struct vm_host *vm;
		int accel;

		if (ch->arch != arch)
			continue;
		configured++;
		if (sync_host(db, ch, &dh))
			continue;
		if (!probe_stale(&dh) && !dh.healthy) {
			db_run_host_release(&dh);
			continue;
		}
		if (vm_host_open(ch->uri, &vm)) {
			db_run_host_probed(db, dh.id, NULL, NULL, 0, 0,
					   "libvirt cannot be reached");
			db_run_host_release(&dh);
			continue;
		}
		if (probe_stale(&dh))
			accel = probe(db, ch, &dh, vm, kit, arch);
		else
			accel = !strcmp(dh.accel, "kvm") ? ARCH_KVM :
							   ARCH_TCG;
		if (accel < 0) {
			vm_host_free(vm);
		} else {
			kvm |= accel == ARCH_KVM;
			set_add(set, ch, dh.id, vm, arch,
				(enum arch_accel)accel);
		}
		db_run_host_release(&dh);
	}
	if (!set->n) {
		strbuf_addf(reason, "%s: %s", arch->name,
			    configured ? "no configured host of this arch "
			    "can boot a guest (see GET /api/v1/hosts)" :
			    "no host of this arch is configured");
		hosts_set_release(db, set);
		return configured ? -2 : -1;
	}
	set->accel = kvm ? ARCH_KVM : ARCH_TCG;
	keep_accel(set);
	return 0;
}

void hosts_set_release(struct db *db, struct hosts_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		const struct schedule_host *sh = &set->hosts[i].sched;

		if (!sh->healthy) {
			char reason[128];

			snprintf(reason, sizeof(reason), "%u boot failures of "
				 "the host in a row", sh->failures);
			db_run_host_unhealthy(db, set->ids[i], reason);
		}
		vm_host_free(set->hosts[i].vm);
		free(set->uris[i]);
	}
	free(set->hosts);
	free(set->ids);
	free(set->uris);
	memset(set, 0, sizeof(*set));
}

/* A failed calibration is tried again after this long. */
#define CALIB_RETRY_S	3600

/* db_calib_state() of host h for runs of arch with pf and guest. */
static int calib_state(struct db *db, const struct db_run_host *h,
		       const char *arch, const struct plan_file *pf,
		       const char *guest, struct db_calib_state *st)
{
	struct db_calib_key key = {
		.arch = arch, .accel = h->accel,
		.clock = plan_clock_str(pf->plan->clock),
		.plan = pf->cmdline.buf, .guest = guest,
	};

	return db_calib_state(db, h->id, &key, st);
}

/* Why a calibration of (host, plan) is due, or NULL. */
static const char *calib_reason(const struct db_calib_state *st,
				long long base, int interval_s)
{
	long long now = (long long)time(NULL);

	if (st->failed_at && now - st->failed_at < CALIB_RETRY_S)
		return NULL;
	if (!st->host_known)
		return "new host";
	if (!st->plan_known)
		return "new plan";
	if (st->build_id != base)
		return "new base";
	if (!st->same_guest)
		return "new workloads";
	if (interval_s > 0 && now - st->finished_at >= interval_s)
		return "schedule";
	return NULL;
}

int hosts_calibrations_due(struct db *db, const struct config *cfg,
			   const struct arch *arch, const char *guest,
			   struct hosts_calib_due **due, size_t *n)
{
	const char *name = arch->name;
	struct hosts_calib_due *v = NULL;
	long long base;
	char *image = NULL;
	size_t i, count = 0, alloc = 0;
	int rc;

	*due = NULL;
	*n = 0;
	rc = db_calib_base(db, name, &base, &image);
	if (rc)
		return rc < 0 ? -1 : 0;
	for (i = 0; i < cfg->n_hosts; i++) {
		const struct config_host *ch = &cfg->hosts[i];
		struct strbuf why = STRBUF_INIT;
		struct db_calib_state st;
		struct plan_file pf = { NULL, NULL, STRBUF_INIT };
		struct db_run_host dh;
		const char *reason = NULL;
		enum arch_accel accel = ARCH_AUTO;

		if (ch->arch != arch || sync_host(db, ch, &dh))
			continue;
		arch_accel_parse(dh.accel, &accel);
		if (dh.healthy && accel != ARCH_AUTO &&
		    !plan_file_load_configured(&pf, cfg, arch, accel, &why) &&
		    (accel != ARCH_KVM ||
		     pf.plan->clock != PLAN_CLOCK_INSTRUCTIONS) &&
		    !calib_state(db, &dh, name, &pf, guest, &st))
			reason = calib_reason(&st, base,
					      cfg->calibration.interval_s);
		if (why.len)
			log_warn("hosts", "%s: no calibration: %s", ch->name,
				 why.buf);
		strbuf_release(&why);
		if (!reason) {
			plan_file_release(&pf);
			db_run_host_release(&dh);
			continue;
		}
		ALLOC_GROW(v, count + 1, alloc);
		v[count].ch = ch;
		v[count].host_id = dh.id;
		v[count].accel = accel;
		v[count].pf = pf;
		v[count].reason = reason;
		v[count].build_id = base;
		v[count].image = xstrdup(image);
		count++;
		db_run_host_release(&dh);
	}
	free(image);
	*due = v;
	*n = count;
	return 0;
}

void hosts_calib_due_free(struct hosts_calib_due *due, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		plan_file_release(&due[i].pf);
		free(due[i].image);
	}
	free(due);
}
