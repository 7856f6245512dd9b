/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpu_order.c - how fast each CPU is, in which order to use the CPUs, and
 * how many of them are enough for a given load.
 *
 * Core compaction (reference §16) keeps the load on as few CPUs as it needs
 * so that the others can sleep, and big/little placement sends work to the
 * right kind of core. Both walk tables built here, once per load:
 *
 * 1. Capacity of each online CPU. Several sysfs files rank CPUs; the first
 *    one that exists on every online CPU *and* differs between CPUs is used
 *    (a file equal everywhere says nothing, e.g. cpuinfo_max_freq on a VM).
 *    Values are scaled so that the fastest CPU is 1024. With max >= 1.3 x
 *    min the system is big/little; CPUs at or above the average are big.
 *
 * 2. Two CPU orders. The performance order spreads work over physical cores
 *    first; the powersave order packs it onto few cores and LLCs (each sort
 *    key is explained at its comparison function).
 *
 * 3. PCO ("performance vs CPU order") states, ascending in capacity: state i
 *    says "up to bound[i] of load, use the first nr_primary[i] CPUs of
 *    table[i]; the rest of the table is overflow". Without an energy model
 *    there are two states, the powersave and the performance order, and
 *    the BPF side counts CPUs along the table itself. With the kernel's
 *    energy model (debugfs), each state is the set of CPUs and the operating
 *    point that deliver a capacity target (5 %, 10 %, 20 % ... 100 % of the
 *    total) at the lowest estimated power.
 *
 * Upstream scx_lavd builds the same tables in Rust (cpu_order.rs); this is
 * our own design from its facts. Differences: no-EM states list every CPU
 * as primary (upstream lists one) because the BPF side walks the order to
 * choose how many; the EM search uses one operating point for the whole
 * system and power at full load (see em_build); an online CPU outside
 * every EM domain makes us ignore the EM with a warning instead of failing.
 *
 * Errors name the file: a malformed value in the chosen capacity source,
 * and a malformed energy model (CPU list, state values, a domain without
 * states, a CPU in two domains). The EM ones suggest --no-use-em, which
 * skips the model. A missing EM directory is not an error.
 *
 * sysfs can change under us: a CPU that goes offline while we read makes
 * its files vanish. Every read is checked; a capacity file missing on one
 * CPU makes that source "not present", and the kernel will ask for a
 * restart after the hotplug anyway.
 */
#define _GNU_SOURCE		/* qsort_r, scandir */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_order.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BIG_LITTLE_PCT		130		/* big/little when max cap >= 130 % of min */
#define CAP_RAW_MAX		0xffffffffULL	/* larger raw capacities are nonsense */
#define EM_VALUE_MAX		1000000000000ULL /* kHz, power and performance beyond are nonsense */
#define EM_MAX_STATES		512		/* performance states per domain */
#define EM_EXHAUSTIVE_MAX	100000		/* CPU-count combinations searched exhaustively */
#define EM_WORK_MAX		20000000ULL	/* combinations x operating points, same search */
#define EM_MIN_OPS		16		/* operating points kept when thinning */
#define EM_GREEDY_OPS		64		/* operating points of the greedy search */
#define PATH_LEN		4096

/* Capacity targets of the energy-model states, in % of the total. */
static const unsigned int em_target_pct[] = { 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
_Static_assert(ARRAY_SIZE(em_target_pct) == LAVD_PCO_MAX, "one target per PCO state");

/*
 * Capacity sources, most precise first. The AMD preferred-core ranking and
 * CPPC highest_perf come from firmware and tell binned cores apart (and
 * Intel hybrid P from E cores); cpu_capacity is the arm64/RISC-V device-tree
 * figure; the maximum frequency is a last resort, as it ignores IPC.
 */
static const char *const cap_files[] = {
	"cpufreq/amd_pstate_prefcore_ranking",
	"cpufreq/amd_pstate_highest_perf",
	"acpi_cppc/highest_perf",
	"cpu_capacity",
	"cpufreq/cpuinfo_max_freq",
};

#define CMP(a, b)							\
	do {								\
		if ((a) != (b))						\
			return (a) < (b) ? -1 : 1;			\
	} while (0)

/*
 * Read a small sysfs or debugfs file, trailing white space removed.
 * Returns its length, or -1 if it is missing or unreadable.
 */
static int read_text(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");
	size_t n;
	bool bad;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	bad = ferror(f);
	fclose(f);
	if (bad)
		return -1;
	buf[n] = 0;
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return n;
}

/* dir/name into buf[PATH_LEN]; false if it does not fit. */
static bool join(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, PATH_LEN, "%s/%s", dir, name);

	return n >= 0 && n < PATH_LEN;
}

/*
 * A decimal integer in [0, max] and nothing else (no sign). Returns 0,
 * -1 if it is not a number, -2 if it is above max.
 */
static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (*end)
		return -1;
	if (errno == ERANGE || x > max)
		return -2;
	*v = x;
	return 0;
}

/* ---- 1. capacities ---------------------------------------------------- */

