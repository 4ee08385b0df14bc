#!/bin/bash
# t-dashboard-api.sh - the dashboard's API routes and files, against a
# real kregressd serving the database of a real run
# (tests/lib/dashboard.sh).
#
# What a page reads must be what the database holds: every per-boot
# value of a run is the median of that boot's iterations (computed here
# again from the raw samples), one per complete boot and side; trends
# (with and without A/A calibrations: the noise of each clock and plan),
# hosts, compare, the mails and the filters' values come from the rows.
# Then what a client gets wrong: missing, malformed and out-of-range
# arguments are 400 JSON errors naming the argument, unknown ids 404; a
# console log is served as text/plain only from a file under the state
# directory, whatever path its boot row records; ETags give 304s; the
# pages and assets are served, gzipped when asked, and nothing outside
# the dashboard's files can be named.
set -u

. "${KREGRESS_SRC:?}/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
. "$KREGRESS_SRC/tests/lib/dashboard.sh"
PY=/usr/bin/python3

[ -f "$KREGRESS_BUILD/web/index.html" ] ||
	skip_all "the dashboard is not built (make web)"
dashboard_start || bail_out "kregressd did not start on the fixture"

# get PATH [CURL ARGS]: the status code; body in $tmp/body, headers in
# $tmp/head
get() {
	local path=$1
	shift
	: >"$tmp/body"	# curl leaves the file alone when there is no body
	curl -s -o "$tmp/body" -D "$tmp/head" -w '%{http_code}' "$@" \
		"$SRV$path"
}
# json EXPR: EXPR of the last body (parsed as d), printed
json() {
	$PY -c "import json, sys; d = json.load(open('$tmp/body')); print($1)"
}
header() {
	sed -n "s/^$1: \(.*\)\r$/\1/Ip" "$tmp/head"
}
# bad PATH STATUS CODE DESC: an error answer, as JSON with its code
bad() {
	local st
	st=$(get "$1")
	is "$st $(json "d['error']['code']")" "$2 $3" "$4"
}

# --- a run: every per-boot value ------------------------------------------
is "$(get /api/v1/runs/3)" 200 "GET /api/v1/runs/3"
is "$(json "d['arch'], d['clock'], d['status'], d['threshold_pct']")" \
	"x86_64 instructions budget 3.0" \
	"the run's arch, clock, status and the threshold T"
is "$(json "len(d['boots'])")" \
	"$(sql "SELECT count(*) FROM boot WHERE run_id = 3")" \
	"every boot of the run is listed"
is "$(json "len(d['metrics'])")" \
	"$(sql "SELECT count(DISTINCT s.workload || s.metric || s.params)
		FROM sample s JOIN boot b ON b.id = s.boot_id
		WHERE b.run_id = 3 AND b.status = 'ok'")" \
	"one metric per (workload, metric, params) of its complete boots"
is "$(json "sorted(set((len(m['base']['values']), len(m['patched']['values'])) for m in d['metrics']))")" \
	"[($(sql "SELECT count(*) FROM boot WHERE run_id = 3 AND side = 'base' AND status = 'ok'"), $(sql "SELECT count(*) FROM boot WHERE run_id = 3 AND side = 'patched' AND status = 'ok'"))]" \
	"each metric has one value per complete boot and side"
# The medians again, from the raw samples, for every boot and metric.
sql "SELECT b.id, s.workload, s.metric, s.params, s.value FROM sample s
	JOIN boot b ON b.id = s.boot_id WHERE b.run_id = 3 AND
	b.status = 'ok'" >"$tmp/samples"
check "every value is the median of its boot's iterations" \
	$PY - "$tmp/body" "$tmp/samples" <<'PY'
import json, statistics, sys
run = json.load(open(sys.argv[1]))
it = {}
for line in open(sys.argv[2]):
    boot, w, m, p, v = line.rstrip("\n").split("|")
    it.setdefault((int(boot), w, m, json.dumps(json.loads(p))), []).append(
        float(v))
n = 0
for m in run["metrics"]:
    for side in ("base", "patched"):
        for boot, v in zip(m[side]["boots"], m[side]["values"]):
            key = (boot, m["workload"], m["metric"], json.dumps(m["params"]))
            want = statistics.median(it.pop(key))
            assert v == want, (key, v, want)
            n += 1
assert not it, "values left out: %r" % list(it)[:3]
print(n, "values")
PY
is "$(get /api/v1/runs/3 -H "If-None-Match: $(header ETag)")" 304 \
	"the same run again with its ETag: 304"
