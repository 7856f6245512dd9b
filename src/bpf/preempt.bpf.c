/* SPDX-License-Identifier: GPL-2.0 */
/*
 * preempt.bpf.c - making room for a waking critical task.
 *
 * Called after a task was queued without an idle CPU. Candidates are the
 * task's previous CPU and the next CPUs of its LLC, POL_PREEMPT_CANDS in
 * all; the victim is chosen by the policy
 * (src/policy/pol_preempt.h). The victim's running task gets a 1 ns slice,
 * so it yields at its next scheduling point (tick or syscall) without an
 * IPI, when that tick is near (pol_preempt_needs_ipi); otherwise, or always
 * with --preempt-kick, the victim gets SCX_KICK_PREEMPT.
 */

static __always_inline bool read_run(s32 cpu, struct pol_cpu_run *r)
{
	struct cpu_ctx *cc = get_cpu_ctx(cpu);

	if (!cc || !cpu_is_known(cpu))
		return false;
	r->lat_cri = READ_ONCE(cc->running_lat_cri);
	r->flags = READ_ONCE(cc->run_flags);
	r->est_stop_ns = pol_real_stop(READ_ONCE(cc->est_stop_ns), r->flags & POL_RUN_SLICE_BOUND,
				       READ_ONCE(cc->last_tick_ns),
				       pol_tick_period(READ_ONCE(tick_state)));
	return true;
}

/*
 * Lower the slice of whatever runs on cpu to slice_ns (never raise it): it
 * yields at its next tick. Slices are at least 1 ns: the kernel treats a
 * zero slice given to it as "refill to the default".
 */
static __always_inline void cut_running_slice(s32 cpu, u64 slice_ns)
{
	struct task_struct *curr;

	bpf_rcu_read_lock();
	curr = scx_bpf_cpu_curr(cpu);
	if (curr && curr->scx.slice > slice_ns)
		lavd_set_slice(curr, slice_ns);
	bpf_rcu_read_unlock();
}

/*
 * --pinned-slice-us: a pinned task was queued behind whatever runs on its
 * CPU: that task keeps at most min(pinned slice, system slice) from its
 * start (pol_pinned_cap), and goes now if it has had that already. Never a
 * lock holder, as for preemption.
 */
static void pinned_cut(s32 cpu)
{
	struct cpu_ctx *cc = get_cpu_ctx(cpu);
	u64 cap, left;

	if (!pinned_slice_ns || !cc ||
	    (READ_ONCE(cc->run_flags) & (POL_RUN_ACTIVE | POL_RUN_LOCK_HOLDER)) != POL_RUN_ACTIVE)
		return;
	cap = pol_pinned_slice(READ_ONCE(sys.slice_ns), pinned_slice_ns);
	if (READ_ONCE(cc->running_slice_ns) <= cap)
		return;
	left = pol_slice_revoke(pol_sub_sat(lavd_now(), READ_ONCE(cc->running_at_ns)), cap);
	if (!left) {
		scx_bpf_kick_cpu(cpu, SCX_KICK_PREEMPT);
		return;
	}
	cut_running_slice(cpu, left);
	WRITE_ONCE(cc->running_slice_ns, cap);
}

static void try_preempt(struct task_struct *p, struct task_ctx *tc, s32 prev_cpu)
{
	struct pol_cfg cfg = lavd_cfg();
	struct pol_cpu_run best_run = {}, r;
	struct bpf_cpumask *tmp, *llc;
	struct cpu_ctx *vc, *cc;
	u64 now, new_stop;
	s32 best = -1, cand;
	u32 seen = 0, bar;
	bool claimed = false;
	int i;

	if (!pol_should_preempt(tc->st.lat_cri, READ_ONCE(sys.thr_lat_cri), tc->greedy, &cfg))
		return;
	now = lavd_now();
	new_stop = pol_est_stop(now, tc->st.avg_runtime_ns, READ_ONCE(sys.slice_ns));
	bar = pol_preempt_bar(tc->st.lat_cri, READ_ONCE(sys.thr_lat_cri));

	tmp = cpu_tmp_mask(bpf_get_smp_processor_id());
	llc = llc_mask(cpu_to_llc(prev_cpu));
	if (!tmp || !llc)
		return;
	bpf_cpumask_and(tmp, (const struct cpumask *)llc, p->cpus_ptr);

	bpf_for(i, 0, LAVD_MAX_CPUS) {
		if (i >= nr_cpu_ids_cfg || seen >= POL_PREEMPT_CANDS)
			break;
		cand = prev_cpu + i;
		if (cand >= nr_cpu_ids_cfg)
			cand -= nr_cpu_ids_cfg;
		if (!bpf_cpumask_test_cpu(cand, (const struct cpumask *)tmp))
			continue;
		seen++;
		if (!read_run(cand, &r))
			continue;
		if (!pol_can_preempt(&r, bar, new_stop, now, slice_min_ns))
			continue;
		if (best < 0 || pol_victim_better(&r, &best_run)) {
			best = cand;
			best_run = r;
		}
	}
	if (best < 0)
		return;
	vc = get_cpu_ctx(best);
	if (!vc)
		return;
	/*
	 * Claim it: one waker per victim. The flags carry a run generation, so
	 * the claim fails when the CPU's task changed since it was read; the
	 * new task is then judged afresh (under load it is usually another
	 * hog, as good a victim) rather than the preemption dropped.
	 */
	bpf_for(i, 0, POL_PREEMPT_CLAIM_TRIES) {
		claimed = __sync_bool_compare_and_swap(&vc->run_flags, best_run.flags,
						       best_run.flags | POL_RUN_CLAIMED);
		if (claimed)
			break;
		if (!read_run(best, &best_run) ||
		    !pol_can_preempt(&best_run, bar, new_stop, now, slice_min_ns))
			return;
	}
	if (!claimed)
		return;
	cc = get_cpu_ctx(bpf_get_smp_processor_id());
	if (preempt_kick ||
	    pol_preempt_needs_ipi(pol_tick_wait(now, READ_ONCE(vc->last_tick_ns),
						pol_tick_period(READ_ONCE(tick_state))),
				  POL_PREEMPT_TICK_WAIT_NS)) {
		scx_bpf_kick_cpu(best, SCX_KICK_PREEMPT);
		if (cc)
			cc->tot_preempt_ipi++;
	} else {
		cut_running_slice(best, 1);
	}
	if (cc)
		cc->tot_preempt++;
}
