/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topo.c - discover CPUs, SMT siblings, LLCs and NUMA nodes from sysfs.
 *
 * sysfs is not always complete: offline CPUs have no cache or topology
 * files, containers and some VMs omit cache/, and a CPU may go offline
 * while we read. Online CPUs without cache information share one LLC per
 * package; anything that contradicts itself is an error, not a guess.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "topo.h"

int topo_read_line(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return n;
}

static int read_int(const char *path, long *v)
{
	char buf[64], *end;

	if (topo_read_line(path, buf, sizeof(buf)) <= 0)
		return -1;
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (errno || end == buf || *end)
		return -1;
	return 0;
}

int topo_parse_cpulist(const char *s, bool *set, int max)
{
	int count = 0;

	while (*s) {
		char *end;
		long a, b;

		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (!isdigit((unsigned char)*s))
			return -1;
		a = strtol(s, &end, 10);
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -1;
			b = strtol(s, &end, 10);
			s = end;
		}
		if (*s && *s != ',' && !isspace((unsigned char)*s))
			return -1;
		if (a < 0 || b < a || b >= max)
			return -1;
		for (long i = a; i <= b; i++) {
			if (!set[i])
				count++;
			set[i] = true;
		}
	}
	return count;
}

/*
 * Key of the last-level cache of a CPU: the highest level that holds data,
 * named by the first CPU that shares it. The sharing list is the relation
 * itself; the cache "id" is only a label and can disagree with it: QEMU
 * -cpu max on an AMD host gives each of 4 vCPUs its own L3 id while every
 * shared_cpu_list says 0-3 (and the kernel builds one MC domain of 4).
 * Keying by id there made 4 one-CPU domains that stole from each other all
 * the time. The id is used only when the list is missing or malformed.
 */
static int cpu_llc_key(const char *root, int cpu, long *key)
{
	char path[512], type[32];
	long level, best_level = -1, id;

	for (int i = 0; i < 16; i++) {
		char list[4096];
		bool set[LAVD_MAX_CPUS] = { false };

		snprintf(path, sizeof(path), "%s/cpu%d/cache/index%d/level", root, cpu, i);
		if (read_int(path, &level))
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d/cache/index%d/type", root, cpu, i);
		if (topo_read_line(path, type, sizeof(type)) <= 0 || !strcmp(type, "Instruction"))
			continue;
		if (level <= best_level)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d/cache/index%d/shared_cpu_list", root, cpu, i);
		if (topo_read_line(path, list, sizeof(list)) > 0 &&
		    topo_parse_cpulist(list, set, LAVD_MAX_CPUS) > 0) {
			for (id = 0; id < LAVD_MAX_CPUS && !set[id]; id++)
				;
		} else {
			snprintf(path, sizeof(path), "%s/cpu%d/cache/index%d/id", root, cpu, i);
			if (read_int(path, &id))
				continue;
			/* Keep label keys apart from CPU-number keys. */
			id += LAVD_MAX_CPUS;
		}
		best_level = level;
		*key = level * 1000000 + id;
	}
	return best_level < 0 ? -1 : 0;
}

/* NUMA node of a CPU: its "nodeN" link, 0 without NUMA. */
static long cpu_node(const char *root, int cpu)
{
	char path[512];
	struct dirent *e;
	long node = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/cpu%d", root, cpu);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, "node", 4) && isdigit((unsigned char)e->d_name[4])) {
			node = strtol(e->d_name + 4, NULL, 10);
			break;
		}
	}
	closedir(d);
	return node;
}

