// page-compare.js - two builds on the same host and plan, shown as the
// series page shows base against patched, each metric tested by the API.
import { get } from './api.js';
import { h, fill, errorBox, navigate } from './dom.js';
import { clockLabel, shortCommit } from './fmt.js';
import { cards, key, table } from './metrics.js';

export async function render(main) {
	document.title = 'Compare · kregress';
	const p = new URLSearchParams(location.search);
	const form = h('form', { class: 'filters', onsubmit: async (e) => {
		e.preventDefault();
		const d = Object.fromEntries(new FormData(form));
		let a = d.a, b = d.b;
		try {
			if (d.sa && d.sb)
				[a, b] = await patchedBuilds(d.sa, d.sb);
		} catch (err) {
			out.replaceChildren(errorBox(err));
			return;
		}
		navigate('/compare?a=' + a + '&b=' + b);
	} },
		h('label', { for: 'c-a' }, 'build A', h('input', { id: 'c-a',
			name: 'a', inputmode: 'numeric', value: p.get('a') || '',
			size: 6 })),
		h('label', { for: 'c-b' }, 'build B', h('input', { id: 'c-b',
			name: 'b', inputmode: 'numeric', value: p.get('b') || '',
			size: 6 })),
		h('span', { class: 'or' }, 'or the patched builds of series'),
		h('label', { for: 'c-sa' }, 'A', h('input', { id: 'c-sa', name: 'sa',
			inputmode: 'numeric', size: 6 })),
		h('label', { for: 'c-sb' }, 'B', h('input', { id: 'c-sb', name: 'sb',
			inputmode: 'numeric', size: 6 })),
		h('button', { type: 'submit' }, 'Compare'));
	const out = h('div', {});
	fill(main, h('h1', {}, 'Compare two builds'), form, out);
	if (!p.get('a') || !p.get('b')) {
		out.append(h('p', { class: 'muted' }, 'Build ids are on each ' +
			'series page (Progress, Builds).'));
		return;
	}
	let c;
	try {
		c = await get('compare', { a: p.get('a'), b: p.get('b') });
	} catch (e) {
		out.append(errorBox(e));
		return;
	}
	const name = (b) => 'build ' + b.id + ' (' + b.arch + ' ' +
		shortCommit(b.commit_id) + ')';
	out.append(h('p', {}, 'A = ' + name(c.a) + ' is shown as base, B = ' +
		name(c.b) + ' as patched.  Each point is a complete boot\'s ' +
		'median of its iterations (at most the ' + c.boots_max +
		' newest a side); each metric is tested on its own at α = ' +
		c.alpha + ' with the test a run\'s analysis uses, without a ' +
		'run\'s adaptive design or an adjustment over metrics.'));
	if (!c.groups.length)
		out.append(h('p', { class: 'muted' }, 'These builds have no ' +
			'complete boots on a common host and plan.'));
	for (const g of c.groups) {
		const rows = g.metrics.map((m) => Object.assign({
			workload: m.workload, metric: m.metric, params: m.params,
			is_primary: m.is_primary }, m.comparison));
		const cmp = new Map(rows.map((r) =>
			[key(r.workload, r.metric, r.params), r]));
		rows.sort((x, y) => (y.is_primary ? 1 : 0) - (x.is_primary ? 1 : 0));
		out.append(h('section', { class: 'run' },
			h('h2', {}, (g.host || 'unknown host') + ' · ' +
			  clockLabel(g.clock) + ' · ' + g.boots_a + ' boots of A, ' +
			  g.boots_b + ' of B'),
			h('details', {}, h('summary', {}, 'plan'),
			  h('pre', { class: 'wrap' }, g.plan)),
			table(rows),
			h('p', { class: 'legend' }, 'Base: A, Patched: B; medians ' +
			  'of the per-boot medians; Change and CI: percent of A, ' +
			  'by ' + (rows[0] && rows[0].test || 'the test') +
			  '; the strip under each plot draws the CI against ±T = ' +
			  c.threshold_pct + '% (stats.threshold_pct).'),
			cards(g.metrics, { cmp, T: c.threshold_pct, clock: g.clock,
				xLabel: 'boot id', xOf: (b) => b })));
	}
}

// The patched builds of two series on an arch they share.
async function patchedBuilds(sa, sb) {
	const [x, y] = await Promise.all([get('series/' + sa),
					  get('series/' + sb)]);
	const pb = (s) => new Map(s.builds.filter((b) => b.side === 'patched')
		.map((b) => [b.arch, b.id]));
	const bx = pb(x), by = pb(y);
	for (const [arch, id] of bx)
		if (by.has(arch))
			return [id, by.get(arch)];
	throw new Error('series ' + sa + ' and ' + sb + ' have no patched ' +
			'builds of one arch');
}
