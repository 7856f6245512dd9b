/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_lavd.c - LAVD in the simulator: the callbacks of src/bpf/ (task.bpf.c,
 * idle.bpf.c, dsq.bpf.c, sys_stat.bpf.c) written against the simulated
 * sched_ext core, calling src/policy/ unchanged. Function names follow the
 * BPF ones so the two can be read side by side; what the kernel provides
 * (kfuncs, cpumasks, DSQs) is the engine. Also preempt.bpf.c (try_preempt) and
 * lock.bpf.c (futex lock holders, fed by the engine's lock/unlock ops), the
 * turbulence of CPUs (lost time -> steady mask, pol_cpu.h), cache warmth and
 * --warm-cpu-us, stealing by weight (pol_balance.h), and power.bpf.c: core
 * compaction along CPU orders built from the topology as the loader builds
 * them without an energy model, power modes, big/little placement by
 * performance criticality (pol_power.h). Not modelled: cpufreq targets (the
 * engine's CPUs run at their capacity).
 *
 * BPF marks "not since" with a 0 timestamp; simulated time starts at 0, so
 * the *_since_ns below carry a flag of their own.
 */
#include "sim.h"

struct lavd_cpu {
	u64 busy_ns, nr_sched, sum_lat_cri, max_lat_cri, sum_svc_wgt_ns;
	u64 running_at_ns, running_slice_ns;
	u32 running_lat_cri;
	u8 running_boosted;
	u64 running_wgt;	/* weight of what runs here, 0 when none */
	u64 cur_max_wait_ns, max_wait_ns;
	u64 cur_max_qwait_ns;	/* ... of tasks that waited in an LLC queue */
	u64 est_stop_ns;	/* pol_est_stop() at running */
	u32 run_flags;		/* enum pol_run_flags */
	u64 tot_sched, tot_lat_cri, tot_direct, tot_sync_local, tot_xllc_steal, tot_revoke;
	u64 tot_preempt, tot_lock_boost, tot_lock_acquire;
	/* turbulence: time neither idle nor ours, as gaps (pol_gap_clock) */
	struct pol_gap_clock gap;
	u64 lost_seen_ns;	/* the timer's reading (pol_gap_read) */
	u8 turbulent;
	u64 lost_avg;		/* pol_lost_avg of pol_lost_util */
	u64 tot_turb_place, tot_warm_wait;
	/* power.bpf.c */
	u8 active, overflow;
	u32 ovf_rounds;
	u64 sum_perf_cri, min_perf_cri, max_perf_cri;
};

/* power.bpf.c's tables and state; two PCO states, as without an energy model. */
struct lavd_power {
	struct pol_order_caps caps[2];
	s32 order[2][SIM_MAX_CPUS];
	u64 bounds[2];
	struct pol_pm_bounds pmb;
	u32 fixed;		/* a fixed mode, or POL_PM_NR: the autopilot */
	bool no_compaction;
	bool big_little;
	u8 big[SIM_MAX_CPUS];
	struct cpumask usable, bigm, littlem;
	bool compacting;
	u32 mode, state, nr_active, nr_overflow;
	u64 use_cap, cur_use;
	u64 perf_min, perf_avg, perf_max, thr_perf_cri;
	struct pol_cc_guard guard;
	u64 round_max_wait;	/* longest LLC-queue wait of the round (cur_max_qwait_ns) */
};

struct lavd {
	struct pol_cfg cfg;
	struct pol_sys sys;
	u64 logical_clk;
	u64 last_timer_ns;
	bool preempt_kick;
	u64 pinned_slice_ns;	/* --pinned-slice-us: the loader's default, 5 ms */
	bool no_turbulence;	/* --lavd-opt no-turbulence: placement sees every CPU steady */
	bool no_warmth;		/* --lavd-opt no-warmth: warm_wait_ok() is false */
	bool count_balance;	/* --lavd-opt count-balance: steal by task count */
	bool no_plan;		/* --lavd-opt no-plan: no pol_plan_balance */
	u64 warm_cpu_ns;	/* --warm-cpu-us */
	bool has_rt;		/* the workload has RT tasks (else no time may be lost) */
	struct cpumask steady;	/* steady_mask: CPUs not turbulent */
	int nr_llcs;
	struct pol_domain llc_doms[POL_MAX_DOMAINS];
	struct pol_dom_plan llc_plan[POL_MAX_DOMAINS];	/* roles and budgets, every 10 ms */
	struct dsq llc_dsq[SIM_MAX_LLCS];
	struct lavd_cpu cc[SIM_MAX_CPUS];
	struct lavd_power pw;
};

#define L(s) ((struct lavd *)(s)->priv)

static s32 cpu_to_llc(struct sim *s, s32 cpu)
{
	return s->topo->cpu[cpu].llc;
}

static bool is_pinned(const struct task *p)
{
	return p->pinned >= 0;
}

/* ---- task.bpf.c ---- */

static u32 task_static_ctx(struct sim *s, const struct task *p)
{
	u32 c = 0;

	(void)s;
	if (p->kthread)
		c |= POL_CTX_KTHREAD;
	if (is_pinned(p))
		c |= POL_CTX_PINNED;
	return c;
}

static void task_update_deadline(struct sim *s, struct task *p)
{
	struct lavd *l = L(s);
	u64 weight = p->weight;
	struct pol_greed g;
	u64 delta, window;
	u32 lc;

	if (s->lavd_opts & SIM_LAVD_NO_INHERIT) {
		p->l.st.lat_cri_waker = 0;
		p->l.st.lat_cri_wakee = 0;
	}
	lc = pol_lat_cri(&p->l.st, weight, p->l.ctx | task_static_ctx(s, p));
	p->l.ctx &= ~(POL_CTX_HARDIRQ_WAKER | POL_CTX_SOFTIRQ_WAKER | POL_CTX_RT_WAKER |
		      POL_CTX_LOCK_BOOST);
	g = pol_greedy_penalty(&p->l.st, l->sys.avg_svc_wgt_ns, weight);
	p->l.greedy = g.greedy;
	delta = pol_weight_scale(pol_deadline_delta(p->l.st.acc_runtime_ns, g.penalty, lc,
						    l->cfg.slice_max_ns), weight);
	delta = pol_deadline_cap(delta, l->sys.avg_lat_cri, p->kthread);
	window = pol_compete_window(l->sys.nr_active, l->sys.nr_queued);
	p->l.vdeadline = pol_vdeadline(l->logical_clk, delta, window);
}

static void advance_logical_clk(struct sim *s, u64 vdeadline)
{
	struct lavd *l = L(s);

	l->logical_clk = pol_clock_advance(l->logical_clk, vdeadline, l->sys.nr_queued);
}

static void task_account(struct sim *s, struct task *p, struct lavd_cpu *cc, s32 cpu)
{
	u64 exec = p->sum_exec;
	u64 ran = pol_sub_sat(exec, p->l.exec_at_account);
	u64 invr;

	p->l.exec_at_account = exec;
	if (!ran)
		return;
	invr = pol_wall_to_invr(ran, s->topo->cpu[cpu].cap, POL_SCALE);
	pol_task_account(&p->l.st, ran, invr, p->weight);
	L(s)->logical_clk += pol_clock_service(ran, L(s)->sys.nr_active, L(s)->sys.avg_lat_cri);
	if (cc)
		cc->busy_ns += ran;
}

static void unaccount_queued(struct sim *s, struct task *p)
{
	struct pol_domain *d;

	if (!p->l.queued_wgt)
		return;
	d = &L(s)->llc_doms[p->l.queued_llc];
	d->queued_wgt -= p->l.queued_wgt;
	d->nr_queued -= 1;
	p->l.queued_wgt = 0;
}

static void lavd_runnable(struct sim *s, struct task *p, struct task *waker, u64 enq_flags)
{
	pol_task_on_runnable(&p->l.st);
	p->l.wait_since_ns = s->now;
	if (!(enq_flags & SCX_ENQ_WAKEUP))
		return;
	if (!waker) {		/* timer or device interrupt */
		p->l.ctx |= POL_CTX_HARDIRQ_WAKER;
		return;
	}
	if (waker->rt)		/* prio < MAX_RT_PRIO */
		p->l.ctx |= POL_CTX_RT_WAKER;
	if (waker->family != p->family || waker->kthread != p->kthread)
		return;
	pol_task_on_wake(&waker->l.st, &p->l.st, s->now);
}

static void lavd_running(struct sim *s, struct task *p)
{
	struct lavd *l = L(s);
	s32 cpu = p->cpu;
	struct lavd_cpu *cc = &l->cc[cpu];
	struct pol_slice sl;
	u64 now = s->now, wait;

	unaccount_queued(s, p);
	wait = pol_sub_sat(now, p->l.wait_since_ns);
	if (p->l.wait_since_ns && wait > cc->cur_max_wait_ns)
		cc->cur_max_wait_ns = wait;
	if (p->l.wait_since_ns && p->l.queued_dsq && wait > cc->cur_max_qwait_ns)
		cc->cur_max_qwait_ns = wait;
	p->l.queued_dsq = 0;
	p->l.wait_since_ns = 0;

	pol_task_on_running(&p->l.st, now);
	p->l.exec_at_account = p->sum_exec;
	p->l.exec_at_running = p->sum_exec;
	p->l.ctx &= ~(POL_CTX_WAKEUP | POL_CTX_SYNC_WAKEUP);
	advance_logical_clk(s, p->l.vdeadline);

	sl = pol_task_slice(&l->sys, &l->cfg, p->l.st.avg_runtime_ns, p->l.st.lat_cri);
	sl = pol_pinned_cap(sl, l->sys.slice_ns, l->pinned_slice_ns, s->cpu[p->cpu].local_n > 0);
	if (s->check) {
		/* a deep queue lowers the floor below slice_min (pol_slice_floor) */
		u64 lo = pol_min(l->cfg.slice_min_ns, POL_SLICE_FLOOR_NS);

		if (sl.boosted) {
			if (sl.slice_ns < lo || sl.slice_ns > POL_SLICE_BOOST_MAX_NS)
				sim_fail(s, "boosted slice %llu out of [%llu, %llu]",
					 (unsigned long long)sl.slice_ns, (unsigned long long)lo,
					 (unsigned long long)POL_SLICE_BOOST_MAX_NS);
		} else if (sl.slice_ns < lo || sl.slice_ns > l->cfg.slice_max_ns) {
			sim_fail(s, "slice %llu out of [%llu, %llu]", (unsigned long long)sl.slice_ns,
				 (unsigned long long)lo, (unsigned long long)l->cfg.slice_max_ns);
		}
	}
	p->scx_slice = sl.slice_ns;	/* lavd_set_slice() */
	p->l.slice_boosted = sl.boosted;
	if (sl.boosted)
		s->st.lavd_boosted++;

	cc->running_at_ns = now;
	pol_gap_close(&cc->gap, now);
	cc->running_slice_ns = sl.slice_ns;
	cc->running_lat_cri = p->l.st.lat_cri;
	cc->running_boosted = sl.boosted;
	cc->running_wgt = (u64)p->weight;
	cc->est_stop_ns = pol_est_stop(now, p->l.st.avg_runtime_ns, sl.slice_ns);
	cc->run_flags = POL_RUN_ACTIVE | (p->l.lock_holder ? POL_RUN_LOCK_HOLDER : 0) |
			(p->l.st.avg_runtime_ns >= sl.slice_ns ? POL_RUN_SLICE_BOUND : 0);
	cc->nr_sched++;
	cc->tot_sched++;
	cc->sum_lat_cri += p->l.st.lat_cri;
	if (p->l.st.lat_cri > cc->max_lat_cri)
		cc->max_lat_cri = p->l.st.lat_cri;
	if (p->l.st.lat_cri >= l->sys.avg_lat_cri)
		cc->tot_lat_cri++;
	cc->sum_svc_wgt_ns += p->l.st.svc_wgt_ns;
	/* pw_on_running (cpufreq is not modelled): perf criticality on big/little only */
	if (l->pw.big_little) {
		p->l.perf_cri = pol_perf_cri(&p->l.st, (u64)p->weight);
		cc->sum_perf_cri += p->l.perf_cri;
		if (!cc->min_perf_cri || p->l.perf_cri < cc->min_perf_cri)
			cc->min_perf_cri = p->l.perf_cri;
		cc->max_perf_cri = pol_max(cc->max_perf_cri, p->l.perf_cri);
		if (l->pw.big[cpu])
			s->st.lavd_sched_big++;
		if (p->l.perf_cri > l->pw.thr_perf_cri) {
			s->st.lavd_sched_perf_cri++;
			if (l->pw.big[cpu])
				s->st.lavd_sched_perf_cri_big++;
		}
	}
	if (pol_wants_steady(p->l.st.lat_cri, l->sys.avg_lat_cri)) {
		s->st.lavd_steady_runs++;
		if (cc->turbulent) {
			cc->tot_turb_place++;
			s->st.lavd_turb_place++;
		}
	}
}

static void lavd_stopping(struct sim *s, struct task *p, bool runnable)
{
	struct lavd_cpu *cc = &L(s)->cc[p->cpu];

	task_account(s, p, cc, p->cpu);
	pol_task_on_stopping(&p->l.st);
	pol_warmth_on_stop(&p->l.warm, p->cpu, pol_sub_sat(p->sum_exec, p->l.exec_at_running),
			   s->now);
	cc->running_boosted = 0;
	cc->running_wgt = 0;
	cc->run_flags = 0;
	pol_gap_open(&cc->gap, s->now);
	/* A lock holder's protection ends with this run; its next criticality gets a boost. */
	if (p->l.lock_holder) {
		p->l.lock_holder = 0;
		p->l.ctx |= POL_CTX_LOCK_BOOST;
	}
	p->l.lock_refilled = 0;
	if (runnable)
		p->l.wait_since_ns = s->now;
}

static void lavd_quiescent(struct sim *s, struct task *p, bool sleep)
{
	pol_task_on_quiescent(&p->l.st, s->now, sleep);
	p->l.wait_since_ns = 0;
}

/* init_task + enable */
static void lavd_task_new(struct sim *s, struct task *p, struct task *parent)
{
	struct lavd *l = L(s);

	pol_task_init(&p->l.st, parent ? &parent->l.st : NULL, s->now, l->sys.slice_ns,
		      l->sys.avg_svc_wgt_ns);
	p->l.vdeadline = l->logical_clk;
	p->l.wait_since_ns = 0;
	p->l.exec_at_account = p->sum_exec;
	p->l.ctx = 0;
	p->l.queued_wgt = 0;
	p->l.queued_llc = -1;
	p->l.slice_boosted = 0;
	p->l.greedy = 0;
	p->l.lock_holder = 0;
	p->l.lock_refilled = 0;
	p->l.warm_wait = 0;
	p->l.exec_at_running = p->sum_exec;
	p->l.warm.heat = 0;
	p->l.warm.last_stop_ns = s->now;
	p->l.warm.cpu = -1;
	p->l.st.svc_wgt_ns = l->sys.avg_svc_wgt_ns;	/* lavd_enable */
}

static void lavd_task_dead(struct sim *s, struct task *p)
{
	unaccount_queued(s, p);	/* lavd_exit_task */
}

/* ---- idle.bpf.c ---- */

/*
 * --warm-cpu-us: a task that is not critical, whose previous CPU is busy but
 * still warm with its data, may wait for it if the wait is expected to be short.
 */
static bool warm_wait_ok(struct sim *s, struct task *p, s32 prev_cpu)
{
	struct lavd *l = L(s);
	struct lavd_cpu *pc = &l->cc[prev_cpu];
	u64 now = s->now, wait;
	int n;

	if (l->no_warmth || !l->warm_cpu_ns || p->l.st.lat_cri >= l->sys.thr_lat_cri)
		return false;
	n = s->cpu[prev_cpu].local_n;
	wait = pol_sub_sat(pc->est_stop_ns, now) + (n > 0 ? (u64)n : 0) * l->sys.slice_ns;
	return pol_warm_wait_ok(pol_warmth_now(&p->l.warm, prev_cpu, now), wait, l->warm_cpu_ns);
}


/* ---- power.bpf.c ---- */

static int thread_idx(const struct sim_topo *t, int cpu)
{
	return t->cpu[cpu].sibling >= 0 && t->cpu[cpu].sibling < cpu;
}

static const struct sim_topo *order_topo;
static bool order_big_little;

/* The loader's performance order: first threads of every core, then nearer and faster first. */
static int cmp_perf(const void *a, const void *b)
{
	const struct sim_topo *t = order_topo;
	int x = *(const int *)a, y = *(const int *)b;
	const struct sim_cpu_desc *cx = &t->cpu[x], *cy = &t->cpu[y];

	if (thread_idx(t, x) != thread_idx(t, y))
		return thread_idx(t, x) - thread_idx(t, y);
	if (cx->node != cy->node)
		return cx->node - cy->node;
	if (cx->llc != cy->llc)
		return cx->llc - cy->llc;
	if (cx->cap != cy->cap)
		return cx->cap > cy->cap ? -1 : 1;
	return x - y;
}

/* The powersave order: pack into few LLCs and cores, little cores first. */
static int cmp_powersave(const void *a, const void *b)
{
	const struct sim_topo *t = order_topo;
	int x = *(const int *)a, y = *(const int *)b;
	const struct sim_cpu_desc *cx = &t->cpu[x], *cy = &t->cpu[y];

	if (cx->node != cy->node)
		return cx->node - cy->node;
	if (cx->llc != cy->llc)
		return cx->llc - cy->llc;
	if (cx->cap != cy->cap)
		return (cx->cap < cy->cap) == order_big_little ? -1 : 1;
	if (cx->core != cy->core)
		return cx->core - cy->core;
	if (thread_idx(t, x) != thread_idx(t, y))
		return thread_idx(t, x) - thread_idx(t, y);
	return x - y;
}

static void pw_init(struct sim *s, struct lavd_power *pw)
{
	const struct sim_topo *t = s->topo;
	u32 min_cap = POL_SCALE, max_cap = 1;
	u64 total = 0, sum = 0;
	int i, k;

	for (i = 0; i < s->nr_cpus; i++) {
		min_cap = (u32)pol_min(min_cap, t->cpu[i].cap);
		max_cap = (u32)pol_max(max_cap, t->cpu[i].cap);
		total += t->cpu[i].cap;
	}
	pw->big_little = (u64)max_cap * 10 >= (u64)min_cap * 13;
	for (i = 0; i < s->nr_cpus; i++) {
		sum += t->cpu[i].cap;
		mask_set(&pw->usable, i);
	}
	for (i = 0; i < s->nr_cpus; i++) {
		/* big: not big/little, or at least the average capacity */
		pw->big[i] = !pw->big_little || (u64)t->cpu[i].cap * (u64)s->nr_cpus >= sum;
		mask_set(pw->big[i] ? &pw->bigm : &pw->littlem, i);
		L(s)->cc[i].active = 1;
	}
	order_topo = t;
	order_big_little = pw->big_little;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < s->nr_cpus; i++)
			pw->order[k][i] = i;
		qsort(pw->order[k], (size_t)s->nr_cpus, sizeof(int), k ? cmp_perf : cmp_powersave);
		for (i = 0; i < s->nr_cpus; i++)
			pw->caps[k].cap[i] = (u16)t->cpu[pw->order[k][i]].cap;
	}
	pw->bounds[0] = t->cpu[pw->order[0][0]].cap;
	pw->bounds[1] = total;
	pw->pmb = pol_pm_bounds_noem(min_cap, total, t->smt);
	pw->mode = POL_PM_NR;
	pw->nr_active = (u32)s->nr_cpus;
	pw->fixed = POL_PM_NR;
	if (s->lavd_opts & SIM_LAVD_PERFORMANCE)
		pw->fixed = POL_PM_PERFORMANCE;
	else if (s->lavd_opts & SIM_LAVD_BALANCED)
		pw->fixed = POL_PM_BALANCED;
	else if (s->lavd_opts & SIM_LAVD_POWERSAVE)
		pw->fixed = POL_PM_POWERSAVE;
	pw->no_compaction = !!(s->lavd_opts & SIM_LAVD_NO_COMPACTION);
}