static int read_caps(struct cpu_order *o, const struct topo *t, const char *cpu_root,
		     char *err, int errlen)
{
	uint64_t *raw = calloc(LAVD_MAX_CPUS, sizeof(*raw));
	uint64_t max = 0, min = UINT64_MAX, sum = 0, n = o->nr_cpus;
	char path[1024], text[64], first[64];

	if (!raw) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t s = 0; s < ARRAY_SIZE(cap_files) && !o->cap_source; s++) {
		int bad_cpu = -1, bad_rc = 0, seen = 0;
		bool all = true, differ = false;
		char bad_text[64] = "";

		for (int cpu = 0; cpu < t->nr_cpu_ids && all; cpu++) {
			int rc;

			if (!t->online[cpu])
				continue;
			snprintf(path, sizeof(path), "%s/cpu%d/%s", cpu_root, cpu, cap_files[s]);
			if (read_text(path, text, sizeof(text)) < 0) {
				all = false;
				break;
			}
			if (!seen++)
				snprintf(first, sizeof(first), "%s", text);
			else if (strcmp(first, text))
				differ = true;
			rc = parse_u64(text, CAP_RAW_MAX, &raw[cpu]);
			if (!rc && !raw[cpu])
				rc = -1;
			if (rc && bad_cpu < 0) {
				bad_cpu = cpu;
				bad_rc = rc;
				snprintf(bad_text, sizeof(bad_text), "%s", text);
			}
		}
		/* Missing on some CPU, or the same everywhere: it ranks nothing. */
		if (!all || !differ)
			continue;
		if (bad_cpu >= 0) {
			if (bad_rc == -2)
				snprintf(err, errlen, "capacity '%s' in %s/cpu%d/%s is out of range "
					 "(at most %llu)", bad_text, cpu_root, bad_cpu, cap_files[s],
					 CAP_RAW_MAX);
			else
				snprintf(err, errlen, "malformed capacity '%s' in %s/cpu%d/%s: "
					 "expected a positive integer", bad_text, cpu_root, bad_cpu,
					 cap_files[s]);
			free(raw);
			return -1;
		}
		o->cap_source = cap_files[s];
	}
	if (!o->cap_source) {
		o->cap_source = "none (all equal)";
		for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++)
			raw[cpu] = t->online[cpu] ? LAVD_CAP_SCALE : 0;
	}

	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		if (!t->online[cpu])
			continue;
		if (raw[cpu] > max)
			max = raw[cpu];
		if (raw[cpu] < min)
			min = raw[cpu];
		sum += raw[cpu];
	}
	o->big_little = max * 100 >= min * BIG_LITTLE_PCT;
	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		uint64_t cap;

		if (!t->online[cpu])
			continue;
		cap = (raw[cpu] * LAVD_CAP_SCALE + max / 2) / max;
		o->cap[cpu] = cap ? cap : 1;
		/* Compared as raw x n against the sum: the exact average, no rounding. */
		o->turbo[cpu] = raw[cpu] == max && sum < max * n;
		o->big[cpu] = !o->big_little || raw[cpu] * n >= sum;
	}
	free(raw);
	return 0;
}

/* ---- 2. orders -------------------------------------------------------- */

struct order_ctx {
	const struct topo *t;
	const struct cpu_order *o;
	const int *thread;		/* index of each CPU among its core's online threads */
};

/*
 * Performance order: the first thread of every core before any second
 * thread, because an SMT sibling shares its core's pipelines and caches and
 * adds far less than another core; then by NUMA node and LLC, so that the
 * CPUs used together share memory and cache; the fastest CPU first.
 */
static int cmp_perf(const void *a, const void *b, void *arg)
{
	const struct order_ctx *c = arg;
	int x = *(const int *)a, y = *(const int *)b;

	CMP(c->thread[x], c->thread[y]);
	CMP(c->t->node[x], c->t->node[y]);
	CMP(c->t->llc[x], c->t->llc[y]);
	CMP(c->o->cap[y], c->o->cap[x]);
	CMP(x, y);
	return 0;
}

/*
 * Powersave order: pack work onto one node and LLC before the next, and onto
 * every thread of a core before the next core, so that whole cores and
 * caches can sleep. Without big/little the fastest (best binned) CPU comes
 * first: same power, done sooner. With big/little the little cores come
 * first: light work costs them far less energy.
 */
static int cmp_powersave(const void *a, const void *b, void *arg)
{
	const struct order_ctx *c = arg;
	int x = *(const int *)a, y = *(const int *)b;

	CMP(c->t->node[x], c->t->node[y]);
	CMP(c->t->llc[x], c->t->llc[y]);
	if (c->o->big_little)
		CMP(c->o->cap[x], c->o->cap[y]);
	else
		CMP(c->o->cap[y], c->o->cap[x]);
	CMP(c->t->core_id[x], c->t->core_id[y]);
	CMP(c->thread[x], c->thread[y]);
	CMP(x, y);
	return 0;
}

