/*
 * cli_initramfs.h - "kregress initramfs": pack the guest's initramfs.
 */
#ifndef KREGRESS_CLI_INITRAMFS_H
#define KREGRESS_CLI_INITRAMFS_H

#define CLI_INITRAMFS_USAGE \
	"initramfs [--gzip] (--out FILE | --cache DIR) [--workloads DIR] " \
	"[--plan FILE] [SRC:DST[:MODE]]..."

/* A cli_command: writes (or finds cached) an archive, prints its path. */
int cli_initramfs(int argc, char **argv);

#endif