static bool cpu_usable(struct sim *s, s32 cpu)
{
	return !L(s)->pw.compacting || mask_test(&L(s)->pw.usable, cpu);
}

/* lavd_apply_sets: nr CPUs of the row active, steady ones first; overflow CPUs linger. */
static void pw_apply(struct sim *s, u32 state, u32 nr)
{
	struct lavd *l = L(s);
	struct lavd_power *pw = &l->pw;
	u64 cap_all = 0, cap_big = 0;
	u32 pos, nr_ovf = 0, taken = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (pos = 0; pos < (u32)s->nr_cpus; pos++) {
			s32 cpu = pw->order[state][pos];
			struct lavd_cpu *cc = &l->cc[cpu];
			bool was = cc->active || cc->overflow, use;

			/* no-turbulence: placement, compaction included, sees every CPU steady */
			if ((cc->turbulent && !l->no_turbulence) != pass)
				continue;
			if (taken < nr) {
				taken++;
				cc->active = 1;
				cc->overflow = 0;
			} else {
				bool own = s->cpu[cpu].local_n > 0 || s->cpu[cpu].curr;

				cc->active = 0;
				if (cc->overflow && !pol_overflow_keep(own, &cc->ovf_rounds))
					cc->overflow = 0;
				nr_ovf += cc->overflow;
			}
			use = cc->active || cc->overflow;
			if (use) {
				mask_set(&pw->usable, cpu);
				cap_all += s->topo->cpu[cpu].cap;
				if (pw->big[cpu])
					cap_big += s->topo->cpu[cpu].cap;
			} else {
				mask_clr(&pw->usable, cpu);
			}
			if (use && !was && l->llc_dsq[cpu_to_llc(s, cpu)].n)
				sim_kick(s, cpu, 0);
		}
	}
	if (pw->big_little)
		pw->thr_perf_cri = pol_thr_perf_cri((u32)pol_div(cap_big << POL_SHIFT, cap_all),
						    pw->perf_min, pw->perf_avg, pw->perf_max);
	pw->nr_overflow = nr_ovf;
	pw->compacting = nr + nr_ovf < (u32)s->nr_cpus;
}

