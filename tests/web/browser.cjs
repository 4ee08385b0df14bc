// browser.cjs - the dashboard in Debian's chromium, driven by
// playwright-core (no browser download): what a user sees and does.
//
//   node browser.cjs   with SRV (the daemon's URL), OUT (a directory for
//                      screenshots), EXPECT (a JSON file the shell test
//                      wrote from the database), DB (the daemon's
//                      database, which the live-progress check changes
//                      with sqlite3) and CHROMIUM
//
// Prints one line per check, "PASS\tdescription" or
// "FAIL\tdescription\twhat was wrong", for t-dashboard-browser.sh to
// count.  Every page is loaded in a fresh context with the console,
// page errors, failed requests and HTTP errors recorded.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const SRV = process.env.SRV;
const OUT = process.env.OUT;
const EXPECT = JSON.parse(fs.readFileSync(process.env.EXPECT, 'utf8'));

function report(ok, desc, why) {
	console.log((ok ? 'PASS' : 'FAIL') + '\t' + desc +
		    (ok ? '' : '\t' + String(why).replace(/\s+/g, ' ')));
}

function same(got, want, desc) {
	const g = JSON.stringify(got), w = JSON.stringify(want);
	report(g === w, desc, 'got ' + g + ', wanted ' + w);
}

// A page with everything that went wrong on it recorded in p.problems.
async function open(browser, url, opt) {
	const ctx = await browser.newContext(Object.assign({
		viewport: { width: 1366, height: 768 } }, opt || {}));
	const p = await ctx.newPage();
	p.problems = [];
	p.on('console', (m) => {
		if (m.type() === 'error' || m.type() === 'warning')
			p.problems.push('console ' + m.type() + ': ' + m.text());
	});
	p.on('pageerror', (e) => p.problems.push('page error: ' + e.message));
	p.on('requestfailed', (r) => p.problems.push('failed: ' + r.url() +
		' ' + (r.failure() || {}).errorText));
	p.on('response', (r) => {
		if (r.status() >= 400)
			p.problems.push('HTTP ' + r.status() + ': ' + r.url());
	});
	await p.goto(SRV + url);
	await ready(p);
	return p;
}

async function ready(p) {
	await p.waitForFunction(() => document.documentElement.dataset.ready,
				null, { timeout: 30000 });
}

async function shot(p, name) {
	await p.screenshot({ path: path.join(OUT, name + '.png'),
			     fullPage: false });
}

// Same-origin links of the page answer 200; others are only counted.
async function links(p, desc) {
	const hrefs = await p.$$eval('a[href]', (as) => as.map((a) => a.href));
	const bad = [];
	let local = 0;
	for (const h of [...new Set(hrefs)]) {
		if (!h.startsWith(SRV + '/'))
			continue;
		local++;
		const r = await p.request.get(h);
		if (r.status() !== 200)
			bad.push(h + ' ' + r.status());
	}
	report(local > 0 && !bad.length, desc + ': its ' + local +
	       ' links resolve', bad.join(', ') || 'no links');
}

async function main() {
	fs.mkdirSync(OUT, { recursive: true });
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu',
		       '--disable-background-networking',
		       '--disable-component-update', '--disable-sync',
		       '--no-first-run'],
	});
	try {
		await pages(browser);
		await seriesPage(browser);
		await listPage(browser);
		await paging(browser);
		await comparePage(browser);
		await trendsNoise(browser);
		await keyboard(browser);
		await live(browser);
		await layoutAnswers(browser);
		await evilSubject(browser);
		await shifts(browser);
		await themes(browser);
	} finally {
		await browser.close();
	}
}

// Every page loads cleanly and its links resolve.
async function pages(browser) {
	const urls = ['/', '/hosts', '/trends',
		'/trends?tree=linux-6.1&arch=x86_64&metric=mremap/move_pud',
		'/compare', '/compare?a=' + EXPECT.compare[0] + '&b=' +
		EXPECT.compare[1]].concat(EXPECT.series.map((s) =>
			'/series/' + s));
	for (const u of urls) {
		const p = await open(browser, u);
		same(p.problems, [], u + ' loads with no console error and ' +
		     'no failed request');
		const main = await p.$eval('main', (m) => m.innerText);
		report(!/No page at|Loading…/.test(main) && main.length > 40,
		       u + ' shows its content', main.slice(0, 200));
		if (u !== '/compare' && u !== '/trends')
			await links(p, u);
		await shot(p, 'page' + u.replace(/[^a-z0-9]+/gi, '-'));
		await p.context().close();
	}
}

