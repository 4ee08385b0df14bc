// page-hosts.js - each host: probe, health, capacity, calibration.
import { get } from './api.js';
import { h, fill, errorBox } from './dom.js';
import { time } from './fmt.js';

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
		h('td', {}, x.calibration ? JSON.stringify(x.calibration) :
		  h('span', { class: 'muted' }, 'none recorded yet')))));
	if (!r.items.length)
		body.append(h('tr', {}, h('td', { colspan: 8, class: 'muted' },
			'No host has been used yet.')));
}