/*
 * lavd_feed_orphans: an LLC whose queue holds tasks but none of whose CPUs
 * is usable would be drained only by pulls of CPUs whose own queues ran
 * dry; open its first CPU in the row's order as overflow and wake it.
 */
static void pw_feed_orphans(struct sim *s)
{
	struct lavd *l = L(s);
	struct lavd_power *pw = &l->pw;
	int llc, pos;

	if (!pw->compacting)
		return;
	for (llc = 0; llc < l->nr_llcs; llc++) {
		if (!l->llc_dsq[llc].n ||
		    mask_first_and(&s->topo->llc_mask[llc], &pw->usable) >= 0)
			continue;
		for (pos = 0; pos < s->nr_cpus; pos++) {
			s32 cpu = pw->order[pw->state][pos];

			if (cpu_to_llc(s, cpu) != llc)
				continue;
			l->cc[cpu].overflow = 1;
			l->cc[cpu].ovf_rounds = 0;
			mask_set(&pw->usable, cpu);
			pw->nr_overflow++;
			s->st.lavd_orphan_feeds++;
			sim_kick(s, cpu, 0);
			break;
		}
	}
}

/* lavd_update_power (the sim has no restricted cpumasks: nothing can be stranded). */
static void pw_update(struct sim *s, u64 perf_sum, u64 perf_n, u64 perf_min, u64 perf_max,
		      u64 nr_queued)
{
	struct lavd_power *pw = &L(s)->pw;
	u32 mode, state, nr, n = (u32)s->nr_cpus;
	u64 req;

	pw->use_cap = pol_ewma_asym(pw->use_cap, pw->cur_use);
	pw->cur_use = 0;
	if (perf_n) {
		pw->perf_min = pol_ewma(pw->perf_min, perf_min);
		pw->perf_avg = pol_ewma(pw->perf_avg, perf_sum / perf_n);
		pw->perf_max = pol_ewma(pw->perf_max, perf_max);
	}
	pol_cc_guard_update(&pw->guard, pw->round_max_wait, pw->nr_active + pw->nr_overflow,
			    nr_queued, n);
	pw->round_max_wait = 0;
	mode = pw->fixed < POL_PM_NR ? pw->fixed : pol_autopilot(pw->use_cap, pw->pmb, pw->mode);
	if (pw->mode < POL_PM_NR && mode != pw->mode)
		s->st.lavd_mode_switch++;
	pw->mode = mode;
	s->st.lavd_mode_rounds[mode]++;
	req = pol_cc_req(pw->use_cap);
	if (pw->no_compaction || mode == POL_PM_PERFORMANCE ||
	    L(s)->sys.nr_intervals < POL_CC_WARMUP_ROUNDS) {
		state = 1;
		nr = n;
	} else {
		state = pol_pco_state(mode, req, pw->bounds, 2);
		nr = (u32)pol_max(pol_cc_nr_active(&pw->caps[state], n, req), pw->guard.floor);
	}
	pw_apply(s, state, nr);
	pw_feed_orphans(s);
	pw->state = state;
	pw->nr_active = nr;
	s->st.lavd_active_sum += nr + pw->nr_overflow;
}

