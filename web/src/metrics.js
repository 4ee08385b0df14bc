// metrics.js - the per-metric plots of a run or of two builds compared:
// one card per (workload, metric, params), primary metrics first.
import { h } from './dom.js';
import { verdictBadge, params, clockLabel, FLAG_TEXT } from './fmt.js';
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
				(c ? 'the medians the analysis compared' :
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
