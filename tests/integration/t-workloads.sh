#!/bin/bash
# t-workloads.sh - every workload runs natively with small sizes; its output
# is framed by the static /init (through `kregress bench --native`), parsed
# by the console parser, and checked record by record.  Also: argument
# errors, self-reported failures, and the aarch64 set being real binaries.
set -u
. "$KREGRESS_SRC/tests/lib/tap.sh"
B=$KREGRESS_BUILD
ARCH=$(uname -m)
W=$B/workloads/$ARCH
PY=/usr/bin/python3

cat >"$tmp/small.plan" <<'PLAN'
kregress-plan 1
timeout 120
run thp-fault --size-mb 8 --iterations 3 --warmup 1
run thp-fault --size-mb 4 --iterations 2 --warmup 0 --madvise hugepage
run memset-order --size-mb 4 --iterations 2
run memset-order --size-mb 2 --iterations 1 --prefault 1
run mremap --pud-mb 8 --iterations 3 --madvise nohugepage
run page-zero-check --checks 2000 --iterations 3
run page-zero-check --checks 2000 --iterations 2 --nonzero-at 0 --cpu 0
PLAN

check "bench --native runs the small plan" \
	"$B/kregress" bench --native "$tmp/small.plan" --json
cp "$tmp/check.out" "$tmp/small.json"

check_small() {
	$PY - "$tmp/small.json" "$ARCH" <<'PYEOF'
import json, sys
text = open(sys.argv[1]).read()
doc = json.loads(text[text.index('{'):])
assert doc["status"] == "complete", doc
recs = doc["records"]
env = recs[0]
assert env["type"] == "env" and env["mode"] == "hosted", env
assert env["machine"] == sys.argv[2] and env["mem_total_kb"] > 0, env
want = {  # (workload, metric, key param): samples
	("thp-fault", "pass", 8): 3,
	("thp-fault", "first_touch_2m_median", 8): 3,
	("thp-fault", "first_touch_2m_max", 8): 3,
	("thp-fault", "pass", 4): 2,
	("thp-fault", "pass_cpu", 8): 3, ("thp-fault", "pass_cpu", 4): 2,
	("memset-order", "oneshot", 4): 2, ("memset-order", "forward", 4): 2,
	("memset-order", "reverse", 4): 2, ("memset-order", "reverse", 2): 1,
	("memset-order", "oneshot", 2): 1, ("memset-order", "forward", 2): 1,
	("mremap", "move_pud", 8): 3, ("mremap", "move_pmd", 8): 3,
	("mremap", "move_pte", 8): 3,
	("page-zero-check", "word_check", 4096): 3,
	("page-zero-check", "byte_check", 4096): 3,
	("page-zero-check", "word_check", 0): 2,
	("page-zero-check", "byte_check", 0): 2,
}
got = {}
for r in recs[1:]:
	assert r["type"] == "sample", r
	assert r["unit"] == "ns" and r["direction"] == "lower", r
	assert r["value"] > 0, r
	p = r["params"]
	key = p.get("size-mb", p.get("pud-mb", p.get("nonzero_at")))
	k = (r["workload"], r["metric"], key)
	got.setdefault(k, []).append(r["iteration"])
	if r["workload"] == "thp-fault":
		assert r["params"]["thp"] in ("always", "madvise", "never")
for k, n in want.items():
	assert sorted(got.get(k, [])) == list(range(n)), (k, got.get(k))
for (w, m, k), n in list(want.items()):
	if w == "memset-order":
		want[(w, m + "_cpu", k)] = n
extra = set(got) - set(want) - {("thp-fault", m, 4) for m in
	("first_touch_2m_median", "first_touch_2m_max")}
assert not extra, extra
print("%d records checked" % len(recs))
PYEOF
}
check "every workload's samples present, counted, positive, with params" \
	check_small

"$B/kregress" bench --native "$tmp/small.plan" >"$tmp/table" 2>&1
check "table output names the metrics and the environment" \
	bash -c "grep -q move_pmd '$tmp/table' && grep -q '^# env: .*, ASLR off$' '$tmp/table'"

