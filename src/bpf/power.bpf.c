/* SPDX-License-Identifier: GPL-2.0 */
/*
 * power.bpf.c - core compaction, power modes, performance criticality and
 * cpufreq targets (the decisions are in src/policy/pol_power.h).
 *
 * The statistics timer sums the capacity in use, picks a power mode, and
 * walks the loader's CPU order (a PCO table row) to choose the active set.
 * Wake-ups only take idle CPUs in the active and overflow sets ("usable"),
 * queues are consumed only by usable CPUs, and a task none of whose CPUs is
 * usable opens the first of them (overflow), so every queued task always
 * has a usable CPU that may run it. That invariant is what lets an
 * inactive CPU go idle with work queued; two rules keep it through changes
 * of the set:
 *   - at enqueue, pick_idle_cpu() maps the task onto a usable CPU or opens
 *     one for it (pw_open_for);
 *   - the timer does not shrink the set while any task with a restricted
 *     cpumask waits in an LLC queue (nr_queued_affn): such a task may be
 *     runnable only on CPUs about to leave. Tasks that may run anywhere can
 *     always be run by the CPUs that stay.
 * A task already running on a CPU that leaves the set finishes its run
 * there (the CPU keeps it while nothing else needs it, as any CPU does);
 * its next wake-up goes to a usable CPU.
 *
 * Differences from upstream: overflow CPUs leave after a fixed linger
 * instead of a random one (O9); idle usable CPUs are not kicked every round
 * (O18), only newly usable ones that have queued work to take; the
 * autopilot has hysteresis (pol_autopilot); --no-core-compaction is not
 * undone by the initial power mode (O4); the walk stops at the number of
 * online CPUs rather than running into zero-filled table entries (O7).
 */

/* Loader-filled, read-only. */
const volatile u16 cap_of_cpu[LAVD_MAX_CPUS];	/* capacity 1..1024 by CPU id */
const volatile u8 big_cpu[LAVD_MAX_CPUS];	/* big core (all CPUs when not big/little) */
const volatile u8 big_little;			/* capacities differ by 1.3x or more */
const volatile u8 pm_fixed = POL_PM_NR;		/* a fixed power mode, or POL_PM_NR: autopilot */
const volatile u8 no_core_compaction;		/* use every CPU whatever the mode */
const volatile u8 no_freq_scaling;		/* always ask for the maximum frequency */
const volatile u32 pco_nr_states = 1;
const volatile u64 pm_low_cap;			/* autopilot bounds (pol_pm_bounds) */
const volatile u64 pm_high_cap;

/*
 * Also filled by the loader before load, but writable globals: the policy
 * reads them through pointers, and a pointer into a const volatile array
 * loses the volatile, letting the compiler fold reads to the zero
 * initialiser.
 */
struct pol_order_caps pco_caps[POL_PCO_MAX];	/* capacities along each table row */
u16 pco_cpus[POL_PCO_MAX][LAVD_MAX_CPUS];	/* CPU ids along each table row */
u64 pco_bounds[POL_PCO_MAX];			/* capacity each row can carry */

/* --autopower: the system's power profile, written by the loader (POL_PM_NR: none). */
u32 pm_request = POL_PM_NR;

/* State. */
u32 pm_mode = POL_PM_NR;	/* in force; POL_PM_NR before the first round */
u32 pm_state;			/* table row compacted along */
u32 pm_nr_active;		/* 0 before the first round */
u32 pm_nr_overflow;
u64 pm_use_cap;			/* asymmetric EWMA of the capacity in use */
u64 pm_req_cap;
u64 pm_mode_ns[POL_PM_NR];
u64 pm_nr_switch;
bool compacting;		/* some online CPU is outside the usable set */
u64 nr_queued_affn;		/* tasks with a restricted cpumask in LLC queues */
/* performance criticality: averages of the per-interval min, avg and max */
u64 perf_cri_min, perf_cri_avg, perf_cri_max, thr_perf_cri;
struct pol_cc_guard cc_guard;	/* the latency guard (pol_cc_guard_update) */

