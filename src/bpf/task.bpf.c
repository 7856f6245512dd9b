/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task.bpf.c - the task life cycle: statistics at runnable, running,
 * stopping and quiescent; wake relationships; the deadline and slice of a
 * task. Included by lavd.bpf.c (one translation unit).
 */

/*
 * This CPU's preempt count (x86: the per-CPU __preempt_count, an int up to
 * 7.2, an unsigned long from 7.3; the interrupt counts are in its low 32
 * bits either way, and x86 is little endian, so the first 4 bytes are read).
 * Where its hardirq bits are is learnt from the ticks (pol_hardirq_mask).
 */
extern const int __preempt_count __ksym __weak;

#define LAVD_SOFTIRQ_OFFSET	0x00000100U	/* serving a softirq, both layouts */
#define LAVD_PC_TICKS_MIN	8		/* ticks seen before the mask is trusted */

u32 pc_tick_and = ~0U;	/* AND of the counts seen at ticks */
u32 pc_ticks;		/* ... how many, up to LAVD_PC_TICKS_MIN */

static __always_inline bool pc_readable(void)
{
	return bpf_ksym_exists(&__preempt_count);
}

static __always_inline u32 read_pc(void)
{
	const u32 *pc = bpf_this_cpu_ptr(&__preempt_count);

	return *pc;
}

/* At ops.tick: we run in the tick's interrupt. */
static __always_inline void pc_learn_at_tick(void)
{
	if (!pc_readable())
		return;
	__sync_fetch_and_and(&pc_tick_and, read_pc());
	if (READ_ONCE(pc_ticks) < LAVD_PC_TICKS_MIN)
		__sync_fetch_and_add(&pc_ticks, 1);
}

enum wake_src { WAKE_SRC_TASK, WAKE_SRC_SOFTIRQ, WAKE_SRC_HARDIRQ, WAKE_SRC_UNKNOWN };

static __always_inline int wake_src(void)
{
	u32 cnt, hardirq;

	if (!pc_readable() || READ_ONCE(pc_ticks) < LAVD_PC_TICKS_MIN)
		return WAKE_SRC_UNKNOWN;
	hardirq = pol_hardirq_mask(READ_ONCE(pc_tick_and));
	if (!hardirq)
		return WAKE_SRC_UNKNOWN;
	cnt = read_pc();
	if (cnt & hardirq)
		return WAKE_SRC_HARDIRQ;
	if (cnt & LAVD_SOFTIRQ_OFFSET)
		return WAKE_SRC_SOFTIRQ;
	return WAKE_SRC_TASK;
}

static __always_inline bool is_kthread(const struct task_struct *p)
{
	return p->flags & 0x00200000; /* PF_KTHREAD */
}

static __always_inline bool is_ksoftirqd(const struct task_struct *p)
{
	/* "ksoftirqd/N": the kernel gives no flag for it. */
	return is_kthread(p) && p->comm[0] == 'k' && p->comm[1] == 's' && p->comm[2] == 'o' &&
	       p->comm[3] == 'f' && p->comm[4] == 't' && p->comm[5] == 'i';
}

/* Context bits that describe the task itself (not the wakeup). */
static __always_inline u32 task_static_ctx(const struct task_struct *p)
{
	u32 c = 0;

	if (is_kthread(p))
		c |= POL_CTX_KTHREAD;
	if (is_ksoftirqd(p))
		c |= POL_CTX_KSOFTIRQD;
	if (p->flags & (0x00000020 | 0x00000010)) /* PF_WQ_WORKER | PF_IO_WORKER */
		c |= POL_CTX_WQ_WORKER;
	if (p->nr_cpus_allowed == 1 || p->migration_disabled)
		c |= POL_CTX_PINNED;
	else if (p->nr_cpus_allowed < nr_cpus_onln)
		c |= POL_CTX_AFFINITIZED;
	return c;
}

/*
 * Compute criticality, fairness penalty and the virtual deadline of a task
 * about to be queued. Consumes the one-shot context bits.
 */
