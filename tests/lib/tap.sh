# tap.sh - the TAP side of every shell test, sourced first (in the manner
# of git's t/test-lib.sh).
#
# A test is a story: set something up, check what a user would check,
# one `ok`/`is`/`like`/`check` per check, `done_testing` at the end.
#
#   plan N              announce N checks before the first (optional: else
#                       done_testing prints the count it saw)
#   ok STATUS DESC      a check from an exit status: 0 passes
#   is GOT WANT DESC    GOT and WANT are the same string
#   like TEXT STR DESC  TEXT contains the fixed string STR
#   check DESC CMD...   runs CMD: its exit status is the check; its output
#                       goes to $tmp/check.out, and is printed if it failed
#   skip REASON [N]     N checks (default 1) that cannot run here:
#                       "ok N # SKIP REASON"
#   skip_all REASON     nothing can run here: "1..0 # SKIP REASON", exit 0
#   bail_out REASON     the test cannot go on: "Bail out! REASON", exit 1
#   at_exit CMD         CMD (a string, evaluated then) runs at exit; every
#                       registered command runs once, the last first
#   wait_for SECONDS CMD...  runs CMD until it succeeds (0), at most for
#                       SECONDS (then 1, saying so on stderr)
#   wait_pid SECONDS PID  waits for PID (a child of the test) to end, at
#                       most for SECONDS: its exit status, or 124 after
#                       SIGKILL when it did not end (a bound, not a timing)
#   done_testing        ends the test: the plan if none was given, exit 1
#                       if any check failed
#
# A failed is/like prints what it got and what it wanted on stderr, where
# prove shows it; $tap_failed counts the failed checks so far (for a test
# that prints a log when something failed).  $tmp is a fresh directory,
# removed at exit unless KEEP_TMP is set.

tap_count=0
tap_failed=0
tap_planned=
tap_exits=()

plan() {
	tap_planned=$1
	echo "1..$1"
}

# tap_result STATUS DESC: the one place a check's line is printed; a
# failure also says where the test made the check.
tap_result() {
	local i
	tap_count=$((tap_count + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_count - $2"
		return 0
	fi
	echo "not ok $tap_count - $2"
	tap_failed=$((tap_failed + 1))
	for ((i = 1; i < ${#BASH_SOURCE[@]} - 1; i++)); do
		[ "${BASH_SOURCE[i]}" = "${BASH_SOURCE[0]}" ] || break
	done
	echo "#   Failed test '$2'" >&2
	echo "#   at ${BASH_SOURCE[i]##*/} line ${BASH_LINENO[i - 1]}." >&2
	return 1
}

# tap_show LABEL TEXT: TEXT as "#" lines on stderr (40 at most), the
# first labelled.
tap_show() {
	local label=$1 line
	while IFS= read -r line; do
		printf '# %10s %s\n' "$label" "$line" >&2
		label=
	done < <(head -40 <<<"$2")
}

ok() {
	tap_result "$1" "$2"
}

is() {
	if [ "$1" = "$2" ]; then
		tap_result 0 "$3"
	else
		tap_result 1 "$3"
		tap_show "got:" "'$1'"
		tap_show "expected:" "'$2'"
	fi
}

like() {
	if [[ $1 == *"$2"* ]]; then
		tap_result 0 "$3"
	else
		tap_result 1 "$3"
		tap_show "got:" "$1"
		tap_show "to contain:" "$2"
	fi
}

check() {
	local desc=$1 rc
	shift
	"$@" >"$tmp/check.out" 2>&1
	rc=$?
	tap_result $rc "$desc"
	[ $rc = 0 ] || tap_show "output:" "$(cat "$tmp/check.out")"
}

skip() {
	local i
	for ((i = 0; i < ${2:-1}; i++)); do
		tap_count=$((tap_count + 1))
		echo "ok $tap_count # SKIP $1"
	done
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

bail_out() {
	echo "Bail out! $*"
	exit 1
}

at_exit() {
	tap_exits+=("$1")
}

# The EXIT trap: registered commands, last first, each once.
tap_exit() {
	local rc=$? i cmd
	trap - EXIT
	for ((i = ${#tap_exits[@]} - 1; i >= 0; i--)); do
		cmd=${tap_exits[i]}
		unset 'tap_exits[i]'
		eval "$cmd" >/dev/null 2>&1
	done
	exit $rc
}
trap tap_exit EXIT

wait_for() {
	local limit=$(($1 * 10)) i
	shift
	for ((i = 0; i < limit; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	echo "# wait_for: gave up after $((limit / 10)) s: $*" >&2
	return 1
}

# pid_ended PID: PID is gone or a zombie (ended, not yet waited for)
pid_ended() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$st" ] || [ "${st%% *}" = Z ]
}

wait_pid() {
	if ! wait_for "$1" pid_ended "$2"; then
		kill -KILL "$2" 2>/dev/null
		wait "$2" 2>/dev/null
		return 124
	fi
	wait "$2" 2>/dev/null
}

done_testing() {
	[ -n "$tap_planned" ] || echo "1..$tap_count"
	[ "$tap_failed" = 0 ] || echo "# $tap_failed of $tap_count checks failed" >&2
	exit $((tap_failed > 0))
}

tmp=$(mktemp -d "/tmp/${0##*/}.XXXXXX") || bail_out "no temporary directory"
at_exit '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"'
