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

/* First line of a sysfs file, trailing newline and spaces removed; length or -1. */
int topo_read_line(const char *path, char *buf, int len);

/* Parse a sysfs CPU list ("0-3,5,7-8") into set[]; returns count or -1. */
int topo_parse_cpulist(const char *s, bool *set, int max);

#endif /* __LAVD_TOPO_H */