static __always_inline void task_update_deadline(struct task_struct *p, struct task_ctx *tc)
{
	u64 weight = p->scx.weight;
	struct pol_greed g;
	u64 delta, window;
	u32 lc;

	lc = pol_lat_cri(&tc->st, weight, tc->ctx | task_static_ctx(p));
	tc->ctx &= ~(POL_CTX_HARDIRQ_WAKER | POL_CTX_SOFTIRQ_WAKER | POL_CTX_RT_WAKER |
		     POL_CTX_LOCK_BOOST);
	g = pol_greedy_penalty(&tc->st, READ_ONCE(sys.avg_svc_wgt_ns), weight);
	tc->greedy = g.greedy;
	delta = pol_weight_scale(pol_deadline_delta(tc->st.acc_runtime_ns, g.penalty, lc,
						    slice_max_ns), weight);
	delta = pol_deadline_cap(delta, READ_ONCE(sys.avg_lat_cri), is_kthread(p));
	window = pol_compete_window(READ_ONCE(sys.nr_active), READ_ONCE(sys.nr_queued));
	tc->vdeadline = pol_vdeadline(READ_ONCE(logical_clk), delta, window);
}

/* Advance the logical clock towards a deadline that starts running. */
static __always_inline void advance_logical_clk(u64 vdeadline)
{
	u64 clk, nclk;
	int i;

	for (i = 0; i < 3; i++) {
		clk = READ_ONCE(logical_clk);
		nclk = pol_clock_advance(clk, vdeadline, READ_ONCE(sys.nr_queued));
		if (nclk == clk || __sync_bool_compare_and_swap(&logical_clk, clk, nclk))
			return;
	}
}

/* Charge the run time since the last accounting to the task and this CPU. */
static __always_inline void task_account(struct task_struct *p, struct task_ctx *tc,
					 struct cpu_ctx *cc)
{
	u64 exec = p->se.sum_exec_runtime;
	u64 ran = pol_sub_sat(exec, tc->exec_at_account);
	u64 invr;

	tc->exec_at_account = exec;
	if (!ran)
		return;
	invr = pol_wall_to_invr(ran, cc ? READ_ONCE(cc->perf_cap) : 0,
				cc ? READ_ONCE(cc->perf_cur) : 0);
	pol_task_account(&tc->st, ran, invr, p->scx.weight);
	__sync_fetch_and_add(&logical_clk, pol_clock_service(ran, READ_ONCE(sys.nr_active),
							     READ_ONCE(sys.avg_lat_cri)));
	if (cc)
		cc->busy_ns += ran;
	cbw_charge(tc, ran);
}

/* Stop counting a task in its LLC's queued load (it runs or left the queue). */
static __always_inline void unaccount_queued(struct task_ctx *tc)
{
	struct pol_domain *d;

	if (tc->queued_affn) {
		tc->queued_affn = 0;
		__sync_fetch_and_sub(&nr_queued_affn, 1);
	}
	if (!tc->queued_wgt)
		return;
	d = llc_dom(tc->queued_llc);
	if (d) {
		__sync_fetch_and_sub(&d->queued_wgt, tc->queued_wgt);
		__sync_fetch_and_sub(&d->nr_queued, 1);
	}
	tc->queued_wgt = 0;
}

