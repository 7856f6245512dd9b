/* SPDX-License-Identifier: GPL-2.0 */
/* Topology discovery against fake sysfs trees (src/loader/topo.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "loader/topo.h"

#include "fakefs.h"

static void fresh_root(void)
{
	fresh_root_named("topo");
}

/* cpu with an L3 of the given id and SMT siblings list. */
static void cpu(int n, int l3, const char *sibs, int node)
{
	char rel[128], val[64];

	snprintf(rel, sizeof(rel), "cpu%d/cache/index0/level", n);
	put(rel, "1\n");
	snprintf(rel, sizeof(rel), "cpu%d/cache/index0/type", n);
	put(rel, "Data\n");
	snprintf(rel, sizeof(rel), "cpu%d/cache/index0/id", n);
	snprintf(val, sizeof(val), "%d\n", n);
	put(rel, val);
	snprintf(rel, sizeof(rel), "cpu%d/cache/index1/level", n);
	put(rel, "1\n");
	snprintf(rel, sizeof(rel), "cpu%d/cache/index1/type", n);
	put(rel, "Instruction\n");
	snprintf(rel, sizeof(rel), "cpu%d/cache/index3/level", n);
	put(rel, "3\n");
	snprintf(rel, sizeof(rel), "cpu%d/cache/index3/type", n);
	put(rel, "Unified\n");
	snprintf(rel, sizeof(rel), "cpu%d/cache/index3/id", n);
	snprintf(val, sizeof(val), "%d\n", l3);
	put(rel, val);
	snprintf(rel, sizeof(rel), "cpu%d/topology/thread_siblings_list", n);
	snprintf(val, sizeof(val), "%s\n", sibs);
	put(rel, val);
	snprintf(rel, sizeof(rel), "cpu%d/node%d/x", n, node);
	put(rel, "");
}

TEST(cpulist_parse)
{
	bool set[16] = { false };

	CHECK_EQ(topo_parse_cpulist("0-3,5,7-8", set, 16), 7);
	CHECK(set[0] && set[3] && !set[4] && set[5] && !set[6] && set[8]);
	memset(set, 0, sizeof(set));
	CHECK_EQ(topo_parse_cpulist("0", set, 16), 1);
	CHECK_EQ(topo_parse_cpulist("", set, 16), 0);
	CHECK(topo_parse_cpulist("3-1", set, 16) < 0);
	CHECK(topo_parse_cpulist("0-99", set, 16) < 0);
	CHECK(topo_parse_cpulist("a", set, 16) < 0);
	CHECK(topo_parse_cpulist("1-", set, 16) < 0);
	CHECK(topo_parse_cpulist("1x", set, 16) < 0);
}

TEST(two_llcs_smt)
{
	struct topo *t = calloc(1, sizeof(*t));
	char err[256];

	fresh_root();
	put("online", "0-7\n");
	for (int i = 0; i < 8; i++) {
		char s[16];

		snprintf(s, sizeof(s), "%d,%d", i % 4, i % 4 + 4);
		cpu(i, i % 4 < 2 ? 0 : 1, s, i % 4 < 2 ? 0 : 1);
	}
	CHECK(topo_read(t, root, err, sizeof(err)) == 0);
	CHECK_EQ(t->nr_cpu_ids, 8);
	CHECK_EQ(t->nr_online, 8);
	CHECK_EQ(t->nr_llcs, 2);
	CHECK_EQ(t->nr_nodes, 2);
	CHECK(t->smt);
	CHECK_EQ(t->llc[0], t->llc[1]);
	CHECK(t->llc[0] != t->llc[2]);
	CHECK_EQ(t->llc[4], t->llc[0]);
	CHECK_EQ(t->core_id[5], 1);
	free(t);
}

/*
 * QEMU -cpu max on an AMD host: every vCPU has its own L3 id, but every
 * shared_cpu_list says they share one L3. The list wins: one LLC.
 */
TEST(llc_by_shared_list_not_id)
{
	struct topo *t = calloc(1, sizeof(*t));
	char err[256], rel[128];

	fresh_root();
	put("online", "0-3\n");
	for (int i = 0; i < 4; i++) {
		char s[16];

		snprintf(s, sizeof(s), "%d", i);
		cpu(i, i, s, 0);
		snprintf(rel, sizeof(rel), "cpu%d/cache/index3/shared_cpu_list", i);
		put(rel, "0-3\n");
	}
	CHECK(topo_read(t, root, err, sizeof(err)) == 0);
	CHECK_EQ(t->nr_llcs, 1);
	CHECK_EQ(t->llc[3], t->llc[0]);

	/* Two halves by list, one id for all: two LLCs. */
	fresh_root();
	put("online", "0-3\n");
	for (int i = 0; i < 4; i++) {
		char s[16];

		snprintf(s, sizeof(s), "%d", i);
		cpu(i, 0, s, 0);
		snprintf(rel, sizeof(rel), "cpu%d/cache/index3/shared_cpu_list", i);
		put(rel, i < 2 ? "0-1\n" : "2-3\n");
	}
	CHECK(topo_read(t, root, err, sizeof(err)) == 0);
	CHECK_EQ(t->nr_llcs, 2);
	CHECK_EQ(t->llc[1], t->llc[0]);
	CHECK(t->llc[2] != t->llc[0]);
	free(t);
}

