-- 0007_arch_jobs.sql - builds and runs are jobs of one arch each, so that
-- an arch's boots start as soon as its kernels are built (pipeline.c);
-- job.arg, never used, becomes that arch (NULL: the series as a whole).
-- A workload names the metrics its seed is about; they are the ones that
-- decide when a run has seen enough (runner.c) and lead the report.
ALTER TABLE job RENAME COLUMN arg TO arch;
-- The clock a run's samples were measured with: real time, or the
-- instruction time of an emulated guest (plan.h, "clock").  Values of
-- two clocks are never compared with each other.
ALTER TABLE run ADD COLUMN clock TEXT NOT NULL DEFAULT 'real';
ALTER TABLE sample ADD COLUMN is_primary INTEGER NOT NULL DEFAULT 0;
ALTER TABLE comparison ADD COLUMN is_primary INTEGER NOT NULL DEFAULT 0;
