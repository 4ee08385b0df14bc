-- 0014_layout.sql - the layout control (daemon/stage_layout.c): a
-- significant change is measured again with base and patched rebuilt
-- with fixed function and loop alignment (layout.h).  The builds and the
-- run of the control are ordinary rows with layout 'aligned'; the series'
-- own are 'as-built'.
--
-- series_build gets the layout in its key, so a series links a base and
-- a patched build per arch and layout (the table is made again: SQLite
-- cannot change a primary key).
CREATE TABLE series_build_layout (
	series_id	INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
	build_id	INTEGER NOT NULL REFERENCES build(id),
	arch		TEXT NOT NULL,
	side		TEXT NOT NULL CHECK (side IN ('base', 'patched')),
	cached		INTEGER NOT NULL DEFAULT 0,
	duration_ms	INTEGER,
	layout		TEXT NOT NULL DEFAULT 'as-built'
			CHECK (layout IN ('as-built', 'aligned')),
	PRIMARY KEY (series_id, arch, layout, side)
);
INSERT INTO series_build_layout (series_id, build_id, arch, side, cached,
				 duration_ms)
	SELECT series_id, build_id, arch, side, cached, duration_ms
	FROM series_build;
DROP TABLE series_build;
ALTER TABLE series_build_layout RENAME TO series_build;

ALTER TABLE run ADD COLUMN layout TEXT NOT NULL DEFAULT 'as-built';

-- On an as-built comparison the control found significant: layout is
-- 'confirmed' (the aligned kernels show the change too),
-- 'layout-sensitive' (they do not: verdict then says so, and
-- verdict_as_built keeps what the as-built kernels gave) or
-- 'unconfirmed' (the control could not tell: layout_reason says why).
-- NULL: no control was needed or made (layout_reason may say why not).
-- layout_verdict, layout_change_pct and its interval are the aligned
-- run's (layout_run_id) comparison of the same metric.
ALTER TABLE comparison ADD COLUMN layout TEXT;
ALTER TABLE comparison ADD COLUMN layout_reason TEXT;
ALTER TABLE comparison ADD COLUMN verdict_as_built TEXT;
ALTER TABLE comparison ADD COLUMN layout_run_id INTEGER REFERENCES run(id)
	ON DELETE SET NULL;
ALTER TABLE comparison ADD COLUMN layout_verdict TEXT;
ALTER TABLE comparison ADD COLUMN layout_change_pct REAL;
ALTER TABLE comparison ADD COLUMN layout_ci_low_pct REAL;
ALTER TABLE comparison ADD COLUMN layout_ci_high_pct REAL;
