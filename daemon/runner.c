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
 * round, each metric is compared (stats.c) at the alpha the sequential
 * design allows for this look; the run stops when every primary metric
 * (the ones the workloads name as what they measure, sample.h; every
 * metric when none is named) is decisive, the budget is spent, or no
 * host is left.
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static pthread_mutex_t runner_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t runner_cond = PTHREAD_COND_INITIALIZER;

/* Boots under way on one host, by every run of the process. */
struct place {
	char *uri;
	enum vm_arch arch;
	unsigned int busy;
};
static struct place *places;	/* under runner_lock */
static size_t nplaces;

static unsigned int *place_busy(const char *uri, enum vm_arch arch)
{
	size_t i;

	for (i = 0; i < nplaces; i++)
		if (places[i].arch == arch && !strcmp(places[i].uri, uri))
			return &places[i].busy;
	places = realloc(places, (nplaces + 1) * sizeof(*places));
	if (!places)
		die("runner", "out of memory");
	places[nplaces].uri = strdup(uri);
	if (!places[nplaces].uri)
		die("runner", "out of memory");
	places[nplaces].arch = arch;
	places[nplaces].busy = 0;
	return &places[nplaces++].busy;
}

void runner_place_take(const char *uri, enum vm_arch arch,
		       unsigned int capacity)
{
	pthread_mutex_lock(&runner_lock);
	while (*place_busy(uri, arch) >= (capacity ? capacity : 1))
		pthread_cond_wait(&runner_cond, &runner_lock);
	(*place_busy(uri, arch))++;
	pthread_mutex_unlock(&runner_lock);
}

static void place_give_locked(const char *uri, enum vm_arch arch)
{
	unsigned int *busy = place_busy(uri, arch);

	if (*busy)
		(*busy)--;
	pthread_cond_broadcast(&runner_cond);
}

void runner_place_give(const char *uri, enum vm_arch arch)
{
	pthread_mutex_lock(&runner_lock);
	place_give_locked(uri, arch);
	pthread_mutex_unlock(&runner_lock);
}

static struct runner_metric *metric_get(struct runner_metric **metrics,
					size_t *n, const char *key,
					const char *unit,
					enum stats_direction dir)
{
	struct runner_metric *m;
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*metrics)[i].key, key))
			return &(*metrics)[i];
	if (*n >= RUNNER_METRICS_MAX)
		return NULL;
	*metrics = realloc(*metrics, (*n + 1) * sizeof(**metrics));
	if (!*metrics)
		die("runner", "out of memory");
	m = &(*metrics)[(*n)++];
	memset(m, 0, sizeof(*m));
	m->key = strdup(key);
	m->unit = strdup(unit);
	if (!m->key || !m->unit)
		die("runner", "out of memory");
	m->direction = dir;
	return m;
}

static void metric_push(struct runner_metric *m, int side, double v)
{
	if (m->n[side] == m->alloc[side]) {
		m->alloc[side] = m->alloc[side] ? 2 * m->alloc[side] : 16;
		m->values[side] = realloc(m->values[side],
					  m->alloc[side] * sizeof(double));
		if (!m->values[side])
			die("runner", "out of memory");
	}
	m->values[side][m->n[side]++] = v;
}

/* One boot's values of one key, before the median. */
struct group {
	char *key;
	const struct sample *first;	/* its unit and direction */
	double *v;
	size_t n;
};

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
	s = calloc(cr.nrecords ? cr.nrecords : 1, sizeof(*s));
	if (!s)
		die("runner", "out of memory");
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

/*
 * Groups one boot's samples by key and adds each group's median to the
 * metrics of side; returns how many per-boot values were added.
 */
static size_t add_medians(struct runner_metric **metrics, size_t *nmetrics,
			  enum schedule_side side, const struct sample *s,
			  size_t n)
{
	struct group *g = NULL;
	size_t i, j, ng = 0, added = 0;

	for (i = 0; i < n; i++) {
		char *key = sample_key(&s[i]);

		for (j = 0; j < ng; j++)
			if (!strcmp(g[j].key, key))
				break;
		if (j == ng) {
			g = realloc(g, (ng + 1) * sizeof(*g));
			if (!g)
				die("runner", "out of memory");
			memset(&g[j], 0, sizeof(g[j]));
			g[j].key = key;
			g[j].first = &s[i];
			ng++;
		} else {
			free(key);
		}
		g[j].v = realloc(g[j].v, (g[j].n + 1) * sizeof(double));
		if (!g[j].v)
			die("runner", "out of memory");
		g[j].v[g[j].n++] = s[i].value;
	}
	for (j = 0; j < ng; j++) {
		struct runner_metric *m = metric_get(metrics, nmetrics,
						     g[j].key, g[j].first->unit,
						     g[j].first->direction);

		if (m) {
			metric_push(m, side, median(g[j].v, g[j].n));
			m->primary |= g[j].first->primary;
			added++;
		}
		free(g[j].key);
		free(g[j].v);
	}
	free(g);
	return added;
}