// The plots: exactly one point per complete boot per side.
async function seriesPage(browser) {
	const p = await open(browser, '/series/' + EXPECT.plotted);
	const plots = await p.evaluate(() => window.kregressPlots
		.filter((x) => x.el.isConnected)
		.map((x) => ({ run: x.run, key: x.key,
			base: x.u.data[1].filter((v) => v !== null).length,
			patched: x.u.data[2].filter((v) => v !== null).length })));
	for (const [run, want] of Object.entries(EXPECT.runs)) {
		const mine = plots.filter((x) => x.run === Number(run));
		same(mine.length, want.metrics, 'run ' + run + ': a plot per ' +
		     'metric of its complete boots');
		const wrong = mine.filter((x) => x.base !== want.base ||
					  x.patched !== want.patched);
		report(mine.length && !wrong.length, 'run ' + run + ': every ' +
		       'plot has one point per complete boot, ' + want.base +
		       ' base and ' + want.patched + ' patched',
		       JSON.stringify(wrong.slice(0, 3)));
	}
	const clocks = await p.$$eval('section.run h2', (hs) =>
		hs.map((x) => x.textContent));
	report(clocks.length && clocks.every((t) =>
		t.includes('instruction time (emulated)')),
	       'each run names its clock', clocks.join(' | '));
	const tables = await p.$$eval('section.run table.cmp', (ts) =>
		ts.map((t) => [...t.querySelectorAll('tbody tr')].map((r) =>
			r.classList.contains('primary'))));
	report(tables.length && tables.every((f) => f[0] &&
		f.indexOf(false) === f.lastIndexOf(true) + 1),
	       'primary metrics come first in each run\'s table',
	       JSON.stringify(tables));
	// Instruction time moves by thousandths of a percent: a change that
	// is not zero never reads 0.00%.
	const api = await (await p.request.get(SRV + '/api/v1/series/' +
					       EXPECT.plotted)).json();
	const zeros = api.comparisons.filter((c) => c.change_pct === 0).length;
	const shown = await p.$$eval('section.run table.cmp tbody td.c-chg',
		(tds) => tds.map((t) => t.textContent));
	same(shown.filter((t) => /^[+-]?0\.00%$/.test(t)).length, zeros,
	     'a change cell reads 0.00% only for a change of exactly 0');
	report(shown.some((t) => /^[+-]0\.000\d*%$/.test(t)),
	       'a change of thousandths of a percent keeps two significant ' +
	       'digits', shown.join(' '));
	// The table sorts by a column when its header is pressed.
	const col = async () => p.$$eval('section.run:first-of-type table.cmp ' +
		'tbody td.c-chg', (tds) => tds.map((t) => t.textContent));
	await p.click('section.run:first-of-type table.cmp th:nth-child(5) ' +
		      'button');
	const sorted = await col();
	const vals = sorted.filter((t) => t !== '—').map(parseFloat);
	report(vals.every((v, i) => !i || vals[i - 1] <= v),
	       'the comparisons table sorts by change', sorted.join(' '));
	const cis = await p.$$eval('svg.ci', (s) => s.map((x) =>
		x.getAttribute('aria-label')));
	report(cis.length && cis.every((l) => /against ±3%/.test(l)),
	       'each interval is drawn against ±T', cis.slice(0, 2).join(' | '));
	// A boot's console log is one click away.
	await p.click('details.boots summary');
	const [resp] = await Promise.all([
		p.waitForEvent('response', (r) => /\/console$/.test(r.url())),
		p.click('details.boots a.console'),
	]);
	report(resp.status() === 200 && /text\/plain/.test(
		resp.headers()['content-type']), 'a console log opens',
		resp.status());
	await shot(p, 'series-console');
	await p.context().close();
}

async function rows(p) {
	return p.$$eval('table.list tbody tr[data-href]',
			(rs) => rs.map((r) => r.dataset.href));
}

