-- 0009_watch_pending.sql - the threads the list watcher waits on (issue
-- 16, daemon/watch.c): an incomplete series seen in a list's feed, kept
-- until its missing patches come or its wait (incomplete_wait_s from
-- first_seen) is over, so that a restart neither forgets it nor starts
-- its wait again.
CREATE TABLE watch_pending (
	list		TEXT NOT NULL,		-- config list name
	thread		TEXT NOT NULL,		-- its key: a Message-ID
	url		TEXT NOT NULL,		-- a message URL of the thread
	first_seen	INTEGER NOT NULL,	-- Unix seconds
	last_checked	INTEGER NOT NULL,
	PRIMARY KEY (list, thread)
);