/* This round's sums, from lavd_collect_cpus. */
static u64 cur_use_cap;
static u64 cur_perf_sum, cur_perf_n, cur_perf_min, cur_perf_max;

enum { PW_MASK_USABLE, PW_MASK_BIG, PW_MASK_LITTLE, PW_NR_MASKS };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PW_NR_MASKS);
	__type(key, u32);
	__type(value, struct llc_mask_val);
} pw_masks SEC(".maps");

static __always_inline struct bpf_cpumask *pw_mask(u32 which)
{
	struct llc_mask_val *v = bpf_map_lookup_elem(&pw_masks, &which);

	return v ? v->mask : NULL;
}

static __always_inline u32 cpu_cap(s32 cpu)
{
	u32 c;

	if ((u32)cpu >= LAVD_MAX_CPUS)
		return POL_SCALE;
	c = cap_of_cpu[CPU_IDX(cpu)];
	return c ? c : POL_SCALE;
}

static __always_inline bool cpu_usable(struct cpu_ctx *cc)
{
	return !READ_ONCE(compacting) || READ_ONCE(cc->active) || READ_ONCE(cc->overflow);
}

/*
 * None of a task's CPUs is usable: open cpu (one it may run on) as an
 * overflow CPU. Only from struct_ops callbacks, which run in an RCU read
 * section: an explicit bpf_rcu_read_unlock() here would end it for the
 * verifier and turn the caller's cpumask pointers untrusted.
 */
static __always_inline void pw_open_for(s32 cpu)
{
	struct cpu_ctx *cc = get_cpu_ctx(cpu);
	struct bpf_cpumask *u;

	if (!cc || READ_ONCE(cc->active) || READ_ONCE(cc->overflow))
		return;
	WRITE_ONCE(cc->ovf_rounds, 0);
	WRITE_ONCE(cc->overflow, 1);
	u = pw_mask(PW_MASK_USABLE);
	if (u)
		bpf_cpumask_set_cpu(cpu, u);
}

/*
 * The usable CPUs a task may run on, in the caller's scratch mask dst.
 * Returns the mask to search (dst, or the task's own cpumask when nothing
 * is compacted away), after opening prev_cpu when none was usable.
 */
static __always_inline const struct cpumask *pw_allowed(struct task_struct *p,
							struct bpf_cpumask *dst, s32 prev_cpu)
{
	struct bpf_cpumask *u;

	if (!READ_ONCE(compacting) || !dst)
		return p->cpus_ptr;
	u = pw_mask(PW_MASK_USABLE);
	if (!u)
		return p->cpus_ptr;
	bpf_cpumask_and(dst, p->cpus_ptr, (const struct cpumask *)u);
	if (!bpf_cpumask_empty((const struct cpumask *)dst))
		return (const struct cpumask *)dst;
	pw_open_for(prev_cpu);
	return p->cpus_ptr;
}

/* At ops.running: perf criticality, big-core counts, the cpufreq target. */
static __always_inline void pw_on_running(struct task_struct *p, struct task_ctx *tc,
					  struct cpu_ctx *cc, s32 cpu)
{
	u32 pc, target;

	/* Perf criticality only feeds big/little placement: skip it on every other machine. */
	if (big_little) {
		pc = pol_perf_cri(&tc->st, p->scx.weight);
		tc->perf_cri = pc;
		cc->sum_perf_cri += pc;
		if (!cc->min_perf_cri || pc < cc->min_perf_cri)
			cc->min_perf_cri = pc;
		if (pc > cc->max_perf_cri)
			cc->max_perf_cri = pc;
		if ((u32)cpu < LAVD_MAX_CPUS && big_cpu[CPU_IDX(cpu)])
			cc->tot_sched_big++;
		if (pc > READ_ONCE(thr_perf_cri))
			cc->tot_sched_perf_cri++;
	}

	target = no_freq_scaling ? POL_SCALE : pol_cpuperf_target(cc->util_avg, cc->util_cur);
	if (target != cc->cpuperf_cur && bpf_ksym_exists(scx_bpf_cpuperf_set)) {
		scx_bpf_cpuperf_set(cpu, target);
		cc->cpuperf_cur = target;
		cc->tot_cpuperf_set++;
	}
}

