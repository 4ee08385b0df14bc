// page-trends.js - a metric over base commits for a tree, arch and host:
// one chart per clock, params, host, accel and plan (never two clocks on
// one axis), each with the noise band of the host's A/A calibration of
// that clock and plan where one exists, and a line saying so where not.
import { get } from './api.js';
import { h, fill, errorBox, navigate } from './dom.js';
import { num, params, clockLabel, shortCommit, time, verdictBadge } from './fmt.js';
import { trend, trendKey } from './plot.js';

const ARGS = ['tree', 'arch', 'host', 'metric'];

export async function render(main) {
	document.title = 'Trends · kregress';
	const p = new URLSearchParams(location.search);
	const s = Object.fromEntries(ARGS.map((k) => [k, p.get(k) || '']));
	const form = h('form', { class: 'filters', onsubmit: (e) => {
		e.preventDefault();
		const q = new URLSearchParams();
		for (const [k, v] of new FormData(form))
			if (v)
				q.set(k, v);
		navigate('/trends?' + q);
	} });
	const out = h('div', { class: 'trends' });
	fill(main, h('h1', {}, 'Trends'), form, out);
	const f = await get('facets').catch(() => ({}));
	const pick = (k, vals, label, any) => {
		const sel = h('select', { name: k, id: 't-' + k },
			any ? h('option', { value: '' }, 'any') : null,
			vals.map(([v, t]) => h('option', { value: v,
				selected: v === s[k] }, t)));
		form.append(h('label', { for: 't-' + k }, label, sel));
		return sel;
	};
	const one = (v) => [v, v];
	pick('tree', (f.trees || []).map(one), 'tree');
	pick('arch', (f.arches || []).map(one), 'arch');
	pick('host', (f.hosts || []).map(one), 'host', true);
	pick('metric', (f.metrics || []).map((m) => {
		const v = m.workload + '/' + m.metric;
		return [v, v];
	}), 'metric');
	form.append(h('button', { type: 'submit' }, 'Show'));
	if (!s.metric) {
		out.append(h('p', { class: 'muted' }, 'Pick a metric: each ' +
			'point is a run\'s base median (the median of its base ' +
			'boots\' medians) on that run\'s base commit.'));
		return;
	}
	const [workload, metric] = s.metric.split('/');
	let t;
	try {
		t = await get('trends', { tree: s.tree || (f.trees || [])[0],
			arch: s.arch || (f.arches || [])[0], host: s.host,
			workload, metric });
	} catch (e) {
		out.append(errorBox(e));
		return;
	}
	const groups = new Map();
	for (const pt of t.points) {
		const g = groupKey(pt);
		if (!groups.has(g))
			groups.set(g, []);
		groups.get(g).push(pt);
	}
	const noise = t.noise || [];
	out.append(h('p', { class: 'muted' }, t.points.length + ' runs' +
		(t.more ? ' (the newest ' + t.limit + ')' : '') + '. ' +
		(t.noise ? '' : 'No A/A calibration is recorded for these ' +
		 'hosts yet, so no noise band is drawn.')));
	for (const pts of groups.values()) {
		pts.sort((a, b) => a.started_at - b.started_at);
		const p0 = pts[0];
		const cal = noise.find((e) => groupKey(e) === groupKey(p0));
		const box = h('div', { class: 'plot wide' });
		const band = cal && cal.resolve_pct !== null ?
			cal.resolve_pct / 100 : undefined;
		out.append(h('section', { class: 'card trend' },
			h('h3', {}, workload + '/' + metric + ' · ' +
			  clockLabel(p0.clock) + (p0.host ? ' · ' +
			  p0.host : '')),
			h('p', { class: 'params' }, params(p0.params)),
			h('details', {}, h('summary', {}, 'plan'),
			  h('pre', { class: 'wrap' }, p0.plan)),
			box,
			trendKey(band === undefined ? null : '±' +
				 num(cal.resolve_pct) + '%: the smallest ' +
				 'change a run on ' + p0.host +
				 ' can tell from its noise'),
			noiseLine(p0, cal, noise),
			h('div', { class: 'table-wrap' }, h('table', { class: 'small' },
			  h('thead', {}, h('tr', {}, ['Run started', 'Base commit',
			    'Base median', 'Patched median', 'Verdict', 'Series']
			    .map((x) => h('th', { scope: 'col' }, x)))),
			  h('tbody', {}, pts.slice().reverse().map((x) => h('tr', {},
			    h('td', {}, time(x.started_at)),
			    h('td', {}, h('code', {}, shortCommit(x.base_commit))),
			    h('td', {}, num(x.median_base) + ' ' + x.unit +
			      ' (' + x.n_base + ' boots)'),
			    h('td', {}, num(x.median_new)),
			    h('td', {}, verdictBadge(x.verdict)),
			    h('td', {}, h('a', { href: '/series/' + x.series },
			      x.subject || '#' + x.series)))))))));
		requestAnimationFrame(() => trend(box, pts, {
			yLabel: p0.unit + ', ' + clockLabel(p0.clock), band,
			key: workload + '/' + metric + ' ' + groupKey(p0) }));
	}
}

// params as one text whatever the order of its keys.
function canonical(p) {
	if (!p || typeof p !== 'object')
		return String(p ?? '');
	return JSON.stringify(Object.keys(p).sort().map((k) => [k, p[k]]));
}

// What a trend point and a noise entry of the API must share: the
// calibration speaks only of its own host, accel, clock and plan.
function groupKey(x) {
	return [x.host, x.accel, x.clock, x.plan, canonical(x.params)]
		.join('\n');
}

// What the calibration says of a chart's runs, or that there is none.
function noiseLine(p0, cal, noise) {
	if (!cal) {
		const other = noise.filter((e) => e.host === p0.host);
		return h('p', { class: 'noise none' }, !p0.host ?
			'These runs used several hosts: no one host\'s noise ' +
			'band applies.' :
			'No A/A calibration of ' + p0.host + ' for ' +
			clockLabel(p0.clock) + ' and this plan: no noise ' +
			'band.' +
			(other.length ? ' (Its calibrations of other clocks ' +
			 'or plans, ' + [...new Set(other.map((e) =>
			 clockLabel(e.clock)))].join(', ') + ', are not ' +
			 'drawn here.)' : ''));
	}
	const cv = cal.cv === null ? '—' : num(100 * cal.cv) + '%';
	const resolve = cal.resolve_pct === null ? '— (no band drawn)' :
		'±' + num(cal.resolve_pct) + '%';
	return h('p', { class: 'noise' }, 'A/A calibration #' +
		cal.calibration + ' of ' + cal.host + ' (' +
		clockLabel(cal.clock) + ', ' + cal.boots_per_side +
		' boots a side on base ' + shortCommit(cal.base_commit) +
		', done ', time(cal.finished_at), '): per-boot CV ' + cv +
		', resolves ' + resolve + '; its runs are decided at ±' +
		num(cal.threshold_pct) + '%.');
}
