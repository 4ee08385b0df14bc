// dom.js - building elements without innerHTML (no markup from data).

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
			el.setAttribute(k, v === true ? '' : v);
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
			el.append(k instanceof Node ? k : String(k));
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
