#!/bin/bash
# t-config-check.sh - "kregressd -n" refuses a configuration that cannot
# run, with one line naming the key: an empty trees list, a plan file that
# is missing or not a plan, an integer too big for the JSON parser; the
# example configuration passes from the source tree, as "make run" uses
# it; and a SIGHUP with such a file keeps the running configuration.
set -u
src=${KREGRESS_SRC:?}
kd=${KREGRESS_BUILD:?}/kregressd
. "$src/tests/lib/tap.sh"
. "$src/tests/lib/daemon.sh"

dash_n() {	# dash_n FILE: "STATUS OUTPUT" of kregressd -n
	local out rc
	out=$("$kd" -n -c "$1" 2>&1)
	rc=$?
	echo "$rc $out"
}

out=$(cd "$src" && "$kd" -n -c config.example.json 2>&1)
is "$? $out" "0 configuration OK" \
	"config.example.json passes -n from the source tree (make run)"

echo '{ "trees": [] }' >"$tmp/trees.json"
is "$(dash_n "$tmp/trees.json")" "2 $tmp/trees.json: trees: empty: no series could be applied (leave the key out to run without a tree)" \
	"trees: [] is refused, by its key"

echo '{ "plans": { "x86_64": { "kvm": "nope.plan" } } }' >"$tmp/plan.json"
is "$(dash_n "$tmp/plan.json")" "2 $tmp/plan.json: plans.x86_64.kvm: $tmp/nope.plan: No such file or directory" \
	"a missing plan file is refused, by its key"

printf 'kregress-plan 1\nfrobnicate\n' >"$tmp/bad.plan"
echo '{ "plans": { "arm64": { "tcg": "bad.plan" } } }' >"$tmp/badplan.json"
out=$(dash_n "$tmp/badplan.json")
case $out in "2 $tmp/badplan.json: plans.arm64.tcg: $tmp/bad.plan: line 2: "*) r=0 ;; *) r=1 ;; esac
ok $r "a plan that does not parse is refused, with its line: ${out#2 }"

printf '{\n\t"limits": {\n\t\t"workers": 100000000000000000000\n\t}\n}\n' \
	>"$tmp/big.json"
is "$(dash_n "$tmp/big.json")" "2 $tmp/big.json: limits.workers: line 3 column 34: too big integer" \
	"an integer too big for the parser names its key"

# --- a reload that could not run keeps the running configuration ---------
cp "$src/workloads/plans/default-tcg.plan" "$tmp/run.plan"
cat >"$daemon_config" <<JSON
{ "state_dir": "state", "api": { "listen": "127.0.0.1:0" },
  "plans": { "x86_64": { "tcg": "run.plan" } } }
JSON
daemon_start
ok $? "kregressd starts with a plan that exists"
rm "$tmp/run.plan"
kill -HUP "$daemon_pid"
wait_for 20 grep -q "reload: .*plans.x86_64.tcg: $tmp/run.plan: No such file or directory; keeping the running configuration" "$daemon_log"
ok $? "SIGHUP after the plan is gone: refused, the running configuration kept"
kill -0 "$daemon_pid" 2>/dev/null
ok $? "... and the daemon runs on"
daemon_stop TERM
ok $? "kregressd stops on SIGTERM"
done_testing