is "$(wc -c <"$tmp/body")" 0 "a 304 has no body"

# --- trends, hosts, compare, mails, facets -------------------------------
is "$(get '/api/v1/trends?tree=linux-6.1&arch=x86_64&workload=mremap&metric=move_pud')" \
	200 "GET /api/v1/trends"
is "$(json "[(p['series'], p['verdict'], p['clock']) for p in d['points']]")" \
	"[(2, 'regression', 'instructions'), (1, 'no-change', 'instructions')]" \
	"trends: a point per analysed run, newest first, with its clock"
is "$(json "d['noise'], d['more'], d['limit']")" "None False 500" \
	"trends: no noise band without calibration; the default page size"
get '/api/v1/trends?tree=linux-6.1&arch=x86_64&workload=mremap&metric=move_pud&limit=1' >/dev/null
is "$(json "len(d['points']), d['more']")" "1 True" \
	"trends: limit=1 gives the newest point and says there are more"
is "$(get /api/v1/hosts)" 200 "GET /api/v1/hosts"
is "$(json "[(h['name'], h['arch'], h['boots'], h['calibration']) for h in d['items']]")" \
	"[('local', 'x86_64', $(sql "SELECT count(*) FROM boot WHERE host_id = 1"), None), ('local-arm64', 'arm64', $(sql "SELECT count(*) FROM boot WHERE host_id = 2"), None)]" \
	"hosts: each host with its arch, boots and (no) calibration"
# The base build of x86_64 against series 1's patched build.
base=$(sql "SELECT build_id FROM series_build WHERE series_id = 1 AND arch = 'x86_64' AND side = 'base'")
patched=$(sql "SELECT build_id FROM series_build WHERE series_id = 1 AND arch = 'x86_64' AND side = 'patched'")
is "$(get "/api/v1/compare?a=$base&b=$patched")" 200 "GET /api/v1/compare"
is "$(json "len(d['groups']), d['groups'][0]['host'], d['groups'][0]['clock'], d['groups'][0]['boots_b']")" \
	"1 local instructions $(sql "SELECT count(*) FROM boot WHERE build_id = $patched AND status = 'ok'")" \
	"compare: one group (host, plan, clock) with the complete boots of b"
is "$(json "sorted(set(len(m['patched']['values']) for m in d['groups'][0]['metrics']))")" \
	"[$(sql "SELECT count(*) FROM boot WHERE build_id = $patched AND status = 'ok'")]" \
	"compare: every metric has a value per complete boot of b"
check "compare: each metric has stats.c's test of the two builds" \
	$PY -c "import json; d = json.load(open('$tmp/body'))
for m in d['groups'][0]['metrics']:
    c = m['comparison']
    assert c['n_new'] == len(m['patched']['values']), m
    assert c['verdict'] and c['test'], m
assert d['threshold_pct'] == 3.0 and d['alpha'] == 0.05, d"
pud=$(sql "SELECT build_id FROM series_build WHERE series_id = 2 AND arch = 'x86_64' AND side = 'patched'")
get "/api/v1/compare?a=$base&b=$pud" >/dev/null
is "$(json "[m['comparison']['verdict'] for m in d['groups'][0]['metrics'] if m['metric'] == 'move_pud']")" \
	"['regression']" \
	"compare: the base against the PUD revert's build is a regression on move_pud"
get "/api/v1/compare?a=$base&b=$patched" >/dev/null
is "$(json "[m['comparison']['verdict'] for m in d['groups'][0]['metrics'] if m['metric'] == 'move_pud']")" \
	"['no-change']" \
	"compare: the base against the comment-only change's build is not"
is "$(get /api/v1/series/2/notifications)" 200 \
	"GET /api/v1/series/2/notifications"
is "$(json "d['items']")" "[]" "no mail was sent for series 2"
is "$(get /api/v1/facets)" 200 "GET /api/v1/facets"
is "$(json "d['trees'], d['arches'], d['hosts'], 'regression' in d['verdicts']")" \
	"['linux-6.1'] ['arm64', 'x86_64'] ['local', 'local-arm64'] True" \
	"facets: the trees, arches, hosts and verdicts of the rows"