/* pw_pick_by_type: whole big cores for performance-critical tasks, little ones for the rest. */
static s32 pw_pick_by_type(struct sim *s, struct task *p, const struct cpumask *allowed,
			   s32 prev_cpu)
{
	struct lavd_power *pw = &L(s)->pw;
	const struct cpumask *type;
	struct cpumask tmp;
	int w;

	bool want_big;
	int want;

	if (!pw->big_little)
		return -1;
	want = pol_perf_type(p->l.perf_cri, pw->thr_perf_cri);
	want_big = want > 0;
	if (!want || pw->big[prev_cpu] == want_big)	/* the general search starts from prev */
		return -1;
	type = want_big ? &pw->bigm : &pw->littlem;
	for (w = 0; w < SIM_MASK_WORDS; w++)
		tmp.w[w] = allowed->w[w] & type->w[w];
	return sim_pick_idle(s, &tmp, s->topo->smt);
}

static s32 pick_idle_cpu(struct sim *s, struct task *p, s32 prev_cpu, bool *is_idle)
{
	struct lavd *l = L(s);
	bool want_steady = pol_wants_steady(p->l.st.lat_cri, l->sys.avg_lat_cri);
	struct cpumask tmp;
	const struct cpumask *allowed;
	s32 cpu;
	int smt_on = s->topo->smt, w;

	*is_idle = false;
	p->l.warm_wait = 0;
	if (is_pinned(p)) {
		*is_idle = sim_claim_idle(s, prev_cpu);
		return prev_cpu;
	}
	/* unpinned tasks may run anywhere: on the usable CPUs */
	allowed = l->pw.compacting ? &l->pw.usable : &s->topo->all;
	if (!mask_test(allowed, prev_cpu)) {
		/* prev left the usable set: a usable CPU of its LLC, else any */
		cpu = mask_first_and(&s->topo->llc_mask[cpu_to_llc(s, prev_cpu)], allowed);
		prev_cpu = cpu >= 0 ? cpu : mask_first_and(allowed, &s->topo->all);
	}
	cpu = pw_pick_by_type(s, p, allowed, prev_cpu);
	if (cpu >= 0) {
		*is_idle = true;
		return cpu;
	}
	/* A task more critical than average: an idle steady CPU of the LLC first. */
	if (want_steady) {
		const struct cpumask *llc = &s->topo->llc_mask[cpu_to_llc(s, prev_cpu)];

		if (l->no_turbulence) {
			for (w = 0; w < SIM_MASK_WORDS; w++)
				tmp.w[w] = llc->w[w] & allowed->w[w];
		} else {
			for (w = 0; w < SIM_MASK_WORDS; w++)
				tmp.w[w] = llc->w[w] & allowed->w[w] & l->steady.w[w];
		}
		if (mask_test(&tmp, prev_cpu) && sim_claim_idle(s, prev_cpu)) {
			*is_idle = true;
			return prev_cpu;
		}
		cpu = sim_pick_idle(s, &tmp, 0);
		if (cpu >= 0) {
			*is_idle = true;
			return cpu;
		}
	}
	if (smt_on && sim_core_idle(s, prev_cpu) && sim_claim_idle(s, prev_cpu)) {
		*is_idle = true;
		return prev_cpu;
	}
	for (w = 0; w < SIM_MASK_WORDS; w++)
		tmp.w[w] = s->topo->llc_mask[cpu_to_llc(s, prev_cpu)].w[w] & allowed->w[w];
	if (smt_on) {
		cpu = sim_pick_idle(s, &tmp, 1);
		if (cpu >= 0) {
			*is_idle = true;
			return cpu;
		}
	}
	if (sim_claim_idle(s, prev_cpu)) {
		*is_idle = true;
		return prev_cpu;
	}
	if (warm_wait_ok(s, p, prev_cpu)) {
		p->l.warm_wait = 1;
		return prev_cpu;
	}
	cpu = sim_pick_idle(s, &tmp, 0);
	if (cpu >= 0) {
		*is_idle = true;
		return cpu;
	}
	if (smt_on) {
		cpu = sim_pick_idle(s, allowed, 1);
		if (cpu >= 0) {
			*is_idle = true;
			return cpu;
		}
	}
	cpu = sim_pick_idle(s, allowed, 0);
	if (cpu >= 0) {
		*is_idle = true;
		return cpu;
	}
	return prev_cpu;
}