static void build_orders(struct cpu_order *o, const struct topo *t)
{
	int thread[LAVD_MAX_CPUS], nr_seen[LAVD_MAX_CPUS] = { 0 };
	struct order_ctx c = { .t = t, .o = o, .thread = thread };
	int n = 0;

	/* core_id is the core's first online thread: count threads in id order. */
	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		int core = t->core_id[cpu];

		if (!t->online[cpu])
			continue;
		if (core < 0 || core >= LAVD_MAX_CPUS)
			core = cpu;
		thread[cpu] = nr_seen[core]++;
		o->perf[n] = cpu;
		o->powersave[n] = cpu;
		n++;
	}
	qsort_r(o->perf, n, sizeof(int), cmp_perf, &c);
	qsort_r(o->powersave, n, sizeof(int), cmp_powersave, &c);
}

/* ---- 3a. states without an energy model ------------------------------- */

/*
 * State 0 is the powersave order, bounded by the capacity of its first CPU;
 * state 1 the performance order, bounded by the total capacity. Every CPU
 * is primary: the BPF side adds CPUs along the table until their capacity
 * covers the load. (On a one-CPU system both bounds are equal.)
 */
static void no_em_states(struct cpu_order *o)
{
	uint64_t total = 0;

	for (int i = 0; i < o->nr_cpus; i++)
		total += o->cap[o->perf[i]];
	o->nr_states = 2;
	o->bound[0] = o->cap[o->powersave[0]];
	o->bound[1] = total;
	for (int s = 0; s < 2; s++) {
		o->nr_primary[s] = o->nr_cpus;
		memcpy(o->table[s], s ? o->perf : o->powersave, sizeof(int) * o->nr_cpus);
	}
}

/* ---- 3b. the energy model --------------------------------------------- */

/*
 * What we read of a performance state. `cost` (power x fmax / freq) and
 * `inefficient` are not needed: the search compares power at equal
 * capacity directly, so a state that gives less work per watt loses to
 * fewer CPUs at a higher state on its own.
 */
struct em_state {
	uint64_t freq_khz;
	uint64_t power;			/* EM unit: milliwatts or abstract ("bogoWatts") */
	uint64_t perf_em;		/* the `performance` file, EM unit */
	bool has_perf_em;		/* old kernels (cs:*) have no `performance` */
	uint64_t perf;			/* capacity at this state, 1024 = fastest CPU at top speed */
};

struct em_dom {
	char name[256];
	struct em_state *st;		/* ascending perf once converted */
	int nr_st;
	int nr_online;			/* online CPUs in the domain */
	int first_cpu;			/* lowest online CPU id, -1 if none */
	int cls;			/* equivalence class, -1 before classing */
};

struct em {
	struct em_dom *dom;
	int nr_dom;
	int dom_of[LAVD_MAX_CPUS];	/* domain of each online CPU, -1 if none */
};

static void em_free(struct em *em)
{
	for (int d = 0; d < em->nr_dom; d++)
		free(em->dom[d].st);
	free(em->dom);
}