/*
 * Big/little: a performance-critical task looks for an idle big core first,
 * others for an idle little one, among allowed (already usable) CPUs. Only
 * whole idle cores: a big SMT thread beside a busy sibling is no faster
 * than a little core (in the simulator, taking such threads for every
 * performance-critical task cost 60 % more energy and 15 % higher request
 * latency on the hybrid topology); the general search that follows takes
 * any idle CPU. Tasks near the threshold have no preference
 * (pol_perf_type). When the previous CPU is of the wanted type the general
 * search (which starts from it) decides: moving between cores of the right
 * type only loses the cache. Returns a claimed idle CPU or -1.
 */
static __always_inline s32 pw_pick_by_type(struct task_ctx *tc, const struct cpumask *allowed,
					   struct bpf_cpumask *tmp, s32 prev_cpu)
{
	struct bpf_cpumask *type;

	bool want_big;
	int want;

	if (!big_little || !tmp || (u32)prev_cpu >= LAVD_MAX_CPUS)
		return -1;
	want = pol_perf_type(tc->perf_cri, READ_ONCE(thr_perf_cri));
	want_big = want > 0;
	if (!want || !!big_cpu[CPU_IDX(prev_cpu)] == want_big)
		return -1;
	type = pw_mask(want_big ? PW_MASK_BIG : PW_MASK_LITTLE);
	if (!type)
		return -1;
	bpf_cpumask_and(tmp, allowed, (const struct cpumask *)type);
	return scx_bpf_pick_idle_cpu((const struct cpumask *)tmp, smt_on ? SCX_PICK_IDLE_CORE : 0);
}

/* Timer, per CPU: utilisation, capacity in use, perf-criticality sums. */
static __always_inline void pw_collect_cpu(struct cpu_ctx *cc, s32 cpu, u64 interval_ns)
{
	u64 util = pol_share(cc->busy_ns, interval_ns);

	cc->util_cur = util;
	WRITE_ONCE(cc->perf_cap, scx_bpf_cpuperf_cap(cpu));
	WRITE_ONCE(cc->perf_cur, scx_bpf_cpuperf_cur(cpu));
	cc->util_avg = pol_ewma_asym(cc->util_avg, util);
	cur_use_cap += pol_cc_cpu_use(cc->busy_ns, interval_ns, cpu_cap(cpu));
	if (cc->nr_sched) {
		cur_perf_sum += cc->sum_perf_cri;
		cur_perf_n += cc->nr_sched;
		if (!cur_perf_min || (cc->min_perf_cri && cc->min_perf_cri < cur_perf_min))
			cur_perf_min = cc->min_perf_cri;
		cur_perf_max = pol_max(cur_perf_max, cc->max_perf_cri);
	}
	cc->sum_perf_cri = 0;
	cc->min_perf_cri = 0;
	cc->max_perf_cri = 0;
}

static __always_inline bool cpu_has_own_work(s32 cpu)
{
	return scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | cpu) > 0 || !cpu_runs_idle_task(cpu);
}

/* The power mode for this round. */
static __always_inline u32 pw_pick_mode(void)
{
	struct pol_pm_bounds b = { .low = pm_low_cap, .high = pm_high_cap };
	u32 req = READ_ONCE(pm_request);

	if (pm_fixed < POL_PM_NR)
		return pm_fixed;
	if (req < POL_PM_NR)
		return req;
	return pol_autopilot(pm_use_cap, b, pm_mode);
}

/* lavd_apply_sets' sums. */
static u64 ap_cap_all, ap_cap_big;
static u32 ap_nr_ovf;
static u32 ap_llc_usable[LAVD_MAX_LLCS];	/* usable CPUs per LLC */

