# tests/server.mk - the API server's slow-client benchmark (a script: the
# connections held and the health latency under a slowloris).
BENCHMARKS += $(CURDIR)/tests/bench/slow-clients.py
