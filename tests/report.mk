# tests/report.mk - the report stage's benchmark (a script: the stage's
# time per series and the size of each kind of mail, on a real daemon).
BENCHMARKS += $(CURDIR)/tests/bench/report-stage.py
