/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topo.c - topologies. A topology is a list of groups; each group adds
 * `llcs` LLCs of `cores_per_llc` cores with `smt` threads (1 or 2), a
 * capacity and a per-thread power model. CPUs are numbered group by group,
 * LLC by LLC, core by core, the threads of a core adjacent.
 *
 * JSON: {"name": "box", "groups": [{"llcs": 2, "cores_per_llc": 8, "smt": 2,
 *        "cap": 1024, "idle_mw": 150, "active_mw": 2500, "node": 0,
 *        "shared_llc": false}]}
 * shared_llc: the group's CPUs join the previous group's last LLC
 * (a hybrid part whose big and little cores share the L3).
 */
#include <jansson.h>
#include "sim.h"

struct group {
	int llcs, cores, smt, node, shared;
	u32 cap, idle_mw, active_mw;
};

static int topo_build(struct sim_topo *t, const char *name, const struct group *g, int n,
		      char *err, size_t errlen)
{
	int i, l, c, k;

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	for (i = 0; i < n; i++) {
		if (g[i].llcs < 1 || g[i].cores < 1 || g[i].smt < 1 || g[i].smt > 2 || g[i].cap < 1 ||
		    g[i].cap > 1024) {
			snprintf(err, errlen, "topology group %d: need llcs>=1, cores_per_llc>=1, "
				 "smt 1 or 2, cap 1..1024", i);
			return -1;
		}
		if (g[i].shared && (i == 0 || g[i].llcs != 1)) {
			snprintf(err, errlen, "topology group %d: shared_llc needs a previous group "
				 "and llcs 1", i);
			return -1;
		}
		for (l = 0; l < g[i].llcs; l++) {
			int llc = g[i].shared ? t->nr_llcs - 1 : t->nr_llcs++;

			if (t->nr_llcs > SIM_MAX_LLCS) {
				snprintf(err, errlen, "more than %d LLCs", SIM_MAX_LLCS);
				return -1;
			}
			for (c = 0; c < g[i].cores; c++) {
				int core = t->nr_cores++;

				for (k = 0; k < g[i].smt; k++) {
					struct sim_cpu_desc *d;

					if (t->nr_cpus >= SIM_MAX_CPUS) {
						snprintf(err, errlen, "more than %d CPUs", SIM_MAX_CPUS);
						return -1;
					}
					d = &t->cpu[t->nr_cpus];
					d->core = core;
					d->llc = llc;
					d->node = g[i].node;
					d->cap = g[i].cap;
					d->idle_mw = g[i].idle_mw;
					d->active_mw = g[i].active_mw;
					d->sibling = g[i].smt == 2 ? (k ? t->nr_cpus - 1 : t->nr_cpus + 1) : -1;
					mask_set(&t->llc_mask[llc], t->nr_cpus);
					mask_set(&t->all, t->nr_cpus);
					t->nr_cpus++;
				}
				if (g[i].smt == 2)
					t->smt = 1;
				/* a busy SMT pair does 2 x SIM_SMT_SPEED / 1024 of one thread */
				t->capacity_milli += (u64)g[i].cap * 1000 / 1024 *
						     (g[i].smt == 2 ? 2 * SIM_SMT_SPEED : 1024) / 1024;
			}
		}
	}
	return 0;
}

static int topo_json(struct sim_topo *t, const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je), *groups, *v;
	struct group g[SIM_MAX_LLCS];
	const char *name = "custom";
	size_t i;
	int rc;

	if (!root) {
		snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
		return -1;
	}
	if (json_is_string(json_object_get(root, "name")))
		name = json_string_value(json_object_get(root, "name"));
	groups = json_object_get(root, "groups");
	if (!json_is_array(groups) || !json_array_size(groups) ||
	    json_array_size(groups) > SIM_MAX_LLCS) {
		snprintf(err, errlen, "%s: \"groups\" must be a non-empty array", path);
		json_decref(root);
		return -1;
	}
	json_array_foreach(groups, i, v) {
		json_t *x;

#define GI(field, key, dfl) \
	g[i].field = (x = json_object_get(v, key)) ? (int)json_integer_value(x) : (dfl)
		GI(llcs, "llcs", 1);
		GI(cores, "cores_per_llc", 1);
		GI(smt, "smt", 1);
		GI(node, "node", 0);
		GI(cap, "cap", 1024);
		GI(idle_mw, "idle_mw", 100);
		GI(active_mw, "active_mw", 2000);
#undef GI
		g[i].shared = json_is_true(json_object_get(v, "shared_llc"));
	}
	rc = topo_build(t, name, g, (int)json_array_size(groups), err, errlen);
	json_decref(root);
	return rc;
}

int topo_load(struct sim_topo *t, const char *n, char *err, size_t errlen)
{
	/* llcs, cores/llc, smt, node, shared, cap, idle mW, active mW (per thread) */
	static const struct group deck[] = { { 1, 4, 2, 0, 0, 1024, 100, 1800 } };
	static const struct group desktop[] = { { 2, 8, 2, 0, 0, 1024, 150, 2500 } };
	static const struct group server[] = { { 4, 8, 2, 0, 0, 1024, 300, 2500 },
						{ 4, 8, 2, 1, 0, 1024, 300, 2500 } };
	static const struct group hybrid[] = { { 1, 8, 2, 0, 0, 1024, 80, 3000 },
						{ 1, 16, 1, 0, 1, 600, 40, 800 } };

	if (!strcmp(n, "deck"))
		return topo_build(t, n, deck, 1, err, errlen);
	if (!strcmp(n, "desktop"))
		return topo_build(t, n, desktop, 1, err, errlen);
	if (!strcmp(n, "server"))
		return topo_build(t, n, server, 2, err, errlen);
	if (!strcmp(n, "hybrid"))
		return topo_build(t, n, hybrid, 2, err, errlen);
	if (strchr(n, '/') || strstr(n, ".json"))
		return topo_json(t, n, err, errlen);
	snprintf(err, errlen, "unknown topology '%s' (deck, desktop, server, hybrid or a .json file)",
		 n);
	return -1;
}
