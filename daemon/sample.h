/*
 * sample.h - one "sample" record of the guest result protocol, checked
 * and taken apart (pure; jansson only).
 *
 * A record is a JSON object (workloads/common.h):
 *   {"type":"sample","workload":"mremap","metric":"move_pud","unit":"ns",
 *    "direction":"lower","primary":true,"iteration":0,"value":15089,
 *    "params":{...}}
 * "primary" marks the metrics a workload is about (the ones its seed
 * measures); the others (CPU time, maxima, controls) explain them.
 * Two samples are comparable only when workload, metric and params are
 * equal, so params are kept as canonical JSON text (compact, keys sorted)
 * that compares with strcmp().
 */
#ifndef KREGRESS_SAMPLE_H
#define KREGRESS_SAMPLE_H

#include "stats.h"

struct sample {
	char *workload;
	char *metric;
	char *params;		/* canonical JSON, "{}" when absent */
	char *unit;		/* "" when absent */
	enum stats_direction direction;	/* lower when absent */
	int primary;		/* "primary": true; 0 when absent */
	long long iteration;	/* -1 when absent */
	double value;		/* finite */
};

/*
 * Parses one record's JSON text.  Returns 1 and fills *s (release with
 * sample_release()) for a usable sample; 0 when the record is not a
 * sample or lacks a workload, a metric or a finite value (nothing to
 * release).
 */
int sample_parse(const char *json, struct sample *s);
void sample_release(struct sample *s);

/* "workload metric params": the key that groups comparable samples
 * (malloc'd). */
char *sample_key(const struct sample *s);

#endif
