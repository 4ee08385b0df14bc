// dom.js - building elements without innerHTML (no markup from data).

// Text from mail (a Subject, an author, a hunk heading) may hold controls:
// every string a page shows has them escaped as the CLI and the daemon's
// log escape them (daemon/escape.h), C0 controls and DEL as \x1b, C1 and
// bidi controls as \u009b, \u202e; line feeds and tabs stay, for the
// build's error lines.
const CONTROLS = new RegExp('[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f' +
	'\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]', 'g');

export function shown(text) {
	return String(text).replace(CONTROLS, (c) => {
		const n = c.charCodeAt(0);

		return n <= 0x7f ? '\\x' + n.toString(16).padStart(2, '0') :
			'\\u' + n.toString(16).padStart(4, '0');
	});
}

// h('a', {href: '/x', class: 'y'}, 'text', child, [children]...)
export function h(tag, attrs, ...kids) {
	const el = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v === undefined || v === null || v === false)
			continue;
		if (k.startsWith('on'))
			el.addEventListener(k.slice(2), v);
		else if (k === 'dataset')
			Object.assign(el.dataset, v);
		else
			el.setAttribute(k, v === true ? '' : shown(v));
	}
	add(el, kids);
	return el;
}

function add(el, kids) {
	for (const k of kids) {
		if (k === undefined || k === null || k === false)
			continue;
		if (Array.isArray(k))
			add(el, k);
		else
			el.append(k instanceof Node ? k : shown(k));
	}
}

// Replaces the children of el.
export function fill(el, ...kids) {
	el.replaceChildren();
	add(el, kids);
	return el;
}

// What went wrong, in the page and (for whoever watches) on the console.
export function errorBox(err) {
	console.error(err);
	return h('p', { class: 'error', role: 'alert' },
		 err && err.message ? err.message : String(err));
}

// Goes to url within the dashboard: the history entry, then the page
// (main.js renders on popstate).
export function navigate(url) {
	history.pushState(null, '', url);
	window.dispatchEvent(new PopStateEvent('popstate'));
}
