/* t-kconfig.c - fragment parsing and the dropped-option check. */
#include <stdlib.h>

#include "kconfig.h"
#include "tap.h"

static const char config[] =
	"#\n# Automatically generated file; DO NOT EDIT.\n#\n"
	"CONFIG_64BIT=y\n"
	"CONFIG_SWAP=y\n"
	"# CONFIG_ZSWAP is not set\n"
	"CONFIG_ZRAM=m\n"
	"CONFIG_CMDLINE=\"console=ttyS0\"\n"
	"CONFIG_NR_CPUS=8\n"
	"CONFIG_NR_CPUS_X=1\n";

int main(void)
{
	struct strbuf d = STRBUF_INIT;
	char *v;

	ok(kconfig_get(config, "SWAP", &v) == 1 && v && !strcmp(v, "y"),
	   "get a set symbol");
	free(v);
	ok(kconfig_get(config, "ZSWAP", &v) == 0 && !v, "not set");
	ok(kconfig_get(config, "NR_CPUS", &v) == 1 && !strcmp(v, "8"),
	   "a prefix of another symbol is not confused with it");
	free(v);
	ok(kconfig_get(config, "HUGETLBFS", &v) == 0 && !v, "absent");

	is_int(kconfig_dropped("CONFIG_64BIT=y\nCONFIG_SWAP=y\n\n# comment\n"
			       "CONFIG_CMDLINE=\"console=ttyS0\"\n",
			       config, &d), 0,
	       "honoured fragment: none dropped");
	is_str(d.buf, "", "nothing listed");

	is_int(kconfig_dropped("CONFIG_ZSWAP=y\nCONFIG_ZRAM=y\n"
			       "CONFIG_HUGETLBFS=y\n# CONFIG_SWAP is not set\n"
			       "CONFIG_NR_CPUS=8   \n",
			       config, &d), 4, "four dropped");
	is_str(d.buf, "CONFIG_ZSWAP=y (now: not set)\n"
		      "CONFIG_ZRAM=y (now: m)\n"
		      "CONFIG_HUGETLBFS=y (now: not set)\n"
		      "# CONFIG_SWAP is not set (now: y)\n",
	       "each with what olddefconfig made of it");
	strbuf_reset(&d);

	is_int(kconfig_dropped("CONFIG_HUGETLBFS=n\n", config, &d), 0,
	       "=n honoured by absence");
	is_int(kconfig_dropped("CONFIG_SWAP=y\nSWAP=y\n", config, &d), -1,
	       "a line that is not an assignment is an error");
	is_int(kconfig_dropped("CONFIG_=y\n", config, &d), -1,
	       "an empty symbol name is an error");
	is_int(kconfig_dropped("CONFIG_SWAP y\n", config, &d), -1,
	       "an assignment without = is an error");
	is_int(kconfig_dropped("", "", &d), 0, "empty fragment");
	strbuf_release(&d);
	return done_testing();
}
