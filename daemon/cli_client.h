/*
 * cli_client.h - kregress submit, status, watch, results and report
 * release: the CLI commands that talk to kregressd's JSON API through
 * client.c.
 */
#ifndef KREGRESS_CLI_CLIENT_H
#define KREGRESS_CLI_CLIENT_H

struct db;

int cli_submit(int argc, char **argv);
int cli_status(int argc, char **argv);
int cli_watch(int argc, char **argv);
int cli_results(int argc, char **argv);
/* kregress report release ID: POST /api/v1/notifications/ID/release */
int cli_report_release(int argc, char **argv);

/*
 * Prints what "kregress results" shows of series id, read from db as
 * GET /api/v1/series/{id} answers it (db_series_get()), for commands that
 * work on a database by hand ("kregress analyze"): a table per run, or
 * with json the id, status, runs and comparisons as one JSON line.
 * Returns CLI_OK, or CLI_FAILED when the series cannot be read (logged)
 * or the JSON cannot be written.
 */
int cli_results_local(struct db *db, long long id, int json);

/*
 * The API's base URL: --server, else $KREGRESS_SERVER, else api.listen of
 * the config file (config_path, or /etc/kregress/config.json when that
 * exists), else http://127.0.0.1:8080.  0, or -1 (logged) when an
 * explicitly named config cannot be read.
 */
struct strbuf;
int cli_client_server(const char *opt_server, const char *config_path,
		      struct strbuf *out);

#endif