# --- trends: the noise band of the host's A/A calibration ---------------
# calibration.sql: host local, x86_64, two instruction-time calibrations
# of the runs' plan (the newer, #2, current), one real-time one of
# another plan (#3) and a newer failed one (#4); none on local-arm64.
sql <"$dashboard_fixture/calibration.sql"
TR='/api/v1/trends?tree=linux-6.1&workload=mremap&metric=move_pud'
is "$(get "$TR&arch=x86_64")" 200 "trends with calibrations: 200"
is "$(json "[(e['calibration'], e['host'], e['accel'], e['clock'], e['resolve_pct'], e['cv'], e['threshold_pct']) for e in d['noise']]")" \
	"[(2, 'local', 'tcg', 'instructions', 0.5, 0.0004, 3.0), (3, 'local', 'kvm', 'real', 9.5, 0.08, 9.5)]" \
	"noise: the newest done calibration per clock and plan, each with its clock, CV and thresholds"
check "noise: the instruction-time entry is the one the points match (host, accel, clock, plan, params)" \
	$PY -c "import json; d = json.load(open('$tmp/body'))
key = lambda x: (x['host'], x['accel'], x['clock'], x['plan'], json.dumps(x['params'], sort_keys=True))
pts = set(map(key, d['points']))
assert len(pts) == 1, pts
match = [e['calibration'] for e in d['noise'] if key(e) in pts]
assert match == [2], match
assert all(e['clock'] != 'instructions' for e in d['noise'] if key(e) not in pts), d['noise']"
is "$(json "[(e['calibration'], e['finished_at'], e['boots_per_side'], e['base_commit'], e['n'], e['unit']) for e in d['noise']][:1]")" \
	"[(2, $(sql "SELECT finished_at FROM calibration WHERE id = 2"), 8, '$(sql "SELECT commit_id FROM build WHERE id = 1")', 16, 'ns')]" \
	"noise: which calibration and when, its boots and the base it booted"
get "$TR&arch=x86_64&host=local" >/dev/null
is "$(json "[e['calibration'] for e in d['noise']]")" "[2, 3]" \
	"noise: host=local gives that host's calibrations"
get "$TR&arch=arm64" >/dev/null
is "$(json "len(d['points']) > 0, d['noise']")" "True None" \
	"noise: null for arm64, whose host has no calibration"
get "$TR&arch=x86_64&host=local-arm64" >/dev/null
is "$(json "d['points'], d['noise']")" "[] None" \
	"noise: null for a host without calibration"
get '/api/v1/trends?tree=linux-6.1&arch=x86_64&workload=mremap&metric=nope' >/dev/null
is "$(json "d['points'], d['noise']")" "[] None" \
	"noise: null for a metric no calibration has"
sql <"$dashboard_fixture/calibration-none.sql"
get "$TR&arch=x86_64" >/dev/null
is "$(json "len(d['points']), d['noise']")" "2 None" \
	"noise: null again once the calibrations are gone"
bad "$TR&arch=x86_64&host=" 400 bad-parameter "trends with an empty host: 400"
bad "$TR&arch=x86_64&host=$(head -c 300 /dev/zero | tr '\0' x)" 400 \
	bad-parameter "trends with a 300-byte host: 400"
bad "$TR" 400 bad-parameter "trends without arch: 400"
like "$(json "d['error']['message']")" "arch is required" \
	"the error names the missing arch"

# --- the list's new filters and badges ----------------------------------
ids() {
	get "/api/v1/series?$1" >/dev/null
	json "[s['id'] for s in d['items']]"
}
is "$(ids verdict=regression)" "[2]" "series?verdict=regression"
is "$(ids arch=x86_64)" "[5, 4, 2, 1]" "series?arch=x86_64 (built for it)"
is "$(ids tree=linux-6.1 | tr -d ' ')" "[5,4,3,2,1]" "series?tree=linux-6.1"
is "$(ids tree=nope)" "[]" "series?tree= of no tree"
get "/api/v1/series?verdict=regression" >/dev/null
is "$(json "d['items'][0]['primary_verdicts']['regression'], d['items'][0]['tree'], d['items'][0]['arches']")" \
	"2 linux-6.1 ['arm64', 'x86_64']" \
	"a listed series has its verdict counts, tree and arches"

# --- console logs ------------------------------------------------------
boot=$(sql "SELECT id FROM boot WHERE console_path IS NOT NULL LIMIT 1")
is "$(get "/api/v1/boots/$boot/console")" 200 "GET /api/v1/boots/$boot/console"
is "$(header Content-Type)" "text/plain; charset=utf-8" "a console log is text/plain"
check "the console log is the file under the state directory" \
	cmp "$tmp/body" "$tmp/state/$(sql "SELECT console_path FROM boot WHERE id = $boot")"
is "$(get "/api/v1/boots/$boot/console" -H "If-None-Match: $(header ETag)")" \
	304 "a finished boot's console log has an ETag"
