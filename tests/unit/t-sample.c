/*
 * t-sample.c - parsing sample records of the guest result protocol.
 */
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "tap.h"

int main(void)
{
	struct sample s;
	char *key;

	ok(sample_parse("{\"type\":\"sample\",\"workload\":\"mremap\","
			"\"metric\":\"move_pud\",\"unit\":\"ns\","
			"\"direction\":\"lower\",\"iteration\":3,"
			"\"value\":15089,\"params\":{\"size_mb\":1024,"
			"\"align\":\"pud\"}}", &s) == 1, "a full record parses");
	is_str(s.workload, "mremap", "workload");
	is_str(s.metric, "move_pud", "metric");
	is_str(s.params, "{\"align\":\"pud\",\"size_mb\":1024}",
	       "params are canonical: compact, keys sorted");
	is_str(s.unit, "ns", "unit");
	ok(s.direction == STATS_LOWER_IS_BETTER, "direction");
	ok(s.iteration == 3, "iteration");
	is_double(s.value, 15089, 0, "value");
	key = sample_key(&s);
	is_str(key, "mremap move_pud {\"align\":\"pud\",\"size_mb\":1024}",
	       "the grouping key");
	free(key);
	sample_release(&s);

	ok(sample_parse("{\"type\":\"sample\",\"workload\":\"w\","
			"\"metric\":\"m\",\"value\":1.5,"
			"\"direction\":\"higher\"}", &s) == 1,
	   "a minimal record parses");
	is_str(s.params, "{}", "no params: {}");
	is_str(s.unit, "", "no unit: empty");
	ok(s.iteration == -1, "no iteration: -1");
	ok(s.direction == STATS_HIGHER_IS_BETTER, "higher is better");
	sample_release(&s);

	ok(!sample_parse("{\"type\":\"failure\",\"workload\":\"w\","
			 "\"reason\":\"x\"}", &s), "a failure is no sample");
	ok(!sample_parse("{\"type\":\"sample\",\"workload\":\"w\","
			 "\"metric\":\"m\",\"value\":\"1\"}", &s),
	   "a string value is refused");
	ok(!sample_parse("{\"type\":\"sample\",\"workload\":\"w\","
			 "\"value\":1}", &s), "no metric: refused");
	ok(!sample_parse("{\"type\":\"sample\",\"workload\":\"\","
			 "\"metric\":\"m\",\"value\":1}", &s),
	   "an empty workload is refused");
	ok(!sample_parse("not json", &s), "not JSON: refused");
	ok(!sample_parse("[1,2]", &s), "not an object: refused");
	return done_testing();
}
