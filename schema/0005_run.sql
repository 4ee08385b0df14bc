-- 0005_run.sql - the run stage (daemon/stage_run.c): one run per series,
-- arch and accel, its boots in ABBA order and every raw sample they gave.
-- A run that a daemon crash interrupted stays as it was, marked
-- 'interrupted', with its boots; the job's next attempt starts a new run.
CREATE TABLE run (
	id		INTEGER PRIMARY KEY,
	series_id	INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
	arch		TEXT NOT NULL,
	accel		TEXT NOT NULL,		-- kvm or tcg: one per run
	seed		INTEGER NOT NULL,	-- of the ABBA order (int64 bits)
	plan		TEXT NOT NULL,		-- the kregress.plan= argument
	-- running, then decided, budget, no-host, no-samples or interrupted
	status		TEXT NOT NULL DEFAULT 'running',
	rounds		INTEGER NOT NULL DEFAULT 0,
	started_at	INTEGER NOT NULL,
	finished_at	INTEGER
);
CREATE INDEX run_series ON run(series_id, arch);

-- boot.status: running, ok, or the failure (panic, oops, hang, timeout,
-- stopped, error, garbled, incomplete, failed, interrupted).
ALTER TABLE boot ADD COLUMN run_id INTEGER REFERENCES run(id)
	ON DELETE CASCADE;
ALTER TABLE boot ADD COLUMN round INTEGER;
ALTER TABLE boot ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;
ALTER TABLE boot ADD COLUMN nonce TEXT;
ALTER TABLE boot ADD COLUMN domain TEXT;
ALTER TABLE boot ADD COLUMN started_at INTEGER;
CREATE UNIQUE INDEX boot_nonce ON boot(nonce);
CREATE INDEX boot_run ON boot(run_id, side);

-- One row per sample record of a complete boot; iterations are kept, the
-- per-boot median is the analysis' business.
ALTER TABLE sample ADD COLUMN params TEXT NOT NULL DEFAULT '{}';
ALTER TABLE sample ADD COLUMN unit TEXT NOT NULL DEFAULT '';
ALTER TABLE sample ADD COLUMN direction TEXT NOT NULL DEFAULT 'lower';

-- What the last probe found (host.accel is the accel it chose).
ALTER TABLE host ADD COLUMN cpu_model TEXT;
ALTER TABLE host ADD COLUMN cpus INTEGER;
ALTER TABLE host ADD COLUMN memory_mib INTEGER;

-- The analysis of a run: one row per (workload, metric, params).
-- p_adjusted follows stats.fdr_method (dashboard lists); p_holm is the
-- Holm-adjusted p that decides what is worth an email.
ALTER TABLE comparison ADD COLUMN run_id INTEGER REFERENCES run(id)
	ON DELETE CASCADE;
ALTER TABLE comparison ADD COLUMN params TEXT NOT NULL DEFAULT '{}';
ALTER TABLE comparison ADD COLUMN p_holm REAL;
