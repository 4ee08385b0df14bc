/*
 * cli_analyze.c - "kregress analyze": runs the analyze stage
 * (stage_analyze.c) on one series of a database and prints the result
 * as "kregress results" does.
 *
 *   kregress analyze [-c CONFIG] [--db PATH] [--json] ID
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
#include "db_series.h"
#include "jobq.h"
#include "log.h"
#include "stage_analyze.h"
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

int cli_analyze(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "db", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct pipeline_outcome out = { STRBUF_INIT, NULL };
	struct pipeline_ctx ctx = { .owner = "kregress-analyze" };
	const char *config_path = NULL, *db_path = NULL;
	struct config *cfg = NULL;
	struct job job = { 0 };
	json_t *doc = NULL;
	int c, json = 0, ret = CLI_FAILED;
	enum pipeline_result r;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config_path = optarg;
			break;
		case 'd':
			db_path = optarg;
			break;
		case 'j':
			json = 1;
			break;
		default:
			return cli_usage("analyze");
		}
	}
	if (argc - optind != 1)
		return cli_usage("analyze");
	errno = 0;
	job.series_id = strtoll(argv[optind], &end, 10);
	if (errno || *end || end == argv[optind] || job.series_id <= 0) {
		error("analyze", "%s: not a series id", argv[optind]);
		return CLI_USAGE;
	}
	job.kind = (char *)"analyze";
	cfg = load_config(config_path);
	if (!cfg)
		return CLI_FAILED;
	if (db_open(db_path ? db_path : cfg->database, &ctx.db))
		goto out;
	ctx.cfg = cfg;
	r = stage_analyze(&ctx, &job, &out);
	if (r != PIPELINE_OK) {
		error("analyze", "series %lld: %s%s", job.series_id,
		      out.reason.buf, r == PIPELINE_RETRY ?
		      " (a database error: try again)" : "");
		goto out;
	}
	if (db_series_get(ctx.db, job.series_id, &doc) || !doc) {
		error("analyze", "series %lld cannot be read back",
		      job.series_id);
		goto out;
	}
	ret = cli_results_print(doc, job.series_id, json);
out:
	json_decref(doc);
	db_close(ctx.db);
	config_free(cfg);
	strbuf_release(&out.reason);
	return ret;
}
