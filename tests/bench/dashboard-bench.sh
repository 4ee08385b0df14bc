#!/bin/bash
# dashboard-bench.sh - the dashboard on a big database: first render in
# the browser, bytes per page, API latency.  Prints figures; judges
# nothing (DESIGN's targets: first render <= 1 s, <= 200 KB compressed).
#
# The database is the real run of tests/fixtures/dashboard plus
# generated rows, in one SQL script: 10,000 series (mixed statuses,
# authors, a verdict on those with a run), 330 of them with a run of 20
# boots x 30 metrics x 5 iterations and its 30 comparisons, and one with
# a run of 40 boots (20 a side) x 30 metrics: 1,000,000 samples with it.
# kregressd serves it on a loopback port; chromium (playwright-core)
# loads the list and that series' page in a fresh context each time
# (nothing cached) BENCH_LOADS times (default 5); each load's time is
# navigation start to the page's data-ready mark (everything drawn), its
# bytes what the network delivered (headers and compressed bodies).
# curl asks each new endpoint BENCH_CALLS times (default 20).
# Smoke mode (KREGRESS_BENCH_SMOKE=1): 100 series, 10 runs and the big
# one (about 30,000 samples), one load and one call each; a missing
# browser fails it.
set -u
. "${KREGRESS_SRC:?}/tests/lib/tap.sh"
. "$KREGRESS_SRC/tests/lib/daemon.sh"
. "$KREGRESS_SRC/tests/lib/dashboard.sh"
smoke=${KREGRESS_BENCH_SMOKE:-}
LOADS=${BENCH_LOADS:-${smoke:+1}}
LOADS=${LOADS:-5}
CALLS=${BENCH_CALLS:-${smoke:+1}}
CALLS=${CALLS:-20}
NS=10000	# generated series
NR=330		# of them with a 20-boot run; one more has the 40-boot one
[ -z "$smoke" ] || { NS=100; NR=10; }
BIG=$((101 + NR))
NPM=$KREGRESS_BUILD/web-npm/node_modules

if [ ! -x /usr/bin/chromium ] || [ ! -d "$NPM/playwright-core" ]; then
	echo "dashboard-bench: needs chromium and make web; skipped"
	exit $((${#smoke} > 0))
fi

# The fixture's rows, then the generated ones.
t0=$(date +%s.%N)
dashboard_load
sqlite3 "$db" >/dev/null <<SQL
PRAGMA journal_mode = WAL;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
	WHERE i < $NS)
INSERT INTO series (id, msgid, list, subject, author, version, total,
	tree_id, status, status_reason, created_at, updated_at)
SELECT 100 + i, 'bench-' || i || '@example.org', 'linux-mm',
	'[PATCH ' || (i % 7 + 1) || '/7] mm: benchmark change ' || i,
	'Developer ' || (i % 97) || ' <dev' || (i % 97) || '@example.org>',
	1 + i % 3, 7, 1,
	CASE WHEN i <= $NR + 1 THEN 'done' ELSE CASE i % 5 WHEN 0 THEN 'done'
	WHEN 1 THEN 'build-failed' WHEN 2 THEN 'does-not-apply'
	WHEN 3 THEN 'boot-failed' ELSE 'queued' END END,
	NULL, 1790000000 + i * 60, 1790000000 + i * 60 + 30 FROM n;
-- Runs: series 101..$((100 + NR)) (20 boots), series $BIG the big one
-- (40 boots).
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
	WHERE i < $NR + 1)
INSERT INTO run (id, series_id, arch, accel, seed, plan, status, rounds,
	started_at, finished_at, clock, alpha, max_per_side)
SELECT 100 + i, 100 + i, 'x86_64', 'kvm', i, 'bench plan', 'decided', 2,
	1790000000 + i * 60, 1790000000 + i * 60 + 20, 'real', 0.05, 20 FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n
	WHERE i < 39)
INSERT INTO boot (series_id, build_id, host_id, side, seq, status,
	run_id, round, attempt, nonce, started_at, duration_ms)
SELECT r.series_id, CASE WHEN n.i % 2 THEN 2 ELSE 1 END, 1,
	CASE WHEN n.i % 2 THEN 'patched' ELSE 'base' END, n.i, 'ok', r.id,
	1 + n.i / 10, 1, 'bench-' || r.id || '-' || n.i, r.started_at, 9000
FROM run r JOIN n ON n.i < CASE WHEN r.id = $BIG THEN 40 ELSE 20 END
WHERE r.id > 100;
WITH RECURSIVE m(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM m
	WHERE k < 29),
