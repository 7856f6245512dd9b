/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dsq.bpf.c - queueing: select_cpu, enqueue and dispatch.
 *
 * Waking tasks go straight to an idle CPU when there is one. Otherwise a
 * task waits in its LLC's dispatch queue, ordered by virtual deadline. A CPU
 * that runs dry consumes its own LLC's queue first, then pulls from the LLC
 * with the most queued weight per CPU.
 */

/*
 * A sync wakeup: the waker says it is about to sleep, as a pipe writer that
 * then reads does. The wakee then goes behind it on the waker's CPU, where
 * it starts as soon as the waker blocks: no IPI, no idle CPU woken, caches
 * shared. Otherwise perf bench sched pipe's two ends woke each other across
 * CPUs, each wakeup paying an idle exit: 0.70 of EEVDF's throughput in the
 * VM. The hint is only trusted from a task of ours that usually runs less
 * than the minimum slice (a long-running waker would make the wakee wait for
 * it), and only when nothing else waits on that CPU.
 */
static __always_inline bool sync_to_waker(struct task_struct *p, s32 this)
{
	struct task_struct *waker = bpf_get_current_task_btf();
	struct cpu_ctx *cc = get_cpu_ctx(this);
	struct task_ctx *wc;

	if (!cc || is_pinned(p) || p->migration_disabled || !waker->pid || is_kthread(waker) ||
	    (waker->flags & 0x00000004 /* PF_EXITING */))
		return false;
	if (!(READ_ONCE(cc->run_flags) & POL_RUN_ACTIVE) ||
	    !bpf_cpumask_test_cpu(this, p->cpus_ptr))
		return false;
	if (!cpu_usable(cc))
		return false;
	wc = get_task_ctx(waker);
	if (!wc || wc->st.avg_runtime_ns >= slice_min_ns)
		return false;
	return scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | this) == 0;
}

s32 BPF_STRUCT_OPS(lavd_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct task_ctx *tc = get_task_ctx(p);
	bool is_idle = false, sync = false;
	struct cpu_ctx *cc;
	s32 cpu = prev_cpu;

	if (!tc)
		return prev_cpu;
	/* Throttled (cpu.max): no idle CPU for it, enqueue sets it aside. */
	if (cbw_throttled(p, tc))
		return prev_cpu;
	tc->ctx |= POL_CTX_WAKEUP;
	if ((wake_flags & SCX_WAKE_SYNC) && !(pol_flags & POL_CFG_NO_WAKE_SYNC)) {
		tc->ctx |= POL_CTX_SYNC_WAKEUP;
		cpu = bpf_get_smp_processor_id();
		sync = sync_to_waker(p, cpu);
	}
	if (!sync)
		cpu = pick_idle_cpu(p, tc, allowed_cpu(p, prev_cpu), &is_idle);
	if (sync || is_idle) {
		/* Direct dispatch; the slice is set for real at ops.running. */
		task_update_deadline(p, tc);
		note_enq(tc, LAVD_VIA_DIRECT);
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, READ_ONCE(sys.slice_ns), 0);
		cc = get_cpu_ctx(cpu);
		if (cc && sync)
			cc->tot_sync_local++;
		else if (cc)
			cc->tot_direct++;
	}
	return cpu;
}