static s32 allowed_cpu(struct sim *s, struct task *p, s32 prev_cpu)
{
	(void)s;
	if (is_pinned(p))
		return p->pinned;
	return prev_cpu;
}

/* scx_bpf_pick_idle_cpu() claims the CPU, then SCX_KICK_IDLE wakes it; false if none. */
static bool kick_idle_in_llc(struct sim *s, s32 llc)
{
	struct cpumask tmp = s->topo->llc_mask[llc];
	s32 cpu;
	int w;

	if (L(s)->pw.compacting)
		for (w = 0; w < SIM_MASK_WORDS; w++)
			tmp.w[w] &= L(s)->pw.usable.w[w];
	cpu = sim_pick_idle(s, &tmp, 0);

	if (cpu < 0)
		return false;
	sim_kick(s, cpu, 0);
	return true;
}

/* ---- preempt.bpf.c ---- */

static bool read_run(struct sim *s, s32 cpu, struct pol_cpu_run *r)
{
	struct lavd_cpu *cc = &L(s)->cc[cpu];

	r->lat_cri = cc->running_lat_cri;
	r->flags = cc->run_flags;
	/*
	 * pol_real_stop with no tick known: the engine ends a slice at its
	 * exact end, not at the next tick as the kernel does.
	 */
	r->est_stop_ns = pol_real_stop(cc->est_stop_ns, r->flags & POL_RUN_SLICE_BOUND, 0, 0);
	return true;
}

static void try_preempt(struct sim *s, struct task *p, s32 prev_cpu)
{
	struct lavd *l = L(s);
	struct pol_cpu_run best_run = { 0 }, r;
	struct cpumask tmp, pin;
	const struct cpumask *allowed;
	struct task *curr;
	u64 now, new_stop, tick_wait;
	u32 bar;
	s32 best = -1, cand;
	int i, w, seen;

	if (!pol_should_preempt(p->l.st.lat_cri, l->sys.thr_lat_cri, p->l.greedy, &l->cfg))
		return;
	now = s->now;
	new_stop = pol_est_stop(now, p->l.st.avg_runtime_ns, l->sys.slice_ns);
	bar = pol_preempt_bar(p->l.st.lat_cri, l->sys.thr_lat_cri);

	allowed = sim_allowed(s, p, &pin);
	for (w = 0; w < SIM_MASK_WORDS; w++)
		tmp.w[w] = s->topo->llc_mask[cpu_to_llc(s, prev_cpu)].w[w] & allowed->w[w];

	for (i = 0, seen = 0; i < s->nr_cpus && seen < POL_PREEMPT_CANDS; i++) {
		cand = (prev_cpu + i) % s->nr_cpus;
		if (!mask_test(&tmp, cand))
			continue;
		seen++;
		if (!read_run(s, cand, &r))
			continue;
		if (!pol_can_preempt(&r, bar, new_stop, now, l->cfg.slice_min_ns))
			continue;
		if (best < 0 || pol_victim_better(&r, &best_run)) {
			best = cand;
			best_run = r;
		}
	}
	if (best < 0)
		return;
	/* The compare-and-swap of the claim cannot fail here: nothing runs in between. */
	l->cc[best].run_flags = best_run.flags | POL_RUN_CLAIMED;
	curr = s->cpu[best].curr;
	if (s->check && !curr)
		sim_fail(s, "preemption victim CPU %d is marked active but idle", best);
	if (curr && curr->l.lock_holder) {
		s->st.lavd_preempt_lock_holder++;
		if (s->check)
			sim_fail(s, "lock holder task %d on CPU %d chosen as preemption victim by task %d",
				 curr->id, best, p->id);
	}
	if (curr && curr->nr_locks)
		s->st.lavd_preempt_owner++;
	/* The engine's ticks are on one grid for every CPU: the last one was at the grid point. */
	tick_wait = pol_tick_wait(now, now / SIM_TICK_NS * SIM_TICK_NS, SIM_TICK_NS);
	if (l->preempt_kick || pol_preempt_needs_ipi(tick_wait, POL_PREEMPT_TICK_WAIT_NS)) {
		sim_kick(s, best, 1);	/* SCX_KICK_PREEMPT */
		s->st.lavd_preempt_ipi++;
	} else if (curr) {
		/*
		 * lavd_set_slice(curr, 1): the kernel notices the exhausted slice
		 * at the victim's next tick (or earlier scheduling point).
		 */
		if (now + tick_wait < s->cpu[best].slice_end)
			sim_set_slice(s, best, tick_wait);
	}
	l->cc[best].tot_preempt++;
	s->st.lavd_preempt++;
}

