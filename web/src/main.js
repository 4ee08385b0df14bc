// main.js - the dashboard's entry: which page the path names, the
// navigation and the keys every page has.
import * as list from './page-list.js';
import * as series from './page-series.js';
import * as trends from './page-trends.js';
import * as hosts from './page-hosts.js';
import * as compare from './page-compare.js';
import { fill, errorBox } from './dom.js';

function route() {
	const main = document.getElementById('main');
	const path = location.pathname.replace(/\/+$/, '') || '/';
	let m, page = 'series';
	let p;
	if (path === '/' || path === '/series')
		p = list.render(main);
	else if ((m = path.match(/^\/series\/(\d+)$/)))
		p = series.render(main, m[1]);
	else if (path === '/trends')
		p = trends.render(main), page = 'trends';
	else if (path === '/hosts')
		p = hosts.render(main), page = 'hosts';
	else if (path === '/compare')
		p = compare.render(main), page = 'compare';
	else
		p = Promise.reject(new Error('No page at ' + path));
	for (const a of document.querySelectorAll('[data-nav]'))
		if (a.dataset.nav === page)
			a.setAttribute('aria-current', 'page');
		else
			a.removeAttribute('aria-current');
	// data-ready: the page has drawn what it loaded (the tests and the
	// benchmark wait for it).
	delete document.documentElement.dataset.ready;
	delete document.documentElement.dataset.readyMs;
	Promise.resolve(p).catch((e) => fill(main, errorBox(e)))
		.then(() => requestAnimationFrame(() => requestAnimationFrame(
			() => {
				const d = document.documentElement.dataset;
				d.readyMs = Math.round(performance.now());
				d.ready = page;
			})));
}

document.addEventListener('keydown', (e) => {
	if (e.key !== '/' || e.target.closest('input, select, textarea'))
		return;
	const s = document.getElementById('search');
	if (s) {
		e.preventDefault();
		s.focus();
		s.select();
	}
});
window.addEventListener('popstate', route);
route();
