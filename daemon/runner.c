/*
 * runner.c - rounds of A/B boots over hosts, until the statistics decide.
 *
 * A round is a block of slots in seeded ABBA order (schedule.c).  Worker
 * threads, one per unit of host capacity, take the slots in order; each
 * waits for a host with free capacity (schedule_pick), boots, parses the
 * console with the result-protocol parser (console.c), and hands the
 * outcome to on_boot().  A boot that fails is retried once at once,
 * preferably on another host; a host failing SCHEDULE_UNHEALTHY_AFTER
 * times in a row is dropped and its slots go to the others.  After the
 * round, the per-boot metric set of the run is looked at
 * (analyze_set_look(): each metric compared at the alpha the sequential
 * design allows for this look); the run stops when every primary metric
 * (the ones the workloads name as what they measure, sample.h; every
 * metric when none is named) is decisive, the budget is spent, or no
 * host is left.  The analysis takes the last look again on the stored
 * boots with the same function.
 *
 * The order is the order in which boots start; with more than one worker
 * they overlap, which is what capacity means.  The seed, round and order
 * of every boot go to on_boot(), so the sequence can be reconstructed.
 *
 * A host's capacity holds across runs: the boots under way on each (URI,
 * arch) are counted process-wide, so two series' runs (or a probe) never
 * put more guests on a host than it promised room for; a run whose hosts
 * are full waits.  One process-wide lock guards the runs and the counts:
 * boots take seconds, the work done under it microseconds (and the
 * callbacks' database writes milliseconds).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "alloc.h"
#include "console.h"
#include "log.h"
#include "runner.h"
#include "sample.h"
#include "strbuf.h"

const char *runner_end_str(enum runner_end end)
{
	switch (end) {
	case RUNNER_DECIDED:
		return "decided";
	case RUNNER_BUDGET:
		return "budget";
	case RUNNER_NO_HOST:
		return "no-host";
	case RUNNER_NO_SAMPLES:
		return "no-samples";
	case RUNNER_STOPPED:
		return "stopped";
	}
	return "unknown";
}

static pthread_mutex_t runner_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t runner_cond = PTHREAD_COND_INITIALIZER;

/* Boots under way on one host, by every run of the process. */
struct place {
	char *uri;
	const struct arch *arch;
	unsigned int busy;
};
static struct place *places;	/* under runner_lock */
static size_t nplaces, alloc_places;

static unsigned int *place_busy(const char *uri, const struct arch *arch)
{
	size_t i;

	for (i = 0; i < nplaces; i++)
		if (places[i].arch == arch && !strcmp(places[i].uri, uri))
			return &places[i].busy;
	ALLOC_GROW(places, nplaces + 1, alloc_places);
	places[nplaces].uri = xstrdup(uri);
	places[nplaces].arch = arch;
	places[nplaces].busy = 0;
	return &places[nplaces++].busy;
}

void runner_place_take(const char *uri, const struct arch *arch,
		       unsigned int capacity)
{
	pthread_mutex_lock(&runner_lock);
	while (*place_busy(uri, arch) >= (capacity ? capacity : 1))
		pthread_cond_wait(&runner_cond, &runner_lock);
	(*place_busy(uri, arch))++;
	pthread_mutex_unlock(&runner_lock);
}

static void place_give_locked(const char *uri, const struct arch *arch)
{
	unsigned int *busy = place_busy(uri, arch);

	if (*busy)
		(*busy)--;
	pthread_cond_broadcast(&runner_cond);
}

void runner_place_give(const char *uri, const struct arch *arch)
{
	pthread_mutex_lock(&runner_lock);
	place_give_locked(uri, arch);
	pthread_mutex_unlock(&runner_lock);
}

/*
 * The sample records of a complete boot's console log, into *out (n of
 * them; free with free_samples()).  -1 with the reason when the log is
 * not a complete result or has no sample.
 */
