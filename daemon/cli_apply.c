/*
 * cli_apply.c - "kregress tree import" and "kregress apply".
 *
 * The commands of the apply module, usable without the daemon.  apply
 * reads a series with the intake parser (mail.h, series.h) and converts
 * each patch into the apply module's own struct apply_patch
 * (apply_input.c, shared with the pipeline's apply stage), so that
 * apply.c does not depend on the mail parser.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "alloc.h"
#include "apply.h"
#include "apply_input.h"
#include "cli.h"
#include "cli_apply.h"
#include "escape.h"
#include "fetch.h"
#include "log.h"
#include "mail.h"
#include "series.h"
#include "strbuf.h"
#include "tree.h"

int cli_tree_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tarball", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tarball = NULL;
	int c, already;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:", longopts, NULL)) != -1) {
		if (c == 't')
			tarball = optarg;
		else
			return cli_usage("tree import");
	}
	if (!tarball || optind != argc - 1)
		return cli_usage("tree import");
	if (tree_import(tarball, argv[optind], &already) < 0)
		return CLI_FAILED;
	if (already)
		printf("%s: already imported from %s, nothing to do\n",
		       argv[optind], tarball);
	else
		printf("%s: imported %s\n", argv[optind], tarball);
	return CLI_OK;
}

struct apply_cli {
	const char *tree;
	const char *base;	/* --base: explicit */
	const char *branch;	/* --branch: fallback when no base-commit */
	const char **allow;	/* NULL-terminated */
	size_t nr_allow, alloc_allow;
	int json;
	int no_fallback;
};

static int read_series(const char *src, const struct apply_cli *o,
		       struct series **out)
{
	struct mail_limits lim = { 0 };
	struct fetch_options fo;
	struct mail_box box;
	int ret = -1;

	mail_box_init(&box);
	fetch_options_init(&fo);
	fo.allow = o->allow;
	if (fetch_is_url(src)) {
		struct strbuf data = STRBUF_INIT, why = STRBUF_INIT;

		if (!fetch_mbox(src, &fo, &data, &why, NULL))
			ret = mail_box_read_buf(&box, data.buf, data.len, src,
						&lim);
		else
			error("fetch", "%s", why.buf);
		strbuf_release(&data);
		strbuf_release(&why);
	} else {
		ret = mail_box_read_file(&box, src, &lim);
	}
	if (!ret)
		ret = series_build(&box, out);
	mail_box_release(&box);
	return ret;
}

static void print_failure(const struct apply_result *res,
			  const struct series *s, const char *tree,
			  const struct apply_base *b)
{
	const struct series_patch *p = res->failed_patch &&
		res->failed_patch <= s->nr_patches ?
		s->patches[res->failed_patch - 1] : NULL;

	printf("%s: patch %zu/%zu", apply_status_str(res->status),
	       res->failed_patch, s->nr_patches);
	if (p)
		printf(" \"%s\"", escape_arg(p->title));
	printf("\n");
	if (res->failed_file)
		printf("  file:   %s\n", escape_arg(res->failed_file));
	if (res->failed_hunk)
		printf("  hunk:   %s\n", escape_arg(res->failed_hunk));
	printf("  reason: %s\n", res->reason ? escape_arg(res->reason) :
	       "unknown");
	printf("  tree:   %s\n  base:   %s (%s: %s)\n", tree, b->oid,
	       apply_base_source_str(b->source), b->reason);
	if (res->n_commits)
		printf("  patches 1-%zu applied before it\n", res->n_commits);
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void print_json(const struct apply_result *res,
		       const struct series *s, const char *tree,
		       const struct apply_base *b)
{
	json_t *o = json_object(), *commits = json_array();
	size_t i;

	for (i = 0; i < res->n_commits; i++) {
		json_t *c = json_object();

		json_object_set_new(c, "index", json_integer(i + 1));
		json_object_set_new(c, "commit",
				    json_string(res->commits[i].oid));
		json_object_set_new(c, "method", json_string(
			apply_method_str(res->commits[i].method)));
		json_object_set_new(c, "title",
				    jstr(s->patches[i]->title));
		json_array_append_new(commits, c);
	}
	json_object_set_new(o, "status",
			    json_string(apply_status_str(res->status)));
	json_object_set_new(o, "tree", json_string(tree));
	json_object_set_new(o, "base", json_string(b->oid));
	json_object_set_new(o, "base_source",
			    json_string(apply_base_source_str(b->source)));
	json_object_set_new(o, "base_reason", json_string(b->reason));
	json_object_set_new(o, "commits", commits);
	if (res->status != APPLY_OK) {
		json_t *f = json_object();

		json_object_set_new(f, "patch",
				    json_integer(res->failed_patch));
		json_object_set_new(f, "file", jstr(res->failed_file));
		json_object_set_new(f, "hunk", jstr(res->failed_hunk));
		json_object_set_new(f, "reason", jstr(res->reason));
		json_object_set_new(o, "failure", f);
	}
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS |
		   JSON_ENSURE_ASCII);
	putchar('\n');
	json_decref(o);
}

