/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU capacities, orders and PCO tables (src/loader/cpu_order.c) against
 * fake sysfs and debugfs trees made in a temporary directory.
 */
#define _GNU_SOURCE		/* open_memstream */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "fakefs.h"
#include "loader/cpu_order.h"

static char cpu_root[300], em_root[300];
/* Static, so that a failed CHECK (which returns early) leaks nothing. */
static struct topo topo;
static struct cpu_order order;

static void putf(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(const char *rel, const char *fmt, ...)
{
	char val[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	put(rel, val);
}

static void rm(const char *rel)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", root, rel);
	if (system(cmd)) {}
}

static void cleanup(void)
{
	if (root[0])
		rm("");
}

static void fresh_root(void)
{
	if (root[0])
		rm("");
	else
		atexit(cleanup);
	snprintf(root, sizeof(root), "/tmp/lavd-order-XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(cpu_root, sizeof(cpu_root), "%s/cpu", root);
	snprintf(em_root, sizeof(em_root), "%s/em", root);
}

/* An online CPU: its SMT sibling list, NUMA node and package (= LLC: no cache dir). */
static void cpu(int n, const char *sibs, int node)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "cpu/cpu%d/topology/thread_siblings_list", n);
	putf(rel, "%s\n", sibs);
	snprintf(rel, sizeof(rel), "cpu/cpu%d/topology/physical_package_id", n);
	putf(rel, "%d\n", node);
	snprintf(rel, sizeof(rel), "cpu/cpu%d/node%d/x", n, node);
	put(rel, "");
}

static void capf(int n, const char *file, const char *val)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "cpu/cpu%d/%s", n, file);
	put(rel, val);
}

static void capn(int n, const char *file, long val)
{
	char s[32];

	snprintf(s, sizeof(s), "%ld\n", val);
	capf(n, file, s);
}

/* n CPUs without SMT, one node */
static void flat_cpus(int n)
{
	char s[32];

	putf("cpu/online", "0-%d\n", n - 1);
	for (int i = 0; i < n; i++) {
		snprintf(s, sizeof(s), "%d", i);
		cpu(i, s, 0);
	}
}

/*
 * A performance domain: dir name, cpulist, state dir prefix ("ps:" or
 * "cs:"), and per state frequency (kHz), power and performance (perf NULL:
 * no performance file, as on old kernels).
 */
static void em_dom(const char *name, const char *cpus, const char *prefix, int n,
		   const long *freq, const long *power, const long *perf)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "em/%s/cpus", name);
	putf(rel, "%s\n", cpus);
	snprintf(rel, sizeof(rel), "em/%s/flags", name);
	put(rel, "0x0\n");
	for (int i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "em/%s/%s%ld/frequency", name, prefix, freq[i]);
		putf(rel, "%ld\n", freq[i]);
		snprintf(rel, sizeof(rel), "em/%s/%s%ld/power", name, prefix, freq[i]);
		putf(rel, "%ld\n", power[i]);
		snprintf(rel, sizeof(rel), "em/%s/%s%ld/cost", name, prefix, freq[i]);
		putf(rel, "%ld\n", power[i] * freq[n - 1] / freq[i]);
		if (perf) {
			snprintf(rel, sizeof(rel), "em/%s/%s%ld/performance", name, prefix, freq[i]);
			putf(rel, "%ld\n", perf[i]);
			snprintf(rel, sizeof(rel), "em/%s/%s%ld/inefficient", name, prefix, freq[i]);
			put(rel, "0\n");
		}
	}
}

/* topo_read then cpu_order_build on the fake tree. */
static int build(struct topo *t, struct cpu_order *o, bool use_em, char *err)
{
	if (topo_read(t, cpu_root, err, 256))
		return -2;
	return cpu_order_build(o, t, cpu_root, em_root, use_em, err, 256);
}

/* a[0..n) holds every online CPU exactly once and n = online CPUs. */
static bool is_perm(const struct topo *t, const int *a, int n)
{
	bool seen[LAVD_MAX_CPUS] = { false };

	for (int i = 0; i < n; i++) {
		if (a[i] < 0 || a[i] >= t->nr_cpu_ids || !t->online[a[i]] || seen[a[i]])
			return false;
		seen[a[i]] = true;
	}
	return n == t->nr_online;
}