void BPF_STRUCT_OPS(lavd_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tc = get_task_ctx(p);
	u64 slice = READ_ONCE(sys.slice_ns);
	struct pol_domain *d;
	bool is_idle = false;
	u32 depth = 0;
	s32 cpu, llc;

	if (!tc) {
		/* No context (allocation failed): keep it running fairly, FIFO. */
		scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, slice, enq_flags);
		return;
	}
	/*
	 * Back in the queue without having run: its properties changed
	 * (affinity, nice, policy) while it waited. Its old place stops
	 * counting here rather than in ops.dequeue, which 7.x calls at every
	 * dispatch from our queues: one callback fewer per context switch.
	 */
	unaccount_queued(tc);
	if (enq_flags & SCX_ENQ_WAKEUP)
		tc->ctx |= POL_CTX_WAKEUP;
	task_update_deadline(p, tc);
	if (cbw_enqueue(p, tc, enq_flags))
		return;

	cpu = allowed_cpu(p, scx_bpf_task_cpu(p));
	/*
	 * select_cpu did not run (e.g. a task preempted or whose slice ended,
	 * or a wakeup that skipped it): look for an idle CPU now.
	 */
	if (!(enq_flags & SCX_ENQ_CPU_SELECTED))
		cpu = pick_idle_cpu(p, tc, cpu, &is_idle);

	/* Waiting for its warm CPU (select_cpu decided): that CPU's local queue. */
	if (tc->warm_wait && (enq_flags & SCX_ENQ_CPU_SELECTED) && !is_idle) {
		struct cpu_ctx *cc = get_cpu_ctx(bpf_get_smp_processor_id());

		tc->warm_wait = 0;
		note_enq(tc, LAVD_VIA_WARM);
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, slice, enq_flags);
		if (cc)
			cc->tot_warm_wait++;
		return;
	}
	tc->warm_wait = 0;

	/*
	 * A task that can only run on one CPU would block the LLC queue, for
	 * nobody else can take it: that CPU's local queue. So does a task for
	 * an idle CPU found just now.
	 */
	if (is_pinned(p) || is_idle) {
		note_enq(tc, is_idle ? LAVD_VIA_IDLE : LAVD_VIA_PINNED);
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, slice, enq_flags);
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		/* A pinned task behind a busy CPU can only be helped there. */
		if (!is_idle) {
			pinned_cut(cpu);
			try_preempt(p, tc, cpu);
		}
		return;
	}

	llc = cpu_to_llc(cpu);
	tc->queued_llc = llc;
	tc->queued_wgt = pol_max(p->scx.weight, 1);
	d = llc_dom(llc);
	/*
	 * The depth it joins, for the longest-wait record, from our own count
	 * of the queue: asking the kernel (scx_bpf_dsq_nr_queued) costs a
	 * hash lookup of the queue at every enqueue.
	 */
	if (d) {
		__sync_fetch_and_add(&d->queued_wgt, tc->queued_wgt);
		depth = (u32)__sync_fetch_and_add(&d->nr_queued, 1);
	}
	/* Only some CPUs can take it: compaction must not drop them all (power.bpf.c). */
	if (p->nr_cpus_allowed < nr_cpus_onln) {
		tc->queued_affn = 1;
		__sync_fetch_and_add(&nr_queued_affn, 1);
	}
	note_enq(tc, LAVD_VIA_LLC);
	tc->enq_depth = depth;
	tc->llc_runs_at_enq = READ_ONCE(nr_llc_runs);
	scx_bpf_dsq_insert_vtime(p, LLC_DSQ(llc), slice, tc->vdeadline, enq_flags);
	if (!kick_idle_in_llc(p, llc))
		try_preempt(p, tc, cpu);
}

/*
 * Turbulence: going idle ends a gap (time neither idle nor ours), leaving
 * idle starts one, closed by ops.running if it is ours that runs
 * (built-in idle tracking is kept: KEEP_BUILTIN_IDLE).
 */
void BPF_STRUCT_OPS(lavd_update_idle, s32 cpu, bool idle)
{
	struct cpu_ctx *cc = get_cpu_ctx(cpu);
	u64 now = lavd_now();

	if (!cc)
		return;
	if (idle)
		pol_gap_close(&cc->gap, now);
	else
		pol_gap_open(&cc->gap, now);
}

/*
 * Nothing else to run: the kernel keeps prev, but would refill an expired
 * slice with its 20 ms default; give it our slice so a task queued a moment
 * later waits at most that long. Not if its cgroup is throttled (cpu.max):
 * then it goes back through enqueue (SCX_OPS_ENQ_LAST) and is set aside.
 */
static __always_inline void keep_prev(struct task_struct *prev)
{
	if (prev && (prev->scx.flags & SCX_TASK_QUEUED) && !prev->scx.slice &&
	    !cbw_task_throttled(prev))
		lavd_set_slice(prev, READ_ONCE(sys.slice_ns));
}

/*
 * A CPU of a stealer LLC pulls from the most loaded stealee before its own
 * queue, while the plan's budgets last (pol_plan_balance): the only way
 * weight moves between LLCs whose queues never run dry.
 */
