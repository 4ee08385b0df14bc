# tests/report.mk - the report stage's benchmark (a script: the stage's
# time per series and the size of each kind of mail, on a real daemon).
# Its smoke mode has no extra metrics.
BENCHMARKS += $(CURDIR)/tests/bench/report-stage.py
BENCH_SMOKE += $(CURDIR)/tests/bench/report-stage.py