static bool same(const int *a, const int *b, int n)
{
	return !memcmp(a, b, sizeof(int) * n);
}

/* Every state well formed: ascending bounds, permutations, overflow in perf order. */
static bool states_ok(const struct topo *t, const struct cpu_order *o, bool strict)
{
	if (o->nr_states < 1 || o->nr_states > LAVD_PCO_MAX)
		return false;
	for (int s = 0; s < LAVD_PCO_MAX; s++) {
		int j = 0;

		if (s && (strict && s < o->nr_states ? o->bound[s] <= o->bound[s - 1] :
			  o->bound[s] < o->bound[s - 1]))
			return false;
		if (!is_perm(t, o->table[s], o->nr_cpus) || o->nr_primary[s] < 1 ||
		    o->nr_primary[s] > o->nr_cpus)
			return false;
		/* The overflow part is a subsequence of the performance order. */
		for (int i = o->nr_primary[s]; i < o->nr_cpus; i++) {
			while (j < o->nr_cpus && o->perf[j] != o->table[s][i])
				j++;
			if (j == o->nr_cpus)
				return false;
		}
	}
	return true;
}

static char *print_to_string(const struct cpu_order *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cpu_order_print(o, f);
	fclose(f);
	return buf;
}

/* A VM: no capacity file, 4 cores x 2 threads. */
TEST(vm_like_smt2)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	static const int perf_a[] = { 0, 2, 4, 6, 1, 3, 5, 7 };
	static const int ps_a[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const int perf_b[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const int ps_b[] = { 0, 4, 1, 5, 2, 6, 3, 7 };
	char err[256], *out;

	/* Siblings numbered next to each other (AMD style): 0,1 is a core. */
	fresh_root();
	put("cpu/online", "0-7\n");
	for (int i = 0; i < 8; i++) {
		char s[32];

		snprintf(s, sizeof(s), "%d-%d", i & ~1, i | 1);
		cpu(i, s, 0);
	}
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK_EQ(o->nr_cpus, 8);
	CHECK(!strcmp(o->cap_source, "none (all equal)"));
	CHECK(!o->big_little && !o->has_em);
	for (int i = 0; i < 8; i++)
		CHECK(o->cap[i] == 1024 && o->big[i] && !o->turbo[i]);
	CHECK(same(o->perf, perf_a, 8));
	CHECK(same(o->powersave, ps_a, 8));
	CHECK_EQ(o->perf[8], -1);
	CHECK_EQ(o->nr_states, 2);
	CHECK_EQ(o->bound[0], 1024);
	CHECK_EQ(o->bound[1], 8192);
	CHECK(o->nr_primary[0] == 8 && o->nr_primary[1] == 8);
	CHECK(same(o->table[0], ps_a, 8));
	CHECK(same(o->table[1], perf_a, 8));
	CHECK(states_ok(t, o, false));
	CHECK(o->bound[LAVD_PCO_MAX - 1] == 8192 && same(o->table[LAVD_PCO_MAX - 1], perf_a, 8));
	CHECK(!o->warning[0]);
	out = print_to_string(o);
	CHECK(strstr(out, "pco[1] bound=8192 primary=8: 0 2 4 6 1 3 5 7\n"));
	CHECK(strstr(out, "pco[0] bound=1024 primary=8: 0 1 2 3 4 5 6 7\n"));
	free(out);

	/* Siblings half the CPU count apart (Intel style): 0,4 is a core. */
	fresh_root();
	put("cpu/online", "0-7\n");
	for (int i = 0; i < 8; i++) {
		char s[32];

		snprintf(s, sizeof(s), "%d,%d", i % 4, i % 4 + 4);
		cpu(i, s, 0);
	}
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(same(o->perf, perf_b, 8));
	CHECK(same(o->powersave, ps_b, 8));
}

/* Nodes and LLCs group CPUs in both orders, before CPU ids. */
TEST(nodes_group_cpus)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	static const int want[] = { 0, 2, 4, 6, 1, 3, 5, 7 };
	char err[256];

	fresh_root();
	put("cpu/online", "0-7\n");
	for (int i = 0; i < 8; i++) {
		char s[32];

		snprintf(s, sizeof(s), "%d", i);
		cpu(i, s, i % 2);
	}
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK_EQ(t->nr_llcs, 2);
	CHECK(same(o->perf, want, 8));
	CHECK(same(o->powersave, want, 8));
}

