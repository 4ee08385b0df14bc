-- 0015_calibration_guest.sql - a calibration holds for the guest image
-- it booted: guest is the SHA-256 of that initramfs (/init and the
-- workload binaries as packed, daemon/guest_image.h).  New workloads
-- measure differently, so a calibration of another image is not used by
-- a run and a new one is due ("new workloads").  Rows from before this
-- column have '' (an unknown image): they are history, not current.
ALTER TABLE calibration ADD COLUMN guest TEXT NOT NULL DEFAULT '';
