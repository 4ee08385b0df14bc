/*
 * cli_analyze.c - "kregress analyze": runs the analyze stage
 * (stage_analyze.c) on one series of a database and prints the result
 * as "kregress results" does; "kregress report show" prints the mails the
 * report stage (stage_report.c) would write for it.
 *
 *   kregress analyze [-c CONFIG] [--db PATH] [--json] ID
 *   kregress report show [-c CONFIG] [--db PATH] ID
 *
 * The statistics options (stats.*) and the database come from CONFIG
 * (default /etc/kregress/config.json when it exists, else the built-in
 * defaults of config.example.json); --db names another database.  Like
 * the daemon's stage, it replaces the series' comparison rows; unlike it,
 * it leaves the series' status and jobs alone, so re-analysing with
 * another threshold does not move the pipeline.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_analyze.h"
#include "cli_client.h"
#include "config.h"
#include "db.h"
#include "jobq.h"
#include "log.h"
#include "stage_analyze.h"
#include "stage_report.h"
#include "strbuf.h"

#define DEFAULT_CONFIG	"/etc/kregress/config.json"

static struct config *load_config(const char *path)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;
	int rc;

	if (!path && !access(DEFAULT_CONFIG, R_OK))
		path = DEFAULT_CONFIG;
	if (path)
		rc = config_load(path, &cfg, &err);
	else
		rc = config_parse("{}", 2, "(defaults)", &cfg, &err);
	if (rc)
		error("analyze", "%s", err.buf);
	strbuf_release(&err);
	return rc ? NULL : cfg;
}

/* The options both commands take; -1 after a usage message. */
struct local_opts {
	const char *config, *db;
	int json;
	long long id;
};

static int parse_local(int argc, char **argv, const char *cmd,
		       struct local_opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "db", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'd':
			o->db = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		default:
			return cli_usage(cmd);
		}
	}
	if (argc - optind != 1)
		return cli_usage(cmd);
	errno = 0;
	o->id = strtoll(argv[optind], &end, 10);
	if (errno || *end || end == argv[optind] || o->id <= 0) {
		error("kregress", "%s: not a series id", argv[optind]);
		return CLI_USAGE;
	}
	return 0;
}

int cli_analyze(int argc, char **argv)
{
	struct pipeline_outcome out = { STRBUF_INIT, NULL };
	struct pipeline_ctx ctx = { .owner = "kregress-analyze" };
	struct local_opts o;
	struct config *cfg = NULL;
	struct job job = { 0 };
	enum pipeline_result r;
	int ret;

	ret = parse_local(argc, argv, "analyze", &o);
	if (ret)
		return ret;
	ret = CLI_FAILED;
	job.series_id = o.id;
	job.kind = (char *)"analyze";
	cfg = load_config(o.config);
	if (!cfg)
		return CLI_FAILED;
	if (db_open(o.db ? o.db : cfg->database, &ctx.db))
		goto out;
	ctx.cfg = cfg;
	r = stage_analyze(&ctx, &job, &out);
	if (r != PIPELINE_OK) {
		error("analyze", "series %lld: %s%s", job.series_id,
		      out.reason.buf, r == PIPELINE_RETRY ?
		      " (a database error: try again)" : "");
		goto out;
	}
	ret = cli_results_local(ctx.db, job.series_id, o.json);
out:
	db_close(ctx.db);
	config_free(cfg);
	strbuf_release(&out.reason);
	return ret;
}

int cli_report_show(int argc, char **argv)
{
	struct strbuf why = STRBUF_INIT;
	struct local_opts o;
	struct config *cfg;
	struct db *db = NULL;
	int rc, ret;

	ret = parse_local(argc, argv, "report show", &o);
	if (ret || o.json)
		return ret ? ret : cli_usage("report show");
	cfg = load_config(o.config);
	if (!cfg)
		return CLI_FAILED;
	ret = CLI_FAILED;
	if (db_open(o.db ? o.db : cfg->database, &db))
		goto out;
	rc = stage_report_show(db, cfg, o.id, stdout, &why);
	if (rc > 0)
		error("report", "%s", why.buf);
	if (!rc)
		ret = CLI_OK;
out:
	db_close(db);
	config_free(cfg);
	strbuf_release(&why);
	return ret;
}
