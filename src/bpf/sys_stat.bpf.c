/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sys_stat.bpf.c - the 10 ms statistics timer.
 *
 * Each round folds the per-CPU counters into the system averages of the
 * policy core (criticality thresholds, fairness reference, queue length,
 * time slice), revokes boosted slices that are no longer affordable, and
 * publishes a snapshot for the loader.
 */

/*
 * The timer's work is split into global (non-static, noinline) functions:
 * the verifier checks each once, from a clean state, instead of carrying
 * every path out of the CPU loop into the averaging code after it.
 */

/* Scratch of one round, shared by the functions below. */
static struct pol_sys_sample cur_sample;
static struct lavd_stats cur_tot;
static bool cur_can_boost;
static u64 cur_now;
static u64 cur_max_qwait;	/* longest LLC-queue wait of the round */

/* A long runner got a boosted slice; under load cut it back to the system slice. */
__noinline int lavd_revoke_boost(s32 cpu, int llc_waiting)
{
	struct cpu_ctx *cc = get_cpu_ctx(cpu);
	struct task_struct *curr;
	u64 left;

	if (!cc || !cc->running_boosted || (cur_can_boost && !llc_waiting))
		return 0;
	cc->running_boosted = 0;
	left = pol_slice_revoke(pol_sub_sat(cur_now, cc->running_at_ns), READ_ONCE(sys.slice_ns));
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
	return 1;
}

extern struct kernel_cpustat kernel_cpustat __ksym __weak;

/*
 * IRQ, softirq and steal time the kernel has accounted on a CPU since boot
 * (ns). Debian's kernels are built without CONFIG_IRQ_TIME_ACCOUNTING, so
 * IRQ and softirq time there come from tick sampling (a tick that lands in
 * a softirq charges the whole tick): an estimate, smoothed by pol_irq_avg.
 * With irqtime accounting the same counters are exact at tick granularity.
 * 0 if the per-CPU counters cannot be read.
 */
static __always_inline u64 cpu_irq_total_ns(s32 cpu)
{
	struct kernel_cpustat *kcs;

	if (!bpf_ksym_exists(&kernel_cpustat))
		return 0;
	kcs = bpf_per_cpu_ptr(&kernel_cpustat, cpu);
	if (!kcs)
		return 0;
	return kcs->cpustat[CPUTIME_IRQ] + kcs->cpustat[CPUTIME_SOFTIRQ] +
	       kcs->cpustat[CPUTIME_STEAL];
}

/* Fold a CPU's lost time into its turbulence and the steady mask. */
__noinline int lavd_update_turbulence(s32 cpu)
{
	struct cpu_ctx *cc = get_cpu_ctx(cpu);
	struct bpf_cpumask *steady;
	u64 lost_total, gap_since, lost, irq_total, irq = 0;

	if (!cc)
		return 0;
	/* The CPU may close a gap meanwhile: total first (pol_gap_read says why). */
	lost_total = READ_ONCE(cc->gap.lost_total_ns);
	gap_since = READ_ONCE(cc->gap.gap_since_ns);
	lost = pol_gap_read(&cc->lost_seen_ns, lost_total, gap_since, cur_now);
	/* The first round only takes the baseline: the total since boot is not lost now. */
	irq_total = cpu_irq_total_ns(cpu);
	if (cc->irq_seen_ns)
		irq = pol_sub_sat(irq_total, cc->irq_seen_ns);
	cc->irq_seen_ns = irq_total;
	cc->irq_avg_fp = pol_irq_avg(cc->irq_avg_fp, cur_sample.interval_ns, irq);
	cc->lost_avg = pol_lost_avg(cc->lost_avg, pol_lost_util(cur_sample.interval_ns, lost,
								pol_irq_util(cc->irq_avg_fp)));
	cc->turbulent = pol_is_turbulent(cc->lost_avg);

	bpf_rcu_read_lock();
	steady = steady_mask();
	if (steady) {
		if (cc->turbulent)
			bpf_cpumask_clear_cpu(cpu, steady);
		else
			bpf_cpumask_set_cpu(cpu, steady);
	}
	bpf_rcu_read_unlock();
	return cc->turbulent;
}