static void free_names(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int is_state_dir(const struct dirent *e)
{
	/* ps:<kHz> since Linux 5.8, cs:<kHz> ("capacity state") before. */
	return (!strncmp(e->d_name, "ps:", 3) || !strncmp(e->d_name, "cs:", 3)) &&
	       isdigit((unsigned char)e->d_name[3]);
}

static int cmp_state_freq(const void *a, const void *b)
{
	const struct em_state *x = a, *y = b;

	CMP(x->freq_khz, y->freq_khz);
	return 0;
}

static int cmp_state_perf(const void *a, const void *b)
{
	const struct em_state *x = a, *y = b;

	CMP(x->perf, y->perf);
	CMP(x->power, y->power);
	return 0;
}

/* One value of a performance state; a missing optional file leaves *has false. */
static int em_read_value(const char *dir, const char *file, bool optional, uint64_t *v,
			 bool *has, char *err, int errlen)
{
	char path[PATH_LEN], text[64];
	int rc;

	if (has)
		*has = false;
	if (!join(path, dir, file) || read_text(path, text, sizeof(text)) < 0) {
		if (optional)
			return 0;
		snprintf(err, errlen, "cannot read %s: energy-model state without %s", path, file);
		return -1;
	}
	rc = parse_u64(text, EM_VALUE_MAX, v);
	if (rc) {
		snprintf(err, errlen, "%s '%s' in %s", rc == -2 ? "out-of-range value" :
			 "malformed value", text, path);
		return -1;
	}
	if (has)
		*has = true;
	return 0;
}

static int em_read_states(struct em_dom *dom, const char *dir, char *err, int errlen)
{
	struct dirent **names;
	int n = scandir(dir, &names, is_state_dir, alphasort);

	if (n < 0) {
		snprintf(err, errlen, "cannot read energy-model domain %s: %s", dir, strerror(errno));
		return -1;
	}
	if (n == 0 || n > EM_MAX_STATES) {
		if (n)
			snprintf(err, errlen, "energy-model domain %s has %d performance states, "
				 "more than the %d supported", dir, n, EM_MAX_STATES);
		else
			snprintf(err, errlen, "energy-model domain %s has no performance states "
				 "(no ps:* or cs:* directory)", dir);
		free_names(names, n);
		return -1;
	}
	dom->st = calloc(n, sizeof(*dom->st));
	if (!dom->st) {
		free_names(names, n);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		struct em_state *st = &dom->st[dom->nr_st++];
		char sdir[PATH_LEN];

		if (!join(sdir, dir, names[i]->d_name)) {
			snprintf(err, errlen, "path too long under %s", dir);
			free_names(names, n);
			return -1;
		}
		if (em_read_value(sdir, "frequency", false, &st->freq_khz, NULL, err, errlen) ||
		    em_read_value(sdir, "power", false, &st->power, NULL, err, errlen) ||
		    em_read_value(sdir, "performance", true, &st->perf_em, &st->has_perf_em,
				  err, errlen)) {
			free_names(names, n);
			return -1;
		}
		if (!st->freq_khz) {
			snprintf(err, errlen, "energy-model state %s has frequency 0", sdir);
			free_names(names, n);
			return -1;
		}
	}
	free_names(names, n);
	qsort(dom->st, dom->nr_st, sizeof(*dom->st), cmp_state_freq);
	return 0;
}

/*
 * Read the energy model under em_root: one directory per performance domain
 * (named after its first CPU's device, e.g. cpu0) with a `cpus` list and one
 * ps:<kHz> (or cs:<kHz>) directory per performance state. Directories
 * without `cpus` are devices other than CPUs (GPUs) and are skipped.
 * Returns 1 if the model is usable, 0 if there is none or it cannot be used
 * (o->warning says why when that deserves a word), -1 if it is malformed.
 */
static int em_read(struct em *em, struct cpu_order *o, const struct topo *t,
		   const char *em_root, char *err, int errlen)
{
	struct dirent **names;
	int n, nr_used = 0, rc = -1;

	memset(em, 0, sizeof(*em));
	for (int i = 0; i < LAVD_MAX_CPUS; i++)
		em->dom_of[i] = -1;
	n = scandir(em_root, &names, NULL, alphasort);
	if (n < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			snprintf(o->warning, sizeof(o->warning), "cannot read the energy model "
				 "in %s (%s): ignored", em_root, strerror(errno));
		return 0;
	}
	em->dom = calloc(n ? n : 1, sizeof(*em->dom));
	if (!em->dom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct em_dom *dom = &em->dom[em->nr_dom];
		bool set[LAVD_MAX_CPUS] = { false };
		char dir[PATH_LEN], path[PATH_LEN], list[8192];

		if (names[i]->d_name[0] == '.')
			continue;
		if (!join(dir, em_root, names[i]->d_name) || !join(path, dir, "cpus") ||
		    read_text(path, list, sizeof(list)) < 0)
			continue;	/* not a CPU domain */
		if (topo_parse_cpulist(list, set, LAVD_MAX_CPUS) <= 0) {
			snprintf(err, errlen, "malformed CPU list '%s' in %s", list, path);
			goto out;
		}
		snprintf(dom->name, sizeof(dom->name), "%s", names[i]->d_name);
		dom->first_cpu = -1;
		dom->cls = -1;
		em->nr_dom++;
		if (em_read_states(dom, dir, err, errlen))
			goto out;
		/* The list spans offline CPUs too; only online ones are scheduled. */
		for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
			int other;

			if (!set[cpu] || !t->online[cpu])
				continue;
			other = em->dom_of[cpu];
			if (other >= 0) {
				snprintf(err, errlen, "CPU %d is in two energy-model domains, %s "
					 "and %s, under %s", cpu, em->dom[other].name, dom->name,
					 em_root);
				goto out;
			}
			em->dom_of[cpu] = dom - em->dom;
			if (!dom->nr_online++)
				dom->first_cpu = cpu;
		}
		if (dom->nr_online)
			nr_used++;
	}
	rc = 0;
	if (!nr_used)
		goto out;	/* no CPU domains: no energy model */
	/*
	 * A CPU outside every domain would have no power figure. The orders
	 * without the EM are always valid, so use them rather than refuse to
	 * run: the EM is an optimisation.
	 */
	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		if (t->online[cpu] && em->dom_of[cpu] < 0) {
			snprintf(o->warning, sizeof(o->warning), "online CPU %d is in no "
				 "energy-model domain under %s: energy model ignored", cpu, em_root);
			goto out;
		}
	}
	rc = 1;
out:
	free_names(names, n);
	return rc;
}

/*
 * Each state's capacity on our scale. Kernels since 6.9 give `performance`
 * (the CPU's capacity times freq / max freq, in the kernel's 1024 scale);
 * without it on every state, derive the same from the frequency and our
 * sysfs capacity. Then the fastest state anywhere becomes 1024.
 */
