/*
 * cli_series.c - `kregress series parse FILE|URL [--json]`.
 *
 * Reads an mbox (a file, "-" for standard input, or a URL fetched through
 * fetch.c under the allowlist), groups it into a series and prints what the
 * daemon's intake would store: version, patches in order, cover letter,
 * trailers, base commit, completeness and problems.  Incomplete series and
 * discussion threads are results (exit 0); unreadable input exits 1.
 * What comes from the mail is printed escaped (escape.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "alloc.h"
#include "cli.h"
#include "cli_series.h"
#include "escape.h"
#include "fetch.h"
#include "log.h"
#include "mail.h"
#include "series.h"
#include "strbuf.h"

static void format_date(char *buf, size_t size, const struct series_patch *p)
{
	time_t t;
	struct tm tm;
	int off = p->tz_offset_min;

	if (!p->has_date) {
		snprintf(buf, size, "(no date)");
		return;
	}
	t = (time_t)(p->date + (int64_t)off * 60);
	gmtime_r(&t, &tm);
	snprintf(buf, size, "%04d-%02d-%02d %02d:%02d:%02d %c%02d%02d",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, off < 0 ? '-' : '+',
		 abs(off) / 60, abs(off) % 60);
}

static void print_patch(const struct series_patch *p, const char *label)
{
	char date[64];
	size_t i;

	format_date(date, sizeof(date), p);
	printf("%s %s\n", label, escape_arg(p->subject));
	printf("      From: %s <%s>\n", escape_arg(p->author_name),
	       escape_arg(p->author_email));
	printf("      Date: %s\n", date);
	printf("      Message-ID: %s%s%s\n", *p->message_id ? "<" : "",
	       *p->message_id ? escape_arg(p->message_id) : "(none)",
	       *p->message_id ? ">" : "");
	if (p->nr_files) {
		printf("      files:");
		for (i = 0; i < p->nr_files; i++)
			printf(" %s", escape_arg(p->files[i]));
		printf("\n");
	}
	for (i = 0; i < p->nr_trailers; i++) {
		printf("      %s: %s (reply <%s>",
		       escape_arg(p->trailers[i].name),
		       escape_arg(p->trailers[i].value),
		       escape_arg(p->trailers[i].message_id));
		if (p->trailers[i].from_version)
			printf(", carried over from v%d",
			       p->trailers[i].from_version);
		printf(")\n");
	}
}

static void print_text(const struct series *s)
{
	const struct series *o;
	size_t i;
	char label[32];

	printf("version: v%d%s%s\n", s->version, s->rfc ? " RFC" : "",
	       s->resend ? " RESEND" : "");
	printf("status: %s", series_status_str(s->status));
	if (s->nr_missing) {
		printf(" (missing");
		for (i = 0; i < s->nr_missing; i++)
			printf(" %d/%d", s->missing[i], s->total);
		printf(")");
	}
	printf("\n");
	if (s->status == SERIES_EMPTY || s->status == SERIES_PULL_REQUEST) {
		struct strbuf why = STRBUF_INIT;

		series_status_reason(s, &why);
		printf("reason: %s\n", escape_arg(why.buf));
		strbuf_release(&why);
	}
	printf("patches: %zu of %d\n", s->nr_patches, s->total);
	if (s->tree)
		printf("tree: %s\n", escape_arg(s->tree));
	if (s->base_commit)
		printf("base-commit: %s\n", escape_arg(s->base_commit));
	if (s->change_id)
		printf("change-id: %s\n", escape_arg(s->change_id));
	for (i = 0; i < s->nr_prereq_patch_ids; i++)
		printf("prerequisite-patch-id: %s\n",
		       escape_arg(s->prereq_patch_ids[i]));
	if (s->cover)
		print_patch(s->cover, "cover:");
	for (i = 0; i < s->nr_patches; i++) {
		snprintf(label, sizeof(label), "%d/%d:", s->patches[i]->index,
			 s->total);
		print_patch(s->patches[i], label);
	}
	for (o = s->older; o; o = o->older)
		printf("older revision: v%d, %zu of %d patches, %s\n",
		       o->version, o->nr_patches, o->total,
		       series_status_str(o->status));
	for (o = s; o; o = o->older)
		for (i = 0; i < o->nr_problems; i++)
			printf("problem: %s\n", escape_arg(o->problems[i]));
}

static json_t *json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *patch_json(const struct series_patch *p)
{
	json_t *o = json_object(), *files = json_array(), *tr = json_array();
	size_t i;

	for (i = 0; i < p->nr_files; i++)
		json_array_append_new(files, json_string(p->files[i]));
	for (i = 0; i < p->nr_trailers; i++) {
		json_t *t = json_pack("{s:s, s:s, s:s}",
			"name", p->trailers[i].name,
			"value", p->trailers[i].value,
			"message_id", p->trailers[i].message_id);

		/* only when carried: a trailer given to it keeps its shape */
		if (p->trailers[i].from_version)
			json_object_set_new(t, "from_version", json_integer(
					    p->trailers[i].from_version));
		json_array_append_new(tr, t);
	}
	json_object_set_new(o, "index", json_integer(p->index));
	json_object_set_new(o, "total", json_integer(p->total));
	json_object_set_new(o, "version", json_integer(p->version));
	json_object_set_new(o, "subject", json_string(p->subject));
	json_object_set_new(o, "title", json_string(p->title));
	json_object_set_new(o, "author_name", json_string(p->author_name));
	json_object_set_new(o, "author_email", json_string(p->author_email));
	json_object_set_new(o, "date", p->has_date ?
			    json_integer(p->date) : json_null());
	json_object_set_new(o, "tz_offset_min",
			    json_integer(p->tz_offset_min));
	json_object_set_new(o, "message_id", json_string(p->message_id));
	json_object_set_new(o, "in_reply_to", json_str_or_null(p->in_reply_to));
	json_object_set_new(o, "fingerprint", *p->fingerprint ?
			    json_string(p->fingerprint) : json_null());
	json_object_set_new(o, "files", files);
	json_object_set_new(o, "trailers", tr);
	json_object_set_new(o, "diff_bytes", json_integer((json_int_t)
							  p->diff_len));
	return o;
}