/* Collect and reset the per-CPU interval counters into cur_sample. */
__noinline int lavd_collect_cpus(void)
{
	struct pol_sys_sample *x = &cur_sample;
	struct lavd_stats *t = &cur_tot;
	u64 llc_runs = 0;
	s32 cpu;

	bpf_for(cpu, 0, LAVD_MAX_CPUS) {
		struct cpu_ctx *cc;
		s32 n;

		if (cpu >= nr_cpu_ids_cfg)
			break;
		cc = get_cpu_ctx(cpu);
		if (!cc || !cpu_is_known(cpu))
			continue;
		llc_doms[LLC_IDX(cpu_to_llc(cpu))].run_wgt += cc->running_wgt;
		n = scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | cpu);
		if (n > 0)
			x->nr_queued += n;

		if (lavd_update_turbulence(cpu)) {
			t->nr_turbulent++;
			if (cpu < 64)
				t->turbulent_mask |= 1ULL << cpu;
		}
		t->nr_turb_place += cc->tot_turb_place;
		t->nr_warm_wait += cc->tot_warm_wait;
		pw_collect_cpu(cc, cpu, x->interval_ns);
		x->busy_ns += cc->busy_ns;
		x->nr_sched += cc->nr_sched;
		x->sum_lat_cri += cc->sum_lat_cri;
		x->sum_svc_wgt_ns += cc->sum_svc_wgt_ns;
		x->max_lat_cri = pol_max(x->max_lat_cri, cc->max_lat_cri);
		cc->busy_ns = 0;
		cc->nr_sched = 0;
		cc->sum_lat_cri = 0;
		cc->max_lat_cri = 0;
		cc->sum_svc_wgt_ns = 0;

		if (cc->max_wait.wait_ns > t->max_wait.wait_ns)
			t->max_wait = cc->max_wait;
		t->cur_max_wait_ns = pol_max(t->cur_max_wait_ns, cc->cur_max_wait_ns);
		cc->cur_max_wait_ns = 0;
		cur_max_qwait = pol_max(cur_max_qwait, cc->cur_max_qwait_ns);
		cc->cur_max_qwait_ns = 0;

		t->nr_sched += cc->tot_sched;
		t->nr_sched_lat_cri += cc->tot_lat_cri;
		t->nr_preempt += cc->tot_preempt;
		t->nr_preempt_ipi += cc->tot_preempt_ipi;
		t->nr_irq_wake += cc->tot_irq_wake;
		t->nr_softirq_wake += cc->tot_softirq_wake;
		t->nr_xllc_steal += cc->tot_xllc_steal;
		t->nr_plan_steal += cc->tot_plan_steal;
		t->nr_direct += cc->tot_direct;
		t->nr_sync_local += cc->tot_sync_local;
		t->nr_local_pick += cc->tot_local_pick;
		t->nr_revoke += cc->tot_revoke;
		t->nr_lock_boost += cc->tot_lock_boost;
		t->nr_lock_acquire += cc->tot_lock_acquire;
		t->nr_sched_big += cc->tot_sched_big;
		t->nr_sched_perf_cri += cc->tot_sched_perf_cri;
		t->nr_cpuperf_set += cc->tot_cpuperf_set;

		/*
		 * Tasks pinned to this CPU wait in its local queue, which only
		 * this CPU serves: without it a boosted hog (up to 500 ms) kept
		 * kworker/0:1 waiting 500 ms in the VM.
		 */
		lavd_revoke_boost(cpu, n > 0 || scx_bpf_dsq_nr_queued(LLC_DSQ(cpu_to_llc(cpu))) > 0);
		llc_runs += cc->tot_llc_runs;
	}
	WRITE_ONCE(nr_llc_runs, llc_runs);
	return 0;
}