static void em_convert(struct em *em, const struct cpu_order *o)
{
	uint64_t max_raw = 1;
	bool all_perf = true;

	for (int d = 0; d < em->nr_dom; d++)
		for (int j = 0; j < em->dom[d].nr_st; j++)
			all_perf = all_perf && em->dom[d].st[j].has_perf_em;
	for (int d = 0; d < em->nr_dom; d++) {
		struct em_dom *dom = &em->dom[d];
		uint64_t fmax_khz = dom->st[dom->nr_st - 1].freq_khz;
		uint64_t cap = dom->first_cpu >= 0 ? o->cap[dom->first_cpu] : LAVD_CAP_SCALE;

		for (int j = 0; j < dom->nr_st; j++) {
			struct em_state *st = &dom->st[j];

			st->perf = all_perf ? st->perf_em : cap * st->freq_khz / fmax_khz;
			if (dom->nr_online && st->perf > max_raw)
				max_raw = st->perf;
		}
	}
	for (int d = 0; d < em->nr_dom; d++) {
		struct em_dom *dom = &em->dom[d];

		for (int j = 0; j < dom->nr_st; j++) {
			uint64_t p = (dom->st[j].perf * LAVD_CAP_SCALE + max_raw / 2) / max_raw;

			dom->st[j].perf = p ? p : 1;
		}
		qsort(dom->st, dom->nr_st, sizeof(*dom->st), cmp_state_perf);
	}
}

/*
 * Domains with the same table are interchangeable (e.g. 4 identical
 * little clusters), so the search counts CPUs per class of equal domains,
 * not per domain: far fewer combinations. Within a class, CPUs are taken in
 * performance order.
 */
struct em_class {
	int dom;			/* a domain of the class: its table */
	int nr_cpus;
	int *cpus;			/* its online CPUs in performance order */
	int *doms_used;			/* [n]: distinct domains among the first n CPUs */
};

/* One choice: CPUs per class, all at one operating point. */
struct em_pick {
	bool valid;
	uint64_t cap;			/* capacity delivered, 1024 scale */
	uint64_t power;			/* EM unit, with every chosen CPU busy */
	int nr_doms, nr_cpus;
	int *count;			/* per class */
};

/* An operating point: the fraction num / den of each domain's top performance. */
struct em_op {
	uint64_t num, den;
};

struct em_search {
	const struct em *em;
	struct em_class *cls;
	int nr_cls;
	struct em_op *ops;
	int nr_ops;
	uint64_t target[LAVD_PCO_MAX];
	struct em_pick pick[LAVD_PCO_MAX];
	uint64_t *perf, *power;		/* per class, at the current operating point */
};

static bool tables_equal(const struct em_dom *a, const struct em_dom *b)
{
	if (a->nr_st != b->nr_st)
		return false;
	for (int j = 0; j < a->nr_st; j++)
		if (a->st[j].perf != b->st[j].perf || a->st[j].power != b->st[j].power)
			return false;
	return true;
}

static int cmp_op(const void *a, const void *b)
{
	const struct em_op *x = a, *y = b;

	CMP(x->num * y->den, y->num * x->den);
	return 0;
}

/*
 * Cheaper first, then fewer domains (an unused domain can sleep at its
 * lowest frequency), then fewer CPUs, then more capacity.
 */
static bool pick_better(uint64_t power, int nr_doms, int nr_cpus, uint64_t cap,
			const struct em_pick *b)
{
	if (!b->valid)
		return true;
	if (power != b->power)
		return power < b->power;
	if (nr_doms != b->nr_doms)
		return nr_doms < b->nr_doms;
	if (nr_cpus != b->nr_cpus)
		return nr_cpus < b->nr_cpus;
	return cap > b->cap;
}

static void pick_set(struct em_pick *p, int nr_cls, const int *count, uint64_t cap,
		     uint64_t power, int nr_doms, int nr_cpus)
{
	p->valid = true;
	p->cap = cap;
	p->power = power;
	p->nr_doms = nr_doms;
	p->nr_cpus = nr_cpus;
	memcpy(p->count, count, sizeof(int) * nr_cls);
}

/*
 * Each class runs at the lowest state whose performance covers the
 * operating point (what schedutil picks for that utilisation).
 */
static void set_op(struct em_search *s, const struct em_op *op)
{
	for (int k = 0; k < s->nr_cls; k++) {
		const struct em_dom *dom = &s->em->dom[s->cls[k].dom];
		uint64_t top = dom->st[dom->nr_st - 1].perf;
		int j = 0;

		while (j < dom->nr_st - 1 && dom->st[j].perf * op->den < op->num * top)
			j++;
		s->perf[k] = dom->st[j].perf;
		s->power[k] = dom->st[j].power;
	}
}