int runner_add_samples(struct runner_metric **metrics, size_t *nmetrics,
		       enum schedule_side side, const char *log, size_t len,
		       const char *nonce, char *reason, size_t reason_size)
{
	struct sample *s;
	size_t n, added;

	if (parse_samples(log, len, nonce, &s, &n, reason, reason_size))
		return -1;
	added = add_medians(metrics, nmetrics, side, s, n);
	free_samples(s, n);
	return (int)added;
}

/* ------------------------------------------------------------------ */

struct slot {
	enum schedule_side side;
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
		    schedule_side_str(sl->side), attempt);
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
			added = (int)add_medians(&r->rep->metrics,
						 &r->rep->nmetrics, sl->side,
						 samples, nrecords);
		else if (vr.status == VM_STATUS_OK)
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

static int cmp_metric(const void *a, const void *b)
{
	return strcmp(((const struct runner_metric *)a)->key,
		      ((const struct runner_metric *)b)->key);
}

static int decisive(enum stats_verdict v)
{
	return v == STATS_REGRESSION || v == STATS_IMPROVEMENT ||
	       v == STATS_MINOR || v == STATS_NO_CHANGE;
}

/*
 * Compares every metric at this look's alpha.  Returns 2 when every
 * metric that decides (the primary ones, or all when no metric is
 * primary) has a decisive verdict, 1 when the sequential design says
 * stop anyway (budget), 0 to go on.
 */
static int decide(struct run *r, struct stats_seq *seq)
{
	struct runner_report *rep = r->rep;
	struct stats_opts o = r->spec->stats;
	size_t i, n = r->ok[0] < r->ok[1] ? r->ok[0] : r->ok[1];
	int stop = 1, all = 1, any_primary = 0;

	for (i = 0; i < rep->nmetrics; i++)
		any_primary |= rep->metrics[i].primary;
	o.alpha = stats_seq_look(seq, n);
	for (i = 0; i < rep->nmetrics; i++) {
		struct runner_metric *m = &rep->metrics[i];
		int decides = m->primary || !any_primary;
		struct stats_opts mo = o;

		mo.direction = m->direction;
		if (r->spec->metric_opts)
			r->spec->metric_opts(r->spec->opaque, m->key, &mo);
		if (stats_compare_samples(m->values[0], m->n[0],
					  m->values[1], m->n[1], &mo,
					  &m->result) < 0) {
			if (decides)
				stop = all = 0;
			continue;
		}
		m->have_result = 1;
		if (!decides)
			continue;
		if (!stats_seq_should_stop(seq, &m->result, n))
			stop = 0;
		if (!decisive(m->result.verdict))
			all = 0;
	}
	if (!rep->nmetrics)
		return 0;
	return all ? 2 : stop;
}

int runner_run(const struct runner_spec *spec, struct runner_host *hosts,
	       size_t nhosts, struct runner_report *rep)
{
	struct run r;
	struct schedule_rng rng;
	struct stats_seq seq;
	enum schedule_side *order = NULL;
	pthread_t tids[RUNNER_THREADS_MAX];
	size_t pairs = spec->pairs_per_round ? spec->pairs_per_round : 2;
	size_t budget = spec->max_per_side ? spec->max_per_side : 10;
	size_t i, nthreads = 0, started = 0;
	unsigned int order_no = 0;

	memset(rep, 0, sizeof(*rep));
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
	stats_seq_init(&seq, spec->stats.alpha, budget);
	order = calloc(2 * pairs, sizeof(*order));
	r.slots = calloc(2 * pairs, sizeof(*r.slots));
	if (!order || !r.slots)
		die("runner", "out of memory");

	for (;;) {
		size_t done = r.ok[0] < r.ok[1] ? r.ok[0] : r.ok[1];
		size_t want = pairs;

		if (done >= budget) {
			rep->end = RUNNER_BUDGET;
			break;
		}
		if (done + want > budget)
			want = budget - done;
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
		case 2:
			rep->end = RUNNER_DECIDED;
			goto done;
		case 1:
			rep->end = RUNNER_BUDGET;
			goto done;
		}
	}
	/* No host left mid-run: a last verdict on what there is. */
	if (rep->end == RUNNER_NO_HOST && r.ok[0] && r.ok[1])
		decide(&r, &seq);
done:
	qsort(rep->metrics, rep->nmetrics, sizeof(*rep->metrics), cmp_metric);
	free(order);
	free(r.slots);
	return 0;
}

void runner_report_release(struct runner_report *rep)
{
	size_t i;

	for (i = 0; i < rep->nmetrics; i++) {
		free(rep->metrics[i].key);
		free(rep->metrics[i].unit);
		free(rep->metrics[i].values[0]);
		free(rep->metrics[i].values[1]);
	}
	free(rep->metrics);
	memset(rep, 0, sizeof(*rep));
}
