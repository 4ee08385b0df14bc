-- 0011_job_leases_lost.sql - a job's leases lost to a daemon that died
-- while running it (issue 15, item 11).  Such an attempt is not the
-- job's fault: it is given back uncounted, and counted here instead, so
-- that a job that keeps killing its daemon still stops (jobq.h).
ALTER TABLE job ADD COLUMN leases_lost INTEGER NOT NULL DEFAULT 0;