/* One CPU into or out of the active set; an overflow CPU lingers while it has work. */
static __always_inline void pw_set_cpu(s32 cpu, bool active)
{
	struct cpu_ctx *cc = get_cpu_ctx(cpu);
	struct bpf_cpumask *u;
	bool use, was;

	if (!cc || !cpu_is_known(cpu))
		return;
	was = cc->active || cc->overflow;
	if (active) {
		cc->active = 1;
		cc->overflow = 0;
	} else {
		cc->active = 0;
		if (cc->overflow && !pol_overflow_keep(cpu_has_own_work(cpu), &cc->ovf_rounds))
			cc->overflow = 0;
		ap_nr_ovf += cc->overflow;
	}
	use = cc->active || cc->overflow;
	if (use) {
		ap_llc_usable[LLC_IDX(cpu_to_llc(cpu))]++;
		ap_cap_all += cpu_cap(cpu);
		if (big_cpu[CPU_IDX(cpu)])
			ap_cap_big += cpu_cap(cpu);
	}
	bpf_rcu_read_lock();
	u = pw_mask(PW_MASK_USABLE);
	if (u) {
		if (use)
			bpf_cpumask_set_cpu(cpu, u);
		else
			bpf_cpumask_clear_cpu(cpu, u);
	}
	bpf_rcu_read_unlock();
	/* Newly usable with work waiting in its LLC: come and take it. */
	if (use && !was && scx_bpf_dsq_nr_queued(LLC_DSQ(cpu_to_llc(cpu))) > 0)
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
}

/*
 * Apply a table row: nr CPUs active, taken in the row's order, steady CPUs
 * before turbulent ones (a CPU that interrupts or RT tasks keep taking is
 * the last to pack work onto); the others inactive. Returns the number of
 * overflow CPUs; sets the perf-criticality threshold from the big share.
 */
__noinline int lavd_apply_sets(u32 state, u32 nr)
{
	u32 taken = 0, pass, pos;

	if (state >= POL_PCO_MAX)
		state = 0;
	ap_cap_all = ap_cap_big = 0;
	ap_nr_ovf = 0;
	__builtin_memset(ap_llc_usable, 0, sizeof(ap_llc_usable));
	bpf_for(pass, 0, 2) {
		bpf_for(pos, 0, LAVD_MAX_CPUS) {
			struct cpu_ctx *cc;
			bool act;
			s32 cpu;

			if (pos >= nr_cpus_onln)
				break;
			cpu = pco_cpus[state][CPU_IDX(pos)];
			cc = get_cpu_ctx(cpu);
			if (!cc || (u32)(cc->turbulent != 0) != pass)
				continue;
			act = taken < nr;
			taken += act;
			pw_set_cpu(cpu, act);
		}
	}
	if (big_little)
		thr_perf_cri = pol_thr_perf_cri((u32)pol_div(ap_cap_big << POL_SHIFT, ap_cap_all),
						perf_cri_min, perf_cri_avg, perf_cri_max);
	return ap_nr_ovf;
}

/*
 * An LLC whose queue holds tasks but none of whose CPUs is usable would be
 * drained only by pulls of CPUs whose own queues ran dry (e.g. tasks moved
 * back by cgroup_bw.bpf.c to their old CPU's LLC): open its first CPU in
 * the row's order as overflow and wake it. Returns the CPUs opened.
 */
__noinline int lavd_feed_orphans(u32 state)
{
	u32 llc, pos, opened = 0;

	if (state >= POL_PCO_MAX)
		state = 0;
	bpf_for(llc, 0, LAVD_MAX_LLCS) {
		if (llc >= nr_llcs)
			break;
		if (ap_llc_usable[LLC_IDX(llc)] || scx_bpf_dsq_nr_queued(LLC_DSQ(llc)) <= 0)
			continue;
		bpf_for(pos, 0, LAVD_MAX_CPUS) {
			struct cpu_ctx *cc;
			struct bpf_cpumask *u;
			s32 cpu;

			if (pos >= nr_cpus_onln)
				break;
			cpu = pco_cpus[state][CPU_IDX(pos)];
			cc = get_cpu_ctx(cpu);
			if (!cc || !cpu_is_known(cpu) || cpu_to_llc(cpu) != (s32)llc)
				continue;
			cc->overflow = 1;
			cc->ovf_rounds = 0;
			bpf_rcu_read_lock();
			u = pw_mask(PW_MASK_USABLE);
			if (u)
				bpf_cpumask_set_cpu(cpu, u);
			bpf_rcu_read_unlock();
			scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
			opened++;
			break;
		}
	}
	return opened;
}