/* 8 P-cores with SMT (CPUs 0-15) and 16 E-cores (16-31), as on Intel hybrid. */
static void hybrid(const char *file, long big, long little)
{
	fresh_root();
	put("cpu/online", "0-31\n");
	for (int i = 0; i < 32; i++) {
		char s[32];

		if (i < 16)
			snprintf(s, sizeof(s), "%d-%d", i & ~1, i | 1);
		else
			snprintf(s, sizeof(s), "%d", i);
		cpu(i, s, 0);
		capn(i, file, i < 16 ? big : little);
	}
}

TEST(hybrid_big_little)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	int perf[32], ps[32], n = 0;
	char err[256];

	for (int i = 0; i < 16; i += 2)
		perf[n++] = i;		/* first threads of the P-cores */
	for (int i = 16; i < 32; i++)
		perf[n++] = i;		/* E-cores */
	for (int i = 1; i < 16; i += 2)
		perf[n++] = i;		/* P-core siblings last */
	for (int i = 0; i < 32; i++)
		ps[i] = (i + 16) % 32;	/* E-cores, then P-cores packed by core */

	hybrid("cpu_capacity", 1024, 600);
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!strcmp(o->cap_source, "cpu_capacity"));
	CHECK(o->big_little);
	for (int i = 0; i < 32; i++) {
		CHECK_EQ(o->cap[i], i < 16 ? 1024 : 600);
		CHECK_EQ(o->big[i], i < 16);
		CHECK_EQ(o->turbo[i], i < 16);
	}
	CHECK(same(o->perf, perf, 32));
	CHECK(same(o->powersave, ps, 32));
	CHECK_EQ(o->nr_states, 2);
	CHECK_EQ(o->bound[0], 600);
	CHECK_EQ(o->bound[1], 16 * 1024 + 16 * 600);
	CHECK(states_ok(t, o, false));

	/* The same from maximum frequencies: 3.8 / 5 GHz = 0.76 -> 778. */
	hybrid("cpufreq/cpuinfo_max_freq", 5000000, 3800000);
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!strcmp(o->cap_source, "cpufreq/cpuinfo_max_freq"));
	CHECK(o->big_little);
	CHECK_EQ(o->cap[20], 778);
	CHECK(same(o->powersave, ps, 32));
}

TEST(source_priority_and_thresholds)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	static const long rank[] = { 236, 236, 166, 166 };
	static const long ccap[] = { 1024, 512, 1024, 512 };
	char err[256];

	fresh_root();
	flat_cpus(4);
	for (int i = 0; i < 4; i++) {
		capn(i, "cpufreq/amd_pstate_prefcore_ranking", rank[i]);
		capn(i, "cpu_capacity", ccap[i]);
	}
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!strcmp(o->cap_source, "cpufreq/amd_pstate_prefcore_ranking"));
	CHECK_EQ(o->cap[0], 1024);
	CHECK_EQ(o->cap[2], (166 * 1024 + 118) / 236);
	CHECK(o->big_little);

	/* Equal everywhere: ranks nothing, skipped. */
	for (int i = 0; i < 4; i++)
		capn(i, "cpufreq/amd_pstate_prefcore_ranking", 200);
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!strcmp(o->cap_source, "cpu_capacity"));
	CHECK_EQ(o->cap[1], 512);

	/* Present on some CPUs only: skipped too. */
	for (int i = 0; i < 3; i++)
		capn(i, "cpufreq/amd_pstate_prefcore_ranking", 100 + i);
	rm("cpu/cpu3/cpufreq/amd_pstate_prefcore_ranking");
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!strcmp(o->cap_source, "cpu_capacity"));

	/* highest_perf equal, CPPC differs: CPPC, before cpu_capacity. */
	for (int i = 0; i < 4; i++) {
		capn(i, "cpufreq/amd_pstate_highest_perf", 166);
		capn(i, "acpi_cppc/highest_perf", i ? 100 : 130);
	}
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!strcmp(o->cap_source, "acpi_cppc/highest_perf"));
	CHECK(o->big_little);			/* 130 >= 1.3 x 100 */
	CHECK(o->big[0] && !o->big[1] && o->turbo[0] && !o->turbo[1]);
	CHECK_EQ(o->powersave[0], 1);		/* little first */
	CHECK_EQ(o->perf[0], 0);

	capn(0, "acpi_cppc/highest_perf", 129);
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!o->big_little);			/* 129 < 1.3 x 100 */
	for (int i = 0; i < 4; i++)
		CHECK(o->big[i]);
	CHECK(o->turbo[0] && !o->turbo[1]);	/* the favoured core still is turbo */
	CHECK_EQ(o->powersave[0], 0);		/* fastest first without big/little */
	CHECK_EQ(o->cap[1], (100 * 1024 + 64) / 129);
}

