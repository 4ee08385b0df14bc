// page-series.js - one series: patches, base, live progress, per run the
// comparisons table and every per-boot value, boots and their console
// logs, the mails sent.
import { get } from './api.js';
import { h, fill, errorBox, shown } from './dom.js';
import { statusBadge, verdictBadge, topVerdict, time, clockLabel,
	 shortCommit, FINAL, FLAG_TEXT } from './fmt.js';
import { cards, key, table } from './metrics.js';

const POLL_MS = 5000;
let timer = null;

export async function render(main, id) {
	document.title = 'Series ' + id + ' · kregress';
	clearTimeout(timer);
	const head = h('div', { class: 'series-head' });
	const progress = h('section', { 'aria-labelledby': 'h-progress' });
	const runs = h('div', { class: 'runs' });
	const mails = h('section', { 'aria-labelledby': 'h-mails' });
	fill(main, head, progress, runs, mails);
	head.append(h('h1', {}, 'Series ' + id), h('p', { class: 'loading' },
		    'Loading…'));
	let last = {};
	const tick = async () => {
		let s, r, n;
		if (!head.isConnected)	// another page is shown now
			return;
		try {
			s = await get('series/' + id);
			const ids = s.runs.map((x) => x.id);
			[r, n] = await Promise.all([
				Promise.all(ids.map((x) => get('runs/' + x))),
				get('series/' + id + '/notifications'),
			]);
		} catch (e) {
			fill(head, h('h1', {}, 'Series ' + id), errorBox(e));
			return;
		}
		const sj = JSON.stringify(s), rj = JSON.stringify(r);
		if (sj !== last.s) {
			header(head, s);
			progressOf(progress, s);
		}
		if (sj !== last.s || rj !== last.r)
			runsOf(runs, s, r);
		mailsOf(mails, n.items);
		last = { s: sj, r: rj };
		const live = !FINAL.includes(s.status) ||
			s.runs.some((x) => x.status === 'running');
		if (live)
			timer = setTimeout(tick, POLL_MS);
	};
	await tick();
}

function lore(msgid) {
	return 'https://lore.kernel.org/r/' + encodeURIComponent(msgid);
}

function header(el, s) {
	const v = topVerdict(countVerdicts(s.comparisons, true)) ||
		  topVerdict(countVerdicts(s.comparisons, false));
	document.title = shown(s.subject || 'Series ' + s.id) + ' · kregress';
	fill(el,
	     h('h1', {}, s.subject || 'Series ' + s.id),
	     h('p', { class: 'badges' }, statusBadge(s.status), ' ',
	       verdictBadge(v), s.status_reason ?
	       h('span', { class: 'reason' }, ' ' + s.status_reason) : null),
	     h('dl', { class: 'facts' },
	       fact('Series', '#' + s.id + (s.version > 1 ? ' v' + s.version : '') +
		    (s.total ? ', ' + s.total + ' patches' : '')),
	       fact('Author', s.author),
	       fact('List', s.list),
	       fact('Thread', s.msgid ? h('a', { href: lore(s.msgid) },
					   s.msgid) : s.source_url),
	       fact('Tree', s.tree),
	       fact('Base', s.base_used ? h('span', {},
		    h('code', { title: s.base_used }, shortCommit(s.base_used)),
		    ' (' + (s.base_source || '?') + ')' +
		    (s.base_reason ? ': ' + s.base_reason : '')) : null),
	       s.apply_failed_patch ? fact('Does not apply',
		    'patch ' + s.apply_failed_patch + ', ' +
		    (s.apply_failed_file || '?') + ' ' +
		    (s.apply_failed_hunk || '')) : null,
	       fact('Submitted', time(s.created_at)),
	       fact('Updated', time(s.updated_at))),
	     s.patches.length ? h('section', { 'aria-labelledby': 'h-patches' },
	       h('h2', { id: 'h-patches' }, 'Patches'),
	       h('ol', { class: 'patches' }, s.patches.map((p) =>
		 h('li', { value: p.idx },
		   p.msgid ? h('a', { href: lore(p.msgid) }, p.subject) :
			     p.subject,
		   h('span', { class: 'sub' }, ' ', p.author || '',
		     p.applied_commit ? ' · applied as ' +
		     shortCommit(p.applied_commit) : '',
		     p.apply_method ? ' (' + p.apply_method + ')' : ''))))) :
	       null);
}

