-- 0004_series_build.sql - which builds the build stage made for a series
-- (daemon/stage_build.c): per arch, the base build and the patched build.
-- A build row is shared by every series with the same (commit, arch,
-- config) — the base of many series — so the link is its own table.
CREATE TABLE series_build (
	series_id	INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
	build_id	INTEGER NOT NULL REFERENCES build(id),
	arch		TEXT NOT NULL,
	side		TEXT NOT NULL CHECK (side IN ('base', 'patched')),
	PRIMARY KEY (series_id, arch, side)
);
