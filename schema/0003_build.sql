-- 0003_build.sql - what a build result carries besides its status
-- (daemon/build.h, struct build_result).  build.config_hash stays the key
-- of the configuration inputs (base + fragments), so that a finished build
-- is found before anything runs; the effective .config's own hash is
-- stored next to it.
ALTER TABLE build ADD COLUMN effective_config_hash TEXT;
ALTER TABLE build ADD COLUMN cached INTEGER NOT NULL DEFAULT 0;
ALTER TABLE build ADD COLUMN cold INTEGER NOT NULL DEFAULT 0;
ALTER TABLE build ADD COLUMN objects_compiled INTEGER;	-- CC lines
ALTER TABLE build ADD COLUMN objects_expected INTEGER;	-- last cold build
ALTER TABLE build ADD COLUMN warnings INTEGER;
ALTER TABLE build ADD COLUMN new_warnings INTEGER;	-- NULL: no base build
ALTER TABLE build ADD COLUMN new_warning_lines TEXT;
ALTER TABLE build ADD COLUMN error_lines TEXT;		-- first error lines
ALTER TABLE build ADD COLUMN dropped_options TEXT;	-- fragment lines lost
ALTER TABLE build ADD COLUMN cpu_ms INTEGER;
ALTER TABLE build ADD COLUMN artefact_dir TEXT;