/* Every count vector (a mixed-radix counter), at every operating point. */
static void search_exhaustive(struct em_search *s, int *count)
{
	for (int u = 0; u < s->nr_ops; u++) {
		uint64_t cap = 0, power = 0;
		int nr_doms = 0, nr_cpus = 0;

		set_op(s, &s->ops[u]);
		memset(count, 0, sizeof(int) * s->nr_cls);
		for (;;) {
			int k;

			/* Next combination; the running sums change by the digits touched. */
			for (k = 0; k < s->nr_cls; k++) {
				const struct em_class *c = &s->cls[k];

				if (count[k] < c->nr_cpus) {
					count[k]++;
					cap += s->perf[k];
					power += s->power[k];
					nr_cpus++;
					nr_doms += c->doms_used[count[k]] - c->doms_used[count[k] - 1];
					break;
				}
				cap -= s->perf[k] * count[k];
				power -= s->power[k] * count[k];
				nr_cpus -= count[k];
				nr_doms -= c->doms_used[count[k]];
				count[k] = 0;
			}
			if (k == s->nr_cls)
				break;
			for (int i = 0; i < LAVD_PCO_MAX && s->target[i] <= cap; i++)
				if (pick_better(power, nr_doms, nr_cpus, cap, &s->pick[i]))
					pick_set(&s->pick[i], s->nr_cls, count, cap, power, nr_doms,
						 nr_cpus);
		}
	}
}

/* Classes by capacity per unit of power, descending (power 0 first), then class order. */
static int cmp_efficiency(const void *a, const void *b, void *arg)
{
	const struct em_search *s = arg;
	int x = *(const int *)a, y = *(const int *)b;

	CMP(s->perf[y] * s->power[x], s->perf[x] * s->power[y]);
	CMP(x, y);
	return 0;
}

/*
 * Too many combinations: at each operating point, fill the target from the
 * class with the most capacity per unit of power, then the next. Like the
 * fractional knapsack, this is off the optimum by at most the last CPU
 * added.
 */
static void search_greedy(struct em_search *s, int *count)
{
	int *rank = calloc(s->nr_cls, sizeof(int));

	if (!rank)
		return;		/* the caller sees no pick and reports it */
	for (int u = 0; u < s->nr_ops; u++) {
		set_op(s, &s->ops[u]);
		for (int k = 0; k < s->nr_cls; k++)
			rank[k] = k;
		qsort_r(rank, s->nr_cls, sizeof(int), cmp_efficiency, s);
		for (int i = 0; i < LAVD_PCO_MAX; i++) {
			uint64_t cap = 0, power = 0;
			int nr_doms = 0, nr_cpus = 0;

			memset(count, 0, sizeof(int) * s->nr_cls);
			for (int r = 0; r < s->nr_cls && cap < s->target[i]; r++) {
				const struct em_class *c = &s->cls[rank[r]];
				uint64_t need = (s->target[i] - cap + s->perf[rank[r]] - 1) /
						s->perf[rank[r]];
				int take = need < (uint64_t)c->nr_cpus ? (int)need : c->nr_cpus;

				count[rank[r]] = take;
				cap += s->perf[rank[r]] * take;
				power += s->power[rank[r]] * take;
				nr_cpus += take;
				nr_doms += c->doms_used[take];
			}
			if (cap >= s->target[i] &&
			    pick_better(power, nr_doms, nr_cpus, cap, &s->pick[i]))
				pick_set(&s->pick[i], s->nr_cls, count, cap, power, nr_doms, nr_cpus);
		}
	}
	free(rank);
}

/*
 * Keep at most m operating points, evenly spread, the lowest and the top
 * (u = 1: every domain at full speed, needed for 100 %) included.
 */
static void thin_ops(struct em_search *s, uint64_t m)
{
	if ((uint64_t)s->nr_ops <= m)
		return;
	/* Source index i * (n - 1) / (m - 1) >= i: copying in place is safe. */
	for (uint64_t i = 0; i < m; i++)
		s->ops[i] = s->ops[i * (s->nr_ops - 1) / (m - 1)];
	s->nr_ops = m;
}

