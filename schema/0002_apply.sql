-- 0002_apply.sql - what the apply stage decided and how (issue 4).
--
-- The base a series was applied to, where that choice came from
-- (explicit, base-commit or branch: apply_base_source_str()) and why, in
-- words.  When the series does not apply, series.status is
-- 'does-not-apply' (an unsafe patch too: its status_reason then starts
-- with "rejected:") and these columns name the patch, file and hunk that
-- failed.  Per patch, the method that applied it: libgit2 or
-- git-apply-3way (apply_method_str()).

ALTER TABLE series ADD COLUMN base_used TEXT;		-- hex commit id
ALTER TABLE series ADD COLUMN base_source TEXT;
ALTER TABLE series ADD COLUMN base_reason TEXT;
ALTER TABLE series ADD COLUMN apply_failed_patch INTEGER;	-- 1-based
ALTER TABLE series ADD COLUMN apply_failed_file TEXT;
ALTER TABLE series ADD COLUMN apply_failed_hunk TEXT;

ALTER TABLE patch ADD COLUMN apply_method TEXT;