static int parse_samples(const char *log, size_t len, const char *nonce,
			 struct sample **out, size_t *n, char *reason,
			 size_t reason_size)
{
	struct console_result cr;
	struct sample *s;
	size_t i;
	int ret = -1;

	*out = NULL;
	*n = 0;
	if (console_parse(log, len, nonce, &cr) < 0) {
		snprintf(reason, reason_size, "invalid nonce");
		return -1;
	}
	if (cr.status != CONSOLE_COMPLETE) {
		snprintf(reason, reason_size, "%s: %s",
			 console_status_str(cr.status), cr.reason);
		goto out;
	}
	s = xcalloc(cr.nrecords ? cr.nrecords : 1, sizeof(*s));
	for (i = 0; i < cr.nrecords; i++)
		*n += sample_parse(cr.records[i].json, &s[*n]);
	if (!*n) {
		free(s);
		snprintf(reason, reason_size, "complete, but no samples");
		goto out;
	}
	*out = s;
	reason[0] = '\0';
	ret = 0;
out:
	console_result_release(&cr);
	return ret;
}

static void free_samples(struct sample *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sample_release(&s[i]);
	free(s);
}

/* A complete boot's samples into set; its values, or -1 with reason. */
static int add_samples(struct analyze_set *set, enum analyze_side side,
		       long long boot, const struct sample *s, size_t n,
		       char *reason, size_t reason_size)
{
	struct strbuf err = STRBUF_INIT;
	int added = analyze_add_boot(set, side, boot, s, n, &err);

	if (added < 0)
		snprintf(reason, reason_size, "samples: %s", err.buf);
	strbuf_release(&err);
	return added;
}

int runner_add_samples(struct analyze_set *set, enum analyze_side side,
		       long long boot, const char *log, size_t len,
		       const char *nonce, char *reason, size_t reason_size)
{
	struct sample *s;
	size_t n;
	int added;

	if (parse_samples(log, len, nonce, &s, &n, reason, reason_size))
		return -1;
	added = add_samples(set, side, boot, s, n, reason, reason_size);
	free_samples(s, n);
	return added;
}

/* ------------------------------------------------------------------ */

struct slot {
	enum analyze_side side;
	unsigned int order;
};

struct run {
	const struct runner_spec *spec;
	struct runner_host *hosts;
	size_t nhosts;
	struct runner_report *rep;
	struct slot *slots;
	size_t nslots, next;
	unsigned int round;
	size_t ok[2];		/* usable boots per side, whole run */
	int no_host;
};