static json_t *series_json(const struct series *s, int with_older)
{
	json_t *o = json_object(), *a;
	const struct series *old;
	size_t i;

	json_object_set_new(o, "version", json_integer(s->version));
	json_object_set_new(o, "total", json_integer(s->total));
	json_object_set_new(o, "status",
			    json_string(series_status_str(s->status)));
	{
		struct strbuf why = STRBUF_INIT;

		series_status_reason(s, &why);
		json_object_set_new(o, "reason", why.len ?
				    json_string(why.buf) : json_null());
		strbuf_release(&why);
	}
	json_object_set_new(o, "rfc", json_boolean(s->rfc));
	json_object_set_new(o, "resend", json_boolean(s->resend));
	json_object_set_new(o, "tree", json_str_or_null(s->tree));
	json_object_set_new(o, "base_commit", json_str_or_null(s->base_commit));
	json_object_set_new(o, "change_id", json_str_or_null(s->change_id));
	a = json_array();
	for (i = 0; i < s->nr_prereq_patch_ids; i++)
		json_array_append_new(a, json_string(s->prereq_patch_ids[i]));
	json_object_set_new(o, "prerequisite_patch_ids", a);
	json_object_set_new(o, "cover", s->cover ? patch_json(s->cover) :
			    json_null());
	a = json_array();
	for (i = 0; i < s->nr_patches; i++)
		json_array_append_new(a, patch_json(s->patches[i]));
	json_object_set_new(o, "patches", a);
	a = json_array();
	for (i = 0; i < s->nr_missing; i++)
		json_array_append_new(a, json_integer(s->missing[i]));
	json_object_set_new(o, "missing", a);
	a = json_array();
	for (i = 0; i < s->nr_problems; i++)
		json_array_append_new(a, json_string(s->problems[i]));
	json_object_set_new(o, "problems", a);
	if (with_older) {
		a = json_array();
		for (old = s->older; old; old = old->older)
			json_array_append_new(a, series_json(old, 0));
		json_object_set_new(o, "older", a);
	}
	return o;
}

static int parse_size(const char *arg, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	if (end == arg)
		return -1;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (*end || !v)
		return -1;
	*out = (size_t)v;
	return 0;
}

int cli_series_parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "allow", required_argument, NULL, 'a' },
		{ "max-bytes", required_argument, NULL, 'b' },
		{ "max-messages", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fetch_options fo;
	struct mail_limits lim = { 0 };
	struct mail_box box;
	struct series *s = NULL;
	const char **allow = NULL;
	size_t nr_allow = 0, alloc_allow = 0;
	int json = 0, c, ret = CLI_FAILED;

	fetch_options_init(&fo);
	mail_box_init(&box);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ja:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'a':
			ALLOC_GROW(allow, nr_allow + 2, alloc_allow);
			allow[nr_allow++] = optarg;
			allow[nr_allow] = NULL;
			break;
		case 'b':
			if (parse_size(optarg, &lim.max_bytes)) {
				error("series", "--max-bytes: bad size '%s'",
				      optarg);
				ret = CLI_USAGE;
				goto out;
			}
			break;
		case 'm':
			if (parse_size(optarg, &lim.max_messages)) {
				error("series", "--max-messages: bad number "
				      "'%s'", optarg);
				ret = CLI_USAGE;
				goto out;
			}
			break;
		case 't':
			fo.total_timeout_s = atoi(optarg);
			if (fo.total_timeout_s <= 0) {
				ret = cli_usage("series parse");
				goto out;
			}
			break;
		default:
			ret = cli_usage("series parse");
			goto out;
		}
	}
	if (optind != argc - 1) {
		ret = cli_usage("series parse");
		goto out;
	}
	fo.allow = allow;
	fo.max_bytes = lim.max_bytes ? lim.max_bytes : MAIL_MAX_BYTES_DEFAULT;
	if (fetch_is_url(argv[optind])) {
		struct strbuf data = STRBUF_INIT, why = STRBUF_INIT;

		if (fetch_mbox(argv[optind], &fo, &data, &why, NULL)) {
			error("fetch", "%s", why.buf);
			strbuf_release(&data);
			strbuf_release(&why);
			goto out;
		}
		c = mail_box_read_buf(&box, data.buf, data.len, argv[optind],
				      &lim);
		strbuf_release(&data);
		if (c)
			goto out;
	} else if (mail_box_read_file(&box, argv[optind], &lim)) {
		goto out;
	}
	if (series_build(&box, &s))
		goto out;
	if (json) {
		json_t *o = series_json(s, 1);

		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS |
			   JSON_ENSURE_ASCII);
		putchar('\n');
		json_decref(o);
	} else {
		print_text(s);
	}
	ret = CLI_OK;
out:
	series_free(s);
	mail_box_release(&box);
	free(allow);
	return ret;
}