/* States from the picks: ascending capacity, one per distinct capacity. */
static void em_states(struct cpu_order *o, const struct em_search *s)
{
	int idx[LAVD_PCO_MAX], nr = 0;

	for (int i = 0; i < LAVD_PCO_MAX; i++) {
		int j = nr++;

		/* Stable insertion by capacity: on equal capacity the lower target stays. */
		while (j > 0 && s->pick[idx[j - 1]].cap > s->pick[i].cap) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	o->nr_states = 0;
	for (int r = 0; r < nr; r++) {
		const struct em_pick *p = &s->pick[idx[r]];
		bool primary[LAVD_MAX_CPUS] = { false };
		int st = o->nr_states, n = 0;

		if (st && o->bound[st - 1] == p->cap)
			continue;
		o->nr_states++;
		o->bound[st] = p->cap;
		o->em_power[st] = p->power;
		o->nr_primary[st] = p->nr_cpus;
		for (int k = 0; k < s->nr_cls; k++)
			for (int c = 0; c < p->count[k]; c++)
				primary[s->cls[k].cpus[c]] = true;
		/* Primary CPUs, then overflow, each in performance order. */
		for (int i = 0; i < o->nr_cpus; i++)
			if (primary[o->perf[i]])
				o->table[st][n++] = o->perf[i];
		for (int i = 0; i < o->nr_cpus; i++)
			if (!primary[o->perf[i]])
				o->table[st][n++] = o->perf[i];
	}
}

/*
 * The search. A choice is how many CPUs of each class to use (the first
 * ones in performance order) and one operating point u for the whole
 * system: every domain runs at the lowest state covering u of its top
 * performance. One u for all, because a balanced load keeps every CPU at
 * the same share of its capacity and schedutil follows it; it also keeps
 * the search one-dimensional. A choice delivers cap = sum of count x perf
 * and costs power = sum of count x power, with every chosen CPU busy at the
 * bound and idle CPUs costing nothing. For each target (5 %, 10 %, 20 % ...
 * 100 % of the total capacity), keep the cheapest choice whose cap covers
 * it (ties: fewer domains, fewer CPUs). Exhaustive over count vectors when
 * there are at most EM_EXHAUSTIVE_MAX of them (operating points thinned to
 * keep the work under EM_WORK_MAX), else greedy.
 */
static int em_build(struct cpu_order *o, struct em *em, char *err, int errlen)
{
	struct em_search s = { .em = em };
	int *cpus_flat = NULL, *used_flat = NULL, *count = NULL, *picks_flat = NULL;
	uint64_t combos = 1, total = 0;
	int rc = -1, nr_ops_all = 0, off = 0;

	/* Classes in order of their first CPU in the performance order. */
	s.cls = calloc(em->nr_dom, sizeof(*s.cls));
	cpus_flat = calloc(o->nr_cpus, sizeof(int));
	used_flat = calloc(o->nr_cpus + em->nr_dom, sizeof(int));
	if (!s.cls || !cpus_flat || !used_flat)
		goto nomem;
	for (int i = 0; i < o->nr_cpus; i++) {
		struct em_dom *dom = &em->dom[em->dom_of[o->perf[i]]];
		int k;

		if (dom->cls >= 0)
			continue;
		for (k = 0; k < s.nr_cls; k++)
			if (tables_equal(&em->dom[s.cls[k].dom], dom))
				break;
		if (k == s.nr_cls)
			s.cls[s.nr_cls++].dom = dom - em->dom;
		dom->cls = k;
		s.cls[k].nr_cpus += dom->nr_online;
	}
	for (int k = 0; k < s.nr_cls; k++) {
		s.cls[k].cpus = cpus_flat + off;
		s.cls[k].doms_used = used_flat + off + k;
		off += s.cls[k].nr_cpus;
		s.cls[k].nr_cpus = 0;
	}
	for (int i = 0; i < o->nr_cpus; i++) {
		int cpu = o->perf[i], d = em->dom_of[cpu];
		struct em_class *c = &s.cls[em->dom[d].cls];
		bool seen = false;

		for (int j = 0; j < c->nr_cpus && !seen; j++)
			seen = em->dom_of[c->cpus[j]] == d;
		c->cpus[c->nr_cpus++] = cpu;
		c->doms_used[c->nr_cpus] = c->doms_used[c->nr_cpus - 1] + !seen;
	}
	o->nr_em_domains = 0;
	for (int d = 0; d < em->nr_dom; d++)
		o->nr_em_domains += em->dom[d].nr_online > 0;

	/* Operating points: every state's share of its class's top, deduplicated. */
	for (int k = 0; k < s.nr_cls; k++)
		nr_ops_all += em->dom[s.cls[k].dom].nr_st;
	s.ops = calloc(nr_ops_all, sizeof(*s.ops));
	s.perf = calloc(s.nr_cls, sizeof(uint64_t));
	s.power = calloc(s.nr_cls, sizeof(uint64_t));
	count = calloc(s.nr_cls, sizeof(int));
	picks_flat = calloc((size_t)s.nr_cls * LAVD_PCO_MAX, sizeof(int));
	if (!s.ops || !s.perf || !s.power || !count || !picks_flat)
		goto nomem;
	for (int k = 0; k < s.nr_cls; k++) {
		const struct em_dom *dom = &em->dom[s.cls[k].dom];

		for (int j = 0; j < dom->nr_st; j++)
			s.ops[s.nr_ops++] = (struct em_op){ dom->st[j].perf,
							    dom->st[dom->nr_st - 1].perf };
		total += dom->st[dom->nr_st - 1].perf * s.cls[k].nr_cpus;
	}
	qsort(s.ops, s.nr_ops, sizeof(*s.ops), cmp_op);
	nr_ops_all = s.nr_ops;
	s.nr_ops = 0;
	for (int u = 0; u < nr_ops_all; u++)
		if (!s.nr_ops || cmp_op(&s.ops[s.nr_ops - 1], &s.ops[u]))
			s.ops[s.nr_ops++] = s.ops[u];

	for (int k = 0; k < s.nr_cls && combos <= EM_EXHAUSTIVE_MAX; k++)
		combos *= (uint64_t)s.cls[k].nr_cpus + 1;
	o->em_greedy = combos > EM_EXHAUSTIVE_MAX;
	if (o->em_greedy) {
		thin_ops(&s, EM_GREEDY_OPS);
	} else {
		uint64_t keep = EM_WORK_MAX / combos;

		thin_ops(&s, keep < EM_MIN_OPS ? EM_MIN_OPS : keep);
	}

	for (int i = 0; i < LAVD_PCO_MAX; i++) {
		uint64_t t = (total * em_target_pct[i] + 99) / 100;

		s.target[i] = t ? t : 1;
		s.pick[i].count = picks_flat + (size_t)i * s.nr_cls;
	}
	if (o->em_greedy)
		search_greedy(&s, count);
	else
		search_exhaustive(&s, count);
	for (int i = 0; i < LAVD_PCO_MAX; i++) {
		/* Every CPU at u = 1 covers 100 %, so this means a bug or no memory. */
		if (!s.pick[i].valid) {
			snprintf(err, errlen, "energy model: no CPU set covers %u%% of the "
				 "capacity", em_target_pct[i]);
			goto out;
		}
	}
	em_states(o, &s);
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	free(s.cls);
	free(cpus_flat);
	free(used_flat);
	free(s.ops);
	free(s.perf);
	free(s.power);
	free(count);
	free(picks_flat);
	return rc;
}

/* ---- entry points ----------------------------------------------------- */

int cpu_order_build(struct cpu_order *o, const struct topo *t, const char *cpu_root,
		    const char *em_root, bool use_em, char *err, int errlen)
{
	int nr = 0;

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < LAVD_MAX_CPUS; i++) {
		o->perf[i] = -1;
		o->powersave[i] = -1;
		for (int s = 0; s < LAVD_PCO_MAX; s++)
			o->table[s][i] = -1;
	}
	if (t->nr_cpu_ids <= 0 || t->nr_cpu_ids > LAVD_MAX_CPUS) {
		snprintf(err, errlen, "topology has %d CPU ids (1..%d supported)", t->nr_cpu_ids,
			 LAVD_MAX_CPUS);
		return -1;
	}
	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++)
		nr += t->online[cpu];
	if (!nr || nr != t->nr_online) {
		snprintf(err, errlen, "topology lists %d online CPUs but marks %d", t->nr_online,
			 nr);
		return -1;
	}
	o->nr_cpus = nr;

	if (read_caps(o, t, cpu_root, err, errlen))
		return -1;
	build_orders(o, t);

	if (use_em && em_root) {
		struct em em;
		int rc = em_read(&em, o, t, em_root, err, errlen);

		if (rc > 0) {
			em_convert(&em, o);
			rc = em_build(o, &em, err, errlen) ? -1 : 1;
		}
		em_free(&em);
		if (rc < 0) {
			if (strlen(err) + 40 < (size_t)errlen)
				strcat(err, " (--no-use-em ignores the energy model)");
			return -1;
		}
		o->has_em = rc > 0;
	}
	if (!o->has_em)
		no_em_states(o);

	/* Unused states repeat the last one, so the bounds stay ascending. */
	for (int s = o->nr_states; s < LAVD_PCO_MAX; s++) {
		o->bound[s] = o->bound[o->nr_states - 1];
		o->em_power[s] = o->em_power[o->nr_states - 1];
		o->nr_primary[s] = o->nr_primary[o->nr_states - 1];
		memcpy(o->table[s], o->table[o->nr_states - 1], sizeof(o->table[s]));
	}
	return 0;
}