int topo_read(struct topo *t, const char *root, char *err, int errlen)
{
	char path[512], buf[8192];
	long llc_keys[LAVD_MAX_LLCS];
	int max_id = -1;
	DIR *d;
	struct dirent *e;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < LAVD_MAX_CPUS; i++) {
		t->llc[i] = -1;
		t->core_id[i] = -1;
	}

	d = opendir(root);
	if (!d) {
		snprintf(err, errlen, "cannot read %s: %s", root, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char *end;
		long id;

		if (strncmp(e->d_name, "cpu", 3) || !isdigit((unsigned char)e->d_name[3]))
			continue;
		id = strtol(e->d_name + 3, &end, 10);
		if (*end)
			continue;
		if (id >= LAVD_MAX_CPUS) {
			closedir(d);
			snprintf(err, errlen, "CPU %ld is beyond the supported %d CPUs", id,
				 LAVD_MAX_CPUS);
			return -1;
		}
		if (id > max_id)
			max_id = id;
	}
	closedir(d);
	if (max_id < 0) {
		snprintf(err, errlen, "no CPUs found under %s", root);
		return -1;
	}
	t->nr_cpu_ids = max_id + 1;

	snprintf(path, sizeof(path), "%s/online", root);
	if (topo_read_line(path, buf, sizeof(buf)) <= 0) {
		snprintf(err, errlen, "cannot read %s", path);
		return -1;
	}
	t->nr_online = topo_parse_cpulist(buf, t->online, t->nr_cpu_ids);
	if (t->nr_online <= 0) {
		snprintf(err, errlen, "malformed online CPU list in %s: '%s'", path, buf);
		return -1;
	}

	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		long key, pkg = 0, node = 0;
		bool sib[LAVD_MAX_CPUS] = { false };
		int n, j;

		if (!t->online[cpu])
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d/topology/physical_package_id", root, cpu);
		if (read_int(path, &pkg) || pkg < 0)
			pkg = 0;
		if (cpu_llc_key(root, cpu, &key))
			key = -1 - pkg; /* no cache info: one LLC per package */
		for (j = 0; j < t->nr_llcs && llc_keys[j] != key; j++)
			;
		if (j == t->nr_llcs) {
			if (t->nr_llcs == LAVD_MAX_LLCS) {
				snprintf(err, errlen, "more than %d LLCs are not supported",
					 LAVD_MAX_LLCS);
				return -1;
			}
			llc_keys[t->nr_llcs++] = key;
		}
		t->llc[cpu] = j;

		snprintf(path, sizeof(path), "%s/cpu%d/topology/thread_siblings_list", root, cpu);
		t->core_id[cpu] = cpu;
		if (topo_read_line(path, buf, sizeof(buf)) > 0 &&
		    (n = topo_parse_cpulist(buf, sib, t->nr_cpu_ids)) > 0) {
			int online_sibs = 0;

			if (!sib[cpu]) {
				snprintf(err, errlen, "CPU %d is not in its own sibling list '%s'",
					 cpu, buf);
				return -1;
			}
			for (j = 0; j < t->nr_cpu_ids; j++) {
				if (!sib[j] || !t->online[j])
					continue;
				if (!online_sibs++)
					t->core_id[cpu] = j;
			}
			if (online_sibs > 1)
				t->smt = true;
		}

		node = cpu_node(root, cpu);
		t->node[cpu] = node;
		if (node + 1 > t->nr_nodes)
			t->nr_nodes = node + 1;
	}
	if (!t->nr_nodes)
		t->nr_nodes = 1;
	return 0;
}

int topo_vllc_size(int n, int min_cores, int max_cores)
{
	int best = min_cores;

	if (n <= min_cores)
		return n;
	for (int size = min_cores; size <= max_cores && size <= n; size++) {
		if (n % size < n % best)
			best = size;
		if (!(n % size))
			break;
	}
	return best;
}

/* cpu stands for a core (its first online CPU) of LLC llc and of the given type. */
static bool heads_core(const struct topo *t, const bool *big, int cpu, int llc, int type)
{
	return t->online[cpu] && t->llc[cpu] == llc && t->core_id[cpu] == cpu &&
	       (big && !big[cpu]) == type;	/* type 0: big, 1: little */
}

int topo_split_llcs(struct topo *t, const bool *big, int min_cores, int max_cores,
		    char *err, int errlen)
{
	/* new LLC of each core, by the core's first CPU */
	int core_vllc[LAVD_MAX_CPUS];
	int nr_new = 0;

	for (int i = 0; i < LAVD_MAX_CPUS; i++)
		core_vllc[i] = -1;

	if (min_cores < 1 || min_cores > max_cores) {
		snprintf(err, errlen, "virtual LLC sizes %d-%d are not 1 <= MIN <= MAX", min_cores,
			 max_cores);
		return -1;
	}
	for (int llc = 0; llc < t->nr_llcs; llc++) {
		for (int type = 0; type < 2; type++) {
			int n = 0, size, parts, i = 0;

			/* cores of this LLC and type, in CPU order (a core = its first CPU) */
			for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++)
				n += heads_core(t, big, cpu, llc, type);
			if (!n)
				continue;
			size = topo_vllc_size(n, min_cores, max_cores);
			parts = n / size;
			if (nr_new + parts > LAVD_MAX_LLCS) {
				snprintf(err, errlen, "--virt-llc=%d-%d makes more than %d LLCs",
					 min_cores, max_cores, LAVD_MAX_LLCS);
				return -1;
			}
			for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
				if (!heads_core(t, big, cpu, llc, type))
					continue;
				core_vllc[cpu] = nr_new + (i / size < parts ? i / size : parts - 1);
				i++;
			}
			nr_new += parts;
		}
	}
	/*
	 * Every online CPU follows its core. A core whose first CPU names
	 * another core (sibling lists that disagree) has no part: an error,
	 * not a guess.
	 */
	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		int core = t->core_id[cpu];

		if (!t->online[cpu])
			continue;
		if (core < 0 || core >= LAVD_MAX_CPUS || core_vllc[core] < 0) {
			snprintf(err, errlen, "CPU %d: its core (CPU %d) is not in its LLC's cores; "
				 "the SMT sibling lists disagree", cpu, core);
			return -1;
		}
	}
	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++)
		if (t->online[cpu])
			t->llc[cpu] = core_vllc[t->core_id[cpu]];
	t->nr_llcs = nr_new;
	return 0;
}