TEST(malformed_capacities)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	static const char *const bad[] = { "abc\n", "0\n", "-5\n", "12x\n", "\n" };
	char err[256];

	fresh_root();
	flat_cpus(2);
	capn(0, "cpu_capacity", 1024);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		capf(1, "cpu_capacity", bad[i]);
		err[0] = 0;
		CHECK_EQ(build(t, o, true, err), -1);
		CHECK(strstr(err, "malformed capacity"));
		CHECK(strstr(err, "cpu1/cpu_capacity"));
	}
	capf(1, "cpu_capacity", "99999999999\n");
	CHECK_EQ(build(t, o, true, err), -1);
	CHECK(strstr(err, "out of range"));

	/* The same text on every CPU ranks nothing: skipped, not read. */
	capf(0, "cpu_capacity", "abc\n");
	capf(1, "cpu_capacity", "abc\n");
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!strcmp(o->cap_source, "none (all equal)"));
}

/*
 * 4 little CPUs (0-3, capacity 300) and 4 big (4-7, 1024), one performance
 * domain each. Littles: 100/200/300 at 10/25/50 mW; bigs: 400/700/1024 at
 * 150/350/800 mW.
 */
static const long lf[] = { 500000, 1000000, 1500000 }, lp[] = { 10, 25, 50 },
		  lperf[] = { 100, 200, 300 };
static const long bf[] = { 1000000, 1800000, 2600000 }, bp[] = { 150, 350, 800 },
		  bperf[] = { 400, 700, 1024 };

static void two_domains(const char *prefix, const char *n0, const char *n1, bool with_perf)
{
	fresh_root();
	flat_cpus(8);
	for (int i = 0; i < 8; i++)
		capn(i, "cpu_capacity", i < 4 ? 300 : 1024);
	em_dom(n0, "0-3", prefix, 3, lf, lp, with_perf ? lperf : NULL);
	em_dom(n1, "4-7", prefix, 3, bf, bp, with_perf ? bperf : NULL);
}

/* Common checks of the two-domain model. */
static bool two_domain_shape(const struct topo *t, const struct cpu_order *o)
{
	static const int state0[] = { 0, 1, 2, 4, 5, 6, 7, 3 };
	int little_states = 0, s = o->nr_states - 1;

	if (!o->has_em || o->em_greedy || o->nr_em_domains != 2 || !states_ok(t, o, true))
		return false;
	/* 5 %: three littles at their lowest state (300 >= 265) beat anything else. */
	if (o->bound[0] != 300 || o->nr_primary[0] != 3 || !same(o->table[0], state0, 8))
		return false;
	/* Everything the littles can carry (1200) is carried by littles only. */
	for (int i = 0; i < o->nr_states && o->bound[i] <= 1200; i++) {
		for (int j = 0; j < o->nr_primary[i]; j++)
			if (o->table[i][j] >= 4)
				return false;
		little_states++;
	}
	/* 100 %: every CPU at its top. */
	return little_states >= 2 && o->bound[s] == 4 * 300 + 4 * 1024 &&
	       o->nr_primary[s] == 8;
}

