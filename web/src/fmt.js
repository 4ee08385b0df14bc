// fmt.js - how values, times, clocks, statuses and verdicts read.
import { h } from './dom.js';

// Verdicts, the most telling first: a series shows its first one.
export const VERDICTS = [
	'regression', 'improvement', 'likely-regression', 'likely-improvement',
	'inconclusive', 'layout-sensitive', 'minor', 'no-change',
	'insufficient-data',
];

const VERDICT_TONE = {
	'regression': 'bad', 'likely-regression': 'warn',
	'improvement': 'good', 'likely-improvement': 'good',
	'inconclusive': 'unsure', 'insufficient-data': 'unsure',
	'minor': 'quiet', 'no-change': 'quiet', 'layout-sensitive': 'quiet',
};

export const FAILED = ['fetch-failed', 'incomplete', 'does-not-apply',
	'build-failed', 'boot-failed', 'failed'];
export const FINAL = FAILED.concat(['done']);

export function verdictBadge(v) {
	if (!v)
		return h('span', { class: 'badge none' }, '—');
	return h('span', { class: 'badge v-' + (VERDICT_TONE[v] || 'quiet'),
			   title: 'verdict: ' + v }, v);
}

export function statusBadge(s) {
	const tone = FAILED.includes(s) ? 'bad' : s === 'done' ? 'good' : 'busy';
	return h('span', { class: 'badge s-' + tone, title: 'status: ' + s }, s);
}

// The most telling verdict of counts {"no-change": 20, ...}, or null.
export function topVerdict(counts) {
	if (!counts)
		return null;
	for (const v of VERDICTS)
		if (counts[v])
			return v;
	const k = Object.keys(counts);
	return k.length ? k[0] : null;
}

// A run's clock as the pages say it (run.clock of the API).
export function clockLabel(clock) {
	return clock === 'instructions' ? 'instruction time (emulated)'
					: 'real time';
}

function pad(n) {
	return String(n).padStart(2, '0');
}

// Unix seconds as "2026-12-01 14:20 UTC" with a relative hint.
export function time(sec) {
	if (sec === null || sec === undefined)
		return h('span', { class: 'muted' }, '—');
	const d = new Date(sec * 1000);
	const utc = d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' +
		pad(d.getUTCDate()) + ' ' + pad(d.getUTCHours()) + ':' +
		pad(d.getUTCMinutes()) + ' UTC';
	return h('time', { datetime: d.toISOString(), title: d.toISOString() },
		 utc, h('span', { class: 'rel' }, ' ' + relative(sec)));
}

export function relative(sec) {
	const s = Math.round(Date.now() / 1000 - sec);
	const a = Math.abs(s);
	const [n, u] = a < 90 ? [a, 's'] : a < 5400 ? [a / 60, 'min'] :
		a < 129600 ? [a / 3600, 'h'] : [a / 86400, 'd'];
	const t = Math.round(n) + ' ' + u;
	return s >= 0 ? '(' + t + ' ago)' : '(in ' + t + ')';
}

// A measured value: six significant digits, whole where that would need
// an exponent (numfmt.c's rule for the CLI and the mails), grouped.
export function num(v) {
	if (v === null || v === undefined || !isFinite(v))
		return '—';
	const a = Math.abs(v);
	if (a >= 1e15 || (a !== 0 && a < 1e-4))
		return v.toExponential(5).replace(/\.?0+e/, 'e');
	if (a >= 1e6)
		return Math.round(v).toLocaleString('en-US');
	return Number(v.toPrecision(6)).toLocaleString('en-US',
		{ maximumFractionDigits: 10 });
}

// An axis tick: five significant digits with an SI suffix.
export function tick(v) {
	if (v === null || v === undefined || !isFinite(v))
		return '';
	const a = Math.abs(v);
	for (const [d, u] of [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']])
		if (a >= d)
			return Number((v / d).toPrecision(5)) + u;
	return String(Number(v.toPrecision(5)));
}

// A change in percent: two decimals under 10%, one above, and two
// significant digits where two decimals would show a change that is not
// zero as 0.00 (numfmt.c's rule for the CLI and the mails).
export function pct(v) {
	if (v === null || v === undefined || !isFinite(v))
		return '—';
	const a = Math.abs(v);
	const text = a !== 0 && a < 0.005 ? String(Number(v.toPrecision(2))) :
		v.toFixed(a < 10 ? 2 : 1);
	return (v > 0 ? '+' : '') + text + '%';
}

export function pval(v) {
	if (v === null || v === undefined || !isFinite(v))
		return '—';
	return v < 1e-4 ? v.toExponential(1) : String(Number(v.toPrecision(3)));
}

// params {"thp": "always", "size-mb": 32} as "thp=always size-mb=32".
export function params(p) {
	if (!p || typeof p !== 'object')
		return p ? String(p) : '';
	return Object.entries(p).map(([k, v]) => k + '=' + v).join(' ');
}

export function shortCommit(c) {
	return c ? c.slice(0, 12) : '—';
}

export const FLAG_TEXT = {
	noisy: 'noisy: a side varies more between boots than the noise ' +
		'limit, or one side far more than the other',
	suspicious: 'suspicious: the two sides vary so differently that ' +
		'the test\'s assumptions may not hold',
};
