-- 0012_series_build_cached.sql - what a series got of a build (issue 15,
-- item 12).  A build row is shared by the series that need its commit;
-- its record is written once, when the build ends.  A later series that
-- reuses it (a cache hit) records that here, on its own link, with the
-- seconds its build job took, instead of rewriting the build's row.
ALTER TABLE series_build ADD COLUMN cached INTEGER NOT NULL DEFAULT 0;
ALTER TABLE series_build ADD COLUMN duration_ms INTEGER;
