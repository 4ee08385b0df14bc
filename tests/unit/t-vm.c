/*
 * t-vm.c - which domain names a prefix owns (what vm_reap() destroys).
 */
#include <stdlib.h>

#include "tap.h"
#include "vm.h"

int main(void)
{
	unsetenv("KREGRESS_VM_PREFIX");
	is_str(vm_name_prefix(), "kregress-", "the plain prefix");
	ok(vm_name_matches("kregress-3f9c0a12bc4e", NULL),
	   "a name vm_boot() gives is the plain prefix's");
	ok(vm_name_matches("kregress-3f9c0a12bc4e", "kregress-"),
	   "also when the prefix is given");
	ok(!vm_name_matches("kregress-t123-3f9c0a12bc4e", NULL),
	   "a test's domain is not the plain prefix's");
	ok(!vm_name_matches("kregress-bench77-3f9c0a12bc4e", "kregress-"),
	   "nor a benchmark's");
	ok(!vm_name_matches("kregress-kernel-123-abcdef01", NULL),
	   "nor anything else that starts with kregress-");
	ok(!vm_name_matches("kregress-3f9c0a12bc4", NULL), "11 digits: no");
	ok(!vm_name_matches("kregress-3f9c0a12bc4e0", NULL), "13 digits: no");
	ok(!vm_name_matches("kregress-3F9C0A12BC4E", NULL),
	   "upper-case hex: no");
	ok(!vm_name_matches("other-3f9c0a12bc4e", NULL), "another prefix: no");

	ok(vm_name_matches("kregress-t123-3f9c0a12bc4e", "kregress-t123-"),
	   "a namespaced prefix owns its names");
	ok(vm_name_matches("kregress-t123-leftover", "kregress-t123-"),
	   "whatever follows it");
	ok(!vm_name_matches("kregress-t1234-3f9c0a12bc4e", "kregress-t123-"),
	   "but not another namespace's");
	ok(!vm_name_matches("kregress-3f9c0a12bc4e", "kregress-t123-"),
	   "nor the plain prefix's");

	/* a daemon's own prefix (hosts.c derives it from its database) */
	vm_set_name_prefix("kregress-0a1b2c3d-");
	is_str(vm_name_prefix(), "kregress-0a1b2c3d-", "a daemon's prefix");
	ok(vm_name_matches("kregress-0a1b2c3d-3f9c0a12bc4e", NULL),
	   "its names are its own");
	ok(!vm_name_matches("kregress-99999999-3f9c0a12bc4e", NULL) &&
	   !vm_name_matches("kregress-3f9c0a12bc4e", NULL),
	   "another daemon's and the CLI's are not");
	vm_set_name_prefix("other-");
	is_str(vm_name_prefix(), "kregress-0a1b2c3d-",
	       "a prefix without kregress- is ignored");

	setenv("KREGRESS_VM_PREFIX", "kregress-t9-", 1);
	ok(vm_name_matches("kregress-t9-x", NULL),
	   "NULL means $KREGRESS_VM_PREFIX, which wins over the daemon's");
	ok(!vm_name_matches("kregress-3f9c0a12bc4e", NULL),
	   "then the plain names are not ours");
	return done_testing();
}
