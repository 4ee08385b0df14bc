-- 0010_report.sql - the report stage (daemon/stage_report.c): the mails
-- it sends or writes, and the patchwork checks it posts.
--
-- A notification is one mail of one kind to one recipient set.  Its row,
-- with the complete message, is written BEFORE anything is sent, so that
-- after a crash at any moment either there is no row (nothing was sent)
-- or the row's status says how far its delivery got:
--   pending  to be delivered (again, after a failed attempt)
--   sending  an attempt was under way; the message had not all been
--            handed over yet, so the server cannot have accepted it
--   handed   the whole message was handed over and the server's answer
--            not read yet: the mail may have been accepted
--   sent     accepted by the SMTP server (status_reason says when that
--            is inferred: a daemon that died while handed)
--   written  the .eml file is in the outbox directory
--   held     a significant report waiting for a moderator
--   failed   refused for good (an SMTP 5xx), with status_reason
-- role: "public" (the report itself) or "moderation" (the copy that asks
-- a moderator to release a held report).  transport: smtp or outbox.
ALTER TABLE notification ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE notification ADD COLUMN role TEXT NOT NULL DEFAULT 'public';
ALTER TABLE notification ADD COLUMN transport TEXT NOT NULL DEFAULT 'smtp';
ALTER TABLE notification ADD COLUMN subject TEXT;
ALTER TABLE notification ADD COLUMN message BLOB;
ALTER TABLE notification ADD COLUMN path TEXT;		-- the .eml file
ALTER TABLE notification ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE notification ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE notification ADD COLUMN sent_at INTEGER;
ALTER TABLE notification ADD COLUMN released_at INTEGER;
CREATE UNIQUE INDEX notification_key
	ON notification(series_id, kind, role, recipients);
CREATE INDEX notification_series ON notification(series_id, id);

-- One check per (series, patchwork patch, context): state is what the
-- check should say (pending, success, warning, fail), posted what
-- patchwork was last told (NULL: nothing yet).  A final state is never
-- replaced by pending.
CREATE TABLE patchwork_check (
	id		INTEGER PRIMARY KEY,
	series_id	INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
	api_url		TEXT NOT NULL,	-- patchwork's /api/ URL
	patch_id	INTEGER NOT NULL,	-- patchwork's
	context		TEXT NOT NULL,		-- kregress-x86_64
	state		TEXT NOT NULL,
	description	TEXT,
	target_url	TEXT,
	posted		TEXT,
	attempts	INTEGER NOT NULL DEFAULT 0,
	last_error	TEXT,
	updated_at	INTEGER NOT NULL,
	UNIQUE (series_id, patch_id, context)
);

-- The level of a comparison's confidence interval (1 - the alpha its
-- run's last look was tested at), so that a report labels it.
ALTER TABLE comparison ADD COLUMN ci_level REAL;
