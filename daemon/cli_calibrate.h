/*
 * cli_calibrate.h - "kregress calibrate": an A/A calibration of one host
 * by hand (calibrate.h), printed, and stored with -c CONFIG.
 */
#ifndef KREGRESS_CLI_CALIBRATE_H
#define KREGRESS_CLI_CALIBRATE_H

#define CLI_CALIBRATE_USAGE \
	"calibrate --host URI --arch A [--plan PLAN] [--kernel IMG] " \
	"[-c CONFIG] [--accel kvm|tcg] [--boots N] [--budget N] " \
	"[--simulations N] [--threshold PCT] [--seed N] [--changes PCT,...] " \
	"[--log-dir DIR] [--timeout S] [--json] | calibrate --replay FILE " \
	"[same figures' options]"

int cli_calibrate(int argc, char **argv);

#endif