void BPF_STRUCT_OPS(lavd_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_struct *waker;
	struct task_ctx *tc, *wc;
	u64 now = lavd_now();
	int src;

	tc = get_task_ctx(p);
	if (!tc)
		return;
	pol_task_on_runnable(&tc->st);
	tc->wait_since_ns = now;

	if (!(enq_flags & SCX_ENQ_WAKEUP))
		return;
	/*
	 * The current task is the waker, unless the wakeup comes from an
	 * interrupt, which the preempt count tells. Without it (a kernel that
	 * does not export __preempt_count) interrupt wakeups are recognised by
	 * their usual signature, the idle task or ksoftirqd being current: that
	 * misses every timer or device wakeup that lands while a task runs, and
	 * under CPU hogs cyclictest's timer wakeups then looked like wakeups by
	 * the hog. (A wakeup queued to an idle or remote CPU, TTWU_QUEUE, is
	 * run from the IPI there and counts as an interrupt wakeup either way.)
	 */
	waker = bpf_get_current_task_btf();
	src = wake_src();
	if (src == WAKE_SRC_HARDIRQ || (src == WAKE_SRC_UNKNOWN && waker->pid == 0)) {
		struct cpu_ctx *cc = get_cpu_ctx(bpf_get_smp_processor_id());

		tc->ctx |= POL_CTX_HARDIRQ_WAKER;
		if (cc)
			cc->tot_irq_wake++;
		return;
	}
	if (src == WAKE_SRC_SOFTIRQ || is_ksoftirqd(waker)) {
		struct cpu_ctx *cc = get_cpu_ctx(bpf_get_smp_processor_id());

		tc->ctx |= POL_CTX_SOFTIRQ_WAKER;
		if (cc)
			cc->tot_softirq_wake++;
		return;
	}
	if (waker->prio < 100) /* MAX_RT_PRIO: RT and DL tasks */
		tc->ctx |= POL_CTX_RT_WAKER;
	/* Wake chains are learnt inside a family of tasks, as upstream does. */
	if (waker->real_parent != p->real_parent || is_kthread(waker) != is_kthread(p))
		return;
	wc = get_task_ctx(waker);
	if (!wc)
		return;
	pol_task_on_wake(&wc->st, &tc->st, now);
}

static __always_inline void record_max_wait(struct lavd_wait_rec *r, struct task_struct *p,
					    struct task_ctx *tc, u64 wait)
{
	r->wait_ns = wait;
	r->pid = p->pid;
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), p->comm);
	r->via = tc->enq_via;
	r->nr_enq = tc->nr_enq;
	r->ahead_ns = tc->enq_ahead_ns;
	r->behind_ns = (s64)(READ_ONCE(logical_clk) - tc->vdeadline);
	r->lat_cri = tc->st.lat_cri;
	r->weight = p->scx.weight;
	r->depth_enq = tc->enq_depth;
	r->depth_run = tc->enq_via == LAVD_VIA_LLC ?
		(u32)scx_bpf_dsq_nr_queued(LLC_DSQ(tc->queued_llc)) : 0;
	r->ran_ahead = tc->enq_via == LAVD_VIA_LLC ? READ_ONCE(nr_llc_runs) - tc->llc_runs_at_enq : 0;
}

