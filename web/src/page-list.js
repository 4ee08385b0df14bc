// page-list.js - the series list: badges, filters, search, pages, keys.
import { get } from './api.js';
import { h, fill, errorBox, navigate } from './dom.js';
import { statusBadge, verdictBadge, topVerdict, time } from './fmt.js';

const FILTERS = ['status', 'list', 'tree', 'arch', 'verdict'];
const TEXT = ['author', 'q'];
const PAGE = 50;

function state() {
	const p = new URLSearchParams(location.search), s = {};
	for (const k of FILTERS.concat(TEXT, ['before', 'limit']))
		if (p.get(k))
			s[k] = p.get(k);
	return s;
}

function url(s) {
	const p = new URLSearchParams();
	for (const [k, v] of Object.entries(s))
		if (v)
			p.set(k, v);
	return '/' + (p.toString() ? '?' + p : '');
}

export async function render(main) {
	document.title = 'Series · kregress';
	const s = state();
	const form = h('form', { class: 'filters', role: 'search',
				 onsubmit: (e) => e.preventDefault() });
	const body = h('tbody', {});
	const table = h('table', { class: 'list', 'aria-label': 'Series' },
		h('thead', {}, h('tr', {},
			h('th', { scope: 'col', class: 'id' }, 'ID'),
			h('th', { scope: 'col' }, 'Series'),
			h('th', { scope: 'col', class: 'b' }, 'Status'),
			h('th', { scope: 'col', class: 'b' }, 'Verdict'),
			h('th', { scope: 'col', class: 'arch' }, 'Arches'),
			h('th', { scope: 'col', class: 'when' }, 'Updated'))),
		body);
	const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' });
	const note = h('p', { class: 'count', 'aria-live': 'polite' });
	fill(main, h('h1', {}, 'Series'), form, note,
	     h('div', { class: 'table-wrap' }, table), pager);
	for (let i = 0; i < 12; i++)	// keeps the height while loading
		body.append(h('tr', { class: 'skeleton' },
			      h('td', { colspan: 6 }, '\u00a0')));

	const go = (next) => navigate(url(next));
	const facets = get('facets').catch(() => ({}));
	const list = get('series', Object.assign({ limit: PAGE }, s));	// ?limit= wins

	const f = await facets;
	const plural = { status: 'statuses', list: 'lists', tree: 'trees',
			 arch: 'arches', verdict: 'verdicts' };
	for (const k of FILTERS) {
		const sel = h('select', { name: k, id: 'f-' + k,
			onchange: (e) => go(Object.assign({}, s,
				{ [k]: e.target.value, before: '' })) },
			h('option', { value: '' }, 'any'),
			(f[plural[k]] || []).map((v) =>
				h('option', { value: v, selected: v === s[k] }, v)));
		if (s[k] && !(f[plural[k]] || []).includes(s[k]))
			sel.append(h('option', { value: s[k], selected: true }, s[k]));
		form.append(h('label', { for: 'f-' + k }, k, sel));
	}
	for (const k of TEXT) {
		const input = h('input', {
			id: k === 'q' ? 'search' : 'f-' + k, name: k,
			type: k === 'q' ? 'search' : 'text', value: s[k] || '',
			placeholder: k === 'q' ? 'Search subjects  ( / )' :
						 'name or address',
			'aria-label': k === 'q' ? 'Search subjects' :
						  'Filter by author',
			autocomplete: 'off',
			onchange: (e) => go(Object.assign({}, s,
				{ [k]: e.target.value.trim(), before: '' })),
		});
		form.append(k === 'q' ? input :
			    h('label', { for: 'f-' + k }, k, input));
	}
	if (FILTERS.concat(TEXT).some((k) => s[k]))
		form.append(h('a', { href: '/', class: 'clear' },
			      'Clear filters'));

	let page;
	try {
		page = await list;
	} catch (e) {
		fill(body, h('tr', {}, h('td', { colspan: 6 }, errorBox(e))));
		return;
	}
	fill(body, page.items.map((it) => {
		const v = topVerdict(it.primary_verdicts) ||
			  topVerdict(it.verdicts);
		return h('tr', { dataset: { href: '/series/' + it.id } },
			h('td', { class: 'id' }, it.id),
			h('td', {},
				h('a', { href: '/series/' + it.id },
				  it.subject || it.source_url || '(no subject yet)'),
				h('div', { class: 'sub' }, it.author || '',
				  it.list ? ' · ' + it.list : '',
				  it.tree ? ' · ' + it.tree : '')),
			h('td', { class: 'b' }, statusBadge(it.status)),
			h('td', { class: 'b' }, verdictBadge(v)),
			h('td', { class: 'arch' }, (it.arches || []).join(' ')),
			h('td', { class: 'when' }, time(it.updated_at)));
	}));
	if (!page.items.length)
		body.append(h('tr', {}, h('td', { colspan: 6, class: 'muted' },
			'No series match.')));
	note.textContent = page.items.length + ' series' +
		(s.before ? ' older than ' + s.before : '') +
		(page.next_before ? ' (more on the next page)' : '');
	fill(pager,
	     s.before ? h('a', { href: url(Object.assign({}, s, { before: '' })) },
			  '← Newest') : null,
	     page.next_before ? h('a', { href: url(Object.assign({}, s,
			{ before: page.next_before })), rel: 'next' },
			'Older →') : null);
	keys(body);
}

// j/k move the selection, Enter opens it.
let keyHandler = null;
function keys(body) {
	const rows = () => [...body.querySelectorAll('tr[data-href]')];
	let cur = -1;
	const select = (i) => {
		const r = rows();
		if (!r.length)
			return;
		cur = Math.max(0, Math.min(r.length - 1, i));
		r.forEach((row, j) => {
			row.classList.toggle('selected', j === cur);
			row.setAttribute('aria-selected', j === cur);
		});
		r[cur].scrollIntoView({ block: 'nearest' });
	};
	if (keyHandler)
		document.removeEventListener('keydown', keyHandler);
	keyHandler = (e) => {
		if (e.target.closest('input, select, textarea') || e.ctrlKey ||
		    e.metaKey || e.altKey)
			return;
		if (e.key === 'j')
			select(cur + 1);
		else if (e.key === 'k')
			select(cur - 1);
		else if (e.key === 'Enter' && cur >= 0)
			location.href = rows()[cur].dataset.href;
	};
	document.addEventListener('keydown', keyHandler);
}