static int make_nonce(char *out, size_t size)
{
	unsigned char r[8];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
	for (i = 0; i < sizeof(r) && 2 * i + 2 < size; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
	return 0;
}

/*
 * Takes a host for a boot, waiting for room on it (the boots of every run
 * count, see the top); -1 when no healthy host is left.  Called with
 * runner_lock held.
 */
static int take_host(struct run *r, int avoid)
{
	const struct runner_spec *s = r->spec;
	int i;

	for (;;) {
		size_t k;
		struct schedule_host sh[RUNNER_THREADS_MAX * 4];
		size_t n = r->nhosts < sizeof(sh) / sizeof(sh[0]) ?
			   r->nhosts : sizeof(sh) / sizeof(sh[0]);

		for (k = 0; k < n; k++) {
			sh[k] = r->hosts[k].sched;
			sh[k].running = *place_busy(sh[k].uri, sh[k].arch);
		}
		if (!schedule_any_healthy(sh, n, s->arch, s->accel))
			return -1;
		i = schedule_pick(sh, n, s->arch, s->accel, avoid);
		if (i >= 0) {
			r->hosts[i].sched.running++;
			(*place_busy(sh[i].uri, sh[i].arch))++;
			return i;
		}
		pthread_cond_wait(&runner_cond, &runner_lock);
	}
}

/* One attempt on host hi; called without the lock.  Returns 1 if usable. */
static int boot_once(struct run *r, int hi, const struct slot *sl,
		     int attempt)
{
	const struct runner_spec *s = r->spec;
	struct runner_host *h = &r->hosts[hi];
	struct strbuf cmd = STRBUF_INIT, log = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf end = STRBUF_INIT;
	struct vm_boot_spec bs;
	struct vm_result vr;
	struct runner_boot b;
	char nonce[32], reason[CONSOLE_REASON_MAX + 64] = "";
	struct sample *samples = NULL;
	size_t nrecords = 0;
	int added = -1;

	memset(&bs, 0, sizeof(bs));
	memset(&b, 0, sizeof(b));
	if (make_nonce(nonce, sizeof(nonce)) < 0)
		snprintf(nonce, sizeof(nonce), "r%u-%u-%d", r->round,
			 sl->order, attempt);
	strbuf_addf(&cmd, "%s kregress.nonce=%s", s->plan_cmdline, nonce);
	if (s->extra_cmdline && *s->extra_cmdline)
		strbuf_addf(&cmd, " %s", s->extra_cmdline);
	strbuf_addf(&log, "%s/boot-%04u-%s-%d.log", s->log_dir, sl->order,
		    analyze_side_str(sl->side), attempt);
	bs.kernel = s->kernel[sl->side];
	bs.initrd = s->initrd[sl->side];
	bs.cmdline = cmd.buf;
	bs.arch = s->arch;
	bs.accel = h->sched.accel;
	bs.memory_mib = s->memory_mib;
	bs.vcpus = s->vcpus;
	bs.timeout_s = s->timeout_s;
	bs.icount = s->icount;
	bs.console_log = log.buf;
	strbuf_addf(&end, "KREGRESS 1 %s END ", nonce);
	bs.end_marker = end.buf;
	b.round = r->round;
	b.order = sl->order;
	b.side = sl->side;
	b.attempt = attempt;
	b.host = h->sched.uri;
	b.nonce = nonce;
	b.console_log = log.buf;
	b.reason = "";
	if (s->on_start) {
		pthread_mutex_lock(&runner_lock);
		s->on_start(s->opaque, &b);
		pthread_mutex_unlock(&runner_lock);
	}
	vm_boot(h->vm, &bs, &vr);
	if (vr.status != VM_STATUS_OK) {
		snprintf(reason, sizeof(reason), "%s: %s",
			 vm_status_str(vr.status), vr.reason);
	} else if (strbuf_read_file(&text, log.buf, CONSOLE_LOG_MAX) < 0) {
		snprintf(reason, sizeof(reason), "console log unreadable");
	}

	pthread_mutex_lock(&runner_lock);
	/* Only what libvirt/the hypervisor did counts against the host. */
	b.host_failure = schedule_is_host_failure(vr.status);
	schedule_done(&h->sched, vr.status);
	place_give_locked(h->sched.uri, h->sched.arch);
	if (!reason[0] && !text.len) {
		snprintf(reason, sizeof(reason), "no console output: the "
			 "guest ended before its console came up");
		vr.status = VM_STATUS_ERROR;
	} else if (!reason[0]) {
		if (!parse_samples(text.buf, text.len, nonce, &samples,
				   &nrecords, reason, sizeof(reason)))
			added = add_samples(&r->rep->set, sl->side, sl->order,
					    samples, nrecords, reason,
					    sizeof(reason));
		if (added < 0 && vr.status == VM_STATUS_OK)
			vr.status = VM_STATUS_ERROR;
	}
	if (!h->sched.healthy)
		log_warn("runner", "%s: unhealthy after %u failures in a row",
			 h->sched.uri, h->sched.failures);
	r->rep->boots++;
	if (added < 0)
		r->rep->failed_boots++;
	else
		r->ok[sl->side]++;
	b.vm = &vr;
	b.complete = added >= 0;
	b.reason = reason;
	b.nsamples = added > 0 ? (size_t)added : 0;
	b.samples = samples;
	b.nrecords = nrecords;
	if (s->on_boot)
		s->on_boot(s->opaque, &b);
	pthread_mutex_unlock(&runner_lock);
	free_samples(samples, nrecords);
	strbuf_release(&cmd);
	strbuf_release(&log);
	strbuf_release(&text);
	strbuf_release(&end);
	return added >= 0;
}

static int stopped(const struct run *r)
{
	return r->spec->stop && *r->spec->stop;
}

static void *worker(void *arg)
{
	struct run *r = arg;

	pthread_mutex_lock(&runner_lock);
	while (r->next < r->nslots && !r->no_host && !stopped(r)) {
		struct slot sl = r->slots[r->next++];
		int attempt = 1, avoid = -1, hi, usable;

		for (;;) {
			hi = take_host(r, avoid);
			if (hi < 0) {
				r->no_host = 1;
				break;
			}
			pthread_mutex_unlock(&runner_lock);
			usable = boot_once(r, hi, &sl, attempt);
			pthread_mutex_lock(&runner_lock);
			if (usable || attempt >= SCHEDULE_ATTEMPTS ||
			    stopped(r))
				break;
			r->rep->retries++;
			attempt++;
			avoid = hi;
		}
	}
	pthread_mutex_unlock(&runner_lock);
	return NULL;
}

size_t runner_budget(const struct runner_spec *spec)
{
	return spec->max_per_side ? spec->max_per_side : 10;
}

size_t runner_round(const struct runner_spec *spec, size_t done)
{
	size_t pairs = spec->pairs_per_round ? spec->pairs_per_round : 2;
	size_t budget = runner_budget(spec);

	if (done >= budget)
		return 0;
	return done + pairs > budget ? budget - done : pairs;
}

/*
 * The look after a round: every metric compared at this look's alpha
 * (analyze_set_look(), what the analysis takes again from the stored
 * boots).
 */
static enum analyze_next decide(struct run *r, struct stats_seq *seq)
{
	size_t n = r->ok[0] < r->ok[1] ? r->ok[0] : r->ok[1];
	enum analyze_next next;

	if (analyze_set_look(&r->rep->set, seq, n, &r->spec->stats, &next))
		next = ANALYZE_MORE;
	return next;
}

int runner_run(const struct runner_spec *spec, struct runner_host *hosts,
	       size_t nhosts, struct runner_report *rep)
{
	struct run r;
	struct schedule_rng rng;
	struct stats_seq seq;
	enum analyze_side *order = NULL;
	pthread_t tids[RUNNER_THREADS_MAX];
	size_t i, nthreads = 0, started = 0;
	unsigned int order_no = 0;

	memset(rep, 0, sizeof(*rep));
	analyze_set_init(&rep->set);
	rep->set.calib = spec->calib;
	if (!spec->kernel[0] || !spec->kernel[1] || !spec->log_dir ||
	    !spec->plan_cmdline || !nhosts)
		return error("runner", "a spec needs two kernels, a plan, a "
			     "log directory and a host");
	for (i = 0; i < nhosts; i++)
		nthreads += hosts[i].sched.capacity;
	if (nthreads > RUNNER_THREADS_MAX)
		nthreads = RUNNER_THREADS_MAX;
	if (!nthreads)
		nthreads = 1;
	memset(&r, 0, sizeof(r));
	r.spec = spec;
	r.hosts = hosts;
	r.nhosts = nhosts;
	r.rep = rep;
	schedule_rng_init(&rng, spec->seed);
	stats_seq_init(&seq, spec->stats.alpha, runner_budget(spec));
	/* The first round is the largest. */
	order = xcalloc(2 * runner_round(spec, 0), sizeof(*order));
	r.slots = xcalloc(2 * runner_round(spec, 0), sizeof(*r.slots));

	for (;;) {
		size_t want = runner_round(spec, r.ok[0] < r.ok[1] ?
					   r.ok[0] : r.ok[1]);

		if (!want) {
			rep->end = RUNNER_BUDGET;
			break;
		}
		schedule_abba(&rng, want, order);
		for (i = 0; i < 2 * want; i++) {
			r.slots[i].side = order[i];
			r.slots[i].order = order_no++;
		}
		r.nslots = 2 * want;
		r.next = 0;
		r.round = ++rep->rounds;
		started = 0;
		for (i = 0; i < nthreads && i < r.nslots; i++)
			if (!pthread_create(&tids[i], NULL, worker, &r))
				started++;
		if (!started)
			worker(&r);
		for (i = 0; i < started; i++)
			pthread_join(tids[i], NULL);
		if (stopped(&r)) {
			rep->end = RUNNER_STOPPED;
			goto done;
		}
		if (r.no_host) {
			rep->end = RUNNER_NO_HOST;
			break;
		}
		/* A side that has not produced one usable boot by the end
		 * of a round with retries is broken, not noisy. */
		if (!r.ok[0] || !r.ok[1]) {
			rep->end = RUNNER_NO_SAMPLES;
			break;
		}
		switch (decide(&r, &seq)) {
		case ANALYZE_DECIDED:
			rep->end = RUNNER_DECIDED;
			goto done;
		case ANALYZE_BUDGET:
			rep->end = RUNNER_BUDGET;
			goto done;
		case ANALYZE_MORE:
			break;
		}
	}
	/* No host left mid-run: a last verdict on what there is. */
	if (rep->end == RUNNER_NO_HOST && r.ok[0] && r.ok[1])
		decide(&r, &seq);
done:
	analyze_set_sort(&rep->set);
	free(order);
	free(r.slots);
	return 0;
}

void runner_report_release(struct runner_report *rep)
{
	analyze_set_release(&rep->set);
	memset(rep, 0, sizeof(*rep));
}