/* pinned_cut: what runs where a pinned task waits keeps min(pinned, system slice). */
static void pinned_cut(struct sim *s, s32 cpu)
{
	struct lavd *l = L(s);
	struct lavd_cpu *cc = &l->cc[cpu];
	u64 cap, left;

	if (!l->pinned_slice_ns ||
	    (cc->run_flags & (POL_RUN_ACTIVE | POL_RUN_LOCK_HOLDER)) != POL_RUN_ACTIVE)
		return;
	cap = pol_pinned_slice(l->sys.slice_ns, l->pinned_slice_ns);
	if (cc->running_slice_ns <= cap)
		return;
	left = pol_slice_revoke(pol_sub_sat(s->now, cc->running_at_ns), cap);
	if (!left)
		sim_kick(s, cpu, 1);	/* SCX_KICK_PREEMPT */
	else if (s->now + left < s->cpu[cpu].slice_end)
		sim_set_slice(s, cpu, left);
	cc->running_slice_ns = cap;
}

/* ---- lock.bpf.c ---- */

static void lavd_futex(struct sim *s, struct task *p, int acquire)
{
	struct lavd *l = L(s);
	struct lavd_cpu *cc = &l->cc[p->cpu];

	/* The tracepoints are not loaded with --no-futex-boost. */
	if (l->cfg.flags & POL_CFG_NO_FUTEX_BOOST)
		return;
	if (acquire) {
		p->l.lock_holder = 1;
		cc->tot_lock_acquire++;
		cc->run_flags |= POL_RUN_LOCK_HOLDER;
		s->st.lavd_lock_acquire++;
	} else {
		p->l.lock_holder = 0;
		cc->run_flags &= ~(u32)POL_RUN_LOCK_HOLDER;
		s->st.lavd_lock_release++;
	}
}

/* prev's slice ran out while it holds a lock: refill it once. */
static bool keep_lock_holder(struct sim *s, s32 cpu, struct task *prev)
{
	struct lavd *l = L(s);

	if (!prev || (l->cfg.flags & POL_CFG_NO_FUTEX_BOOST))
		return false;
	if (!prev->l.lock_holder || prev->l.lock_refilled)
		return false;
	prev->l.lock_refilled = 1;
	sim_set_slice(s, cpu, l->sys.slice_ns);
	l->cc[cpu].tot_lock_boost++;
	s->st.lavd_lock_refill++;
	return true;
}

/* ---- dsq.bpf.c ---- */

/* sync_to_waker: the wakee goes behind its waker, which is about to sleep. */
static bool sync_to_waker(struct sim *s, struct task *p, struct task *waker)
{
	struct lavd *l = L(s);
	struct cpumask pin;
	s32 this;

	if (!waker || waker->kthread || waker->state != TS_RUNNING || is_pinned(p))
		return false;
	this = waker->cpu;
	if (!(l->cc[this].run_flags & POL_RUN_ACTIVE) || !mask_test(sim_allowed(s, p, &pin), this))
		return false;
	if (!cpu_usable(s, this) || waker->l.st.avg_runtime_ns >= l->cfg.slice_min_ns)
		return false;
	return s->cpu[this].local_n == 0;
}

static s32 lavd_select_cpu(struct sim *s, struct task *p, s32 prev_cpu, int wake_flags,
			   struct task *waker)
{
	struct lavd *l = L(s);
	bool is_idle = false, sync = false;
	s32 cpu;

	p->l.ctx |= POL_CTX_WAKEUP;
	if ((wake_flags & WAKE_SYNC) && !(l->cfg.flags & POL_CFG_NO_WAKE_SYNC)) {
		p->l.ctx |= POL_CTX_SYNC_WAKEUP;
		sync = sync_to_waker(s, p, waker);
	}
	cpu = sync ? waker->cpu : pick_idle_cpu(s, p, allowed_cpu(s, p, prev_cpu), &is_idle);
	if (sync || is_idle) {
		task_update_deadline(s, p);
		p->scx_slice = l->sys.slice_ns;
		sim_local_push(s, cpu, p);
		if (sync) {
			l->cc[cpu].tot_sync_local++;
			s->st.lavd_sync_local++;
		} else {
			l->cc[cpu].tot_direct++;
			s->st.lavd_direct++;
		}
	}
	return cpu;
}

static void lavd_enqueue(struct sim *s, struct task *p, u64 enq_flags)
{
	struct lavd *l = L(s);
	u64 slice = l->sys.slice_ns;
	struct pol_domain *d;
	bool is_idle = false;
	s32 cpu, llc;

	if (enq_flags & SCX_ENQ_WAKEUP)
		p->l.ctx |= POL_CTX_WAKEUP;
	task_update_deadline(s, p);

	cpu = allowed_cpu(s, p, p->cpu);
	if (!(enq_flags & SCX_ENQ_CPU_SELECTED))
		cpu = pick_idle_cpu(s, p, cpu, &is_idle);

	p->scx_slice = slice;
	/* Waiting for its warm CPU (select_cpu decided): that CPU's local queue. */
	if (p->l.warm_wait && (enq_flags & SCX_ENQ_CPU_SELECTED) && !is_idle) {
		p->l.warm_wait = 0;
		sim_local_push(s, cpu, p);
		l->cc[cpu].tot_warm_wait++;
		s->st.lavd_warm_wait++;
		return;
	}
	p->l.warm_wait = 0;
	if (is_pinned(p) || is_idle) {
		sim_local_push(s, cpu, p);	/* kicks the CPU if it is idle */
		/* A pinned task behind a busy CPU can only be helped there. */
		if (!is_idle) {
			pinned_cut(s, cpu);
			try_preempt(s, p, cpu);
		}
		return;
	}
	llc = cpu_to_llc(s, cpu);
	p->l.queued_llc = llc;
	p->l.queued_wgt = (u32)pol_max(p->weight, 1);
	d = &l->llc_doms[llc];
	d->queued_wgt += p->l.queued_wgt;
	d->nr_queued += 1;
	p->cpu = cpu;
	p->l.queued_dsq = 1;
	dsq_insert(s, &l->llc_dsq[llc], p, p->l.vdeadline);
	if (!kick_idle_in_llc(s, llc))
		try_preempt(s, p, cpu);
}

/* scx_bpf_dsq_move_to_local */
static bool lavd_move_to_local(struct sim *s, s32 cpu, int llc)
{
	struct task *p = dsq_pop(s, &L(s)->llc_dsq[llc]);

	if (!p)
		return false;
	sim_local_push(s, cpu, p);
	return true;
}

/*
 * Nothing else to run: the core would keep prev with the kernel's 20 ms;
 * give it our slice instead.
 */
static void keep_prev(struct sim *s, s32 cpu, struct task *prev)
{
	if (prev && !sim_slice_left(s, cpu)) {
		sim_set_slice(s, cpu, L(s)->sys.slice_ns);
		s->st.lavd_keep_prev++;
	}
}

