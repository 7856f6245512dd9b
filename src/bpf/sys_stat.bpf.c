/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sys_stat.bpf.c - the 10 ms statistics timer.
 *
 * Each round folds the per-CPU counters into the system averages of the
 * policy core (criticality thresholds, fairness reference, queue length,
 * time slice), revokes boosted slices that are no longer affordable, and
 * publishes a snapshot for the loader.
 */

/* A long runner got a boosted slice; under load cut it back to the system slice. */
static __always_inline void revoke_boost(s32 cpu, struct cpu_ctx *cc, bool can_boost,
					 bool llc_waiting, u64 now)
{
	struct task_struct *curr;
	u64 left;

	if (!cc->running_boosted || (can_boost && !llc_waiting))
		return;
	cc->running_boosted = 0;
	left = pol_slice_revoke(pol_sub_sat(now, cc->running_at_ns), READ_ONCE(sys.slice_ns));
	if (!left) {
		/* Already past a regular slice: switch now. */
		scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
	} else {
		bpf_rcu_read_lock();
		curr = scx_bpf_cpu_curr(cpu);
		if (curr)
			lavd_set_slice(curr, left);
		bpf_rcu_read_unlock();
	}
	cc->tot_revoke++;
}

static void update_sys_stat(void)
{
	struct pol_sys_sample x = {};
	struct pol_cfg cfg = lavd_cfg();
	u64 now = lavd_now(), max_wait = 0, cur_max_wait = 0;
	u64 tot_sched = 0, tot_lat_cri = 0, tot_preempt = 0, tot_steal = 0, tot_direct = 0,
	    tot_revoke = 0;
	bool can_boost;
	s32 cpu, i;

	x.interval_ns = last_timer_ns ? pol_sub_sat(now, last_timer_ns) : POL_SYS_STAT_INTERVAL_NS;
	last_timer_ns = now;
	x.nr_cpus = nr_cpus_onln;
	x.nr_active = nr_cpus_onln;

	bpf_for(i, 0, LAVD_MAX_LLCS) {
		s32 n;

		if (i >= nr_llcs)
			break;
		n = scx_bpf_dsq_nr_queued(LLC_DSQ(i));
		if (n > 0)
			x.nr_queued += n;
	}
	can_boost = pol_can_boost_slice(&sys, &cfg);

	bpf_for(cpu, 0, LAVD_MAX_CPUS) {
		struct cpu_ctx *cc;
		s32 n;

		if (cpu >= nr_cpu_ids_cfg)
			break;
		cc = get_cpu_ctx(cpu);
		if (!cc || !cpu_known[cpu])
			continue;
		n = scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | cpu);
		if (n > 0)
			x.nr_queued += n;

		x.busy_ns += cc->busy_ns;
		x.nr_sched += cc->nr_sched;
		x.sum_lat_cri += cc->sum_lat_cri;
		x.sum_svc_wgt_ns += cc->sum_svc_wgt_ns;
		if (cc->max_lat_cri > x.max_lat_cri)
			x.max_lat_cri = cc->max_lat_cri;
		cc->busy_ns = 0;
		cc->nr_sched = 0;
		cc->sum_lat_cri = 0;
		cc->max_lat_cri = 0;
		cc->sum_svc_wgt_ns = 0;

		if (cc->cur_max_wait_ns > cc->max_wait_ns)
			cc->max_wait_ns = cc->cur_max_wait_ns;
		if (cc->max_wait_ns > max_wait)
			max_wait = cc->max_wait_ns;
		if (cc->cur_max_wait_ns > cur_max_wait)
			cur_max_wait = cc->cur_max_wait_ns;
		cc->cur_max_wait_ns = 0;

		tot_sched += cc->tot_sched;
		tot_lat_cri += cc->tot_lat_cri;
		tot_preempt += cc->tot_preempt;
		tot_steal += cc->tot_xllc_steal;
		tot_direct += cc->tot_direct;
		tot_revoke += cc->tot_revoke;

		revoke_boost(cpu, cc, can_boost,
			     scx_bpf_dsq_nr_queued(LLC_DSQ(cpu_to_llc(cpu))) > 0, now);
	}

	pol_sys_update(&sys, &x, &cfg);

	stats.seq++;
	stats.nr_sched = tot_sched;
	stats.nr_sched_lat_cri = tot_lat_cri;
	stats.nr_preempt = tot_preempt;
	stats.nr_xllc_steal = tot_steal;
	stats.nr_direct = tot_direct;
	stats.nr_revoke = tot_revoke;
	stats.max_wait_ns = max_wait;
	/* The loader reads and resets this once per report: keep the max. */
	if (cur_max_wait > stats.cur_max_wait_ns)
		stats.cur_max_wait_ns = cur_max_wait;
	stats.slice_ns = sys.slice_ns;
	stats.avg_lat_cri = sys.avg_lat_cri;
	stats.max_lat_cri = sys.max_lat_cri;
	stats.thr_lat_cri = sys.thr_lat_cri;
	stats.avg_util = sys.avg_util;
	stats.nr_queued = sys.nr_queued;
	stats.nr_active = sys.nr_active;
	stats.logical_clk = READ_ONCE(logical_clk);
	stats.nr_tasks = nr_tasks;
}

static int stat_timer_cb(void *map, int *key, struct bpf_timer *timer)
{
	update_sys_stat();
	bpf_timer_start(timer, POL_SYS_STAT_INTERVAL_NS, 0);
	return 0;
}

static s32 start_stat_timer(void)
{
	u32 key = 0;
	struct stat_timer *t = bpf_map_lookup_elem(&stat_timer_map, &key);
	s32 err;

	if (!t) {
		scx_bpf_error("no stat timer");
		return -2;
	}
	err = bpf_timer_init(&t->timer, &stat_timer_map, 7 /* CLOCK_BOOTTIME */);
	if (err) {
		scx_bpf_error("bpf_timer_init failed (%d)", err);
		return err;
	}
	err = bpf_timer_set_callback(&t->timer, stat_timer_cb);
	if (err) {
		scx_bpf_error("bpf_timer_set_callback failed (%d)", err);
		return err;
	}
	return bpf_timer_start(&t->timer, POL_SYS_STAT_INTERVAL_NS, 0);
}