static void print_cpus(FILE *f, const int *cpus, int n, int split)
{
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%d", i == split ? " | " : i ? " " : "", cpus[i]);
	fputc('\n', f);
}

void cpu_order_print(const struct cpu_order *o, FILE *f)
{
	fprintf(f, "cpu order: %d CPUs, capacity from %s, %s, ", o->nr_cpus, o->cap_source,
		o->big_little ? "big/little" : "not big/little");
	if (o->has_em)
		fprintf(f, "energy model: %d domains, %s search\n", o->nr_em_domains,
			o->em_greedy ? "greedy" : "exhaustive");
	else
		fprintf(f, "no energy model\n");
	/* cpu=capacity by CPU id, "+" turbo, "-" little; offline CPUs (capacity 0) left out */
	fprintf(f, "capacity:");
	for (int cpu = 0; cpu < LAVD_MAX_CPUS; cpu++) {
		if (!o->cap[cpu])
			continue;
		fprintf(f, " %d=%u%s", cpu, o->cap[cpu], o->turbo[cpu] ? "+" :
			o->big[cpu] ? "" : "-");
	}
	fputc('\n', f);
	fprintf(f, "performance order: ");
	print_cpus(f, o->perf, o->nr_cpus, -1);
	fprintf(f, "powersave order: ");
	print_cpus(f, o->powersave, o->nr_cpus, -1);
	for (int s = 0; s < o->nr_states; s++) {
		fprintf(f, "pco[%d] bound=%llu primary=%d", s, (unsigned long long)o->bound[s],
			o->nr_primary[s]);
		if (o->has_em)
			fprintf(f, " power=%llu", (unsigned long long)o->em_power[s]);
		fprintf(f, ": ");
		print_cpus(f, o->table[s], o->nr_cpus, o->nr_primary[s]);
	}
	if (o->warning[0])
		fprintf(f, "warning: %s\n", o->warning);
}