// Filters and search change the list and the URL.
async function listPage(browser) {
	const p = await open(browser, '/');
	same(await rows(p), EXPECT.all.map((i) => '/series/' + i),
	     'the list shows every series, newest first');
	await p.selectOption('#f-verdict', 'regression');
	await ready(p);
	same(await rows(p), ['/series/' + EXPECT.regression],
	     'verdict=regression leaves the regressed series');
	report(/verdict=regression/.test(p.url()), 'the URL holds the filter',
	       p.url());
	await p.reload();
	await ready(p);
	same(await rows(p), ['/series/' + EXPECT.regression],
	     'the filtered URL reloads to the same list');
	await p.click('a.clear');
	await ready(p);
	await p.fill('#search', 'panic');
	await p.press('#search', 'Enter');
	await ready(p);
	same(await rows(p), ['/series/' + EXPECT.panic],
	     'searching "panic" finds the series that panics');
	await p.selectOption('#f-status', 'does-not-apply');
	await ready(p);
	same(await rows(p), [], 'search and status combine (AND)');
	await p.goBack();
	await ready(p);
	same(await rows(p), ['/series/' + EXPECT.panic],
	     'Back returns to the previous filter');
	await shot(p, 'list-search');
	same(p.problems, [], 'filtering made no console error');
	await p.context().close();
}

// The list pages through older series and back.
async function paging(browser) {
	const p = await open(browser, '/?limit=2');
	const all = EXPECT.all.map((i) => '/series/' + i);
	same(await rows(p), all.slice(0, 2), 'limit=2: the two newest');
	await p.click('a[rel=next]');
	await ready(p);
	same(await rows(p), all.slice(2, 4), 'Older: the next two');
	await p.click('a[rel=next]');
	await ready(p);
	same(await rows(p), all.slice(4), 'Older again: the oldest');
	report(!(await p.$('a[rel=next]')), 'the last page has no Older link');
	await p.click('text=← Newest');
	await ready(p);
	same(await rows(p), all.slice(0, 2), 'Newest: back to the first page');
	same(p.problems, [], 'paging made no console error');
	await p.context().close();
}

// The compare page plots every complete boot of both builds.
async function comparePage(browser) {
	const [a, b] = EXPECT.compare;
	const p = await open(browser, '/compare?a=' + a + '&b=' + b);
	const api = await (await p.request.get(SRV + '/api/v1/compare?a=' + a +
					       '&b=' + b)).json();
	const want = api.groups.map((g) => [g.boots_a, g.boots_b]);
	const got = await p.evaluate(() => window.kregressPlots
		.filter((x) => x.el.isConnected)
		.map((x) => [x.u.data[1].filter((v) => v !== null).length,
			     x.u.data[2].filter((v) => v !== null).length]));
	report(got.length && got.every((x) => x[0] === want[0][0] &&
					x[1] === want[0][1]),
	       'compare: each plot has a point per complete boot of A and B',
	       JSON.stringify(got.slice(0, 3)) + ' want ' + JSON.stringify(want));
	const pud = await p.$eval('table.cmp', (t) => [...t.querySelectorAll(
		'tbody tr')].filter((r) => r.innerText.startsWith('mremap/move_pud'))
		.map((r) => r.querySelector('td.c-verdict').innerText));
	same(pud, ['regression'], 'compare: the PUD revert\'s build regresses ' +
	     'move_pud against its base');
	await p.context().close();
}

// j/k move through the list, Enter opens, / searches.
async function keyboard(browser) {
	const p = await open(browser, '/');
	await p.keyboard.press('j');
	await p.keyboard.press('j');
	await p.keyboard.press('k');
	const sel = await p.$$eval('tr.selected', (r) =>
		r.map((x) => x.dataset.href));
	same(sel, ['/series/' + EXPECT.all[0]], 'j j k selects the first row');
	await Promise.all([p.waitForURL('**/series/' + EXPECT.all[0]),
			   p.keyboard.press('Enter')]);
	await ready(p);
	report(true, 'Enter opens the selected series');
	await p.goto(SRV + '/');
	await ready(p);
	await p.keyboard.press('/');
	same(await p.evaluate(() => document.activeElement.id), 'search',
	     '/ puts the cursor in the search box');
	const unnamed = await p.$$eval('input, select, button', (els) =>
		els.filter((e) => !(e.labels && e.labels.length) &&
			   !e.getAttribute('aria-label') &&
			   !e.textContent.trim()).map((e) => e.outerHTML));
	same(unnamed, [], 'every control has an accessible name');
	await p.context().close();
}