TEST(em_two_domains)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	char err[256], *out;

	two_domains("ps:", "cpu0", "cpu4", true);
	/* A device that is not a CPU (no cpus file) is skipped. */
	put("em/gpu/ps:100000/frequency", "100000\n");
	put("em/gpu/ps:100000/power", "1000\n");
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(two_domain_shape(t, o));
	CHECK(!o->warning[0]);
	out = print_to_string(o);
	CHECK(strstr(out, "pco[0] bound=300 primary=3 power=30: 0 1 2 | 4 5 6 7 3\n"));
	CHECK(strstr(out, "energy model: 2 domains, exhaustive search"));
	free(out);
}

/* Before Linux 5.8: cs:<kHz> directories and no performance file. */
TEST(em_old_cs_dirs)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	char err[256];

	two_domains("cs:", "pd0", "pd1", false);
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(two_domain_shape(t, o));
}

TEST(use_em_false_ignores_em)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	char err[256];

	two_domains("ps:", "cpu0", "cpu4", true);
	CHECK_EQ(build(t, o, false, err), 0);
	CHECK(!o->has_em);
	CHECK_EQ(o->nr_states, 2);
	CHECK_EQ(o->bound[0], 300);
	CHECK_EQ(o->bound[1], 5296);
	CHECK(same(o->table[1], o->perf, 8));
}

TEST(em_errors)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	char err[256];

	two_domains("ps:", "cpu0", "cpu4", true);
	put("em/cpu0/cpus", "0-3x\n");
	CHECK_EQ(build(t, o, true, err), -1);
	CHECK(strstr(err, "malformed CPU list '0-3x'"));
	CHECK(strstr(err, "--no-use-em"));
	CHECK_EQ(build(t, o, false, err), 0);	/* and --no-use-em does work */

	put("em/cpu0/cpus", "0-4\n");
	CHECK_EQ(build(t, o, true, err), -1);
	CHECK(strstr(err, "CPU 4 is in two energy-model domains"));
	put("em/cpu0/cpus", "0-3\n");

	put("em/cpu4/ps:1800000/power", "lots\n");
	CHECK_EQ(build(t, o, true, err), -1);
	CHECK(strstr(err, "malformed value 'lots'"));
	rm("em/cpu4");
	put("em/cpu4/cpus", "4-7\n");
	CHECK_EQ(build(t, o, true, err), -1);
	CHECK(strstr(err, "no performance states"));

	/* A CPU without a domain: EM ignored with a warning. */
	rm("em/cpu4");
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!o->has_em && o->nr_states == 2);
	CHECK(strstr(o->warning, "online CPU 4 is in no energy-model domain"));

	/* Only non-CPU devices, or no directory at all: no EM, quietly. */
	rm("em/cpu0");
	put("em/gpu/ps:100000/frequency", "100000\n");
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!o->has_em && !o->warning[0]);
	rm("em");
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(!o->has_em && !o->warning[0]);
}

/*
 * Per-CPU domains. 16 domains with two distinct tables are two classes of
 * 8: (8+1)^2 combinations, exhaustive. 17 domains with 17 tables are 2^17
 * combinations: greedy.
 */
TEST(em_per_cpu_domains)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	char err[256], name[16], list[16];

	fresh_root();
	flat_cpus(16);
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "cpu%d", i);
		snprintf(list, sizeof(list), "%d", i);
		if (i < 8)
			em_dom(name, list, "ps:", 3, lf, lp, lperf);
		else
			em_dom(name, list, "ps:", 3, bf, bp, bperf);
	}
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(o->has_em && !o->em_greedy);
	CHECK_EQ(o->nr_em_domains, 16);
	CHECK(states_ok(t, o, true));
	CHECK_EQ(o->bound[o->nr_states - 1], 8 * 300 + 8 * 1024);
	CHECK_EQ(o->nr_primary[o->nr_states - 1], 16);
	for (int j = 0; j < o->nr_primary[0]; j++)
		CHECK(o->table[0][j] < 8);

	fresh_root();
	flat_cpus(17);
	for (int i = 0; i < 17; i++) {
		long f[] = { 1000000, 2000000 }, p[2], perf[2];

		/* 0-7 efficient, 8-16 power hungry; every table a little different */
		perf[0] = i < 8 ? 100 + i : 500 + i;
		perf[1] = i < 8 ? 250 + i : 1000 + i;
		p[0] = i < 8 ? 10 + i : 300 + i;
		p[1] = i < 8 ? 30 + i : 900 + i;
		snprintf(name, sizeof(name), "cpu%d", i);
		snprintf(list, sizeof(list), "%d", i);
		em_dom(name, list, "ps:", 2, f, p, perf);
	}
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(o->has_em && o->em_greedy);
	CHECK(states_ok(t, o, true));
	CHECK_EQ(o->nr_primary[o->nr_states - 1], 17);
	CHECK(o->bound[o->nr_states - 1] >= 1020 && o->nr_states >= 3);
	for (int j = 0; j < o->nr_primary[0]; j++)
		CHECK(o->table[0][j] < 8);
}