static int do_apply(const char *src, const struct apply_cli *o)
{
	struct series *s = NULL;
	struct apply_repo *r = NULL;
	struct apply_input in = { 0 };
	struct apply_result res;
	struct apply_opts ao = { .no_fallback = o->no_fallback };
	struct apply_base b;
	size_t i;
	int ret = CLI_FAILED;

	apply_result_init(&res);
	if (read_series(src, o, &s) < 0)
		goto out;
	if (s->status != SERIES_COMPLETE) {
		error("apply", "%s: %s series, nothing applied%s%s", src,
		      series_status_str(s->status),
		      s->nr_problems ? ": " : "",
		      s->nr_problems ? s->problems[0] : "");
		goto out;
	}
	if (apply_repo_open(o->tree, &r) < 0)
		goto out;
	if (o->base ? apply_base_explicit(r, o->base, &b) :
	    apply_base_resolve(r, s->base_commit, o->branch, &b))
		goto out;
	apply_input_from_series(s, &in);
	if (apply_series(r, b.oid, in.patches, in.n, &ao, &res) < 0)
		goto out;
	if (o->json) {
		print_json(&res, s, o->tree, &b);
	} else if (res.status == APPLY_OK) {
		printf("base: %s (%s: %s)\n", b.oid,
		       apply_base_source_str(b.source), b.reason);
		for (i = 0; i < res.n_commits; i++)
			printf("%zu/%zu %s %-14s %s\n", i + 1, res.n_commits,
			       res.commits[i].oid,
			       apply_method_str(res.commits[i].method),
			       escape_arg(s->patches[i]->title));
	} else {
		print_failure(&res, s, o->tree, &b);
	}
	ret = res.status == APPLY_OK ? CLI_OK : CLI_FAILED;
out:
	apply_input_release(&in);
	apply_result_release(&res);
	apply_repo_free(r);
	series_free(s);
	return ret;
}

int cli_apply(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "base", required_argument, NULL, 'b' },
		{ "branch", required_argument, NULL, 'B' },
		{ "allow", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-fallback", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct apply_cli o = { .branch = "HEAD" };
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:b:B:a:jn", longopts,
				NULL)) != -1) {
		switch (c) {
		case 't':
			o.tree = optarg;
			break;
		case 'b':
			o.base = optarg;
			break;
		case 'B':
			o.branch = optarg;
			break;
		case 'a':
			ALLOC_GROW(o.allow, o.nr_allow + 2, o.alloc_allow);
			o.allow[o.nr_allow++] = optarg;
			o.allow[o.nr_allow] = NULL;
			break;
		case 'j':
			o.json = 1;
			break;
		case 'n':
			o.no_fallback = 1;
			break;
		default:
			free(o.allow);
			return cli_usage("apply");
		}
	}
	if (!o.tree || optind != argc - 1) {
		free(o.allow);
		return cli_usage("apply");
	}
	ret = do_apply(argv[optind], &o);
	free(o.allow);
	return ret;
}

int cli_tree_worktree(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "rev", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tree = NULL, *rev = NULL;
	struct tree_worktree *wt = NULL;
	char head[41];
	size_t n = 0;
	int c, ret = CLI_FAILED;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:r:", longopts, NULL)) != -1) {
		if (c == 't')
			tree = optarg;
		else if (c == 'r')
			rev = optarg;
		else
			return cli_usage("tree worktree");
	}
	if (!tree || !rev || optind != argc - 1)
		return cli_usage("tree worktree");
	if (tree_worktree_open(tree, argv[optind], rev, &wt) < 0)
		return CLI_FAILED;
	if (tree_worktree_switch(wt, rev, &n) < 0 ||
	    tree_worktree_head(wt, head) < 0)
		goto out;
	printf("%s: at %s, %zu path%s rewritten\n", argv[optind], head, n,
	       n == 1 ? "" : "s");
	ret = CLI_OK;
out:
	tree_worktree_free(wt);
	return ret;
}

int cli_tree_fetch(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "branch", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	const char *tree = NULL, *branch = "master";
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:b:", longopts, NULL)) != -1) {
		if (c == 't')
			tree = optarg;
		else if (c == 'b')
			branch = optarg;
		else
			return cli_usage("tree fetch");
	}
	if (!tree || optind != argc - 1)
		return cli_usage("tree fetch");
	if (tree_fetch(tree, argv[optind], branch) < 0)
		return CLI_FAILED;
	printf("%s: fetched %s %s into refs/remotes/kregress/%s\n", tree,
	       argv[optind], branch, branch);
	return CLI_OK;
}