function sql(q) {
	return execFileSync('sqlite3', ['-cmd', '.timeout 10000',
					process.env.DB, q]).toString().trim();
}

// Runs a file of tests/fixtures/dashboard on the daemon's database.
function sqlFile(name) {
	execFileSync('sqlite3', ['-cmd', '.timeout 10000', process.env.DB], {
		input: fs.readFileSync(path.join(__dirname, '..', 'fixtures',
						 'dashboard', name)) });
}

// The trend charts of a page: their band (a fraction or null) and data.
async function trendPlots(p) {
	return p.evaluate(() => window.kregressPlots
		.filter((x) => x.trend && x.el.isConnected)
		.map((x) => ({ band: x.band, bands: x.u.bands.length,
			       data: x.u.data.map((c) => Array.from(c)) })));
}

// The trends chart draws the noise band of the host's calibration of its
// clock and plan (calibration.sql: #2, resolve 0.5%; never the real-time
// #3's 9.5%), says what it is, and says so where there is none.
async function trendsNoise(browser) {
	const url = (arch) => '/trends?tree=linux-6.1&arch=' + arch +
		'&metric=mremap/move_pud';
	let p = await open(browser, url('x86_64'));
	let plots = await trendPlots(p);
	report(plots.length && plots.every((x) => x.band === null &&
		!x.bands && x.data.length === 2), 'trends without a ' +
	       'calibration: no band is drawn', JSON.stringify(plots));
	let text = await p.$eval('main', (m) => m.innerText);
	report(/No A\/A calibration is recorded/.test(text),
	       'trends without a calibration say there is none', text);
	await p.context().close();
	sqlFile('calibration.sql');
	try {
		p = await open(browser, url('x86_64'));
		plots = await trendPlots(p);
		const want = (x) => plots[0].data[1].map((v) => v * (1 + x));
		const close = (a, b) => a.length === b.length &&
			a.every((v, i) => Math.abs(v - b[i]) <
				1e-6 * Math.abs(b[i]));
		report(plots.length === 1 && plots[0].band === 0.005 &&
		       plots[0].bands === 1 &&
		       close(plots[0].data[2], want(-0.005)) &&
		       close(plots[0].data[3], want(0.005)),
		       'trends with a calibration: a band of ±0.5% ' +
		       '(calibration #2\'s resolve) around every point',
		       JSON.stringify(plots));
		const key = await p.$eval('section.trend .key',
					  (k) => k.innerText);
		report(/±0\.5%: the smallest change a run on local can tell/
			.test(key), 'the legend says what the band is', key);
		const line = await p.$eval('section.trend .noise',
					   (k) => k.innerText);
		report(/A\/A calibration #2 of local \(instruction time/
			.test(line) && /CV 0\.04%/.test(line) &&
		       !/9\.5/.test(line), 'the chart names its calibration, ' +
		       'clock and CV, not the real-time one\'s', line);
		// 2026-12-01 13:55 UTC: the axis writes times as the table
		// does (24-hour UTC), not as uPlot's "1:55pm".
		const tick = await p.evaluate(() => {
			const x = window.kregressPlots.find((y) => y.trend &&
				y.el.isConnected);
			return x.u.axes[0].values(x.u, [1796133300], 0, 100, 0);
		});
		same(tick, ['12-01 13:55'], 'the time axis is 24-hour UTC, ' +
		     'month-day hour:minute');
		same(p.problems, [], 'the trends page with a band has no ' +
		     'console error and no failed request');
		await shot(p, 'trends-noise');
		await p.context().close();
		p = await open(browser, url('arm64'));
		plots = await trendPlots(p);
		report(plots.length && plots.every((x) => !x.bands),
		       'arm64, whose host has no calibration: no band',
		       JSON.stringify(plots));
		text = await p.$eval('main', (m) => m.innerText);
		report(/No A\/A calibration is recorded/.test(text),
		       'and the page says there is no calibration', text);
		same(p.problems, [], 'no console error there either');
		await shot(p, 'trends-no-calibration');
		await p.context().close();
		// Only the real-time calibration left: the instruction-time
		// runs get no band from it.
		sql('DELETE FROM calibration_metric WHERE calibration_id <> 3');
		p = await open(browser, url('x86_64'));
		plots = await trendPlots(p);
		report(plots.length && plots.every((x) => !x.bands),
		       'a real-time calibration draws no band on instruction ' +
		       'time', JSON.stringify(plots));
		text = await p.$eval('section.trend .noise',
				     (k) => k.innerText);
		report(/No A\/A calibration of local for instruction time/
			.test(text) && /real time, are not drawn/.test(text),
		       'and the chart says which it left out', text);
		same(p.problems, [], 'no console error with a real-time one');
		await p.context().close();
	} finally {
		sqlFile('calibration-none.sql');
	}
}

