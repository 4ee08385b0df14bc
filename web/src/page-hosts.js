// page-hosts.js - each host: probe, health, capacity, calibration.
import { get } from './api.js';
import { h, fill, errorBox } from './dom.js';
import { time, clockLabel, num } from './fmt.js';

export async function render(main) {
	document.title = 'Hosts · kregress';
	const body = h('tbody', {});
	fill(main, h('h1', {}, 'Hosts'), h('div', { class: 'table-wrap' },
		h('table', { class: 'list', 'aria-label': 'Hosts' },
		h('thead', {}, h('tr', {}, ['Host', 'Arch', 'Accel', 'Probe',
			'Health', 'Capacity', 'Boots', 'A/A calibration']
			.map((t) => h('th', { scope: 'col' }, t)))), body)));
	let r;
	try {
		r = await get('hosts');
	} catch (e) {
		main.append(errorBox(e));
		return;
	}
	fill(body, r.items.map((x) => h('tr', {},
		h('td', {}, h('strong', {}, x.name), h('div', { class: 'sub' },
		  x.uri)),
		h('td', {}, x.arch), h('td', {}, x.accel),
		h('td', {}, (x.cpu_model || '?') + ', ' + (x.cpus ?? '?') +
		  ' CPUs, ' + (x.memory_mib ?? '?') + ' MiB',
		  h('div', { class: 'sub' }, 'probed ', time(x.probed_at))),
		h('td', {}, x.healthy ? h('span', { class: 'badge s-good' },
		  'healthy') : [h('span', { class: 'badge s-bad' }, 'unhealthy'),
		  h('div', { class: 'sub' }, x.health_reason || '')]),
		h('td', {}, x.running + ' of ' + x.capacity + ' running'),
		h('td', {}, x.boots),
		h('td', {}, calibration(x.calibration)))));
	if (!r.items.length)
		body.append(h('tr', {}, h('td', { colspan: 8, class: 'muted' },
			'No host has been used yet.')));
}

// "K of N" false alarms.
function alarms(f) {
	return f.false_alarms + ' of ' + f.comparisons;
}

// One current calibration (db_calib.h's C): what it found on the
// primary metrics and the false alarms the host publishes.
function current(c) {
	const prim = c.metrics.filter((m) => m.is_primary);
	const thr = prim.map((m) => m.threshold_pct);
	const cvs = prim.map((m) => m.cv).filter((v) => v !== null)
		.sort((a, b) => a - b);
	const f = c.false_alarms;
	return h('div', {}, h('strong', {}, c.arch + ', ' +
		  clockLabel(c.clock)),
		' (' + c.boots_per_side + ' boots a side)',
		h('div', { class: 'sub' }, 'primary metrics: threshold ' +
		  (thr.length ? '±' + num(Math.min(...thr)) + '–' +
		   num(Math.max(...thr)) + '%' : '—') + ', median CV ' +
		  (cvs.length ? num(100 * cvs[cvs.length >> 1]) + '%' : '—')),
		h('div', { class: 'sub' }, 'false alarms: simulated ' +
		  alarms(f.simulated) + ', real ' + alarms(f.real) + ' (' +
		  f.real.calibrations + ' calibrations); target ≤ ' +
		  num(100 * f.target) + '% a metric'),
		h('div', { class: 'sub' }, 'done ', time(c.finished_at)));
}

// A host's calibration object of GET /api/v1/hosts, or null.
function calibration(cal) {
	if (!cal)
		return h('span', { class: 'muted' }, 'none recorded yet');
	const out = cal.current.map(current);
	const l = cal.last;
	if (l && l.status !== 'done')
		out.push(h('div', { class: 'sub' }, 'last: ' + l.arch + ' ' +
			   l.status + (l.status_reason ? ': ' +
			   l.status_reason : '')));
	return out;
}
