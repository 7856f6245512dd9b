/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metrics.c - histograms and reports: the table on stdout, JSON, CSV and a
 * gnuplot script. Every report is computed from the same JSON object, so
 * the formats cannot disagree. Doubles appear only here.
 */
#include <errno.h>
#include <sys/stat.h>
#include <jansson.h>
#include "sim.h"

static u32 hist_bucket(u64 v)
{
	u32 e;

	if (v < (1ULL << HIST_SUB_BITS))
		return (u32)v;
	e = 63 - (u32)__builtin_clzll(v);
	return ((e - HIST_SUB_BITS + 1) << HIST_SUB_BITS) +
	       (u32)((v >> (e - HIST_SUB_BITS)) & ((1ULL << HIST_SUB_BITS) - 1));
}

/* Largest value that falls in bucket b. */
static u64 hist_upper(u32 b)
{
	u32 e, sub;

	if (b < (1U << HIST_SUB_BITS))
		return b;
	e = (b >> HIST_SUB_BITS) + HIST_SUB_BITS - 1;
	sub = b & ((1U << HIST_SUB_BITS) - 1);
	return ((((u64)1 << HIST_SUB_BITS) + sub + 1) << (e - HIST_SUB_BITS)) - 1;
}

void hist_add(struct hist *h, u64 v)
{
	h->b[hist_bucket(v)]++;
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

u64 hist_pct(const struct hist *h, u32 pm)
{
	u64 rank, cum = 0;
	u32 b;

	if (!h->n)
		return 0;
	rank = (h->n * pm + 9999) / 10000;
	if (!rank)
		rank = 1;
	for (b = 0; b < HIST_BUCKETS; b++) {
		cum += h->b[b];
		if (cum >= rank)
			return pol_min(hist_upper(b), h->max);
	}
	return h->max;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 arr_pct(const u64 *v, u64 n, u32 pm)
{
	u64 rank;

	if (!n)
		return 0;
	rank = (n * pm + 9999) / 10000;
	return v[rank ? rank - 1 : 0];
}

static json_t *lat_obj(const struct hist *h)
{
	json_t *o = json_object();

	json_object_set_new(o, "n", json_integer((json_int_t)h->n));
	json_object_set_new(o, "p50_ns", json_integer((json_int_t)hist_pct(h, 5000)));
	json_object_set_new(o, "p99_ns", json_integer((json_int_t)hist_pct(h, 9900)));
	json_object_set_new(o, "p99_9_ns", json_integer((json_int_t)hist_pct(h, 9990)));
	json_object_set_new(o, "max_ns", json_integer((json_int_t)h->max));
	json_object_set_new(o, "mean_ns", json_integer((json_int_t)(h->n ? h->sum / h->n : 0)));
	return o;
}

static double round6(double x)
{
	return (double)(long long)(x * 1e6 + (x >= 0 ? 0.5 : -0.5)) / 1e6;
}

/* Jain's index over weighted run time of the live tasks of a class. */
static double jain(const struct sim *s, int cls, int *n_out)
{
	double sum = 0, sq = 0;
	int i, n = 0;

	for (i = 0; i < s->nr_tasks; i++) {
		const struct task *t = s->tasks[i];
		double x;

		if (t->state == TS_DEAD || t->cls != cls || !s->wl->tmpl[t->tmpl].instances)
			continue;
		x = (double)t->sum_exec * 1024.0 / (double)t->kweight;
		sum += x;
		sq += x * x;
		n++;
	}
	*n_out = n;
	return n && sq > 0 ? sum * sum / (n * sq) : 1.0;
}

static json_t *build(const struct sim *s, const struct sim_opts *o)
{
	const struct sim_stats *st = &s->st;
	json_t *root = json_object(), *cfg = json_object(), *cls = json_object(), *c;
	double dur = (double)s->end / 1e9;
	u64 busy = 0, idle = 0, work = 0;
	double energy = 0;
	int i;

	json_object_set_new(cfg, "topo", json_string(s->topo->name));
	json_object_set_new(cfg, "nr_cpus", json_integer(s->nr_cpus));
	json_object_set_new(cfg, "nr_llcs", json_integer(s->topo->nr_llcs));
	json_object_set_new(cfg, "workload", json_string(s->wl->name));
	json_object_set_new(cfg, "sched", json_string(s->cls->name));
	json_object_set_new(cfg, "seed", json_integer((json_int_t)o->seed));
	json_object_set_new(cfg, "duration_ms", json_integer((json_int_t)o->duration_ms));
	if (o->lavd_opt)
		json_object_set_new(cfg, "lavd_opt", json_string(o->lavd_opt));
	json_object_set_new(root, "config", cfg);
	json_object_set_new(root, "events", json_integer((json_int_t)st->nr_events));

	json_object_set_new(root, "delay", lat_obj(&st->delay));
	for (i = 0; i < s->wl->nr_cls; i++) {
		const struct cls_stat *k = &st->cls[i];
		int n;
		double j = jain(s, i, &n);

		c = lat_obj(&k->delay);
		json_object_set_new(c, "runs", json_integer((json_int_t)k->nr_run));
		json_object_set_new(c, "cpu_ns", json_integer((json_int_t)k->runtime));
		json_object_set_new(c, "work_ns", json_integer((json_int_t)k->work));
		json_object_set_new(c, "tasks_done", json_integer((json_int_t)k->nr_tasks_done));
		json_object_set_new(c, "live_tasks", json_integer(n));
		json_object_set_new(c, "jain", json_real(round6(j)));
		json_object_set_new(cls, s->wl->cls[i], c);
		work += k->work;
	}
	json_object_set_new(root, "classes", cls);
	c = json_object();
	for (i = 0; i < s->wl->nr_tmpl; i++) {
		json_t *t = json_object();

		json_object_set_new(t, "nice", json_integer(s->wl->tmpl[i].nice));
		json_object_set_new(t, "instances", json_integer(s->wl->tmpl[i].instances));
		json_object_set_new(t, "cpu_ns", json_integer((json_int_t)st->tmpl_runtime[i]));
		json_object_set_new(c, s->wl->tmpl[i].name, t);
	}
	json_object_set_new(root, "tasks", c);

	if (s->wl->frame_period_ns) {
		u64 *f = malloc((st->nr_frames + 1) * sizeof(u64));

		memcpy(f, st->frames, st->nr_frames * sizeof(u64));
		qsort(f, st->nr_frames, sizeof(u64), cmp_u64);
		c = json_object();
		json_object_set_new(c, "n", json_integer((json_int_t)st->nr_frames));
		json_object_set_new(c, "p50_ns", json_integer((json_int_t)arr_pct(f, st->nr_frames, 5000)));
		json_object_set_new(c, "p99_ns", json_integer((json_int_t)arr_pct(f, st->nr_frames, 9900)));
		json_object_set_new(c, "p99_9_ns", json_integer((json_int_t)arr_pct(f, st->nr_frames, 9990)));
		json_object_set_new(c, "max_ns", json_integer((json_int_t)(st->nr_frames ? f[st->nr_frames - 1] : 0)));
		json_object_set_new(c, "deadline_ns", json_integer((json_int_t)s->wl->frame_period_ns));
		json_object_set_new(c, "misses", json_integer((json_int_t)st->frame_miss));
		json_object_set_new(root, "frames", c);
		free(f);
	}
	if (s->wl->req_rate) {
		c = lat_obj(&st->req);
		json_object_set_new(c, "arrived", json_integer((json_int_t)st->req_arrived));
		json_object_set_new(c, "done", json_integer((json_int_t)st->req_done));
		json_object_set_new(c, "dropped", json_integer((json_int_t)st->req_dropped));
		json_object_set_new(c, "per_s", json_real(round6((double)st->req_done / dur)));
		json_object_set_new(root, "requests", c);
	}

	for (i = 0; i < s->nr_cpus; i++) {
		busy += s->cpu[i].busy_ns;
		idle += s->cpu[i].idle_ns;
		energy += ((double)s->cpu[i].busy_ns * s->topo->cpu[i].active_mw +
			   (double)s->cpu[i].idle_ns * s->topo->cpu[i].idle_mw) * 1e-12;
	}
	c = json_object();
	json_object_set_new(c, "work_cpus", json_real(round6((double)work / 1e9 / dur)));
	json_object_set_new(c, "utilisation", json_real(round6((double)busy / (double)(busy + idle))));
	/* CPUs that ran anything per 10 ms window: what compaction lowers (busy time it cannot) */
	json_object_set_new(c, "cpus_used_mean",
			    json_real(round6(st->nr_tl ? (double)st->cpus_used_sum / (double)st->nr_tl : 0)));
	{
		/* CPU utilisation per LLC (domain): busy / (busy + idle) of its CPUs */
		json_t *u = json_array();
		int l;

		for (l = 0; l < s->topo->nr_llcs; l++) {
			u64 b = 0, id = 0;

			for (i = 0; i < s->nr_cpus; i++) {
				if (s->topo->cpu[i].llc != l)
					continue;
				b += s->cpu[i].busy_ns;
				id += s->cpu[i].idle_ns;
			}
			json_array_append_new(u, json_real(b + id ? round6((double)b / (double)(b + id)) : 0));
		}
		json_object_set_new(c, "llc_utilisation", u);
	}
	json_object_set_new(c, "energy_j", json_real(round6(energy)));
	json_object_set_new(c, "power_w", json_real(round6(energy / dur)));
	json_object_set_new(c, "work_per_joule_cpus", json_real(round6(energy > 0 ? (double)work / 1e9 / energy : 0)));
	json_object_set_new(c, "context_switches", json_integer((json_int_t)st->csw));
	json_object_set_new(c, "migrations", json_integer((json_int_t)st->migrations));
	json_object_set_new(c, "migrations_xllc", json_integer((json_int_t)st->migrations_xllc));
	json_object_set_new(c, "rt_preemptions", json_integer((json_int_t)st->rt_preempt));
	json_object_set_new(c, "preemptions", json_integer((json_int_t)st->preemptions));
	json_object_set_new(c, "slice_expiries", json_integer((json_int_t)st->slice_expiries));
	json_object_set_new(c, "keep_prev_refills", json_integer((json_int_t)st->keep_prev));
	json_object_set_new(c, "wakeups", json_integer((json_int_t)st->wakeups));
	json_object_set_new(c, "forks", json_integer((json_int_t)st->forks));
	json_object_set_new(c, "exits", json_integer((json_int_t)st->exits));
	json_object_set_new(c, "lock_owner_preempted", json_integer((json_int_t)st->lock_owner_preempted));
	if (!strcmp(s->cls->name, "lavd")) {
		json_object_set_new(c, "lavd_direct", json_integer((json_int_t)st->lavd_direct));
		json_object_set_new(c, "lavd_sync_local", json_integer((json_int_t)st->lavd_sync_local));
		json_object_set_new(c, "lavd_xllc_steal", json_integer((json_int_t)st->lavd_steal));
		json_object_set_new(c, "lavd_plan_steal", json_integer((json_int_t)st->lavd_plan_steal));
		json_object_set_new(c, "lavd_boosted", json_integer((json_int_t)st->lavd_boosted));
		json_object_set_new(c, "lavd_revoke", json_integer((json_int_t)st->lavd_revoke));
		json_object_set_new(c, "lavd_keep_prev", json_integer((json_int_t)st->lavd_keep_prev));
		json_object_set_new(c, "lavd_preempt", json_integer((json_int_t)st->lavd_preempt));
		json_object_set_new(c, "lavd_preempt_ipi", json_integer((json_int_t)st->lavd_preempt_ipi));
		json_object_set_new(c, "lavd_preempt_lock_holder",
				    json_integer((json_int_t)st->lavd_preempt_lock_holder));
		json_object_set_new(c, "lavd_preempt_owner", json_integer((json_int_t)st->lavd_preempt_owner));
		json_object_set_new(c, "lavd_lock_acquire", json_integer((json_int_t)st->lavd_lock_acquire));
		json_object_set_new(c, "lavd_lock_release", json_integer((json_int_t)st->lavd_lock_release));
		json_object_set_new(c, "lavd_lock_refill", json_integer((json_int_t)st->lavd_lock_refill));
		json_object_set_new(c, "lavd_steady_runs", json_integer((json_int_t)st->lavd_steady_runs));
		json_object_set_new(c, "lavd_turb_place", json_integer((json_int_t)st->lavd_turb_place));
		json_object_set_new(c, "lavd_turbulent_cpus_avg",
				    json_real(round6(st->lavd_timer_rounds ?
						     (double)st->lavd_turbulent_rounds /
						     (double)st->lavd_timer_rounds : 0)));
		json_object_set_new(c, "lavd_warm_wait", json_integer((json_int_t)st->lavd_warm_wait));
		{
			u64 r = st->lavd_mode_rounds[0] + st->lavd_mode_rounds[1] + st->lavd_mode_rounds[2];
			json_t *m = json_object();

			json_object_set_new(m, "performance", json_real(round6(r ? (double)st->lavd_mode_rounds[0] / (double)r : 0)));
			json_object_set_new(m, "balanced", json_real(round6(r ? (double)st->lavd_mode_rounds[1] / (double)r : 0)));
			json_object_set_new(m, "powersave", json_real(round6(r ? (double)st->lavd_mode_rounds[2] / (double)r : 0)));
			json_object_set_new(c, "lavd_mode_share", m);
			json_object_set_new(c, "lavd_mode_switch", json_integer((json_int_t)st->lavd_mode_switch));
			json_object_set_new(c, "lavd_orphan_feeds", json_integer((json_int_t)st->lavd_orphan_feeds));
			json_object_set_new(c, "lavd_active_cpus_avg",
					    json_real(round6(r ? (double)st->lavd_active_sum / (double)r : 0)));
			json_object_set_new(c, "lavd_sched_big", json_integer((json_int_t)st->lavd_sched_big));
			json_object_set_new(c, "lavd_sched_perf_cri", json_integer((json_int_t)st->lavd_sched_perf_cri));
			json_object_set_new(c, "lavd_sched_perf_cri_big",
					    json_integer((json_int_t)st->lavd_sched_perf_cri_big));
		}
	}
	json_object_set_new(root, "system", c);
	if (s->topo->nr_llcs > 1) {
		u64 n = st->imb_wgt.n;

		c = json_object();
		json_object_set_new(c, "samples", json_integer((json_int_t)st->imb_samples));
		json_object_set_new(c, "samples_llc_empty", json_integer((json_int_t)st->imb_empty));
		json_object_set_new(c, "weight_mean", json_real(round6(n ? (double)st->imb_wgt_sum / n / 1e3 : 0)));
		json_object_set_new(c, "weight_p99", json_real(round6((double)hist_pct(&st->imb_wgt, 9900) / 1e3)));
		json_object_set_new(c, "weight_max", json_real(round6((double)st->imb_wgt.max / 1e3)));
		json_object_set_new(c, "count_mean", json_real(round6(n ? (double)st->imb_cnt_sum / n / 1e3 : 0)));
		json_object_set_new(c, "count_p99", json_real(round6((double)hist_pct(&st->imb_cnt, 9900) / 1e3)));
		json_object_set_new(c, "count_max", json_real(round6((double)st->imb_cnt.max / 1e3)));
		json_object_set_new(root, "imbalance", c);
	}
	return root;
}

static json_t *cached;
static json_t *get(struct sim *s, const struct sim_opts *o)
{
	if (!cached)
		cached = build(s, o);
	return cached;
}

static const struct sim_opts *g_opts;

static double us(json_t *o, const char *k)
{
	return (double)json_integer_value(json_object_get(o, k)) / 1e3;
}

void report_table(struct sim *s, FILE *f)
{
	json_t *r = get(s, g_opts), *cls = json_object_get(r, "classes"), *c, *x;
	const char *k;

	fprintf(f, "lavd-sim  topo %s (%d CPUs, %d LLCs)  workload %s  sched %s  seed %llu  %llu ms\n",
		s->topo->name, s->nr_cpus, s->topo->nr_llcs, s->wl->name, s->cls->name,
		(unsigned long long)g_opts->seed, (unsigned long long)g_opts->duration_ms);
	fprintf(f, "events %llu\n\n", (unsigned long long)s->st.nr_events);
	fprintf(f, "%-10s %9s %9s %9s %9s %10s %9s %6s\n", "class", "runs", "p50 us", "p99 us",
		"p99.9 us", "max us", "cpu ms", "jain");
	json_object_foreach(cls, k, c)
		fprintf(f, "%-10s %9lld %9.1f %9.1f %9.1f %10.1f %9.1f %6.3f\n", k,
			(long long)json_integer_value(json_object_get(c, "runs")), us(c, "p50_ns"),
			us(c, "p99_ns"), us(c, "p99_9_ns"), us(c, "max_ns"),
			us(c, "cpu_ns") / 1e3, json_real_value(json_object_get(c, "jain")));
	c = json_object_get(r, "delay");
	fprintf(f, "%-10s %9lld %9.1f %9.1f %9.1f %10.1f\n", "all",
		(long long)json_integer_value(json_object_get(c, "n")), us(c, "p50_ns"),
		us(c, "p99_ns"), us(c, "p99_9_ns"), us(c, "max_ns"));
	if ((x = json_object_get(r, "frames")))
		fprintf(f, "\nframes    %lld  p50 %.2f ms  p99 %.2f ms  p99.9 %.2f ms  max %.2f ms  "
			"misses %lld (> %.2f ms)\n",
			(long long)json_integer_value(json_object_get(x, "n")),
			us(x, "p50_ns") / 1e3, us(x, "p99_ns") / 1e3, us(x, "p99_9_ns") / 1e3,
			us(x, "max_ns") / 1e3, (long long)json_integer_value(json_object_get(x, "misses")),
			us(x, "deadline_ns") / 1e3);
	if ((x = json_object_get(r, "requests")))
		fprintf(f, "\nrequests  %lld done (%.0f/s) of %lld  p50 %.1f us  p99 %.1f us  "
			"p99.9 %.1f us  dropped %lld\n",
			(long long)json_integer_value(json_object_get(x, "done")),
			json_real_value(json_object_get(x, "per_s")),
			(long long)json_integer_value(json_object_get(x, "arrived")), us(x, "p50_ns"),
			us(x, "p99_ns"), us(x, "p99_9_ns"),
			(long long)json_integer_value(json_object_get(x, "dropped")));
	x = json_object_get(r, "system");
	fprintf(f, "\nthroughput %.3f CPUs of work  utilisation %.1f %%  energy %.3f J  (%.2f W)  "
		"CPUs used per 10 ms %.2f\n",
		json_real_value(json_object_get(x, "work_cpus")),
		100 * json_real_value(json_object_get(x, "utilisation")),
		json_real_value(json_object_get(x, "energy_j")),
		json_real_value(json_object_get(x, "power_w")),
		json_real_value(json_object_get(x, "cpus_used_mean")));
	if (json_object_get(x, "lavd_mode_share")) {
		json_t *m = json_object_get(x, "lavd_mode_share");

		fprintf(f, "lavd power: active CPUs %.2f  modes perf/bal/save %.0f/%.0f/%.0f %%  switches %lld"
			"  big-core runs %lld (perf-critical %lld, of them on big %lld)\n",
			json_real_value(json_object_get(x, "lavd_active_cpus_avg")),
			100 * json_real_value(json_object_get(m, "performance")),
			100 * json_real_value(json_object_get(m, "balanced")),
			100 * json_real_value(json_object_get(m, "powersave")),
			(long long)json_integer_value(json_object_get(x, "lavd_mode_switch")),
			(long long)json_integer_value(json_object_get(x, "lavd_sched_big")),
			(long long)json_integer_value(json_object_get(x, "lavd_sched_perf_cri")),
			(long long)json_integer_value(json_object_get(x, "lavd_sched_perf_cri_big")));
	}
	{
		json_t *u = json_object_get(x, "llc_utilisation");
		size_t k;

		if (u && json_array_size(u) > 1) {
			fprintf(f, "utilisation per LLC %%:");
			for (k = 0; k < json_array_size(u); k++)
				fprintf(f, " %.1f", 100 * json_real_value(json_array_get(u, k)));
			fprintf(f, "\n");
		}
	}
	fprintf(f, "switches %lld  migrations %lld  preemptions %lld  slice expiries %lld  "
		"keep-prev %lld  forks %lld  lock owners put back %lld\n",
		(long long)json_integer_value(json_object_get(x, "context_switches")),
		(long long)json_integer_value(json_object_get(x, "migrations")),
		(long long)json_integer_value(json_object_get(x, "preemptions")),
		(long long)json_integer_value(json_object_get(x, "slice_expiries")),
		(long long)json_integer_value(json_object_get(x, "keep_prev_refills")),
		(long long)json_integer_value(json_object_get(x, "forks")),
		(long long)json_integer_value(json_object_get(x, "lock_owner_preempted")));
	if (json_object_get(x, "lavd_direct"))
		fprintf(f, "lavd: direct %lld  behind a sync waker %lld  cross-LLC steals %lld  "
			"boosted slices %lld  revoked %lld\n",
			(long long)json_integer_value(json_object_get(x, "lavd_direct")),
			(long long)json_integer_value(json_object_get(x, "lavd_sync_local")),
			(long long)json_integer_value(json_object_get(x, "lavd_xllc_steal")),
			(long long)json_integer_value(json_object_get(x, "lavd_boosted")),
			(long long)json_integer_value(json_object_get(x, "lavd_revoke")));
	if (json_object_get(x, "lavd_turb_place"))
		fprintf(f, "lavd: critical runs on turbulent CPUs %lld of %lld  turbulent CPUs avg %.2f  "
			"warm waits %lld  cross-LLC migrations %lld\n",
			(long long)json_integer_value(json_object_get(x, "lavd_turb_place")),
			(long long)json_integer_value(json_object_get(x, "lavd_steady_runs")),
			json_real_value(json_object_get(x, "lavd_turbulent_cpus_avg")),
			(long long)json_integer_value(json_object_get(x, "lavd_warm_wait")),
			(long long)json_integer_value(json_object_get(x, "migrations_xllc")));
	if ((c = json_object_get(r, "imbalance")))
		fprintf(f, "LLC load imbalance (max/min per capacity, %lld samples, %lld with an LLC "
			"empty): weight mean %.3f p99 %.3f  count mean %.3f p99 %.3f\n",
			(long long)json_integer_value(json_object_get(c, "samples")),
			(long long)json_integer_value(json_object_get(c, "samples_llc_empty")),
			json_real_value(json_object_get(c, "weight_mean")),
			json_real_value(json_object_get(c, "weight_p99")),
			json_real_value(json_object_get(c, "count_mean")),
			json_real_value(json_object_get(c, "count_p99")));
	if (json_object_get(x, "lavd_preempt"))
		fprintf(f, "lavd: preempt %lld (IPI %lld, lock holder %lld, mutex owner %lld)  keep-prev %lld  "
			"futex acquire %lld release %lld  lock-holder refills %lld\n",
			(long long)json_integer_value(json_object_get(x, "lavd_preempt")),
			(long long)json_integer_value(json_object_get(x, "lavd_preempt_ipi")),
			(long long)json_integer_value(json_object_get(x, "lavd_preempt_lock_holder")),
			(long long)json_integer_value(json_object_get(x, "lavd_preempt_owner")),
			(long long)json_integer_value(json_object_get(x, "lavd_keep_prev")),
			(long long)json_integer_value(json_object_get(x, "lavd_lock_acquire")),
			(long long)json_integer_value(json_object_get(x, "lavd_lock_release")),
			(long long)json_integer_value(json_object_get(x, "lavd_lock_refill")));
}

int report_json(struct sim *s, const struct sim_opts *o, const char *path)
{
	char *txt;
	FILE *f;

	g_opts = o;
	txt = json_dumps(get(s, o), JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	f = fopen(path, "w");
	if (!f || !txt) {
		fprintf(stderr, "lavd-sim: cannot write %s: %s\n", path, strerror(errno));
		free(txt);
		if (f)
			fclose(f);
		return -1;
	}
	fprintf(f, "%s\n", txt);
	free(txt);
	return fclose(f);
}

static void flatten(FILE *f, const char *prefix, json_t *v)
{
	const char *k;
	json_t *x;
	char p[256];

	if (json_is_object(v)) {
		json_object_foreach(v, k, x) {
			snprintf(p, sizeof(p), "%s%s%s", prefix, *prefix ? "." : "", k);
			flatten(f, p, x);
		}
	} else if (json_is_array(v)) {
		size_t i;

		json_array_foreach(v, i, x) {
			snprintf(p, sizeof(p), "%s.%zu", prefix, i);
			flatten(f, p, x);
		}
	} else if (json_is_integer(v)) {
		fprintf(f, "%s,%lld\n", prefix, (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		fprintf(f, "%s,%.6f\n", prefix, json_real_value(v));
	} else if (json_is_string(v)) {
		fprintf(f, "%s,%s\n", prefix, json_string_value(v));
	}
}

static FILE *open_in(const char *dir, const char *name)
{
	char p[4096];
	FILE *f;

	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f)
		fprintf(stderr, "lavd-sim: cannot write %s: %s\n", p, strerror(errno));
	return f;
}

int report_csv(struct sim *s, const char *dir)
{
	FILE *f = open_in(dir, "summary.csv");
	u64 i;

	if (!f)
		return -1;
	fprintf(f, "metric,value\n");
	flatten(f, "", get(s, g_opts));
	fclose(f);
	if (!(f = open_in(dir, "timeline.csv")))
		return -1;
	fprintf(f, "t_ms,busy_cpus,queued,lavd_slice_us,lavd_turbulent_cpus,imbalance_weight,"
		   "imbalance_count,cpus_used\n");
	for (i = 0; i < s->st.nr_tl; i++) {
		const struct sim_timeline *t = &s->st.tl[i];

		/* imbalance 0: one LLC, nothing runnable, or an LLC empty */
		fprintf(f, "%llu,%.3f,%llu,%llu,%llu,%.3f,%.3f,%llu\n",
			(unsigned long long)(t->t / SIM_NSEC_PER_MSEC),
			(double)t->busy / (10.0 * SIM_NSEC_PER_MSEC), (unsigned long long)t->queued,
			(unsigned long long)(t->slice / SIM_NSEC_PER_USEC),
			(unsigned long long)t->turbulent, t->imb_wgt_milli / 1e3, t->imb_cnt_milli / 1e3,
			(unsigned long long)t->used);
	}
	fclose(f);
	if (!(f = open_in(dir, "frames.csv")))
		return -1;
	fprintf(f, "frame,latency_us\n");
	for (i = 0; i < s->st.nr_frames; i++)
		fprintf(f, "%llu,%.1f\n", (unsigned long long)i, (double)s->st.frames[i] / 1e3);
	fclose(f);
	return 0;
}

int report_plot(struct sim *s, const char *dir)
{
	char cmd[4200];
	FILE *f;

	if (report_csv(s, dir))
		return -1;
	if (!(f = open_in(dir, "plot.gp")))
		return -1;
	fprintf(f, "set datafile separator ','\nset terminal png size 1000,700 noenhanced\n"
		   "set key autotitle columnhead\n"
		   "set output 'timeline.png'\nset multiplot layout 2,1 title '%s / %s / %s'\n"
		   "set ylabel 'busy CPUs'\nplot 'timeline.csv' using 1:2 with lines\n"
		   "set ylabel 'queued tasks'\nset xlabel 'ms'\n"
		   "plot 'timeline.csv' using 1:3 with lines\nunset multiplot\n"
		   "set output 'frames.png'\nset multiplot layout 1,1\nset xlabel 'frame'\n"
		   "set ylabel 'latency us'\nplot 'frames.csv' using 1:2 with points pt 7 ps 0.4\n"
		   "unset multiplot\n",
		s->topo->name, s->wl->name, s->cls->name);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot plot.gp", dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "lavd-sim: gnuplot failed (is gnuplot-nox installed?)\n");
		return -1;
	}
	return 0;
}

void report_set_opts(const struct sim_opts *o)
{
	g_opts = o;
}
