-- 0006_run_design.sql - the adaptive design a run was carried out with:
-- its overall alpha and its budget of boots per side.  The analysis
-- replays the run's looks (boot.round) with them, so the final test uses
-- the alpha the last look had, not the overall one.  NULL for runs from
-- before this migration: they are analysed at the configured alpha.
ALTER TABLE run ADD COLUMN alpha REAL;
ALTER TABLE run ADD COLUMN max_per_side INTEGER;