TEST(offline_cpu_and_missing_cache)
{
	struct topo *t = calloc(1, sizeof(*t));
	char err[256];

	fresh_root();
	put("online", "0-1,3\n");
	cpu(0, 0, "0", 0);
	cpu(1, 0, "1", 0);
	mkdir(strcat(strcpy(err, root), "/cpu2"), 0755); /* offline: no files */
	put("cpu3/topology/thread_siblings_list", "3\n"); /* no cache dir */
	CHECK(topo_read(t, root, err, sizeof(err)) == 0);
	CHECK_EQ(t->nr_cpu_ids, 4);
	CHECK_EQ(t->nr_online, 3);
	CHECK(!t->online[2]);
	CHECK_EQ(t->llc[2], -1);
	CHECK(!t->smt);
	CHECK(t->llc[3] >= 0);
	free(t);
}

TEST(bad_trees_are_errors)
{
	struct topo *t = calloc(1, sizeof(*t));
	char err[256];

	fresh_root();
	CHECK(topo_read(t, "/nonexistent/lavd", err, sizeof(err)) < 0);
	CHECK(strstr(err, "cannot read"));
	CHECK(topo_read(t, root, err, sizeof(err)) < 0); /* no CPUs */
	cpu(0, 0, "0", 0);
	CHECK(topo_read(t, root, err, sizeof(err)) < 0); /* no online file */
	put("online", "garbage\n");
	CHECK(topo_read(t, root, err, sizeof(err)) < 0);
	CHECK(strstr(err, "malformed"));
	put("online", "0-5\n"); /* lists CPUs that do not exist */
	CHECK(topo_read(t, root, err, sizeof(err)) < 0);
	put("online", "0\n");
	put("cpu0/topology/thread_siblings_list", "1\n"); /* not in its own list */
	cpu(1, 0, "1", 0);
	CHECK(topo_read(t, root, err, sizeof(err)) < 0);
	CHECK(strstr(err, "sibling"));
	put("cpu0/topology/thread_siblings_list", "0\n");
	CHECK(topo_read(t, root, err, sizeof(err)) == 0);
	put("cpu4096/x", "");
	CHECK(topo_read(t, root, err, sizeof(err)) < 0);
	CHECK(strstr(err, "beyond"));
	free(t);
}

/*
 * An in-memory topology: n CPUs, all online, LLC and core (first CPU of the
 * core) given per CPU.
 */
static struct topo *mk(int n, int (*llc_of)(int), int (*core_of)(int))
{
	struct topo *t = calloc(1, sizeof(*t));

	t->nr_cpu_ids = t->nr_online = n;
	for (int i = 0; i < LAVD_MAX_CPUS; i++) {
		t->llc[i] = -1;
		t->core_id[i] = -1;
	}
	for (int i = 0; i < n; i++) {
		t->online[i] = true;
		t->llc[i] = llc_of(i);
		t->core_id[i] = core_of(i);
		if (t->llc[i] + 1 > t->nr_llcs)
			t->nr_llcs = t->llc[i] + 1;
	}
	return t;
}

static int llc_zero(int cpu) { (void)cpu; return 0; }
static int llc_halves12(int cpu) { return cpu >= 6; }
static int core_self(int cpu) { return cpu; }
static int core_smt8(int cpu) { return cpu % 8; }	/* 16 CPUs: i and i + 8 are siblings */

TEST(vllc_size_like_upstream)
{
	CHECK_EQ(topo_vllc_size(16, 2, 8), 2);	/* the smallest exact divisor */
	CHECK_EQ(topo_vllc_size(9, 2, 8), 3);
	CHECK_EQ(topo_vllc_size(7, 2, 8), 7);
	CHECK_EQ(topo_vllc_size(10, 3, 4), 3);	/* remainders 1 and 2 */
	CHECK_EQ(topo_vllc_size(13, 4, 5), 4);	/* remainders 1 and 3 */
	CHECK_EQ(topo_vllc_size(11, 4, 5), 5);	/* remainders 3 and 1 */
	CHECK_EQ(topo_vllc_size(1, 2, 8), 1);	/* no more than there is */
	CHECK_EQ(topo_vllc_size(5, 6, 8), 5);
	CHECK_EQ(topo_vllc_size(6, 6, 8), 6);
	CHECK_EQ(topo_vllc_size(3, 1, 1), 1);
}

