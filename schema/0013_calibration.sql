-- 0013_calibration.sql - A/A calibration per host (daemon/calibrate.c):
-- the base booted against itself in the runs' ABBA design, and what its
-- per-boot values say about the host's noise, per (host, arch, accel,
-- plan, clock) and metric.
--
-- status: running, then done, failed (status_reason says why) or
-- interrupted (a daemon stop or crash; the next attempt starts a new
-- row).  reason says why it was made: new host, new plan, new base,
-- schedule, by hand.  build_id is the base it booted.  The design of the
-- runs it stands for (alpha, budget, the configured threshold, min
-- samples) is recorded with it, because its figures depend on them.
CREATE TABLE calibration (
	id		INTEGER PRIMARY KEY,
	host_id		INTEGER NOT NULL REFERENCES host(id),
	arch		TEXT NOT NULL,
	accel		TEXT NOT NULL,
	clock		TEXT NOT NULL,		-- real or instructions
	plan		TEXT NOT NULL,		-- the kregress.plan= argument
	build_id	INTEGER NOT NULL REFERENCES build(id),
	reason		TEXT NOT NULL,
	status		TEXT NOT NULL DEFAULT 'running',
	status_reason	TEXT,
	seed		INTEGER NOT NULL,	-- ABBA order and resampling
	boots_per_side	INTEGER NOT NULL,	-- asked for
	alpha		REAL NOT NULL,
	budget		INTEGER NOT NULL,	-- the runs' boots per side
	threshold_pct	REAL NOT NULL,		-- configured practical T
	min_samples	INTEGER NOT NULL,
	simulations	INTEGER NOT NULL,	-- resampled A/A runs
	target		REAL NOT NULL,		-- false-alarm rate aimed at
	boot_ms		INTEGER,		-- median wall time of a boot
	started_at	INTEGER NOT NULL,
	finished_at	INTEGER
);
CREATE INDEX calibration_host ON calibration(host_id, arch, accel, clock,
					      status, id);

-- Per metric: the noise (cv over every boot, both sides are the same
-- kernel), false alarms of the verdict rules on resampled A/A runs of the
-- design and on the real boots replayed through it, and the thresholds:
-- resolve_pct (no-change reachable at the budget), alarm_pct (false
-- alarms at most target at any look), threshold_pct (what runs use: the
-- largest of those and the configured one), detectable_pct (the smallest
-- change found with 80% power by the budget; NULL beyond 100%).
CREATE TABLE calibration_metric (
	calibration_id	INTEGER NOT NULL REFERENCES calibration(id)
			ON DELETE CASCADE,
	workload	TEXT NOT NULL,
	metric		TEXT NOT NULL,
	params		TEXT NOT NULL,
	unit		TEXT NOT NULL,
	direction	TEXT NOT NULL,
	is_primary	INTEGER NOT NULL,
	n		INTEGER NOT NULL,	-- boots with a value
	median		REAL,
	cv		REAL,
	comparisons	INTEGER NOT NULL,	-- simulated
	false_alarms	INTEGER NOT NULL,
	significant	INTEGER NOT NULL,	-- minor included
	stop_mean	REAL,			-- boots per side at the stop
	real_comparisons INTEGER NOT NULL,
	real_false_alarms INTEGER NOT NULL,
	real_verdict	TEXT,			-- of the first real replay
	resolve_pct	REAL,
	alarm_pct	REAL,
	threshold_pct	REAL NOT NULL,
	detectable_pct	REAL,
	PRIMARY KEY (calibration_id, workload, metric, params)
);

-- A calibration's boots are boots: they take room on their host like a
-- run's (the capacity checks see them) and keep their samples.
ALTER TABLE boot ADD COLUMN calibration_id INTEGER REFERENCES calibration(id)
	ON DELETE CASCADE;
CREATE INDEX boot_calibration ON boot(calibration_id);

-- The calibrations a run used (one per host that had one), so that its
-- analysis applies the same thresholds and noise references as its looks.
CREATE TABLE run_calibration (
	run_id		INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
	calibration_id	INTEGER NOT NULL REFERENCES calibration(id),
	PRIMARY KEY (run_id, calibration_id)
);

-- The practical threshold a comparison was decided with, and the
-- calibration it came from (NULL: the configured stats.threshold_pct).
ALTER TABLE comparison ADD COLUMN threshold_pct REAL;
ALTER TABLE comparison ADD COLUMN calibration_id INTEGER
	REFERENCES calibration(id);