// A series whose work runs updates in place, without a reload.
async function live(browser) {
	const id = EXPECT.building, build = EXPECT.building_build;
	const was = sql('SELECT series.status || \'|\' || coalesce(objects_compiled, ' +
			'\'NULL\') FROM series, build WHERE series.id = ' + id +
			' AND build.id = ' + build).split('|');
	sql("UPDATE series SET status = 'building' WHERE id = " + id);
	try {
		const p = await open(browser, '/series/' + id);
		await p.evaluate(() => { window.notReloaded = true; });
		report(await p.$eval('details:has(#h-progress)', (d) => d.open),
		       'a series being built shows its progress open');
		sql('UPDATE build SET objects_compiled = 4321 WHERE id = ' + build);
		const seen = await p.waitForFunction(() =>
			document.body.innerText.includes('4321'), null,
			{ timeout: 30000 }).then(() => true, () => false);
		report(seen && await p.evaluate(() => window.notReloaded),
		       'a build\'s progress shows up without a reload');
		sql("UPDATE series SET status = 'build-failed' WHERE id = " + id);
		const final = await p.waitForFunction(() =>
			document.querySelector('.badges').innerText
				.includes('build-failed'), null,
			{ timeout: 30000 }).then(() => true, () => false);
		report(final, 'the final status shows up without a reload');
		same(p.problems, [], 'updating made no console error');
		await p.context().close();
	} finally {
		sql("UPDATE series SET status = '" + was[0] + "' WHERE id = " + id);
		sql('UPDATE build SET objects_compiled = ' + was[1] +
		    ' WHERE id = ' + build);
	}
}

// What the layout control said shows beside each verdict: a change the
// aligned kernels do not show is layout-sensitive with the aligned verdict
// and change and the verdict as built; an unconfirmed control gives its
// reason on hover.  (The e2e fixture ran in instruction time, where the
// shipped configuration makes no control, so the answers are written in.)
async function layoutAnswers(browser) {
	const cols = 'verdict, verdict_as_built, layout, layout_reason, ' +
		'layout_verdict, layout_change_pct, layout_ci_low_pct, ' +
		'layout_ci_high_pct';
	const [a, b] = sql('SELECT id || \'|\' || run_id FROM comparison ' +
			   'WHERE series_id = ' + EXPECT.regression + ' AND ' +
			   'metric = \'move_pud\' ORDER BY id LIMIT 2')
		.split('\n').map((r) => r.split('|'));
	const was = sql('SELECT ' + cols.split(', ').map((c) => 'quote(' + c +
			')').join(" || ',' || ") + ' FROM comparison WHERE id IN (' +
			a[0] + ', ' + b[0] + ') ORDER BY id').split('\n');
	const why = 'the aligned kernels did not give a run: x86_64: every ' +
		'host failed during the run (after 2 attempts)';
	sql("UPDATE comparison SET verdict = 'layout-sensitive', " +
	    "verdict_as_built = 'regression', layout = 'layout-sensitive', " +
	    "layout_verdict = 'no-change', layout_change_pct = 0.4, " +
	    'layout_ci_low_pct = -0.3, layout_ci_high_pct = 1.1 WHERE id = ' +
	    a[0]);
	sql("UPDATE comparison SET layout = 'unconfirmed', layout_reason = '" +
	    why + "' WHERE id = " + b[0]);
	try {
		const p = await open(browser, '/series/' + EXPECT.regression);
		const cell = (run) => p.$eval('section[aria-labelledby="run-' +
			run + '"]', (sec) => {
			const tr = [...sec.querySelectorAll('table.cmp tbody tr')]
				.find((r) => r.querySelector('td.c-metric')
					.firstChild.textContent === 'mremap/move_pud');
			const td = tr.querySelector('td.c-verdict');
			const note = td.querySelector('.layout');
			return { text: td.innerText.replace(/\s+/g, ' '),
				 title: note ? note.title : null };
		});
		const sensitive = await cell(a[1]);
		same(sensitive.text, 'layout-sensitive layout: layout-sensitive, ' +
		     'aligned no-change +0.40%, as built regression',
		     'a layout-sensitive verdict shows the aligned verdict and ' +
		     'change, and the verdict as built');
		const unconfirmed = await cell(b[1]);
		same([unconfirmed.text, unconfirmed.title],
		     ['regression layout: unconfirmed', why],
		     'an unconfirmed control keeps the verdict and gives its ' +
		     'reason on hover');
		same(p.problems, [], 'the layout answers made no console error');
		await p.locator('td.c-verdict .layout').first()
			.scrollIntoViewIfNeeded();
		await shot(p, 'series-layout');
		await p.context().close();
	} finally {
		[a, b].forEach((r, i) => sql('UPDATE comparison SET (' + cols +
			') = (' + was[i] + ') WHERE id = ' + r[0]));
	}
}