/* Fold the round into the policy averages and publish the snapshot. */
__noinline int lavd_fold_stats(void)
{
	struct pol_cfg cfg = lavd_cfg();
	struct lavd_stats *t = &cur_tot;

	pol_sys_update(&sys, &cur_sample, &cfg);

	stats.seq++;
	stats.nr_sched = t->nr_sched;
	stats.nr_sched_lat_cri = t->nr_sched_lat_cri;
	stats.nr_preempt = t->nr_preempt;
	stats.nr_preempt_ipi = t->nr_preempt_ipi;
	stats.nr_irq_wake = t->nr_irq_wake;
	stats.nr_softirq_wake = t->nr_softirq_wake;
	stats.irq_by_count = pc_readable() && READ_ONCE(pc_ticks) >= LAVD_PC_TICKS_MIN &&
			     pol_hardirq_mask(READ_ONCE(pc_tick_and));
	stats.nr_xllc_steal = t->nr_xllc_steal;
	stats.nr_plan_steal = t->nr_plan_steal;
	stats.nr_direct = t->nr_direct;
	stats.nr_sync_local = t->nr_sync_local;
	stats.nr_local_pick = t->nr_local_pick;
	stats.nr_revoke = t->nr_revoke;
	stats.nr_lock_boost = t->nr_lock_boost;
	stats.nr_lock_acquire = t->nr_lock_acquire;
	stats.nr_turbulent = t->nr_turbulent;
	stats.nr_warm_wait = t->nr_warm_wait;
	stats.nr_turb_place = t->nr_turb_place;
	stats.turbulent_mask = t->turbulent_mask;
	stats.max_wait = t->max_wait;
	/* The loader reads and resets this once per report: keep the max. */
	stats.cur_max_wait_ns = pol_max(stats.cur_max_wait_ns, t->cur_max_wait_ns);
	stats.slice_ns = sys.slice_ns;
	stats.avg_lat_cri = sys.avg_lat_cri;
	stats.max_lat_cri = sys.max_lat_cri;
	stats.thr_lat_cri = sys.thr_lat_cri;
	stats.avg_util = sys.avg_util;
	stats.nr_queued = sys.nr_queued;
	stats.nr_active = sys.nr_active;
	stats.logical_clk = READ_ONCE(logical_clk);
	stats.nr_tasks = nr_tasks;
	stats.power_mode = pm_mode;
	stats.nr_overflow = pm_nr_overflow;
	stats.pco_state = pm_state;
	stats.use_cap = pm_use_cap;
	stats.req_cap = pm_req_cap;
	stats.mode_ms[0] = pm_mode_ns[0] / POL_NSEC_PER_MSEC;
	stats.mode_ms[1] = pm_mode_ns[1] / POL_NSEC_PER_MSEC;
	stats.mode_ms[2] = pm_mode_ns[2] / POL_NSEC_PER_MSEC;
	stats.nr_mode_switch = pm_nr_switch;
	stats.nr_sched_big = t->nr_sched_big;
	stats.nr_sched_perf_cri = t->nr_sched_perf_cri;
	stats.thr_perf_cri = thr_perf_cri;
	stats.nr_cpuperf_set = t->nr_cpuperf_set;
	return 0;
}

static void update_sys_stat(void)
{
	struct pol_cfg cfg = lavd_cfg();
	u64 now = lavd_now();
	s32 i;

	__builtin_memset(&cur_sample, 0, sizeof(cur_sample));
	__builtin_memset(&cur_tot, 0, sizeof(cur_tot));
	cur_now = now;
	cur_sample.interval_ns = last_timer_ns ? pol_sub_sat(now, last_timer_ns) :
						 POL_SYS_STAT_INTERVAL_NS;
	last_timer_ns = now;
	/* Watches the clock as much as the timer (lavd_now in scx.bpf.h). */
	if (cur_sample.interval_ns > stats.max_round_gap_ns)
		stats.max_round_gap_ns = cur_sample.interval_ns;
	cur_sample.nr_cpus = nr_cpus_onln;
	cur_sample.nr_active = nr_cpus_onln;
	cur_can_boost = pol_can_boost_slice(&sys, &cfg);

	bpf_for(i, 0, LAVD_MAX_LLCS) {
		s32 n;

		if (i >= nr_llcs)
			break;
		llc_doms[i].run_wgt = 0;	/* summed again by lavd_collect_cpus */
		n = scx_bpf_dsq_nr_queued(LLC_DSQ(i));
		if (n > 0)
			cur_sample.nr_queued += n;
	}
	cur_use_cap = 0;
	cur_max_qwait = 0;
	cur_perf_sum = cur_perf_n = cur_perf_min = cur_perf_max = 0;
	lavd_collect_cpus();
	lavd_update_power(cur_sample.interval_ns, cur_max_qwait, cur_sample.nr_queued);
	/* The slice shares the latency budget among the CPUs in use. */
	cur_sample.nr_active = pm_nr_active + pm_nr_overflow;
	if (nr_llcs > 1)
		pol_plan_balance(llc_doms, nr_llcs, llc_plan, &llc_bal_sum, mig_delta_pct);
	lavd_fold_stats();
}

static int stat_timer_cb(void *map, int *key, struct bpf_timer *timer)
{
	update_sys_stat();
	cbw_timer_round();
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
