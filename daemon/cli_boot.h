/*
 * cli_boot.h - the runner's subcommands (boot, host probe, host reap).
 */
#ifndef KREGRESS_CLI_BOOT_H
#define KREGRESS_CLI_BOOT_H

/* kregress boot --kernel IMG --arch A --initrd FILE [...] */
int cli_boot(int argc, char **argv);
/* kregress host probe URI [--kernel IMG --initrd FILE] */
int cli_host_probe(int argc, char **argv);
/* kregress host reap [URI]: destroy leftover kregress-* domains */
int cli_host_reap(int argc, char **argv);

/* kregress ab --base IMG --patched IMG --initrd F --arch A --plan P ... */
int cli_ab(int argc, char **argv);

#endif
