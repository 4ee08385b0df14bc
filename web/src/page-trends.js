// page-trends.js - a metric over base commits for a tree, arch and host:
// one chart per clock, params, host and plan (never two clocks on one
// axis).
import uPlot from 'uplot';
import { get } from './api.js';
import { h, fill, errorBox, navigate } from './dom.js';
import { num, params, clockLabel, shortCommit, time, verdictBadge } from './fmt.js';

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
		const g = [pt.clock, JSON.stringify(pt.params), pt.host, pt.unit,
			   pt.plan].join('\n');
		if (!groups.has(g))
			groups.set(g, []);
		groups.get(g).push(pt);
	}
	out.append(h('p', { class: 'muted' }, t.points.length + ' runs' +
		(t.more ? ' (the newest ' + t.limit + ')' : '') + '. ' +
		(t.noise ? '' : 'No A/A calibration is recorded for these ' +
		 'hosts yet, so no noise band is drawn.')));
	for (const pts of groups.values()) {
		pts.sort((a, b) => a.started_at - b.started_at);
		const box = h('div', { class: 'plot wide' });
		out.append(h('section', { class: 'card' },
			h('h3', {}, workload + '/' + metric + ' · ' +
			  clockLabel(pts[0].clock) + (pts[0].host ? ' · ' +
			  pts[0].host : '')),
			h('p', { class: 'params' }, params(pts[0].params)),
			h('details', {}, h('summary', {}, 'plan'),
			  h('pre', { class: 'wrap' }, pts[0].plan)),
			box,
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
		requestAnimationFrame(() => new uPlot({
			width: Math.max(300, box.clientWidth), height: 220,
			legend: { show: false },
			scales: { x: { time: true } },
			axes: [{ stroke: 'currentColor', grid: { stroke: '#8884' } },
			       { label: pts[0].unit + ', ' + clockLabel(pts[0].clock),
				 size: 64, stroke: 'currentColor',
				 grid: { stroke: '#8884' },
				 values: (u, ticks) => ticks.map(num) }],
			series: [{ label: 'run started (UTC)' },
				 { label: 'base median', stroke: '#2f6fdf',
				   points: { show: true, size: 7 } }],
			tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
		}, [pts.map((x) => x.started_at), pts.map((x) => x.median_base)],
		box));
	}
}