echo secret >"$tmp/secret"
ln -s "$tmp/secret" "$tmp/state/runs/link.log"
sql "UPDATE boot SET console_path = 'runs/../../secret' WHERE id = 1;
     UPDATE boot SET console_path = '$tmp/secret' WHERE id = 2;
     UPDATE boot SET console_path = 'runs/link.log' WHERE id = 3;
     UPDATE boot SET console_path = 'runs' WHERE id = 4;
     UPDATE boot SET console_path = NULL WHERE id = 5"
for b in 1 2 3 4; do
	bad "/api/v1/boots/$b/console" 404 no-console-log \
		"console path $(sql "SELECT console_path FROM boot WHERE id = $b") (outside the state dir or not a file): 404"
	[ "$(cat "$tmp/body")" != secret ] || ok 1 "boot $b served the secret"
done
bad /api/v1/boots/5/console 404 no-console-log "a boot without a log: 404"
bad /api/v1/boots/99999/console 404 not-found "an unknown boot: 404"

# --- bad arguments -----------------------------------------------------
T='/api/v1/trends?tree=linux-6.1&arch=x86_64&workload=mremap'
bad "$T" 400 bad-parameter "trends without metric: 400"
like "$(json "d['error']['message']")" "metric is required" \
	"the error names the missing argument"
bad "$T&metric=move_pud&limit=0" 400 bad-parameter "trends limit=0: 400"
bad "$T&metric=move_pud&limit=2001" 400 bad-parameter \
	"trends limit over the cap (2000): 400"
bad "$T&metric=" 400 bad-parameter "trends with an empty metric: 400"
bad "$T&metric=$(head -c 300 /dev/zero | tr '\0' x)" 400 bad-parameter \
	"trends with a 300-byte metric: 400"
bad "/api/v1/compare?a=1" 400 bad-parameter "compare without b: 400"
bad "/api/v1/compare?a=x&b=2" 400 bad-parameter "compare a=x: 400"
bad "/api/v1/compare?a=1&b=1" 400 bad-parameter "compare a build with itself: 400"
bad "/api/v1/compare?a=1&b=99999" 404 not-found "compare an unknown build: 404"
bad /api/v1/runs/abc 404 not-found "runs/abc: 404"
bad /api/v1/runs/99999 404 not-found "an unknown run: 404"
bad /api/v1/series/99999/notifications 404 not-found \
	"the mails of an unknown series: 404"
bad "/api/v1/series?verdict=" 400 bad-parameter "series?verdict= (empty): 400"
bad "/api/v1/series?limit=501" 400 bad-parameter "series limit over the cap: 400"
is "$(get /api/v1/hosts -X POST)" 405 "POST /api/v1/hosts: 405"

# --- pages and files ---------------------------------------------------
for p in / /series /series/2 /trends /hosts /compare; do
	st=$(get "$p")
	is "$st $(header Content-Type)" "200 text/html; charset=utf-8" \
		"GET $p is the dashboard's page"
done
check "the page is index.html" cmp "$tmp/body" "$KREGRESS_BUILD/web/index.html"
like "$(header Content-Security-Policy)" "default-src 'self'" \
	"the page may load nothing from elsewhere"
is "$(get /assets/app.js)" 200 "GET /assets/app.js"
is "$(header Content-Type)" "text/javascript; charset=utf-8" "app.js is JavaScript"
check "app.js is the built bundle" cmp "$tmp/body" "$KREGRESS_BUILD/web/assets/app.js"
get /assets/app.js -H 'Accept-Encoding: gzip' >/dev/null
is "$(header Content-Encoding) $(header Vary)" "gzip Accept-Encoding" \
	"a client that accepts gzip gets the gzipped twin"
check "the gzipped twin is the same bundle" \
	sh -c "gzip -dc <'$tmp/body' | cmp - '$KREGRESS_BUILD/web/assets/app.js'"
is "$(get /assets/app.css -H "If-None-Match: $(get /assets/app.css >/dev/null; header ETag)")" \
	304 "an asset with its ETag: 304"
bad /assets/nope.js 404 not-found "an unknown asset: 404"
for p in /assets/..%2Findex.html /assets/%2e%2e%2f%2e%2e%2fkregress.db \
	 /assets/../index.html /web/index.html /series/2/x; do
	st=$(curl -s --path-as-is -o "$tmp/body" -w '%{http_code}' "$SRV$p")
	is "$st" 404 "$p: 404, no file outside the table"
done

done_testing
