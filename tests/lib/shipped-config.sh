# shipped-config.sh - the shipped configuration as a test's daemon runs
# it (sourced after daemon.sh), for the slow tests on the shipped
# defaults: config.example.json with only what must differ on a test
# machine changed, and a way to show that nothing else did.
#
#   shipped_config FEED TREE  writes $daemon_config: config.example.json
#                       with the test's state directory and database,
#                       its build cache ($KREGRESS_CACHE: a private one
#                       sharing builds and ccache, build-lib.sh),
#                       the API on port 0 with token $KREGRESS_TOKEN,
#                       TREE as the tree, FEED as the watched list's
#                       feed (its origin the URL allowlist), the outbox
#                       in the state directory, the shipped plans by
#                       absolute path; then the Python statements on
#                       stdin, which may change `c` (the JSON object)
#   shipped_config_changed  the key paths where $daemon_config differs
#                       from config.example.json (hosts[2] for an added
#                       host), sorted, on one line

shipped_config() {
	{
		cat <<PYCFG
import json, sys, urllib.parse
c = json.load(open(sys.argv[1]))
c["state_dir"] = "$tmp/state"
c["database"] = "$tmp/state/kregress.db"
c["cache_dir"] = "${KREGRESS_CACHE:?}"
c["api"]["listen"] = "127.0.0.1:0"
c["api"]["tokens"][0]["value"] = "$KREGRESS_TOKEN"
c["trees"][0]["path"] = "$2"
c["lists"][0]["feed_url"] = "$1"
u = urllib.parse.urlsplit("$1")
c["url_allowlist"] = ["%s://%s/" % (u.scheme, u.netloc)]
c["mail"]["outbox_dir"] = "$tmp/state/outbox"
# relative paths are the configuration file's directory's: the shipped
# plans, wherever the copy of the file is
for arch in c["plans"].values():
    for accel in arch:
        arch[accel] = "$KREGRESS_SRC/" + arch[accel]
PYCFG
		cat
		echo 'json.dump(c, open(sys.argv[2], "w"), indent=1)'
	} >"$tmp/shipped-config.py"
	/usr/bin/python3 "$tmp/shipped-config.py" \
		"$KREGRESS_SRC/config.example.json" "$daemon_config"
}

shipped_config_changed() {
	/usr/bin/python3 - "$KREGRESS_SRC/config.example.json" \
		"$daemon_config" <<'PYDIFF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
out = []
def walk(x, y, path):
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            walk(x.get(k), y.get(k), path + "." + k)
    elif isinstance(x, list) and isinstance(y, list) and \
            all(isinstance(v, dict) for v in x + y):
        for i in range(max(len(x), len(y))):
            walk(x[i] if i < len(x) else None,
                 y[i] if i < len(y) else None, "%s[%d]" % (path, i))
    elif x != y:
        out.append(path[1:])
walk(a, b, "")
print(" ".join(out))
PYDIFF
}
