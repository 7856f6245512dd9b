/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpu_order.h - CPU capacities, CPU preference orders and the
 * performance-vs-CPU-order (PCO) tables that core compaction and big/little
 * placement walk. Built once by the loader from sysfs and, when there is
 * one, the kernel's energy model in debugfs (see cpu_order.c).
 */
#ifndef __LAVD_CPU_ORDER_H
#define __LAVD_CPU_ORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "topo.h"		/* struct topo, LAVD_MAX_CPUS */

#define LAVD_PCO_MAX		11	/* performance-vs-CPU-order states */
#define LAVD_CAP_SCALE		1024	/* capacity of the fastest CPU at full speed */

struct cpu_order {
	int nr_cpus;			/* online CPUs, = entries in each order */
	uint16_t cap[LAVD_MAX_CPUS];	/* capacity 1..1024 by CPU id, the fastest CPU = 1024; 0 offline */
	bool big[LAVD_MAX_CPUS];	/* every CPU is big when the system is not big/little */
	bool turbo[LAVD_MAX_CPUS];
	bool big_little;		/* max capacity >= 1.3 x min */
	const char *cap_source;		/* which sysfs file gave capacities, or "none (all equal)" */
	int perf[LAVD_MAX_CPUS];	/* CPU ids, performance order; -1 past nr_cpus */
	int powersave[LAVD_MAX_CPUS];	/* CPU ids, powersave order; -1 past nr_cpus */
	bool has_em;			/* energy model found and used */
	int nr_states;			/* 1..LAVD_PCO_MAX */
	/*
	 * Capacity upper bound of each state, 1024 = one fastest CPU at full
	 * speed; ascending. Entries from nr_states to LAVD_PCO_MAX - 1 repeat
	 * the last state, so a table copied whole into BPF stays ascending.
	 */
	uint64_t bound[LAVD_PCO_MAX];
	int nr_primary[LAVD_PCO_MAX];	/* CPUs to use in that state */
	/* state i: primary CPUs first, then the remaining online CPUs as overflow, nr_cpus entries */
	int table[LAVD_PCO_MAX][LAVD_MAX_CPUS];

	/* Added fields: for logs, and to tell how the tables were made. */
	uint64_t em_power[LAVD_PCO_MAX]; /* estimated power at the bound, in the EM's unit; 0 without EM */
	int nr_em_domains;		/* EM performance domains with online CPUs (0 without EM) */
	bool em_greedy;			/* EM states from the greedy search (too many combinations) */
	char warning[256];		/* non-fatal problem (e.g. EM ignored), "" if none: print it */
};

/*
 * cpu_root: normally /sys/devices/system/cpu; em_root: normally
 * /sys/kernel/debug/energy_model (missing dir = no energy model, not an
 * error). use_em=false ignores the EM (--no-use-em). t must have been read by
 * topo_read() from the same cpu_root. Returns 0, or -1 with a clear message
 * in err (then the loader exits 2).
 */
int cpu_order_build(struct cpu_order *o, const struct topo *t, const char *cpu_root,
		    const char *em_root, bool use_em, char *err, int errlen);

/*
 * A summary line, both orders, then one line per state for --verbose / logs,
 * e.g. "pco[2] bound=3072 primary=4: 0 2 4 6 | 1 3 5 7".
 */
void cpu_order_print(const struct cpu_order *o, FILE *f);

#endif /* __LAVD_CPU_ORDER_H */