/*
 * Equal power, different domain counts: CPUs 0 and 1 are one domain each,
 * CPUs 2 and 3 share one (slightly different tables, so two classes). Two
 * CPUs at 400 cost the same from either pair; the shared domain wins, as
 * the other domains can then sleep.
 */
TEST(em_fewer_domains_on_ties)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	static const long fa[] = { 1000000, 2000000 }, pa[] = { 10, 30 }, perfa[] = { 400, 800 };
	static const long fb[] = { 1000000, 2000000, 2500000 }, pb[] = { 10, 30, 60 },
			  perfb[] = { 400, 800, 1024 };
	char err[256];
	int s;

	fresh_root();
	flat_cpus(4);
	em_dom("cpu0", "0", "ps:", 2, fa, pa, perfa);
	em_dom("cpu1", "1", "ps:", 2, fa, pa, perfa);
	em_dom("cpu2", "2-3", "ps:", 3, fb, pb, perfb);
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK(o->has_em && o->nr_em_domains == 3 && states_ok(t, o, true));
	for (s = 0; s < o->nr_states && o->bound[s] != 800; s++)
		;
	CHECK(s < o->nr_states);
	CHECK_EQ(o->nr_primary[s], 2);
	CHECK_EQ(o->em_power[s], 20);
	CHECK(o->table[s][0] == 2 && o->table[s][1] == 3);
}

/* An offline CPU is in no table; a CPU vanishing under us crashes nothing. */
TEST(offline_and_vanishing_cpus)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	static const int want[] = { 3, 0, 1 };
	char err[256];

	fresh_root();
	put("cpu/online", "0-1,3\n");
	cpu(0, "0", 0);
	cpu(1, "1", 0);
	put("cpu/cpu2/x", "");
	cpu(3, "3", 0);
	capn(0, "cpu_capacity", 800);
	capn(1, "cpu_capacity", 800);
	capn(3, "cpu_capacity", 1000);
	em_dom("cpu0", "0-3", "ps:", 3, bf, bp, bperf);
	CHECK_EQ(build(t, o, true, err), 0);
	CHECK_EQ(o->nr_cpus, 3);
	CHECK_EQ(o->cap[2], 0);
	CHECK_EQ(o->cap[3], 1024);
	CHECK(same(o->perf, want, 3));
	CHECK_EQ(o->perf[3], -1);
	CHECK(o->has_em && states_ok(t, o, true));
	CHECK_EQ(o->table[0][3], -1);

	/* CPU 3 goes offline after the topology was read. */
	CHECK_EQ(topo_read(t, cpu_root, err, sizeof(err)), 0);
	rm("cpu/cpu3");
	CHECK_EQ(cpu_order_build(o, t, cpu_root, em_root, true, err, sizeof(err)), 0);
	CHECK(!strcmp(o->cap_source, "none (all equal)"));
	CHECK(states_ok(t, o, false));
}

TEST(this_machine)
{
	struct topo *t = &topo;
	struct cpu_order *o = &order;
	char err[256];

	CHECK_EQ(topo_read(t, "/sys/devices/system/cpu", err, sizeof(err)), 0);
	CHECK_EQ(cpu_order_build(o, t, "/sys/devices/system/cpu", "/sys/kernel/debug/energy_model",
				 true, err, sizeof(err)), 0);
	CHECK(is_perm(t, o->perf, o->nr_cpus) && is_perm(t, o->powersave, o->nr_cpus));
	CHECK(states_ok(t, o, false));
}

HARNESS_MAIN("cpu_order")
