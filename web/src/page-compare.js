// page-compare.js - two builds on the same host and plan, shown as the
// series page shows base against patched (without a verdict: only a
// series' analysis makes one).
import { get } from './api.js';
import { h, fill, errorBox, navigate } from './dom.js';
import { clockLabel, shortCommit, num, pct } from './fmt.js';
import { cards } from './metrics.js';
import { median } from './plot.js';

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
	out.append(h('p', {}, 'A = ' + name(c.a) + ', B = ' + name(c.b) +
		'. Points: each complete boot\'s median of its iterations, at ' +
		'most the ' + c.boots_max + ' newest a side; no interval or ' +
		'verdict, which only a series\' analysis makes.'));
	if (!c.groups.length)
		out.append(h('p', { class: 'muted' }, 'These builds have no ' +
			'complete boots on a common host and plan.'));
	c.groups.forEach((g, gi) => {
		const order = new Map();
		for (const m of g.metrics)
			for (const b of m.base.boots.concat(m.patched.boots))
				order.set(b, b);
		out.append(h('section', { class: 'run' },
			h('h2', {}, (g.host || 'unknown host') + ' · ' +
			  clockLabel(g.clock) + ' · ' + g.boots_a + ' boots of A, ' +
			  g.boots_b + ' of B'),
			h('details', {}, h('summary', {}, 'plan'),
			  h('pre', { class: 'wrap' }, g.plan)),
			h('ul', { class: 'legend' }, g.metrics.map((m) => {
				const a = median(m.base.values), b = median(m.patched.values);
				return h('li', {}, m.workload + '/' + m.metric + ': A ' +
					num(a) + ', B ' + num(b) + ' ' + m.unit +
					' (median of per-boot medians; ' +
					pct(a ? (b / a - 1) * 100 : null) + ')');
			})),
			cards(g.metrics, { T: null, clock: g.clock,
				xLabel: 'boot id', xOf: (b) => b })));
	});
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