TEST(vllc_split_keeps_siblings)
{
	struct topo *t = mk(16, llc_zero, core_smt8);
	char err[256];

	CHECK_EQ(topo_split_llcs(t, NULL, 4, 4, err, sizeof(err)), 0);
	CHECK_EQ(t->nr_llcs, 2);
	for (int cpu = 0; cpu < 16; cpu++) {
		CHECK_EQ(t->llc[cpu], cpu % 8 < 4 ? 0 : 1);
		CHECK_EQ(t->llc[cpu], t->llc[t->core_id[cpu]]);
	}
	free(t);
}

TEST(vllc_split_within_each_llc)
{
	struct topo *t = mk(12, llc_halves12, core_self);
	char err[256];

	/* two LLCs of 6 cores, 2-8: parts of 2, three per LLC */
	CHECK_EQ(topo_split_llcs(t, NULL, 2, 8, err, sizeof(err)), 0);
	CHECK_EQ(t->nr_llcs, 6);
	for (int cpu = 0; cpu < 12; cpu++)
		CHECK_EQ(t->llc[cpu], cpu / 2);
	free(t);

	/* 13 cores, 4-5: parts of 4, the last takes the remainder (4, 4, 5) */
	t = mk(13, llc_zero, core_self);
	CHECK_EQ(topo_split_llcs(t, NULL, 4, 5, err, sizeof(err)), 0);
	CHECK_EQ(t->nr_llcs, 3);
	CHECK_EQ(t->llc[3], 0);
	CHECK_EQ(t->llc[4], 1);
	CHECK_EQ(t->llc[7], 1);
	CHECK_EQ(t->llc[8], 2);
	CHECK_EQ(t->llc[12], 2);
	free(t);
}

TEST(vllc_split_by_core_type)
{
	struct topo *t = mk(12, llc_zero, core_self);
	bool big[LAVD_MAX_CPUS] = { false };
	int seen_big[LAVD_MAX_LLCS] = { 0 }, seen_little[LAVD_MAX_LLCS] = { 0 };
	char err[256];

	for (int cpu = 0; cpu < 4; cpu++)
		big[cpu] = true;
	/* 4 big cores: 2 parts of 2; 8 little ones: 4 parts of 2 */
	CHECK_EQ(topo_split_llcs(t, big, 2, 8, err, sizeof(err)), 0);
	CHECK_EQ(t->nr_llcs, 6);
	for (int cpu = 0; cpu < 12; cpu++) {
		CHECK(t->llc[cpu] >= 0 && t->llc[cpu] < 6);
		(big[cpu] ? seen_big : seen_little)[t->llc[cpu]]++;
	}
	for (int l = 0; l < 6; l++)
		CHECK(!seen_big[l] != !seen_little[l]);	/* no virtual LLC mixes the types */
	free(t);
}

TEST(vllc_split_errors_and_offline)
{
	struct topo *t = mk(130, llc_zero, core_self);
	char err[256];

	CHECK(topo_split_llcs(t, NULL, 1, 1, err, sizeof(err)) < 0);	/* 130 > 64 LLCs */
	CHECK(strstr(err, "more than"));
	CHECK(topo_split_llcs(t, NULL, 0, 2, err, sizeof(err)) < 0);
	CHECK(topo_split_llcs(t, NULL, 3, 2, err, sizeof(err)) < 0);
	free(t);

	/* CPU 3 names CPU 1 as its core, CPU 1 names CPU 0: lists that disagree */
	t = mk(4, llc_zero, core_self);
	t->core_id[1] = 0;
	t->core_id[3] = 1;
	CHECK(topo_split_llcs(t, NULL, 1, 1, err, sizeof(err)) < 0);
	CHECK(strstr(err, "disagree"));
	free(t);

	t = mk(4, llc_zero, core_self);
	t->online[2] = false;
	t->llc[2] = -1;
	t->nr_online = 3;
	CHECK_EQ(topo_split_llcs(t, NULL, 1, 1, err, sizeof(err)), 0);
	CHECK_EQ(t->nr_llcs, 3);
	CHECK_EQ(t->llc[2], -1);
	CHECK_EQ(t->llc[3], 2);
	free(t);
}

TEST(this_machine)
{
	struct topo *t = calloc(1, sizeof(*t));
	char err[256];

	CHECK(topo_read(t, "/sys/devices/system/cpu", err, sizeof(err)) == 0);
	CHECK(t->nr_online >= 1 && t->nr_llcs >= 1 && t->nr_online <= t->nr_cpu_ids);
	free(t);
}

HARNESS_MAIN("topo")
