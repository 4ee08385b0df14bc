# apply.mk - what the apply module needs beyond the top-level Makefile.
#
# The embedded default tree is imported from Debian's linux-source package
# (kregress tree import); tar needs xz-utils to read it; the git CLI does
# the import's commit and the git apply -3 fallback.  The module's tests
# and benchmark are picked up by the top-level wildcards (tests/unit,
# tests/integration, tests/slow, tests/bench).
DEBIAN_PACKAGES += linux-source-6.1 xz-utils git tar
