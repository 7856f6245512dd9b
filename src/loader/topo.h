/* SPDX-License-Identifier: GPL-2.0 */
/* topo.h - CPU topology read from sysfs. */
#ifndef __LAVD_TOPO_H
#define __LAVD_TOPO_H

#include <stdbool.h>
#include "../common/intf.h"

struct topo {
	int nr_cpu_ids;			/* highest possible CPU id + 1 */
	int nr_online;
	int nr_llcs;
	int nr_nodes;
	bool smt;			/* some core has more than one online thread */
	bool online[LAVD_MAX_CPUS];
	int llc[LAVD_MAX_CPUS];		/* dense LLC index, -1 if offline */
	int node[LAVD_MAX_CPUS];	/* NUMA node, 0 if unknown */
	int core_id[LAVD_MAX_CPUS];	/* first CPU of the core's sibling list */
};

/*
 * Read the topology under root (normally "/sys/devices/system/cpu"; tests
 * pass a fake tree). Returns 0, or -1 with a message in err.
 */
int topo_read(struct topo *t, const char *root, char *err, int errlen);

/*
 * --virt-llc: split every LLC into virtual LLCs of min_cores..max_cores
 * cores each, as upstream scx_lavd does (scx_utils' topology): the cores of
 * one type (big[] as cpu_order_build fills it, true for every CPU but the
 * slower type's; NULL: all one type)
 * in one LLC are cut into n / size parts, size being the one in
 * [min_cores, max_cores] that leaves the smallest remainder (the smallest
 * such size on a tie; all n cores when n <= min_cores). The last part takes
 * the remainder. SMT siblings stay together. Rewrites t->llc and
 * t->nr_llcs; returns 0, or -1 with a message in err (too many LLCs,
 * sibling lists that disagree), t then unchanged.
 */
int topo_split_llcs(struct topo *t, const bool *big, int min_cores, int max_cores,
		    char *err, int errlen);

/* The part size topo_split_llcs uses for n cores (n >= 1, 1 <= min <= max). */
int topo_vllc_size(int n, int min_cores, int max_cores);

/* First line of a sysfs file, trailing newline and spaces removed; length or -1. */
int topo_read_line(const char *path, char *buf, int len);

/* Parse a sysfs CPU list ("0-3,5,7-8") into set[]; returns count or -1. */
int topo_parse_cpulist(const char *s, bool *set, int max);

#endif /* __LAVD_TOPO_H */