function fact(k, v) {
	if (v === null || v === undefined || v === '')
		return null;
	return [h('dt', {}, k), h('dd', {}, v)];
}

function countVerdicts(cmps, primaryOnly) {
	const out = {};
	for (const c of cmps || [])
		if (!primaryOnly || c.is_primary)
			out[c.verdict] = (out[c.verdict] || 0) + 1;
	return out;
}

function progressOf(el, s) {
	const builds = s.builds.map((b) => {
		const of = b.objects_expected;
		const done = b.objects_compiled;
		return h('tr', {},
			h('td', {}, b.id), h('td', {}, b.arch),
			h('td', {}, b.side || '—'),
			h('td', {}, h('code', {}, shortCommit(b.commit_id))),
			h('td', {}, statusBadge(b.status)),
			h('td', {}, b.cached ? 'cached' : done !== null ?
			  h('span', {}, h('progress', { max: of || done || 1,
			    value: done, 'aria-label': 'objects compiled' }),
			    ' ' + done + (of ? ' / ' + of : '') + ' objects') :
			  '—'),
			h('td', {}, b.new_warnings === null ? (b.warnings ?? '—') :
			  b.new_warnings + ' new of ' + b.warnings),
			h('td', { class: 'wrap' }, b.error_lines || b.status_reason ||
			  ''),
			h('td', {}, b.duration_ms ? (b.duration_ms / 1000).toFixed(0) +
			  ' s' : ''));
	});
	const boots = {};
	for (const b of s.boots)
		(boots[b.side] = boots[b.side] || []).push(b.n + ' ' + b.status);
	const live = !FINAL.includes(s.status);
	fill(el, h('details', { open: live },
	     h('summary', {}, h('h2', { id: 'h-progress' }, 'Progress'),
	       ' ', live ? 'live, updates every ' + POLL_MS / 1000 + ' s' :
	       s.jobs.length + ' jobs, ' + s.builds.length + ' builds'),
	     h('div', { class: 'table-wrap' }, h('table', { class: 'small',
		'aria-label': 'Jobs' },
		h('thead', {}, h('tr', {}, ['Stage', 'Arch', 'State', 'Attempts',
			'Last error', 'Updated'].map((t) =>
			h('th', { scope: 'col' }, t)))),
		h('tbody', {}, s.jobs.map((j) => h('tr', {},
			h('td', {}, j.kind), h('td', {}, j.arch || 'all'),
			h('td', {}, statusBadge(j.state)),
			h('td', {}, j.attempts + ' / ' + j.max_attempts),
			h('td', { class: 'wrap' }, j.last_error || ''),
			h('td', {}, time(j.updated_at))))))),
	     builds.length ? h('div', { class: 'table-wrap' }, h('table',
		{ class: 'small', 'aria-label': 'Builds' },
		h('thead', {}, h('tr', {}, ['Build', 'Arch', 'Side', 'Commit',
			'Status',
			'Objects', 'Warnings', 'Errors', 'Time'].map((t) =>
			h('th', { scope: 'col' }, t)))),
		h('tbody', {}, builds))) : null,
	     h('p', {}, 'Boots: ', Object.keys(boots).length ?
	       Object.entries(boots).map(([side, v]) => side + ' ' +
					 v.join(', ')).join('; ') : 'none yet')));
}