static __always_inline bool planned_steal(s32 self, struct cpu_ctx *cc)
{
	s32 victim = pol_pick_planned(llc_doms, llc_plan, nr_llcs, self);
	u64 wgt;

	if (victim < 0 || victim >= LAVD_MAX_LLCS)
		return false;
	wgt = pol_domain_avg_wgt(&llc_doms[victim]);
	if (!lavd_move_to_local(LLC_DSQ(victim)))
		return false;
	pol_plan_charge(&llc_plan[LLC_IDX(self)], &llc_plan[victim], wgt);
	if (cc) {
		cc->tot_xllc_steal++;
		cc->tot_plan_steal++;
	}
	return true;
}

/*
 * Take a task of this CPU's run queue from near the head of dsq_id, if
 * there is one (pol_balance.h); false if not, and the caller takes the
 * head. Nothing is carried from one iteration to the next but the head's
 * deadline, the span and a step count the loop bounds itself.
 */
static __always_inline bool move_near_local(s32 cpu, struct cpu_ctx *cc, u64 dsq_id)
{
	u64 head_dl = 0, span = 0;
	struct task_struct *p;
	u32 n = 0;

	bpf_for_each(scx_dsq, p, dsq_id, 0) {
		if (!n) {
			head_dl = p->scx.dsq_vtime;
			span = pol_local_span(READ_ONCE(sys.avg_lat_cri));
		} else if (!pol_local_pick_ok(head_dl, p->scx.dsq_vtime, span)) {
			break;
		}
		if (scx_bpf_task_cpu(p) == cpu) {
			if (!scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_LOCAL, 0))
				return false;
			if (n && cc)
				cc->tot_local_pick++;
			return true;
		}
		if (++n >= POL_LOCAL_SCAN)
			break;
	}
	return false;
}

void BPF_STRUCT_OPS(lavd_dispatch, s32 cpu, struct task_struct *prev)
{
	s32 self = cpu_to_llc(cpu), victim;
	struct cpu_ctx *cc = get_cpu_ctx(cpu);
	u64 tried = 0;
	int i;

	if (keep_lock_holder(prev, cc))
		return;
	/*
	 * Outside the usable set (core compaction): leave the queues to the
	 * usable CPUs, every queued task has one (power.bpf.c), and go idle
	 * once the current task is done. The local queue (pinned tasks) the
	 * kernel serves without us.
	 */
	if (cc && !cpu_usable(cc)) {
		keep_prev(prev);
		return;
	}
	if (nr_llcs > 1 && planned_steal(self, cc))
		return;
	/*
	 * A CPU whose task was cut short for a waiting task (try_preempt
	 * claimed it) takes the head: that is the task it made room for, and
	 * the task it just put back is usually its own and near the head.
	 */
	if (!(cc && (READ_ONCE(cc->run_flags) & POL_RUN_CLAIMED)) &&
	    move_near_local(cpu, cc, LLC_DSQ(self)))
		return;
	if (lavd_move_to_local(LLC_DSQ(self)))
		return;
	if (nr_llcs <= 1) {
		keep_prev(prev);
		return;
	}
	/*
	 * Pull from other LLCs, most loaded first. Every domain is tried
	 * before giving up: an idle CPU must never leave work queued.
	 */
	bpf_for(i, 0, LAVD_MAX_LLCS) {
		if (i >= nr_llcs)
			break;
		victim = pol_pick_stealee(llc_doms, nr_llcs, self, tried);
		if (victim < 0 || victim >= LAVD_MAX_LLCS)
			break;
		if (lavd_move_to_local(LLC_DSQ(victim))) {
			if (cc)
				cc->tot_xllc_steal++;
			return;
		}
		tried |= 1ULL << victim;
	}
	/*
	 * Work conservation does not trust our load counters: ask the kernel
	 * for queued tasks anywhere (a domain may hold tasks only some CPUs
	 * can run, or the counters may lag).
	 */
	bpf_for(i, 0, LAVD_MAX_LLCS) {
		if (i >= nr_llcs)
			break;
		if (i == self || scx_bpf_dsq_nr_queued(LLC_DSQ(i)) <= 0)
			continue;
		if (lavd_move_to_local(LLC_DSQ(i))) {
			if (cc)
				cc->tot_xllc_steal++;
			return;
		}
	}
	keep_prev(prev);
}
