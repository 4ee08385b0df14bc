// api.js - the JSON API, as the pages read it.

export class ApiError extends Error {
	constructor(status, code, message) {
		super(message);
		this.status = status;
		this.code = code;
	}
}

// GET path (under /api/v1/) with query args; resolves to the parsed JSON.
export async function get(path, args) {
	const q = new URLSearchParams();
	for (const [k, v] of Object.entries(args || {}))
		if (v !== undefined && v !== null && v !== '')
			q.set(k, v);
	const url = '/api/v1/' + path + (q.toString() ? '?' + q : '');
	const r = await fetch(url, { headers: { Accept: 'application/json' } });
	let body = null;
	try {
		body = await r.json();
	} catch (e) {
		throw new ApiError(r.status, 'bad-json', url + ': not JSON');
	}
	if (!r.ok) {
		const e = body && body.error ? body.error : {};
		throw new ApiError(r.status, e.code || 'error',
				   e.message || r.statusText);
	}
	return body;
}
