/*
 * cli_watch.h - `kregress lists poll` (one poll of the watched lists) and
 * `kregress lists watch` (the daemon's watcher loop, in the foreground).
 */
#ifndef KREGRESS_CLI_WATCH_H
#define KREGRESS_CLI_WATCH_H

/* kregress lists poll -c CONFIG [--force] [--rounds N]; see cli_watch.c. */
int cli_lists_poll(int argc, char **argv);

#define CLI_LISTS_POLL_USAGE "lists poll -c CONFIG [--force] [--rounds N]"

/* kregress lists watch -c CONFIG [--for SECONDS]: the watcher loop. */
int cli_lists_watch(int argc, char **argv);

#define CLI_LISTS_WATCH_USAGE "lists watch -c CONFIG [--for SECONDS]"

#endif
