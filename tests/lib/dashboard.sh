# dashboard.sh - a real kregressd serving the dashboard on the database of
# a real run (tests/fixtures/dashboard: e2e.sql, made by make-fixture.sh
# from tests/slow/t-defaults-e2e.sh, and its console logs), sourced after
# tap.sh and daemon.sh.
#
#   dashboard_load      loads e2e.sql into $tmp/state/kregress.db, copies
#                       the console logs under $tmp/state/runs and writes
#                       a configuration with no host, tree or list
#                       (nothing to do: every job of the copy is finished)
#   dashboard_start     dashboard_load, then starts the daemon ($SRV); 1
#                       if it did not start
#
# The copy's series: 1 a comment-only change (no regression), 2 the
# bundled PUD revert (a regression on mremap's move_pud), 3
# does-not-apply, 4 boot-failed, 5 build-failed; runs 1-4 have 8 boots a
# side, x86_64 and arm64, on hosts "local" and "local-arm64".
dashboard_fixture=$KREGRESS_SRC/tests/fixtures/dashboard

dashboard_load() {
	mkdir -p "$tmp/state" || return 1
	sqlite3 "$db" <"$dashboard_fixture/e2e.sql" || return 1
	cp -r "$dashboard_fixture/runs" "$tmp/state/" || return 1
	cat >"$daemon_config" <<CFG
{
	"state_dir": "$tmp/state",
	"database": "$db",
	"api": {
		"listen": "127.0.0.1:0",
		"tokens": [ { "name": "test", "value": "dashboard-token-0123456789" } ]
	}
}
CFG
}

dashboard_start() {
	dashboard_load && daemon_start
}
