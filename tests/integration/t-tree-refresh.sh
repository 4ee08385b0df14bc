#!/bin/bash
# t-tree-refresh.sh - the scheduled tree refresh (trees[].refresh), in the
# real kregressd: the configured tree is a clone of a local upstream
# repository, a commit lands upstream after the daemon started and made
# its first fetch, and the next scheduled fetch (interval_s 1) brings it
# into refs/remotes/kregress/master; a series without base-commit then
# applies on it, through the branch fallback "kregress/master", and the
# API shows that base.  Waits are on the condition, bounded.
set -u
B=${KREGRESS_BUILD:?}
S=${KREGRESS_SRC:?}
. "$S/tests/lib/tap.sh"
. "$S/tests/lib/daemon.sh"
PY=/usr/bin/python3
TOKEN=refresh-token-0123456789abcdef

plan 6

git_() {
	git -c user.name=Dev -c user.email=dev@example.org \
		-c init.defaultBranch=master "$@"
}
json() {	# json FILE EXPR: a Python expression on the JSON document d
	$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
remote_head() {
	git -C "$tree" rev-parse -q --verify refs/remotes/kregress/master
}

upstream=$tmp/upstream
tree=$tmp/linux
mkdir -p "$upstream/mm"
for i in $(seq 1 20); do echo "/* memory.c line $i */"; done \
	>"$upstream/mm/memory.c"
git_ -C "$upstream" init -q && git_ -C "$upstream" add -A &&
	git_ -C "$upstream" commit -q -m "Linux 6.1-ish" &&
	git_ clone -q "$upstream" "$tree"
ok $? "an upstream repository and the tree, its clone"
first=$(git -C "$upstream" rev-parse HEAD)

cat >"$tmp/config.json" <<CFG
{
	"state_dir": "$tmp/state",
	"api": {
		"listen": "127.0.0.1:0",
		"tokens": [ { "name": "test", "value": "$TOKEN" } ]
	},
	"trees": [ { "name": "small", "path": "$tree",
		     "branch": "kregress/master",
		     "refresh": { "remote": "$upstream", "interval_s": 1 } } ],
	"arches": { "x86_64": { "base_config": "tinyconfig" } },
	"hosts": []
}
CFG
daemon_start || bail_out "kregressd did not start"
first_fetch() { [ "$(remote_head)" = "$first" ]; }
wait_for 30 first_fetch
ok $? "the refresher fetches the remote when the daemon starts"

# Upstream moves on after that first fetch.
sed -i '5s|.*|/* memory.c line 5, upstream */|' "$upstream/mm/memory.c"
git_ -C "$upstream" commit -q -a -m "mm: upstream moves on"
new=$(git -C "$upstream" rev-parse HEAD)
fetched_new() { [ "$(remote_head)" = "$new" ]; }
wait_for 30 fetched_new
ok $? "the scheduled refresh brings the commit made after the start"
test "$(grep -c "refresh: tree small: fetched $upstream master" \
	"$daemon_log")" -ge 2
ok $? "the daemon logs each fetch"

# A series made on the new commit, without base-commit: its context is
# only in the new commit, so it applies only on the refreshed branch.
git_ clone -q "$upstream" "$tmp/work"
sed -i '5s|.*|/* memory.c line 5, upstream, faster */|' \
	"$tmp/work/mm/memory.c"
git_ -C "$tmp/work" commit -q -a -m "mm: make line 5 faster" \
	-m "Signed-off-by: Dev <dev@example.org>"
git_ -C "$tmp/work" format-patch -q --thread --stdout HEAD~1 \
	>"$tmp/series.mbox"
export KREGRESS_TOKEN=$TOKEN
"$B/kregress" submit --server "$SRV" "$tmp/series.mbox" >"$tmp/out" 2>&1
ok $? "submit a series made on the new upstream commit"
id=$(sed -n 's/^submitted series \([0-9]*\).*/\1/p' "$tmp/out")
wait_sql 60 "SELECT base_used IS NOT NULL FROM series WHERE id = ${id:-0}" 1
"$B/kregress" status --server "$SRV" --json "${id:-0}" >"$tmp/status.json"
is "$(json "$tmp/status.json" '"%s %s" % (d["base_used"], d["base_source"])')" \
	"$new branch" "the API: it applied on the refreshed branch's commit"

if [ $tap_failed != 0 ]; then
	echo "# daemon log:"
	sed 's/^/#   /' "$daemon_log"
fi
done_testing
