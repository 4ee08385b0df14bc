// metrics.js - the per-metric plots of a run or of two builds compared:
// one card per (workload, metric, params), primary metrics first.
import { h, fill } from './dom.js';
import { verdictBadge, params, clockLabel, num, pct, pval,
	 FLAG_TEXT } from './fmt.js';
import * as plot from './plot.js';

export function key(workload, metric, p) {
	return workload + '/' + metric + ' ' + JSON.stringify(p);
}

/*
 * Cards for metrics (db_web's "metrics"), x of each boot from xOf(boot
 * id), cmp: key -> comparison row (or none), T: the threshold in
 * percent (null: no interval), clock: the run's clock.
 */
export function cards(metrics, opt) {
	const sorted = metrics.slice().sort((a, b) =>
		(b.is_primary ? 1 : 0) - (a.is_primary ? 1 : 0));
	const grid = h('div', { class: 'plots' });
	const pending = [];
	for (const m of sorted) {
		const k = key(m.workload, m.metric, m.params);
		const c = opt.cmp ? opt.cmp.get(k) : null;
		const side = (s) => s.boots.map((b, i) => ({
			x: opt.xOf(b), y: s.values[i], boot: b }));
		const pts = { base: side(m.base), patched: side(m.patched) };
		const medians = c ? { base: c.median_base, patched: c.median_new } :
			{ base: plot.median(m.base.values),
			  patched: plot.median(m.patched.values) };
		const box = h('div', { class: 'plot', dataset: { key: k } });
		const flags = c && c.flags ? c.flags.split(',') : [];
		const card = h('section', { class: 'card', 'aria-label': k,
					    dataset: { metric: k } },
			h('header', {},
				h('h4', {}, m.workload + '/' + m.metric),
				m.is_primary ? h('span', { class: 'tag primary',
					title: 'a metric this workload is about' },
					'primary') : null,
				c ? verdictBadge(c.verdict) : null,
				flags.map((f) => h('span', { class: 'tag flag',
					title: FLAG_TEXT[f] || f }, f))),
			h('p', { class: 'params' }, params(m.params)),
			h('p', { class: 'params' }, (m.unit || 'value') + ', ' +
			  clockLabel(opt.clock)),
			h('p', { class: 'counts' },
				m.base.values.length + ' base and ' +
				m.patched.values.length + ' patched boots, ' +
				'each the median of its iterations; dashed: ' +
				(c ? 'the medians that were compared' :
				     'the median of the per-boot values')),
			box, plot.key(),
			c && opt.T !== null ? plot.interval(c, opt.T) : null);
		grid.append(card);
		pending.push(() => plot.values(box, pts, {
			key: k, medians, run: opt.run,
			xLabel: opt.xLabel,
			yLabel: (m.unit || 'value') + (opt.clock === 'instructions' ?
				' (instruction time)' : ' (real time)'),
		}));
	}
	// Drawn once the grid is in the page and has its width.
	requestAnimationFrame(() => pending.forEach((f) => f()));
	return grid;
}

// What the layout control said of a comparison (its reason on hover).
function layoutNote(c) {
	if (!c.layout && !c.layout_reason)
		return null;
	const text = !c.layout ? 'no layout control' : 'layout: ' + c.layout +
		(c.layout_verdict ? ', aligned ' + c.layout_verdict + ' ' +
		 pct(c.layout_change_pct) : '') +
		(c.verdict_as_built ? ', as built ' + c.verdict_as_built : '');
	return h('div', { class: 'sub layout', title: c.layout_reason || '' },
		 text);
}

// The comparisons table (rows of the API), sortable by any column.
const COLS = [
	{ k: 'metric', t: 'Metric', v: (c) => c.workload + '/' + c.metric },
	{ k: 'n', t: 'N B/P', v: (c) => c.n_base, f: (c) => c.n_base + '/' + c.n_new },
	{ k: 'base', t: 'Base', v: (c) => c.median_base, f: (c) => num(c.median_base) },
	{ k: 'new', t: 'Patched', v: (c) => c.median_new, f: (c) => num(c.median_new) },
	{ k: 'chg', t: 'Change', v: (c) => c.change_pct, f: (c) => pct(c.change_pct) },
	{ k: 'ci', t: 'CI', v: (c) => c.ci_low_pct,
	  f: (c) => c.ci_low_pct === null ? '—' :
		'[' + pct(c.ci_low_pct) + ', ' + pct(c.ci_high_pct) + ']' },
	{ k: 'p', t: 'P', v: (c) => c.p_value, f: (c) => pval(c.p_value) },
	{ k: 'padj', t: 'P adj', v: (c) => c.p_adjusted, f: (c) => pval(c.p_adjusted) },
	{ k: 'holm', t: 'P Holm', v: (c) => c.p_holm, f: (c) => pval(c.p_holm) },
	{ k: 'verdict', t: 'Verdict', v: (c) => c.verdict,
	  f: (c) => [verdictBadge(c.verdict), layoutNote(c)] },
	{ k: 'flags', t: 'Flags', v: (c) => c.flags },
];

export function table(cmps) {
	let sort = null, dir = 1;
	const body = h('tbody', {});
	const ths = COLS.map((col) => h('th', { scope: 'col' },
		h('button', { type: 'button', class: 'sort',
			onclick: () => {
				dir = sort === col ? -dir : 1;
				sort = col;
				draw();
			} }, col.t)));
	const draw = () => {
		const rows = cmps.slice();
		if (sort)
			rows.sort((a, b) => {
				const x = sort.v(a), y = sort.v(b);
				if (x === y)
					return 0;
				if (x === null || x === undefined)
					return 1;
				if (y === null || y === undefined)
					return -1;
				return (x < y ? -1 : 1) * dir;
			});
		ths.forEach((th, i) => th.setAttribute('aria-sort',
			COLS[i] === sort ? (dir > 0 ? 'ascending' : 'descending') :
			'none'));
		fill(body, rows.map((c) => h('tr', { class: c.is_primary ?
			'primary' : null },
			COLS.map((col) => h('td', { class: 'c-' + col.k },
				col.f ? col.f(c) : col.v(c),
				col.k === 'metric' ? h('div', { class: 'sub' },
					(c.is_primary ? 'primary · ' : '') +
					params(c.params)) : null)))));
	};
	draw();
	const t = h('table', { class: 'cmp', 'aria-label': 'Comparisons' },
		    h('thead', {}, h('tr', {}, ths)), body);
	return h('div', { class: 'table-wrap' }, t);
}