function runsOf(el, s, runs) {
	fill(el, runs.map((r) => {
		const cmps = s.comparisons.filter((c) => c.run_id === r.id)
			.sort((a, b) => (b.is_primary ? 1 : 0) -
				       (a.is_primary ? 1 : 0));
		const cmp = new Map(cmps.map((c) =>
			[key(c.workload, c.metric, c.params), c]));
		const seq = new Map(r.boots.map((b) => [b.id, b.seq]));
		const hosts = [...new Set(r.boots.map((b) => b.host)
			.filter(Boolean))];
		const summary = s.runs.find((x) => x.id === r.id) || {};
		const flags = [...new Set(cmps.flatMap((c) =>
			c.flags ? c.flags.split(',') : []))];
		// The layout control's run answers on the as-built rows.
		const aligned = summary.layout === 'aligned';
		const level = cmps.find((c) => c.ci_level) ?
			' at ' + Math.round(cmps.find((c) => c.ci_level)
				.ci_level * 100) + '%' : '';
		return h('section', { class: 'run', 'aria-labelledby': 'run-' + r.id },
			h('h2', { id: 'run-' + r.id }, r.arch + ' · ' + r.accel +
			  (hosts.length ? ' · ' + hosts.join(', ') : '') +
			  ' · ' + clockLabel(r.clock) +
			  (aligned ? ' · aligned kernels (layout control)' : '')),
			h('p', { class: 'sub' }, 'run ' + r.id + ' ' + r.status +
			  ' after ' + r.rounds + ' round' + (r.rounds === 1 ? '' : 's') +
			  ' (seed ' + r.seed + '); boots: base ' +
			  (summary.base_ok ?? '?') + ' ok, ' +
			  (summary.base_failed ?? '?') + ' failed; patched ' +
			  (summary.patched_ok ?? '?') + ' ok, ' +
			  (summary.patched_failed ?? '?') + ' failed' +
			  (summary.analyzed || aligned ? '' : ' (not analysed)'),
			  '. Every value is ' + clockLabel(r.clock) + '.'),
			cmps.length ? [table(cmps),
			  h('p', { class: 'legend' },
			    'N: complete boots per side; Base, Patched: medians ' +
			    'of the per-boot medians; Change and CI' + level +
			    ': percent of base, as the analysis stored them; ' +
			    'P: the test\'s p, P adj: adjusted over the series, ' +
			    'P Holm: Holm-adjusted (what a mail goes by). ' +
			    'The strip under each plot draws the CI against ' +
			    '±T = ' + r.threshold_pct + '% (stats.threshold_pct).'),
			  flags.length ? h('ul', { class: 'legend' },
			    flags.map((f) => h('li', {}, FLAG_TEXT[f] || f))) :
			  null] :
			  h('p', { class: 'muted' }, aligned ? 'The layout ' +
			    'control: base and patched rebuilt with every ' +
			    'function and loop aligned to 64 bytes; what it ' +
			    'found is on the comparisons of the run it checks.' :
			    'No comparisons for this run' +
			    (r.status === 'running' ? ' yet.' : '.')),
			h('h3', {}, 'Every boot, base against patched'),
			cards(r.metrics, { cmp, T: r.threshold_pct, clock: r.clock,
					   run: r.id,
					   xLabel: 'boot (ABBA order)',
					   xOf: (b) => seq.get(b) }),
			bootsTable(r));
	}));
}

function bootsTable(r) {
	return h('details', { class: 'boots' },
		h('summary', {}, 'Boots and console logs (' + r.boots.length + ')'),
		h('div', { class: 'table-wrap' }, h('table', { class: 'small',
			'aria-label': 'Boots of run ' + r.id },
		h('thead', {}, h('tr', {}, ['#', 'Side', 'Round', 'Status', 'Host',
			'Time', 'Console'].map((t) => h('th', { scope: 'col' }, t)))),
		h('tbody', {}, r.boots.map((b) => h('tr', {},
			h('td', {}, b.seq), h('td', {}, b.side),
			h('td', {}, b.round ?? ''),
			h('td', {}, statusBadge(b.status), b.status_reason ?
			  h('div', { class: 'sub wrap' }, b.status_reason) : null),
			h('td', {}, b.host || ''),
			h('td', {}, b.duration_ms ? (b.duration_ms / 1000).toFixed(1) +
			  ' s' : ''),
			h('td', {}, b.console ? h('a', { href: '/api/v1/boots/' +
			  b.id + '/console', class: 'console' }, 'log') :
			  '—')))))));
}

function mailsOf(el, items) {
	fill(el, h('h2', { id: 'h-mails' }, 'Mails'),
	     items.length ? h('ul', {}, items.map((n) => h('li', {},
		h('strong', {}, n.kind), ' to ' + n.recipients + ' — ',
		statusBadge(n.status), n.subject ? ' ' + n.subject : '',
		n.message_id ? h('div', { class: 'sub' }, n.message_id) : null,
		n.status_reason ? h('div', { class: 'sub' }, n.status_reason) :
		null))) : h('p', { class: 'muted' }, 'No mail sent.'));
}
