-- 0008_versions.sql - versions of one series followed over time (issue
-- 16, daemon/db_versions.c) and what the fetch stage found in a thread.
--
-- Two series rows are versions of one series when they share a change-id,
-- or, when either lacks one, their title (the subject without its
-- [PATCH ...] prefix) and author address, as b4 matches them.  The fetch
-- stage links a version to the nearest lower one (previous_id), and a
-- newer complete version supersedes an older one whose work is not done:
-- its status becomes 'superseded', superseded_by names the newer row, and
-- its queued jobs are cancelled with that reason.  problems holds what
-- series.c said of the thread, one a line.
ALTER TABLE series ADD COLUMN title TEXT;
ALTER TABLE series ADD COLUMN author_email TEXT;
ALTER TABLE series ADD COLUMN previous_id INTEGER
	REFERENCES series(id) ON DELETE SET NULL;
ALTER TABLE series ADD COLUMN superseded_by INTEGER
	REFERENCES series(id) ON DELETE SET NULL;
ALTER TABLE series ADD COLUMN problems TEXT;
CREATE INDEX series_title ON series(title, author_email);
CREATE INDEX series_previous ON series(previous_id);

-- What a patch changes (series.h: its fingerprint), to find the patches a
-- newer version leaves unchanged.
ALTER TABLE patch ADD COLUMN fingerprint TEXT;
CREATE INDEX patch_fingerprint ON patch(fingerprint);

-- The trailers of a patch: given to it in its thread (from_series NULL,
-- from_version NULL), carried over in its thread from the unchanged
-- patch of an older revision (from_version), or carried over from the
-- unchanged patch of an earlier version's row (from_series).
CREATE TABLE patch_trailer (
	id		INTEGER PRIMARY KEY,
	patch_id	INTEGER NOT NULL REFERENCES patch(id) ON DELETE CASCADE,
	name		TEXT NOT NULL,
	value		TEXT NOT NULL,
	message_id	TEXT,
	from_version	INTEGER,
	from_series	INTEGER REFERENCES series(id) ON DELETE SET NULL,
	UNIQUE (patch_id, name, value)
);