// A Subject whose RFC 2047 words decoded to ESC, CR and a bidi override is
// shown escaped, as the CLI shows it (issue 15, item 2).
async function evilSubject(browser) {
	const id = EXPECT.series[0];
	const was = sql('SELECT quote(subject) FROM series WHERE id = ' + id);
	const want = '\\x1b[2J\\x0dforged\\u202etxt';
	sql('UPDATE series SET subject = char(27) || \'[2J\' || char(13) || ' +
	    '\'forged\' || char(8238) || \'txt\' WHERE id = ' + id);
	try {
		const p = await open(browser, '/series/' + id);
		same(await p.$eval('h1', (e) => e.textContent), want,
		     'the series page shows an evil Subject escaped');
		same((await p.title()).split(' · ')[0], want,
		     'and so does its title');
		await p.context().close();
		const l = await open(browser, '/');
		const row = await l.$$eval('main a', (as) => as.map((a) =>
			a.textContent).filter((t) => t.includes('forged')));
		same(row, [want], 'the list shows it escaped');
		await l.context().close();
	} finally {
		sql('UPDATE series SET subject = ' + was + ' WHERE id = ' + id);
	}
}

// Nothing jumps while the data comes in (cumulative layout shift).
async function shifts(browser) {
	for (const u of ['/', '/series/' + EXPECT.plotted]) {
		const ctx = await browser.newContext({
			viewport: { width: 1366, height: 768 } });
		const p = await ctx.newPage();
		await p.addInitScript(() => {
			window.cls = 0;
			new PerformanceObserver((l) => {
				for (const e of l.getEntries())
					if (!e.hadRecentInput)
						window.cls += e.value;
			}).observe({ type: 'layout-shift', buffered: true });
		});
		await p.goto(SRV + u);
		await ready(p);
		const cls = await p.evaluate(() => window.cls);
		report(cls < 0.1, u + ': the layout does not jump while it ' +
		       'loads (shift ' + cls.toFixed(3) + ' < 0.1)', cls);
		await ctx.close();
	}
}

// Light, dark and a wide screen: screenshots, and nothing overflows.
async function themes(browser) {
	for (const [name, opt] of [
		['dark', { colorScheme: 'dark' }],
		['wide', { viewport: { width: 2560, height: 1440 } }],
		['laptop', { viewport: { width: 1366, height: 768 } }]]) {
		for (const u of ['/', '/series/' + EXPECT.plotted]) {
			const p = await open(browser, u, opt);
			const over = await p.evaluate(() =>
				document.documentElement.scrollWidth >
				document.documentElement.clientWidth);
			report(!over, name + ' ' + u + ': no sideways scrolling',
			       'the page is wider than the window');
			await shot(p, name + u.replace(/[^a-z0-9]+/gi, '-'));
			await p.context().close();
		}
	}
}

main().catch((e) => {
	report(false, 'browser.cjs ran every check', e.stack || e);
	process.exitCode = 1;
});