void BPF_STRUCT_OPS(lavd_running, struct task_struct *p)
{
	s32 cpu = scx_bpf_task_cpu(p);
	struct cpu_ctx *cc = get_cpu_ctx(cpu);
	struct task_ctx *tc = get_task_ctx(p);
	struct pol_cfg cfg = lavd_cfg();
	struct pol_slice sl;
	u64 now = lavd_now(), wait, sys_slice;

	if (!tc || !cc)
		return;
	unaccount_queued(tc);

	wait = pol_sub_sat(now, tc->wait_since_ns);
	if (tc->wait_since_ns && wait > cc->cur_max_wait_ns)
		cc->cur_max_wait_ns = wait;
	/*
	 * Waits in a queue, for want of an idle usable CPU, are what
	 * compaction can cause; a direct dispatch that waited was slow to
	 * start for other reasons (in a VM, a vCPU the host did not run).
	 */
	if (tc->wait_since_ns && tc->enq_via == LAVD_VIA_LLC && wait > cc->cur_max_qwait_ns)
		cc->cur_max_qwait_ns = wait;
	if (tc->enq_via == LAVD_VIA_LLC)
		cc->tot_llc_runs++;
	/* Who waited longest: what a user needs to see before the watchdog does. */
	if (tc->wait_since_ns && wait > cc->max_wait.wait_ns)
		record_max_wait(&cc->max_wait, p, tc, wait);
	tc->wait_since_ns = 0;
	tc->nr_enq = 0;
	tc->enq_via = LAVD_VIA_NONE;	/* a run the kernel starts without our enqueue is not "llc" */

	pol_task_on_running(&tc->st, now);
	tc->exec_at_account = p->se.sum_exec_runtime;
	tc->exec_at_running = tc->exec_at_account;
	tc->ctx &= ~(POL_CTX_WAKEUP | POL_CTX_SYNC_WAKEUP);

	/*
	 * A task the kernel dispatched without us (bypass, or before we saw
	 * it) has a stale deadline: treat it as being at the clock.
	 */
	advance_logical_clk(tc->vdeadline);

	sl = pol_task_slice(&sys, &cfg, tc->st.avg_runtime_ns, tc->st.lat_cri);
	/*
	 * Tasks in this CPU's local queue (pinned ones, mostly) wait for this
	 * one; the kernel is asked only when the cap could change the slice.
	 */
	sys_slice = READ_ONCE(sys.slice_ns);
	if (pol_pinned_cap_may_bite(sl, sys_slice, pinned_slice_ns))
		sl = pol_pinned_cap(sl, sys_slice, pinned_slice_ns,
				    scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | cpu) > 0);
	/*
	 * Most tasks were queued with the slice they get here (the system
	 * slice): no setter kfunc then. In the VM each 1k instructions per
	 * context switch cost ~2 % of schbench's requests/s at saturation.
	 */
	if (p->scx.slice != sl.slice_ns)
		lavd_set_slice(p, sl.slice_ns);
	tc->slice_boosted = sl.boosted;

	cc->running_at_ns = now;
	pol_gap_close(&cc->gap, now);
	cc->running_slice_ns = sl.slice_ns;
	cc->running_lat_cri = tc->st.lat_cri;
	cc->running_boosted = sl.boosted;
	cc->running_wgt = p->scx.weight;
	cc->est_stop_ns = pol_est_stop(now, tc->st.avg_runtime_ns, sl.slice_ns);
	cc->run_gen++;
	cc->lock_refilled = 0;
	/* No lock is held yet: the futex probes mark one during the run (lock.bpf.c). */
	cc->run_flags = POL_RUN_ACTIVE |
			(tc->st.avg_runtime_ns >= sl.slice_ns ? POL_RUN_SLICE_BOUND : 0) |
			(cc->run_gen << POL_RUN_GEN_SHIFT);

	cc->nr_sched++;
	cc->tot_sched++;
	cc->sum_lat_cri += tc->st.lat_cri;
	if (tc->st.lat_cri > cc->max_lat_cri)
		cc->max_lat_cri = tc->st.lat_cri;
	if (tc->st.lat_cri >= READ_ONCE(sys.avg_lat_cri)) {
		cc->nr_lat_cri++;
		cc->tot_lat_cri++;
	}
	cc->sum_svc_wgt_ns += tc->st.svc_wgt_ns;
	pw_on_running(p, tc, cc, cpu);
	if (cc->turbulent && pol_wants_steady(tc->st.lat_cri, READ_ONCE(sys.avg_lat_cri)))
		cc->tot_turb_place++;
}

void BPF_STRUCT_OPS(lavd_tick, struct task_struct *p)
{
	s32 cpu = scx_bpf_task_cpu(p);
	struct task_ctx *tc = get_task_ctx(p);
	struct cpu_ctx *cc = get_cpu_ctx(cpu);
	u64 now = lavd_now();

	pc_learn_at_tick();
	if (cc) {
		if (cc->last_tick_ns)
			WRITE_ONCE(tick_state, pol_tick_learn(READ_ONCE(tick_state),
							      pol_sub_sat(now, cc->last_tick_ns)));
		WRITE_ONCE(cc->last_tick_ns, now);
	}
	if (tc) {
		task_account(p, tc, cc);
		cbw_tick(p, tc);
	}
}

/*
 * ops.stopping with runnable false: the task leaves the run queue while it
 * runs. It does that to sleep (or to die), with its state already set to
 * one of the sleeping states, or for a change of its properties (affinity,
 * policy, nice) made while it ran, in state TASK_RUNNING.
 *
 * This stands in for ops.quiescent, which the kernel calls right after
 * (a task only goes to sleep while it runs, so a sleep always passes here
 * first): one callback fewer per sleep, each one a trampoline with its
 * RCU and migration bookkeeping around it. A task that prepared to sleep
 * and had a property changed before it called schedule() counts that
 * sleep twice: one extra sample of the wait frequency's average
 * (pol_ewma, weight 1/8).
 */
static __always_inline bool going_to_sleep(const struct task_struct *p)
{
	return READ_ONCE(p->__state) != 0;	/* TASK_RUNNING */
}

