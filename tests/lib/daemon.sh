# daemon.sh - the processes a shell test runs next to it, sourced after
# tap.sh: the real kregressd on the test's state directory, the fake lore
# server (tests/fixtures/fake-lore.py), queries of the daemon's database
# and waits on what it does.  Both servers listen on a port the kernel
# picks (port 0) and report it, so parallel tests never race for one.
#
#   daemon_start [ENV=VALUE...]  starts kregressd -c $daemon_config
#                       (default $tmp/config.json, whose api.listen names
#                       port 0), stderr appended to $daemon_log
#                       ($tmp/daemon.log), and returns 0 once its ready
#                       line is there: $daemon_pid, $daemon_port and
#                       SRV=http://127.0.0.1:$daemon_port are set.
#                       Returns 1 when it died or did not get ready.
#   daemon_gone         true when the daemon died unasked (a crash): the
#                       first call says so with the end of its log;
#                       wait_sql and wait_status give up at once then
#   daemon_stop SIGNAL  signals the daemon, returns its exit status
#   daemon_term SECONDS  SIGTERM, then its exit status, or 124 (after
#                       SIGKILL) when it did not stop within SECONDS
#   sql QUERY...        runs QUERY on $db (default
#                       $tmp/state/kregress.db): rows as a|b, NULL empty
#   wait_sql SECONDS QUERY WANT  until QUERY prints WANT
#   wait_status ID SECONDS  until series ID is in a final status; prints
#                       it, or (status 1) the last status seen
#   lore_start ARGS...  the fake lore server with ARGS (--root DIR,
#                       --feed FILE, ...); sets $lore_port and
#                       LORE=http://127.0.0.1:$lore_port; its request log
#                       is $lore_log
#   daemon_vm_setup PREFIX TOKEN  for a slow test of the daemon on real
#                       builds and boots (build-lib.sh sourced, $KR the
#                       CLI): its domains named PREFIX... and reaped at
#                       exit, a build cache of its own (build_cache_private), the shipped
#                       fragments, API token TOKEN; skips unless root
#                       reaches qemu:///system and the arm64 cross
#                       compiler is there; the build user set up
#
# Whatever is still running at exit is killed (at_exit).

: "${KREGRESS_BUILD:?}" "${KREGRESS_SRC:?}"
daemon_config=$tmp/config.json
daemon_log=$tmp/daemon.log
daemon_pid=
daemon_port=
db=$tmp/state/kregress.db
lore_log=$tmp/lore.log
lore_pid=
lore_port=
daemon_said_gone=
# how long a daemon may take to get ready or a server to answer
daemon_wait_s=60

daemon_start() {
	local line
	: >>"$daemon_log"	# there before tail opens it
	env "$@" "$KREGRESS_BUILD/kregressd" -c "$daemon_config" \
		2>>"$daemon_log" &
	daemon_pid=$!
	# tail follows the log (inotify) and ends with the daemon; grep
	# takes the first ready line of this pid.
	line=$(timeout "$daemon_wait_s" tail -n +1 --pid="$daemon_pid" \
		-f "$daemon_log" | grep -m1 "^kregressd: ready: pid $daemon_pid,")
	if [ -z "$line" ]; then
		echo "# daemon_start: kregressd (pid $daemon_pid) not ready" \
			"within $daemon_wait_s s; its log ends:" >&2
		tail -5 "$daemon_log" | sed 's/^/#   /' >&2
		return 1
	fi
	daemon_port=${line#*, API port }
	daemon_port=${daemon_port%%,*}
	SRV=http://127.0.0.1:$daemon_port
}

daemon_gone() {
	[ -n "$daemon_pid" ] && ! kill -0 "$daemon_pid" 2>/dev/null ||
		return 1
	[ -n "$daemon_said_gone" ] && return 0
	daemon_said_gone=1
	echo "# kregressd (pid $daemon_pid) is gone; its log ends:" >&2
	tail -20 "$daemon_log" | sed 's/^/#   /' >&2
}

daemon_stop() {
	local rc
	kill -"$1" "$daemon_pid"
	{ wait "$daemon_pid"; rc=$?; } 2>/dev/null
	daemon_pid=
	return $rc
}
at_exit '[ -z "$daemon_pid" ] || daemon_stop KILL'

daemon_term() {
	local rc
	kill -TERM "$daemon_pid"
	wait_pid "$1" "$daemon_pid"
	rc=$?
	daemon_pid=
	return $rc
}

sql() {
	sqlite3 -cmd ".timeout 10000" "$db" "$@"
}

wait_sql() {
	local limit=$(($1 * 10)) i got=
	for ((i = 0; i < limit; i++)); do
		got=$(sql "$2")
		[ "$got" = "$3" ] && return 0
		daemon_gone && break
		sleep 0.1
	done
	echo "# wait_sql: after $((i / 10)) s '$2' gives '$got', not '$3'" >&2
	return 1
}

wait_status() {
	local limit=$(($2 * 10)) i st=
	for ((i = 0; i < limit; i++)); do
		st=$(sql "SELECT status FROM series WHERE id = ${1:-0}")
		case $st in
		done | failed | *-failed | does-not-apply | incomplete | superseded)
			echo "$st"
			return 0 ;;
		esac
		daemon_gone && break
		sleep 0.1
	done
	echo "# wait_status: series ${1:-?} is '${st:-missing}' after" \
		"$((i / 10)) s" >&2
	echo "${st:-missing}"
	return 1
}

lore_start() {
	/usr/bin/python3 "$KREGRESS_SRC/tests/fixtures/fake-lore.py" "$@" \
		--port-file "$tmp/lore.port" --log "$lore_log" &
	lore_pid=$!
	wait_for "$daemon_wait_s" test -s "$tmp/lore.port" || return 1
	lore_port=$(cat "$tmp/lore.port")
	LORE=http://127.0.0.1:$lore_port
}
at_exit '[ -z "$lore_pid" ] || { kill "$lore_pid"; wait "$lore_pid"; }'

daemon_vm_setup() {
	export KREGRESS_VM_PREFIX=$1
	build_cache_private || bail_out "no build cache of its own"
	export KREGRESS_CONFIG_DIR=$KREGRESS_SRC/builders/configs
	export KREGRESS_TOKEN=$2
	at_exit '"$KR" host reap >/dev/null 2>&1'

	[ "$(id -u)" = 0 ] || skip_all "needs root for qemu:///system"
	timeout 20 virsh -c qemu:///system version >/dev/null 2>&1 ||
		skip_all "libvirtd is not running (make check starts it)"
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		skip_all "gcc-aarch64-linux-gnu is not installed"
	build_user_setup
}
