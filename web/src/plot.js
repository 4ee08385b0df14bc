// plot.js - one metric's per-boot values, base against patched (uPlot),
// the interval the verdict was read from against ±T (SVG), and a metric's
// trend over runs with its host's noise band (uPlot).
import uPlot from 'uplot';
import { h } from './dom.js';
import { tick, num, pct } from './fmt.js';

const COLORS = { base: '#2f6fdf', patched: '#e5661a' };

// Every plot the page drew, for the browser tests: what uPlot was given.
const drawn = [];
window.kregressPlots = drawn;

const resize = new ResizeObserver((entries) => {
	for (const e of entries) {
		const u = e.target.uplot;
		if (u && e.contentRect.width > 0)
			u.setSize({ width: Math.floor(e.contentRect.width),
				    height: u.height });
	}
});

function median(v) {
	if (!v.length)
		return null;
	const s = v.slice().sort((a, b) => a - b), m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
export { median };

// What the marks of a values() plot are.
export function key() {
	const dot = (side) => h('span', { class: 'mark ' + side }, '●');
	return h('p', { class: 'key' }, dot('base'), ' base boots  ',
		 dot('patched'), ' patched boots  ',
		 h('span', { class: 'dash' }, '- - -'), ' medians');
}

/*
 * values(el, m, opt): el gets the plot of metric m, whose base and
 * patched are [{x, y, boot}] (one per complete boot); opt.medians
 * {base, patched} are drawn as lines (the API's medians), opt.yLabel
 * names the unit and the clock, opt.xLabel the x axis.
 */
export function values(el, m, opt) {
	const xs = [...new Set(m.base.concat(m.patched).map((p) => p.x))]
		.sort((a, b) => a - b);
	const at = new Map(xs.map((x, i) => [x, i]));
	const col = (pts) => {
		const a = new Array(xs.length).fill(null);
		for (const p of pts)
			a[at.get(p.x)] = p.y;
		return a;
	};
	const flat = (v) => xs.map(() => (v === null || v === undefined ?
					   null : v));
	const dots = (color) => ({
		stroke: color, fill: color, paths: () => null,
		points: { show: true, size: 7, width: 1, fill: color },
	});
	const line = (color) => ({
		stroke: color, width: 1.5, dash: [6, 4],
		points: { show: false }, spanGaps: true,
	});
	const data = [xs, col(m.base), col(m.patched),
		      flat(opt.medians.base), flat(opt.medians.patched)];
	const width = Math.max(240, Math.floor(el.clientWidth || 360));
	const u = new uPlot({
		width, height: 200,
		legend: { show: false },
		cursor: { points: { show: false }, drag: { x: false, y: false } },
		scales: { x: { time: false } },
		axes: [
			{ label: opt.xLabel, size: 36, labelSize: 18,
			  stroke: 'currentColor', grid: { stroke: '#8884' } },
			{ label: opt.yLabel, size: 70, labelSize: 18,
			  stroke: 'currentColor', grid: { stroke: '#8884' },
			  values: (u, ticks) => ticks.map(tick) },
		],
		series: [
			{ label: opt.xLabel },
			Object.assign({ label: 'base boots' }, dots(COLORS.base)),
			Object.assign({ label: 'patched boots' },
				      dots(COLORS.patched)),
			Object.assign({ label: 'base median' }, line(COLORS.base)),
			Object.assign({ label: 'patched median' },
				      line(COLORS.patched)),
		],
	}, data, el);
	el.uplot = u;
	resize.observe(el);
	drawn.push({ el, key: opt.key, run: opt.run, u });
	return u;
}

/*
 * The interval strip: the change and its CI (percent of base) on an axis
 * that shows ±T shaded around 0.  c is a comparison row of the API.
 */
export function interval(c, T) {
	const lo = c.ci_low_pct, hi = c.ci_high_pct, x = c.change_pct;
	const known = [lo, hi, x].every((v) => v !== null && isFinite(v));
	const W = 360, H = 34, pad = 8;
	const ns = 'http://www.w3.org/2000/svg';
	const svg = document.createElementNS(ns, 'svg');
	svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
	svg.setAttribute('class', 'ci');
	svg.setAttribute('role', 'img');
	const label = known ?
		`change ${pct(x)}, interval [${pct(lo)}, ${pct(hi)}] against ±${T}%` :
		`no interval (${c.verdict}) against ±${T}%`;
	svg.setAttribute('aria-label', label);
	const el = (tag, attrs) => {
		const e = document.createElementNS(ns, tag);
		for (const [k, v] of Object.entries(attrs))
			e.setAttribute(k, v);
		svg.append(e);
		return e;
	};
	const span = Math.max(2 * T, known ? Math.abs(lo) : 0,
			      known ? Math.abs(hi) : 0) * 1.1;
	const X = (v) => pad + (v + span) / (2 * span) * (W - 2 * pad);
	el('rect', { x: X(-T), y: 4, width: X(T) - X(-T), height: H - 8,
		     class: 'band' });
	el('line', { x1: X(0), x2: X(0), y1: 2, y2: H - 2, class: 'zero' });
	for (const t of [-T, T])
		el('line', { x1: X(t), x2: X(t), y1: 2, y2: H - 2, class: 't' });
	if (known) {
		el('line', { x1: X(lo), x2: X(hi), y1: H / 2, y2: H / 2,
			     class: 'bar' });
		el('circle', { cx: X(x), cy: H / 2, r: 4, class: 'dot' });
	}
	const t = document.createElementNS(ns, 'title');
	t.textContent = label;
	svg.prepend(t);
	return h('figure', { class: 'ci-wrap' }, svg,
		 h('figcaption', {}, label));
}

/*
 * trend(el, pts, opt): el gets the base medians of pts (trend points of
 * the API, oldest first) against their run's start, in opt.yLabel; with
 * opt.band (a fraction r), a band from median × (1 - r) to median ×
 * (1 + r) around every point.
 */
export function trend(el, pts, opt) {
	const r = opt.band;
	const edge = (sign) => pts.map((x) => (r === undefined ||
		x.median_base === null ? null :
		x.median_base * (1 + sign * r)));
	const data = [pts.map((x) => x.started_at),
		      pts.map((x) => x.median_base)];
	const series = [{ label: 'run started (UTC)' },
		{ label: 'base median', stroke: COLORS.base,
		  points: { show: true, size: 7 } }];
	if (r !== undefined) {
		data.push(edge(-1), edge(1));
		for (const side of ['low', 'high'])
			series.push({ label: 'noise band ' + side,
				      stroke: '#2f6fdf55', width: 1,
				      points: { show: false } });
	}
	const u = new uPlot({
		width: Math.max(300, el.clientWidth), height: 220,
		legend: { show: false },
		scales: { x: { time: true } },
		// "12-01 13:55": month-day and 24-hour UTC, as the table
		// beside it writes times (fmt.js time()), not uPlot's "1:55pm".
		axes: [{ stroke: 'currentColor', grid: { stroke: '#8884' },
			 label: 'run started (UTC)',
			 values: (u, ticks) => ticks.map((t) =>
				new Date(t * 1000).toISOString().slice(5, 16)
					.replace('T', ' ')) },
		       { label: opt.yLabel, size: 64, stroke: 'currentColor',
			 grid: { stroke: '#8884' },
			 values: (u, ticks) => ticks.map(num) }],
		series,
		bands: r === undefined ? [] :
			[{ series: [3, 2], fill: '#2f6fdf26' }],
		tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
	}, data, el);
	el.uplot = u;
	resize.observe(el);
	drawn.push({ el, key: opt.key, trend: true, band: r ?? null, u });
	return u;
}

// What the marks of a trend() plot are; band is the caption of its band.
export function trendKey(band) {
	const mark = (cls, c) => h('span', { class: 'mark ' + cls }, c);
	return h('p', { class: 'key' }, mark('base', '●'),
		 ' base median of a run',
		 band ? ['  ', mark('band', '■'), ' ', band] : null);
}