void BPF_STRUCT_OPS(lavd_stopping, struct task_struct *p, bool runnable)
{
	s32 cpu = scx_bpf_task_cpu(p);
	struct task_ctx *tc = get_task_ctx(p);
	struct cpu_ctx *cc;
	u64 now;

	if (!tc)
		return;
	cc = get_cpu_ctx(cpu);

	now = lavd_now();
	task_account(p, tc, cc);
	pol_task_on_stopping(&tc->st);
	/* Only --warm-cpu-us reads the warmth (warm_wait_ok): a constant, so free without it. */
	if (warm_cpu_ns)
		pol_warmth_on_stop(&tc->warm, cpu,
				   pol_sub_sat(p->se.sum_exec_runtime, tc->exec_at_running), now);
	if (cc) {
		/*
		 * A lock holder's protection lasts for this run only (a missed
		 * release cannot leak); its next criticality gets a one-off
		 * boost instead.
		 */
		if (READ_ONCE(cc->run_flags) & POL_RUN_LOCK_HOLDER)
			tc->ctx |= POL_CTX_LOCK_BOOST;
		cc->running_boosted = 0;
		cc->running_wgt = 0;
		cc->run_flags = 0;
		pol_gap_open(&cc->gap, now);
	}
	/* Still runnable: it waits again from now (preempted or slice over). */
	if (runnable)
		tc->wait_since_ns = now;
	else if (going_to_sleep(p))
		pol_task_on_quiescent(&tc->st, now, true);
}

s32 BPF_STRUCT_OPS(lavd_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	struct task_ctx *tc, *parent = NULL;
	u64 now = lavd_now();

	tc = bpf_task_storage_get(&task_ctx_stor, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!tc)
		return -12; /* -ENOMEM: the kernel refuses the fork, better than an untracked task */
	/*
	 * A forked task starts with its creator's behaviour: the current task
	 * is the thread that called fork/clone (upstream uses real_parent,
	 * which for threads is the process's parent: observation O14).
	 */
	if (args && args->fork) {
		struct task_struct *cur = bpf_get_current_task_btf();

		if (cur != p)
			parent = get_task_ctx(cur);
	}
	pol_task_init(&tc->st, parent ? &parent->st : NULL, now, READ_ONCE(sys.slice_ns),
		      READ_ONCE(sys.avg_svc_wgt_ns));
	tc->vdeadline = READ_ONCE(logical_clk);
	tc->wait_since_ns = 0;
	tc->exec_at_account = p->se.sum_exec_runtime;
	tc->ctx = 0;
	tc->queued_wgt = 0;
	tc->queued_llc = -1;
	tc->idle_cpu = -1;
	tc->slice_boosted = 0;
	tc->greedy = 0;
	tc->futex_op = 0;
	tc->warm_wait = 0;
	tc->exec_at_running = tc->exec_at_account;
	tc->warm.heat = 0;
	tc->warm.last_stop_ns = now;
	tc->warm.cpu = -1;
	cbw_init_task(tc, args);
	__sync_fetch_and_add(&nr_tasks, 1);
	return 0;
}

void BPF_STRUCT_OPS(lavd_exit_task, struct task_struct *p, struct scx_exit_task_args *args)
{
	struct task_ctx *tc = get_task_ctx(p);

	if (tc)
		unaccount_queued(tc);
	__sync_fetch_and_sub(&nr_tasks, 1);
}

/*
 * Leaving us for another scheduling class (policy changed to RT, say),
 * perhaps while queued: its queued load stops counting now, not at its
 * exit or return.
 */
void BPF_STRUCT_OPS(lavd_disable, struct task_struct *p)
{
	struct task_ctx *tc = get_task_ctx(p);

	if (tc)
		unaccount_queued(tc);
}

void BPF_STRUCT_OPS(lavd_enable, struct task_struct *p)
{
	struct task_ctx *tc = get_task_ctx(p);

	/* Joining now: level with the tasks already here, no banked credit. */
	if (tc)
		tc->st.svc_wgt_ns = READ_ONCE(sys.avg_svc_wgt_ns);
}
