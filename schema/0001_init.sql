-- 0001_init.sql - the data model of DESIGN.md section 4.
--
-- Times are Unix seconds (INTEGER, UTC).  Large artefacts (images, logs)
-- live in files, under the state directory or the build cache; columns
-- hold their absolute paths.  Every failure state carries its reason in a
-- column of the row it fails.

CREATE TABLE tree (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL UNIQUE,
	path		TEXT NOT NULL,
	branch		TEXT NOT NULL DEFAULT 'master',
	created_at	INTEGER NOT NULL
);

-- status follows the pipeline: queued, fetching, fetched, applying,
-- applied, building, built, running, ran, analyzing, done; or a failure
-- state (fetch-failed, incomplete, does-not-apply, build-failed,
-- boot-failed, failed) with status_reason saying why.
CREATE TABLE series (
	id		INTEGER PRIMARY KEY,
	msgid		TEXT,
	list		TEXT,
	subject		TEXT,
	author		TEXT,
	version		INTEGER NOT NULL DEFAULT 1,
	total		INTEGER NOT NULL DEFAULT 0,
	change_id	TEXT,
	base_commit	TEXT,
	source_url	TEXT,
	mbox		BLOB,		-- submitted mbox, when not a URL
	tree_id		INTEGER REFERENCES tree(id),
	status		TEXT NOT NULL DEFAULT 'queued',
	status_reason	TEXT,
	created_at	INTEGER NOT NULL,
	updated_at	INTEGER NOT NULL
);
CREATE INDEX series_status ON series(status, id);
CREATE INDEX series_msgid ON series(msgid);
CREATE INDEX series_change_id ON series(change_id);

CREATE TABLE patch (
	id		INTEGER PRIMARY KEY,
	series_id	INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
	idx		INTEGER NOT NULL,	-- M of M/N; 0 = cover letter
	msgid		TEXT,
	subject		TEXT,
	author		TEXT,
	date		INTEGER,
	raw		BLOB,
	applied_commit	TEXT,
	UNIQUE (series_id, idx)
);

CREATE TABLE build (
	id		INTEGER PRIMARY KEY,
	tree_id		INTEGER REFERENCES tree(id),
	commit_id	TEXT NOT NULL,
	arch		TEXT NOT NULL,
	config_hash	TEXT NOT NULL,
	status		TEXT NOT NULL DEFAULT 'queued',
	status_reason	TEXT,
	log_path	TEXT,
	image_path	TEXT,
	started_at	INTEGER,
	duration_ms	INTEGER,
	UNIQUE (commit_id, arch, config_hash)
);

CREATE TABLE host (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL UNIQUE,
	uri		TEXT NOT NULL,
	arch		TEXT NOT NULL,
	accel		TEXT NOT NULL,		-- kvm or tcg, as probed
	capacity	INTEGER NOT NULL DEFAULT 1,
	healthy		INTEGER NOT NULL DEFAULT 1,
	health_reason	TEXT,
	probed_at	INTEGER
);

CREATE TABLE boot (
	id		INTEGER PRIMARY KEY,
	series_id	INTEGER REFERENCES series(id) ON DELETE CASCADE,
	build_id	INTEGER NOT NULL REFERENCES build(id),
	host_id		INTEGER REFERENCES host(id),
	side		TEXT NOT NULL CHECK (side IN ('base', 'patched')),
	seq		INTEGER NOT NULL,	-- position in the ABBA order
	status		TEXT NOT NULL DEFAULT 'queued',
	status_reason	TEXT,
	console_path	TEXT,
	duration_ms	INTEGER
);
CREATE INDEX boot_series ON boot(series_id, side);

CREATE TABLE sample (
	id		INTEGER PRIMARY KEY,
	boot_id		INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,
	workload	TEXT NOT NULL,
	metric		TEXT NOT NULL,
	iteration	INTEGER NOT NULL,
	value		REAL NOT NULL
);
CREATE INDEX sample_boot ON sample(boot_id, workload, metric);

CREATE TABLE comparison (
	id		INTEGER PRIMARY KEY,
	series_id	INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
	arch		TEXT NOT NULL,
	host_id		INTEGER REFERENCES host(id),
	workload	TEXT NOT NULL,
	metric		TEXT NOT NULL,
	unit		TEXT NOT NULL,
	direction	TEXT NOT NULL CHECK (direction IN ('lower', 'higher')),
	n_base		INTEGER NOT NULL,
	n_new		INTEGER NOT NULL,
	median_base	REAL,
	median_new	REAL,
	change_pct	REAL,
	ci_low_pct	REAL,
	ci_high_pct	REAL,
	p_value		REAL,
	p_adjusted	REAL,
	verdict		TEXT NOT NULL,
	flags		TEXT NOT NULL DEFAULT ''
);
CREATE INDEX comparison_series ON comparison(series_id);

CREATE TABLE notification (
	id		INTEGER PRIMARY KEY,
	series_id	INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
	kind		TEXT NOT NULL,
	recipients	TEXT NOT NULL,
	message_id	TEXT,
	status		TEXT NOT NULL DEFAULT 'pending',
	status_reason	TEXT,
	attempts	INTEGER NOT NULL DEFAULT 0
);

-- The work queue.  A job is claimed by setting lease_owner and
-- lease_expires; the owner heartbeats by extending lease_expires.  At
-- start-up every lease not held by the running daemon is released.
CREATE TABLE job (
	id		INTEGER PRIMARY KEY,
	kind		TEXT NOT NULL,
	series_id	INTEGER REFERENCES series(id) ON DELETE CASCADE,
	arg		TEXT,			-- kind-specific JSON
	state		TEXT NOT NULL DEFAULT 'queued'
			CHECK (state IN ('queued', 'running', 'done', 'failed')),
	attempts	INTEGER NOT NULL DEFAULT 0,
	max_attempts	INTEGER NOT NULL DEFAULT 5,
	not_before	INTEGER NOT NULL DEFAULT 0,
	lease_owner	TEXT,
	lease_expires	INTEGER,
	last_error	TEXT,
	created_at	INTEGER NOT NULL,
	updated_at	INTEGER NOT NULL
);
CREATE INDEX job_ready ON job(state, not_before, id);
CREATE INDEX job_series ON job(series_id);

CREATE TABLE api_token (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL UNIQUE,
	token_sha256	TEXT NOT NULL,
	created_at	INTEGER NOT NULL
);