/*
 * --lavd-opt count-balance: the baseline LAVD does not have. The same
 * pol_pick_stealee on the domains with every queued task weighing as a
 * nice-0 one, i.e. by queued task count per CPU.
 */
static const struct pol_domain *balance_doms(struct lavd *l, struct pol_domain *tmp)
{
	int i;

	if (!l->count_balance)
		return l->llc_doms;
	for (i = 0; i < l->nr_llcs; i++) {
		tmp[i] = l->llc_doms[i];
		tmp[i].queued_wgt = l->llc_doms[i].nr_queued * 100;
		tmp[i].run_wgt = 0;	/* count-balance: what waits, counted */
	}
	return tmp;
}

/* dsq.bpf.c planned_steal: a stealer LLC's CPU pulls before its own queue. */
static bool planned_steal(struct sim *s, s32 cpu, s32 self)
{
	struct lavd *l = L(s);
	struct pol_domain cnt_doms[POL_MAX_DOMAINS];
	const struct pol_domain *doms = balance_doms(l, cnt_doms);
	s32 victim = pol_pick_planned(doms, l->llc_plan, (u32)l->nr_llcs, (u32)self);
	u64 wgt;

	if (victim < 0 || victim >= SIM_MAX_LLCS)
		return false;
	wgt = pol_domain_avg_wgt(&doms[victim]);
	if (!lavd_move_to_local(s, cpu, victim))
		return false;
	pol_plan_charge(&l->llc_plan[self], &l->llc_plan[victim], wgt);
	l->cc[cpu].tot_xllc_steal++;
	s->st.lavd_steal++;
	s->st.lavd_plan_steal++;
	return true;
}

static void lavd_dispatch(struct sim *s, s32 cpu, struct task *prev)
{
	struct lavd *l = L(s);
	s32 self = cpu_to_llc(s, cpu), victim;
	struct pol_domain cnt_doms[POL_MAX_DOMAINS];
	const struct pol_domain *doms;
	u64 tried = 0;
	int i;

	if (keep_lock_holder(s, cpu, prev))
		return;
	/* outside the usable set: the queues are for the usable CPUs */
	if (!cpu_usable(s, cpu)) {
		keep_prev(s, cpu, prev);
		return;
	}
	if (l->nr_llcs > 1 && planned_steal(s, cpu, self))
		return;
	if (lavd_move_to_local(s, cpu, self))
		return;
	if (l->nr_llcs <= 1) {
		keep_prev(s, cpu, prev);
		return;
	}
	doms = balance_doms(l, cnt_doms);
	for (i = 0; i < l->nr_llcs; i++) {
		victim = pol_pick_stealee(doms, (u32)l->nr_llcs, (u32)self, tried);
		if (victim < 0 || victim >= SIM_MAX_LLCS)
			break;
		if (lavd_move_to_local(s, cpu, victim)) {
			l->cc[cpu].tot_xllc_steal++;
			s->st.lavd_steal++;
			return;
		}
		tried |= 1ULL << victim;
	}
	for (i = 0; i < l->nr_llcs; i++) {
		if (i == self || !l->llc_dsq[i].n)
			continue;
		if (lavd_move_to_local(s, cpu, i)) {
			l->cc[cpu].tot_xllc_steal++;
			s->st.lavd_steal++;
			return;
		}
	}
	keep_prev(s, cpu, prev);
}

/* ---- sys_stat.bpf.c ---- */

static void lavd_revoke_boost(struct sim *s, s32 cpu, int llc_waiting, bool can_boost)
{
	struct lavd *l = L(s);
	struct lavd_cpu *cc = &l->cc[cpu];
	u64 left;

	if (!cc->running_boosted || (can_boost && !llc_waiting))
		return;
	cc->running_boosted = 0;
	left = pol_slice_revoke(pol_sub_sat(s->now, cc->running_at_ns), l->sys.slice_ns);
	if (!left)
		sim_kick(s, cpu, 1);	/* SCX_KICK_PREEMPT */
	else if (s->cpu[cpu].curr)
		sim_set_slice(s, cpu, left);
	cc->tot_revoke++;
	s->st.lavd_revoke++;
}

/* Fold a CPU's lost time into its turbulence and the steady mask. */
static bool lavd_update_turbulence(struct sim *s, s32 cpu, u64 interval_ns)
{
	struct lavd *l = L(s);
	struct lavd_cpu *cc = &l->cc[cpu];
	u64 lost = pol_gap_read(&cc->lost_seen_ns, cc->gap.lost_total_ns, cc->gap.gap_since_ns,
				s->now);

	/* Nothing but RT tasks takes time from LAVD in the model: no gaps without them. */
	if (s->check && !l->has_rt && lost)
		sim_fail(s, "CPU %d lost %llu ns of %llu without RT tasks", cpu,
			 (unsigned long long)lost, (unsigned long long)interval_ns);
	/* The model's interrupts are RT tasks: no hidden interrupt time (0). */
	cc->lost_avg = pol_lost_avg(cc->lost_avg, pol_lost_util(interval_ns, lost, 0));
	cc->turbulent = pol_is_turbulent(cc->lost_avg);
	if (cc->turbulent)
		mask_clr(&l->steady, cpu);
	else
		mask_set(&l->steady, cpu);
	return cc->turbulent;
}

/* ops.update_idle: going idle ends a gap, leaving idle starts one (turbulence). */
static void lavd_update_idle(struct sim *s, int cpu, bool idle)
{
	struct lavd_cpu *cc = &L(s)->cc[cpu];

	if (idle)
		pol_gap_close(&cc->gap, s->now);
	else
		pol_gap_open(&cc->gap, s->now);
}

