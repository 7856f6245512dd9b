/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idle.bpf.c - finding an idle CPU for a waking task.
 *
 * Order of preference, each step restricted to the task's allowed CPUs:
 *   1. the previous CPU, if its whole core is idle (warm caches, no sibling
 *      contention);
 *   2. a fully idle core in the previous CPU's LLC;
 *   3. the previous CPU if idle (its SMT sibling may be busy);
 *   (with --warm-cpu-us: wait for the busy previous CPU if it is warm and
 *   the wait short, see warm_wait_ok)
 *   4. any idle CPU in the previous CPU's LLC;
 *   5. a fully idle core elsewhere, then any idle CPU elsewhere.
 * A CPU returned "idle" has been claimed (test-and-clear), so two wakers
 * cannot both pick it. A task more critical than average first looks for
 * an idle *steady* CPU in the LLC (pol_cpu.h): one that interrupts and RT
 * tasks do not keep disturbing.
 *
 * Every step looks only at usable CPUs (the active and overflow sets of
 * core compaction, power.bpf.c); a task with none opens one. On big/little
 * machines a performance-critical task first tries the big cores, others
 * the little ones.
 */

static __always_inline bool claim_cpu(s32 cpu)
{
	return scx_bpf_test_and_clear_cpu_idle(cpu);
}

/*
 * --warm-cpu-us: a task that is not critical, whose previous CPU is busy but
 * still warm with its data, may wait for it if the wait is expected to be
 * short (pol_warm_wait_ok) rather than start cold on an idle CPU.
 */
static __always_inline bool warm_wait_ok(struct task_ctx *tc, s32 prev_cpu)
{
	struct cpu_ctx *pc;
	u64 now, wait;
	s32 n;

	if (!warm_cpu_ns || tc->st.lat_cri >= READ_ONCE(sys.thr_lat_cri))
		return false;
	pc = get_cpu_ctx(prev_cpu);
	if (!pc)
		return false;
	now = lavd_now();
	n = scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | prev_cpu);
	wait = pol_sub_sat(READ_ONCE(pc->est_stop_ns), now) +
	       (n > 0 ? (u64)n : 0) * READ_ONCE(sys.slice_ns);
	return pol_warm_wait_ok(pol_warmth_now(&tc->warm, prev_cpu, now), wait, warm_cpu_ns);
}

/*
 * Returns the CPU to use; *is_idle tells whether it was claimed idle.
 * prev_cpu must be a CPU the task may run on.
 */