it(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM it WHERE j < 4)
INSERT INTO sample (boot_id, workload, metric, iteration, value, params,
	unit, direction, is_primary)
SELECT b.id, 'bench', 'metric' || m.k, it.j,
	1000 + m.k * 100 + (abs(random()) % 1000) / 10.0 +
	CASE WHEN b.side = 'patched' AND m.k = 0 THEN 50 ELSE 0 END,
	'{"k":' || m.k || '}', 'ns', 'lower', m.k < 3
FROM boot b, m, it WHERE b.run_id > 100;
WITH RECURSIVE m(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM m
	WHERE k < 29)
INSERT INTO comparison (series_id, arch, host_id, workload, metric, unit,
	direction, n_base, n_new, median_base, median_new, change_pct,
	ci_low_pct, ci_high_pct, p_value, p_adjusted, verdict, flags,
	run_id, params, p_holm, is_primary)
SELECT r.series_id, 'x86_64', 1, 'bench', 'metric' || m.k, 'ns', 'lower',
	10, 10, 1000 + m.k * 100, 1000 + m.k * 100, 0.1, -1, 1, 0.5, 0.8,
	CASE WHEN m.k = 0 AND r.id % 10 = 0 THEN 'regression'
	ELSE 'no-change' END, '', r.id, '{"k":' || m.k || '}', 1, m.k < 3
FROM run r, m WHERE r.id > 100;
COMMIT;
SQL
t1=$(date +%s.%N)
printf 'dashboard-bench: database: %s series, %s samples, %s comparisons, made in %.1f s\n' \
	"$(sql "SELECT count(*) FROM series")" \
	"$(sql "SELECT count(*) FROM sample")" \
	"$(sql "SELECT count(*) FROM comparison")" \
	"$(echo "$t1 - $t0" | bc)"

daemon_start >/dev/null || { echo "dashboard-bench: kregressd did not start"; exit 1; }

# API latency: median and 90th percentile of CALLS calls each.
for path in "/api/v1/series?limit=50" "/api/v1/series?verdict=regression" \
	"/api/v1/series?q=change%20999" "/api/v1/series/$BIG" \
	"/api/v1/runs/$BIG" \
	"/api/v1/trends?tree=linux-6.1&arch=x86_64&workload=bench&metric=metric0" \
	"/api/v1/hosts" "/api/v1/compare?a=1&b=2" "/api/v1/facets" \
	"/api/v1/boots/1/console"; do
	for ((i = 0; i < CALLS; i++)); do
		curl -s -o /dev/null -w '%{time_total} %{size_download}\n' \
			"$SRV$path"
	done | sort -n | awk -v p="$path" '{ t[NR] = $1 * 1000; s = $2 }
		END { printf "dashboard-bench: GET %-72s median %7.1f ms, p90 %7.1f ms, %7d bytes\n",
			p, t[int((NR + 1) / 2)], t[int(NR * 0.9 + 0.5)], s }'
done

# First render in the browser.
SRV=$SRV LOADS=$LOADS BIG=$BIG NODE_PATH=$NPM node - <<'JS'
const { chromium } = require('playwright-core');
(async () => {
	const b = await chromium.launch({ executablePath: '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu',
		       '--disable-background-networking',
		       '--disable-component-update', '--disable-sync',
		       '--no-first-run'] });
	for (const [name, url] of [['series list', '/'],
		['series page (40 boots x 30 metrics)',
		 '/series/' + process.env.BIG]]) {
		const ms = [], kb = [];
		for (let i = 0; i < +process.env.LOADS; i++) {
			const ctx = await b.newContext({
				viewport: { width: 1366, height: 768 } });
			const p = await ctx.newPage();
			const cdp = await ctx.newCDPSession(p);
			let bytes = 0;
			await cdp.send('Network.enable');
			cdp.on('Network.loadingFinished',
			       (e) => { bytes += e.encodedDataLength; });
			await p.goto(process.env.SRV + url);
			await p.waitForFunction(() =>
				document.documentElement.dataset.ready);
			ms.push(+await p.evaluate(() =>
				document.documentElement.dataset.readyMs));
			kb.push(bytes / 1024);
			await ctx.close();
		}
		ms.sort((x, y) => x - y);
		console.log('dashboard-bench: first render of the ' + name +
			': median ' + ms[ms.length >> 1].toFixed(0) + ' ms (' +
			ms.map((x) => x.toFixed(0)).join(', ') + '), ' +
			kb[0].toFixed(1) + ' KB over the network');
	}
	await b.close();
})();
JS
echo "dashboard-bench: load average $(cut -d' ' -f1-3 /proc/loadavg)"