static void lavd_timer(struct sim *s)
{
	struct lavd *l = L(s);
	struct pol_sys_sample x;
	bool can_boost;
	s32 i, cpu;
	u64 nr_turbulent = 0, perf_sum = 0, perf_n = 0, perf_min = 0, perf_max = 0;

	/* ops.tick of every running task since the last round */
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct task *p = s->cpu[cpu].curr;

		if (p) {
			sim_update_curr(s, cpu);
			task_account(s, p, &l->cc[cpu], cpu);
		}
	}

	memset(&x, 0, sizeof(x));
	x.interval_ns = l->last_timer_ns ? pol_sub_sat(s->now, l->last_timer_ns) :
					   POL_SYS_STAT_INTERVAL_NS;
	l->last_timer_ns = s->now;
	x.nr_cpus = (u64)s->nr_cpus;
	x.nr_active = (u64)s->nr_cpus;
	can_boost = pol_can_boost_slice(&l->sys, &l->cfg);
	for (i = 0; i < l->nr_llcs; i++)
		x.nr_queued += (u64)l->llc_dsq[i].n;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct lavd_cpu *cc = &l->cc[cpu];

		x.nr_queued += (u64)s->cpu[cpu].local_n;
		if (lavd_update_turbulence(s, cpu, x.interval_ns))
			nr_turbulent++;
		/* pw_collect_cpu */
		l->pw.cur_use += pol_cc_cpu_use(cc->busy_ns, x.interval_ns, s->topo->cpu[cpu].cap);
		if (cc->nr_sched) {
			perf_sum += cc->sum_perf_cri;
			perf_n += cc->nr_sched;
			if (!perf_min || (cc->min_perf_cri && cc->min_perf_cri < perf_min))
				perf_min = cc->min_perf_cri;
			perf_max = pol_max(perf_max, cc->max_perf_cri);
		}
		cc->sum_perf_cri = cc->min_perf_cri = cc->max_perf_cri = 0;
		x.busy_ns += cc->busy_ns;
		x.nr_sched += cc->nr_sched;
		x.sum_lat_cri += cc->sum_lat_cri;
		x.sum_svc_wgt_ns += cc->sum_svc_wgt_ns;
		x.max_lat_cri = pol_max(x.max_lat_cri, cc->max_lat_cri);
		cc->busy_ns = 0;
		cc->nr_sched = 0;
		cc->sum_lat_cri = 0;
		cc->max_lat_cri = 0;
		cc->sum_svc_wgt_ns = 0;
		cc->max_wait_ns = pol_max(cc->max_wait_ns, cc->cur_max_wait_ns);
		l->pw.round_max_wait = pol_max(l->pw.round_max_wait, cc->cur_max_qwait_ns);
		cc->cur_max_wait_ns = 0;
		cc->cur_max_qwait_ns = 0;
		lavd_revoke_boost(s, cpu, l->llc_dsq[cpu_to_llc(s, cpu)].n > 0, can_boost);
	}
	pw_update(s, perf_sum, perf_n, perf_min, perf_max, x.nr_queued);
	x.nr_active = l->pw.nr_active + l->pw.nr_overflow;
	if (l->nr_llcs > 1 && !l->no_plan) {
		struct pol_domain cnt_doms[POL_MAX_DOMAINS];
		struct pol_bal_sum sum;

		/* lavd_collect_cpus: the weight each LLC runs now */
		for (i = 0; i < l->nr_llcs; i++)
			l->llc_doms[i].run_wgt = 0;
		for (cpu = 0; cpu < s->nr_cpus; cpu++)
			l->llc_doms[cpu_to_llc(s, cpu)].run_wgt += l->cc[cpu].running_wgt;
		pol_plan_balance(balance_doms(l, cnt_doms), (u32)l->nr_llcs, l->llc_plan, &sum, 0);
	}
	pol_sys_update(&l->sys, &x, &l->cfg);
	s->st.lavd_turbulent_rounds += nr_turbulent;
	s->st.lavd_timer_rounds++;
	if (s->st.nr_tl) {
		s->st.tl[s->st.nr_tl - 1].slice = l->sys.slice_ns;
		s->st.tl[s->st.nr_tl - 1].turbulent = nr_turbulent;
	}
}

static void lavd_init(struct sim *s)
{
	struct lavd *l = calloc(1, sizeof(*l));
	int cpu, i;

	if (!l)
		abort();
	s->priv = l;
	pol_cfg_default(&l->cfg);
	if (s->lavd_opts & SIM_LAVD_NO_PREEMPT)
		l->cfg.flags |= POL_CFG_NO_PREEMPTION;
	if (s->lavd_opts & SIM_LAVD_NO_LOCK_BOOST)
		l->cfg.flags |= POL_CFG_NO_FUTEX_BOOST;
	l->preempt_kick = !!(s->lavd_opts & SIM_LAVD_PREEMPT_KICK);
	l->pinned_slice_ns = POL_PINNED_SLICE_NS_DFL;
	l->no_turbulence = !!(s->lavd_opts & SIM_LAVD_NO_TURBULENCE);
	l->no_warmth = !!(s->lavd_opts & SIM_LAVD_NO_WARMTH);
	l->count_balance = !!(s->lavd_opts & SIM_LAVD_COUNT_BALANCE);
	l->no_plan = !!(s->lavd_opts & SIM_LAVD_NO_PLAN);
	l->warm_cpu_ns = s->lavd_warm_cpu_us * SIM_NSEC_PER_USEC;
	l->steady = s->topo->all;
	for (i = 0; i < s->wl->nr_tmpl; i++)
		if (s->wl->tmpl[i].rt)
			l->has_rt = true;
	pol_sys_init(&l->sys, &l->cfg, (u64)s->nr_cpus);
	l->logical_clk = POL_DL_COMPETE_WINDOW_NS;
	l->nr_llcs = s->topo->nr_llcs;
	for (i = 0; i < l->nr_llcs; i++)
		l->llc_dsq[i].id = i;
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		l->llc_doms[cpu_to_llc(s, cpu)].nr_cpus++;
	pw_init(s, &l->pw);
}

static void lavd_check(struct sim *s)
{
	struct lavd *l = L(s);
	int i;

	for (i = 0; i < l->nr_llcs; i++)
		if (l->llc_doms[i].nr_queued != (u64)l->llc_dsq[i].n)
			sim_fail(s, "LLC %d: load counts %llu queued, DSQ holds %d", i,
				 (unsigned long long)l->llc_doms[i].nr_queued, l->llc_dsq[i].n);
}

static void lavd_fini(struct sim *s)
{
	int i;

	for (i = 0; i < L(s)->nr_llcs; i++)
		dsq_free(&L(s)->llc_dsq[i]);
}

static const struct scx_ops lavd_ops = {
	.select_cpu = lavd_select_cpu,
	.enqueue = lavd_enqueue,
	.dispatch = lavd_dispatch,
	.runnable = lavd_runnable,
	.running = lavd_running,
	.stopping = lavd_stopping,
	.quiescent = lavd_quiescent,
};

static void cls_wake(struct sim *s, struct task *t, struct task *waker, int flags)
{
	scx_wake(s, &lavd_ops, t, waker, flags);
}

static void cls_block(struct sim *s, int cpu, struct task *t, int exiting)
{
	scx_block(s, &lavd_ops, cpu, t, exiting);
}

static struct task *cls_schedule(struct sim *s, int cpu, struct task *prev)
{
	return scx_schedule(s, &lavd_ops, cpu, prev);
}

static void cls_rt_preempt(struct sim *s, int cpu, struct task *prev)
{
	scx_rt_preempt(s, &lavd_ops, cpu, prev);
}

const struct sched_class sched_lavd = {
	.name = "lavd",
	.timer_period_ns = POL_SYS_STAT_INTERVAL_NS,
	.init = lavd_init,
	.task_new = lavd_task_new,
	.wake = cls_wake,
	.block = cls_block,
	.schedule = cls_schedule,
	.timer = lavd_timer,
	.check = lavd_check,
	.task_dead = lavd_task_dead,
	.futex = lavd_futex,
	.rt_preempt = cls_rt_preempt,
	.update_idle = lavd_update_idle,
	.fini = lavd_fini,
};