static s32 pick_idle_cpu(struct task_struct *p, struct task_ctx *tc, s32 prev_cpu, bool *is_idle)
{
	bool want_steady = pol_wants_steady(tc->st.lat_cri, READ_ONCE(sys.avg_lat_cri));
	struct bpf_cpumask *tmp, *llc, *steady;
	s32 cpu, this = bpf_get_smp_processor_id();
	const struct cpumask *allowed;

	*is_idle = false;
	tc->warm_wait = 0;
	/*
	 * A pinned task runs where it must, usable or not: its CPU is not
	 * opened for it, or the per-CPU kworkers that wake everywhere would
	 * keep every CPU in the overflow set.
	 */
	if (is_pinned(p) || p->migration_disabled) {
		*is_idle = claim_cpu(prev_cpu);
		return prev_cpu;
	}

	tmp = cpu_tmp_mask(this);
	allowed = pw_allowed(p, cpu_tmp2_mask(this), prev_cpu);
	if (!bpf_cpumask_test_cpu(prev_cpu, allowed)) {
		/* prev left the usable set: start from a usable CPU, in prev's LLC if possible */
		u32 alt = LAVD_MAX_CPUS;

		llc = llc_mask(cpu_to_llc(prev_cpu));
		if (tmp && llc) {
			bpf_cpumask_and(tmp, (const struct cpumask *)llc, allowed);
			alt = bpf_cpumask_any_distribute((const struct cpumask *)tmp);
		}
		if (alt >= nr_cpu_ids_cfg)
			alt = bpf_cpumask_any_distribute(allowed);
		if (alt < nr_cpu_ids_cfg)
			prev_cpu = alt;
	}
	/* Nothing idle: every search below would fail (the same outcome, cheaper). */
	if (!any_idle(allowed)) {
		if (warm_wait_ok(tc, prev_cpu))
			tc->warm_wait = 1;
		return prev_cpu;
	}
	cpu = pw_pick_by_type(tc, allowed, tmp, prev_cpu);
	if (cpu >= 0) {
		*is_idle = true;
		return cpu;
	}

	llc = llc_mask(cpu_to_llc(prev_cpu));
	steady = steady_mask();
	if (want_steady && tmp && llc && steady) {
		bpf_cpumask_and(tmp, (const struct cpumask *)llc, allowed);
		bpf_cpumask_and(tmp, (const struct cpumask *)tmp, (const struct cpumask *)steady);
		if (bpf_cpumask_test_cpu(prev_cpu, (const struct cpumask *)tmp) &&
		    claim_cpu(prev_cpu)) {
			*is_idle = true;
			return prev_cpu;
		}
		cpu = scx_bpf_pick_idle_cpu((const struct cpumask *)tmp, 0);
		if (cpu >= 0) {
			*is_idle = true;
			return cpu;
		}
	}

	if (smt_on && core_idle(prev_cpu) && claim_cpu(prev_cpu)) {
		*is_idle = true;
		return prev_cpu;
	}

	if (tmp && llc) {
		bpf_cpumask_and(tmp, (const struct cpumask *)llc, allowed);
		if (smt_on) {
			cpu = scx_bpf_pick_idle_cpu((const struct cpumask *)tmp, SCX_PICK_IDLE_CORE);
			if (cpu >= 0) {
				*is_idle = true;
				return cpu;
			}
		}
		if (claim_cpu(prev_cpu)) {
			*is_idle = true;
			return prev_cpu;
		}
		if (warm_wait_ok(tc, prev_cpu)) {
			tc->warm_wait = 1;
			return prev_cpu;
		}
		cpu = scx_bpf_pick_idle_cpu((const struct cpumask *)tmp, 0);
		if (cpu >= 0) {
			*is_idle = true;
			return cpu;
		}
	} else if (claim_cpu(prev_cpu)) {
		*is_idle = true;
		return prev_cpu;
	}

	if (smt_on) {
		cpu = scx_bpf_pick_idle_cpu(allowed, SCX_PICK_IDLE_CORE);
		if (cpu >= 0) {
			*is_idle = true;
			return cpu;
		}
	}
	cpu = scx_bpf_pick_idle_cpu(allowed, 0);
	if (cpu >= 0) {
		*is_idle = true;
		return cpu;
	}
	return prev_cpu;
}

/* A CPU the task may use: prev_cpu if allowed, else any allowed CPU. */
static __always_inline s32 allowed_cpu(struct task_struct *p, s32 prev_cpu)
{
	s32 cpu;

	/* A task that may run anywhere needs no look at its mask (a kfunc call per enqueue). */
	if (prev_cpu >= 0 &&
	    ((nr_cpu_ids_kern && p->nr_cpus_allowed >= nr_cpu_ids_kern &&
	      (u32)prev_cpu < nr_cpu_ids_kern) ||
	     bpf_cpumask_test_cpu(prev_cpu, p->cpus_ptr)))
		return prev_cpu;
	cpu = scx_bpf_pick_any_cpu(p->cpus_ptr, 0);
	return cpu >= 0 ? cpu : prev_cpu;
}

/* Kick an idle CPU of the LLC so it comes to consume the queue; false if none. */
static __always_inline bool kick_idle_in_llc(struct task_struct *p, s32 llc_id)
{
	struct bpf_cpumask *tmp = cpu_tmp_mask(bpf_get_smp_processor_id());
	struct bpf_cpumask *llc = llc_mask(llc_id);
	s32 cpu;

	/* Nothing idle (saturation, where enqueue is hot): no mask work at all. */
	if (!tmp || !llc || !any_idle(p->cpus_ptr))
		return false;
	bpf_cpumask_and(tmp, (const struct cpumask *)llc, p->cpus_ptr);
	if (READ_ONCE(compacting)) {
		struct bpf_cpumask *u = pw_mask(PW_MASK_USABLE);

		if (u)
			bpf_cpumask_and(tmp, (const struct cpumask *)tmp, (const struct cpumask *)u);
	}
	cpu = scx_bpf_pick_idle_cpu((const struct cpumask *)tmp, 0);
	if (cpu < 0)
		return false;
	scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
	return true;
}