/* Timer, after the CPUs were collected: mode, active set, thresholds. */
__noinline int lavd_update_power(u64 interval_ns, u64 max_wait_ns, u64 nr_queued)
{
	u32 mode, state, nr, n = nr_cpus_onln, nr_ovf;

	pm_use_cap = pol_ewma_asym(pm_use_cap, cur_use_cap);
	if (cur_perf_n) {
		perf_cri_min = pol_ewma(perf_cri_min, cur_perf_min);
		perf_cri_avg = pol_ewma(perf_cri_avg, cur_perf_sum / cur_perf_n);
		perf_cri_max = pol_ewma(perf_cri_max, cur_perf_max);
	}

	pol_cc_guard_update(&cc_guard, max_wait_ns, pm_nr_active ? pm_nr_active + pm_nr_overflow : n,
			    nr_queued, n);
	mode = pw_pick_mode();
	if (pm_mode < POL_PM_NR) {
		pm_mode_ns[pm_mode] += interval_ns;
		if (mode != pm_mode)
			pm_nr_switch++;
	}
	pm_mode = mode;

	pm_req_cap = pol_cc_req(pm_use_cap);
	if (no_core_compaction || mode == POL_PM_PERFORMANCE || sys.nr_intervals < POL_CC_WARMUP_ROUNDS) {
		state = pco_nr_states ? pco_nr_states - 1 : 0;
		nr = n;
	} else {
		state = pol_pco_state(mode, pm_req_cap, pco_bounds, pco_nr_states);
		if (state >= POL_PCO_MAX)
			state = 0;
		nr = (u32)pol_max(pol_cc_nr_active(&pco_caps[state], n, pm_req_cap), cc_guard.floor);
	}
	/*
	 * Shrinking could strand a waiting task whose CPUs all leave the set:
	 * keep the current set while any task with a restricted cpumask waits.
	 */
	if (pm_nr_active && (state != pm_state || nr < pm_nr_active) &&
	    READ_ONCE(nr_queued_affn) > 0 && nr < n) {
		state = pm_state;
		nr = pm_nr_active;
	}
	nr_ovf = lavd_apply_sets(state, nr);
	if (nr + nr_ovf < n)
		nr_ovf += lavd_feed_orphans(state);
	pm_state = state;
	pm_nr_active = nr;
	pm_nr_overflow = nr_ovf;
	WRITE_ONCE(compacting, nr + nr_ovf < n);
	return 0;
}

/* ops.init: the masks, all CPUs usable until the first round decides. */
static s32 pw_init(void)
{
	u32 i;

	bpf_for(i, 0, PW_NR_MASKS) {
		struct llc_mask_val *v = bpf_map_lookup_elem(&pw_masks, &i);

		if (!v || install_cpumask(&v->mask)) {
			scx_bpf_error("no memory for the power masks");
			return -12;
		}
	}
	bpf_for(i, 0, LAVD_MAX_CPUS) {
		struct bpf_cpumask *u, *b, *l;
		struct cpu_ctx *cc;

		if (i >= nr_cpu_ids_cfg)
			break;
		cc = get_cpu_ctx(i);
		if (!cc || !cpu_is_known(i))
			continue;
		cc->active = 1;
		bpf_rcu_read_lock();
		u = pw_mask(PW_MASK_USABLE);
		b = pw_mask(PW_MASK_BIG);
		l = pw_mask(PW_MASK_LITTLE);
		if (u)
			bpf_cpumask_set_cpu(i, u);
		if (b && big_cpu[CPU_IDX(i)])
			bpf_cpumask_set_cpu(i, b);
		if (l && !big_cpu[CPU_IDX(i)])
			bpf_cpumask_set_cpu(i, l);
		bpf_rcu_read_unlock();
	}
	return 0;
}