# zero-swap needs swap: with none it must report a failure, not a number.
# (Its samples with swap are checked where swap is set up: in guests with
# the shipped plans' zram swap, tests/slow/t-defaults-e2e.sh.)
cat >"$tmp/swap.plan" <<'PLAN'
kregress-plan 1
run zero-swap --size-mb 2 --iterations 1 --warmup 0
PLAN
"$B/kregress" bench --native "$tmp/swap.plan" --json >"$tmp/swap.json" \
	2>/dev/null
swap_rc=$?
check_swap() {
	$PY - "$tmp/swap.json" "$swap_rc" <<'PYEOF'
import json, sys
text = open(sys.argv[1]).read()
doc = json.loads(text[text.index('{'):])
swaps = open("/proc/swaps").read().strip().splitlines()[1:]
recs = doc["records"][1:]
if swaps:
	assert doc["status"] == "complete" and sys.argv[2] == "0", doc
	m = sorted({r["metric"] for r in recs})
	assert m == ["pageout_data", "pageout_zero", "swapin_data",
		     "swapin_zero"], m
	assert all("pswpout" in r["info"] for r in recs)
else:
	assert doc["status"] == "failed" and sys.argv[2] == "1", doc
	assert len(recs) == 1 and recs[0]["type"] == "failure", recs
	assert "still mapped" in recs[0]["reason"], recs
PYEOF
}
check "zero-swap: samples with swap, a failure record without" check_swap

# Direct runs: exit statuses and records without the framer.
check "bad option exits 2" bash -c "'$W/mremap' --bogus 1; test \$? = 2"
check "non-numeric size exits 2" \
	bash -c "'$W/thp-fault' --size-mb ten; test \$? = 2"
check "zero iterations exits 2" \
	bash -c "'$W/memset-order' --iterations 0; test \$? = 2"
check "bad choice exits 2" \
	bash -c "'$W/thp-fault' --madvise sometimes; test \$? = 2"
check_fail() {
	"$W/thp-fault" --size-mb 3 >"$tmp/fail.out" 2>/dev/null
	test $? = 3 || return 1
	$PY -c '
import json, sys
r = json.loads(open(sys.argv[1]).read())
assert r["type"] == "failure" and "even" in r["reason"], r
assert r["workload"] == "thp-fault" and r["params"]["size-mb"] == 3, r
' "$tmp/fail.out"
}
check "self-reported failure: JSON failure record and exit 3" check_fail
check "mremap --pud-mb over 1024 refused" \
	bash -c "'$W/mremap' --pud-mb 2048 >/dev/null; test \$? = 3"
check "page-zero-check --nonzero-at out of range refused" \
	bash -c "'$W/page-zero-check' --nonzero-at 4096 >/dev/null; test \$? = 3"
check "pinning to a CPU that does not exist is a failure" \
	bash -c "'$W/page-zero-check' --checks 10 --cpu 4095 >/dev/null; test \$? = 3"

check "bench without --native is a usage error" \
	bash -c "'$B/kregress' bench '$tmp/small.plan'; test \$? = 2"
printf 'kregress-plan 1\nfrob\n' >"$tmp/bad.plan"
check "bench refuses a bad plan with its line" \
	bash -c "'$B/kregress' bench --native '$tmp/bad.plan' 2>&1 | grep -q 'line 2: unknown directive'"
check "bench with a workload dir without init fails clearly" \
	bash -c "'$B/kregress' bench --native --workloads '$tmp' '$tmp/small.plan' 2>&1 | grep -q 'no executable'"

# The aarch64 set: no user-mode emulator here, so check what was built.
aarch64=(init thp-fault memset-order mremap zero-swap page-zero-check)
if [ -d "$B/workloads/aarch64" ]; then
	for f in "${aarch64[@]}"; do
		check "aarch64/$f is a static arm64 executable" bash -c \
		  "file '$B/workloads/aarch64/$f' | grep -q 'ARM aarch64.*statically linked'"
	done
else
	skip "no aarch64 workloads built (gcc-aarch64-linux-gnu missing?)" \
		${#aarch64[@]}
fi
done_testing
