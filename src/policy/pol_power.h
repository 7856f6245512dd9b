/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pol_power.h - how many CPUs to use, which ones, how fast, and for whom.
 *
 * Core compaction. At low load a machine spends less energy, and often runs
 * faster (higher boost clocks, warm caches, fewer wake-up IPIs), when the
 * work is packed onto a few CPUs and the rest stay in deep idle. Every 10 ms
 * the scheduler measures the capacity in use (1024 = one fastest CPU fully
 * busy), adds headroom, and walks a CPU order built by the loader from the
 * topology (or from the energy model, a "PCO" table: performance vs CPU
 * order) until the CPUs taken can carry it at half their capacity each.
 * Those CPUs form the active set; wake-ups only look for idle CPUs there.
 * A CPU outside it that has work only it can run (a pinned task) joins the
 * overflow set until it has had nothing of that kind for a while.
 *
 * Power modes: performance (every CPU active, compaction off), balanced
 * (compaction along the performance order or the energy-chosen table),
 * powersave (compaction along the powersave order: fewest cores and LLCs).
 * The autopilot picks one from the load every round.
 *
 * Performance criticality (big/little machines only): tasks that wait and
 * wake often and run long (a game's render thread more than its audio
 * callback) go to big cores; the threshold follows the share of big
 * capacity among the CPUs in use, so the big cores are neither idle nor
 * oversubscribed.
 *
 * CPU frequency: the target performance level of a CPU follows its
 * utilisation, and jumps to the maximum above 85 % (schedutil then picks
 * the frequency; without cpufreq the call has no effect).
 */
#ifndef __POL_POWER_H
#define __POL_POWER_H

#include "pol_base.h"
#include "pol_task.h"

enum pol_power_mode {
	POL_PM_PERFORMANCE	= 0,
	POL_PM_BALANCED		= 1,
	POL_PM_POWERSAVE	= 2,
	POL_PM_NR		= 3,
};

/* Up to this many PCO states (table rows), as upstream. */
#define POL_PCO_MAX			11
/* CPUs a compaction walk may look at. */
#define POL_CC_MAX_CPUS			1024
/* The load is planned with 25 % headroom... */
#define POL_CC_HEADROOM_PCT		25
/* ...on CPUs each planned at half their capacity. */
#define POL_CC_CPU_SHARE		512
/* A CPU busier than 90 % in an interval hides demand: count its use 1.5x. */
#define POL_CC_SPIKE_UTIL		922
#define POL_CC_SPIKE_PREMIUM		512
/*
 * An overflow CPU leaves the set after this many rounds (10 ms each) with
 * no work of its own. Upstream lets it leave with probability 1/25 per
 * round (observation O9), which keeps an idle CPU awake for a random time
 * and makes runs differ; a fixed linger is the same on average and
 * reproducible.
 */
#define POL_CC_OVERFLOW_LINGER		25
/*
 * No compaction for the first rounds after load: the averages start from
 * nothing, and compacting on the first 10 ms packed 32 simultaneous timer
 * wake-ups of a 128-CPU server onto 2 CPUs (16 ms waits in the simulator).
 */
#define POL_CC_WARMUP_ROUNDS		10
/* Autopilot: a mode is left downwards only below 7/8 of its lower bound. */
#define POL_PM_HYST_SHIFT		3
/* cpufreq: above 85 % utilisation ask for the maximum. */
#define POL_CPUPERF_MAX_UTIL		870

/*
 * Capacity one CPU used in an interval, 1024 = the fastest CPU busy all the
 * interval: busy time scaled by the CPU's capacity (cap_1024, 1..1024). A
 * CPU near saturation gets a premium, because its queue may hold more
 * demand than it could serve: without it compaction would settle on exactly
 * enough CPUs to be saturated, never more.
 */
POL_FN u64 pol_cc_cpu_use(u64 busy_ns, u64 interval_ns, u32 cap_1024)
{
	u64 util, use;

	if (!interval_ns)
		return 0;
	util = pol_min(pol_div(pol_mul_sat(busy_ns, POL_SCALE), interval_ns), POL_SCALE);
	use = (util * pol_clamp(cap_1024, 1, POL_SCALE)) >> POL_SHIFT;
	if (util > POL_CC_SPIKE_UTIL)
		use += (use * POL_CC_SPIKE_PREMIUM) >> POL_SHIFT;
	return use;
}

/* Capacity to provide: the capacity in use plus the headroom. */
POL_FN u64 pol_cc_req(u64 use_cap)
{
	return use_cap + use_cap * POL_CC_HEADROOM_PCT / 100;
}

/* What a CPU of capacity cap_1024 is planned to carry. */
POL_FN u64 pol_cc_cpu_plan(u32 cap_1024)
{
	return ((u64)pol_clamp(cap_1024, 1, POL_SCALE) * POL_CC_CPU_SHARE) >> POL_SHIFT;
}

/* Capacities of the CPUs of one order, by position (1..1024; unused entries 0). */
struct pol_order_caps {
	u16 cap[POL_CC_MAX_CPUS];
};

/*
 * How many CPUs of an order to use: the shortest prefix whose planned
 * capacity reaches req, at least 1, at most n.
 */
POL_FN u32 pol_cc_nr_active(const struct pol_order_caps *o, u32 n, u64 req)
{
	u64 planned = 0;
	int i;

	if (!n)
		return 0;
	pol_for(i, n, POL_CC_MAX_CPUS) {
		/* the mask bounds the index for the verifier; i < POL_CC_MAX_CPUS anyway */
		planned += pol_cc_cpu_plan(o->cap[i & (POL_CC_MAX_CPUS - 1)]);
		if (planned >= req)
			return (u32)i + 1;
	}
	return (u32)pol_min(n, POL_CC_MAX_CPUS);
}

/*
 * The latency guard. Capacity says how much work there is, not how it
 * arrives: eight threads woken together by one timer need eight CPUs for a
 * moment even at 2 % load, and packed on two they wait for each other
 * (the simulator's desktop "light" workload: scheduling delay p50 0 ->
 * 0.8 ms, p99 3.9 ms). Upstream compacts regardless. Here, when a task
 * waited in an LLC queue (not one dispatched straight to an idle CPU: in a
 * VM those wait for the host to run the vCPU, which more CPUs do not cure)
 * longer than POL_CC_WAIT_HIGH_NS during a round while
 * CPUs were compacted away, the next round uses at least as many more CPUs
 * as tasks are waiting, and at least one more plus a quarter (a burst of 32
 * timer wake-ups on a 128-CPU server waited 16 ms when the floor only grew
 * by a quarter per round); the floor decays by an eighth every
 * POL_CC_CALM_ROUNDS rounds in which no wait exceeded POL_CC_WAIT_LOW_NS.
 */
#define POL_CC_WAIT_HIGH_NS		(1000ULL * POL_NSEC_PER_USEC)
#define POL_CC_WAIT_LOW_NS		(250ULL * POL_NSEC_PER_USEC)
#define POL_CC_CALM_ROUNDS		5

struct pol_cc_guard {
	u32 floor;	/* CPUs to keep usable at least, 0 = none */
	u32 calm;	/* rounds without a long wait, up to POL_CC_CALM_ROUNDS */
};

/*
 * A round ended with nr_used of n CPUs usable, max_wait_ns the longest
 * queue wait, and nr_queued tasks still waiting.
 */
POL_FN void pol_cc_guard_update(struct pol_cc_guard *g, u64 max_wait_ns, u32 nr_used,
				u64 nr_queued, u32 n)
{
	if (max_wait_ns > POL_CC_WAIT_HIGH_NS) {
		/* all CPUs were in use: more cannot help, and would only delay compaction */
		if (nr_used < n)
			g->floor = (u32)pol_min(pol_add_sat(pol_max(g->floor, nr_used),
							    pol_max(1 + (nr_used >> 2), nr_queued)), n);
		g->calm = 0;
		return;
	}
	if (max_wait_ns >= POL_CC_WAIT_LOW_NS) {
		g->calm = 0;
		return;
	}
	if (++g->calm < POL_CC_CALM_ROUNDS)
		return;
	g->calm = 0;
	g->floor = pol_sub_sat(g->floor, (g->floor >> 3) + 1);
}

/*
 * Which PCO state (row of the loader's tables) to compact along. Powersave
 * takes the first (the powersave order without an energy model, the
 * lowest-capacity energy-optimal set with one), performance the last;
 * balanced the first state whose capacity bound covers req, the cheapest
 * that can carry the load. bounds[] is ascending.
 */
POL_FN u32 pol_pco_state(u32 mode, u64 req, const u64 *bounds, u32 nr_states)
{
	int i;

	if (nr_states <= 1)
		return 0;
	nr_states = (u32)pol_min(nr_states, POL_PCO_MAX);
	if (mode == POL_PM_POWERSAVE)
		return 0;
	if (mode == POL_PM_PERFORMANCE)
		return nr_states - 1;
	pol_for(i, nr_states, POL_PCO_MAX) {
		if (bounds[i] >= req)
			return (u32)i;
	}
	return nr_states - 1;
}

/* Autopilot thresholds on the capacity in use (no headroom), 1024 = one fastest CPU. */
struct pol_pm_bounds {
	u64 low;	/* at or below: powersave */
	u64 high;	/* at or below: balanced; above: performance */
};

/*
 * Without an energy model: powersave while the load fits in half the
 * smallest CPU; performance once it needs a quarter of the machine with SMT
 * (the second threads of busy cores add little), half without.
 */
POL_FN struct pol_pm_bounds pol_pm_bounds_noem(u32 min_cap_1024, u64 total_cap, bool smt)
{
	struct pol_pm_bounds b;

	b.low = min_cap_1024 / 2;
	b.high = smt ? total_cap / 4 : total_cap / 2;
	if (b.high < b.low)
		b.high = b.low;
	return b;
}

/* With an energy model: the first state's bound, and the next to last state's. */
POL_FN struct pol_pm_bounds pol_pm_bounds_em(const u64 *bounds, u32 nr_states)
{
	struct pol_pm_bounds b = { 0, 0 };
	u32 hi;

	if (!nr_states)
		return b;
	nr_states = (u32)pol_min(nr_states, POL_PCO_MAX);
	hi = nr_states >= 2 ? nr_states - 2 : 0;
	b.low = bounds[0];
	b.high = pol_max(bounds[hi], b.low);
	return b;
}

/*
 * The autopilot: the mode for the capacity in use. Upstream switches on the
 * raw comparison every 10 ms, which flips between modes when the load sits
 * at a bound; here a mode is left downwards only when the load is below
 * 7/8 of the bound that led to it.
 */
POL_FN u32 pol_autopilot(u64 use_cap, struct pol_pm_bounds b, u32 cur_mode)
{
	u32 want;

	if (use_cap <= b.low)
		want = POL_PM_POWERSAVE;
	else if (use_cap <= b.high)
		want = POL_PM_BALANCED;
	else
		want = POL_PM_PERFORMANCE;
	/* Going up (towards performance) is immediate. */
	if (want <= cur_mode || cur_mode >= POL_PM_NR)
		return want;
	/* Going down: only clearly below the bound crossed. */
	if (cur_mode == POL_PM_PERFORMANCE &&
	    use_cap > b.high - (b.high >> POL_PM_HYST_SHIFT))
		return POL_PM_PERFORMANCE;
	if (want == POL_PM_POWERSAVE && use_cap > b.low - (b.low >> POL_PM_HYST_SHIFT))
		return POL_PM_BALANCED;
	return want;
}

/*
 * May an overflow CPU stay in the overflow set? It stays while it has work
 * of its own (a pinned task running or waiting there); then for
 * POL_CC_OVERFLOW_LINGER rounds. *idle_rounds counts the rounds without.
 */
POL_FN bool pol_overflow_keep(bool has_work, u32 *idle_rounds)
{
	if (has_work) {
		*idle_rounds = 0;
		return true;
	}
	if (*idle_rounds < POL_CC_OVERFLOW_LINGER) {
		(*idle_rounds)++;
		return true;
	}
	return false;
}

/*
 * Performance criticality: the wait x wake term of latency criticality
 * and how much CPU the task uses per second (run frequency x run length),
 * weighted. A task that is in a wake chain *and* runs long needs a fast
 * core; one that runs briefly does not gain from it.
 *   log2x(wait_ft * wake_ft) + log2x(run_freq * runtime_us / 1024 * weight)
 */
POL_FN u32 pol_perf_cri(const struct pol_task_stat *t, u64 weight)
{
	u64 wait_ft = pol_min(t->wait_freq, POL_LC_FREQ_MAX) + 1;
	u64 wake_ft = pol_min(t->wake_freq, POL_LC_FREQ_MAX) + 1;
	u64 runtime_us = pol_min(pol_max(t->avg_runtime_ns, t->acc_runtime_ns),
				 POL_LC_RUNTIME_MAX_NS) / POL_NSEC_PER_USEC;
	u64 run_ft = pol_max(pol_min(t->run_freq, POL_LC_FREQ_MAX), 1);
	u64 use_ft = ((run_ft * pol_max(runtime_us, 1)) >> POL_SHIFT) * pol_clamp(weight, 1, 10000);

	return pol_log2x(wait_ft * wake_ft) + pol_log2x(use_ft);
}

/*
 * The perf-criticality above which a task goes to big cores, from big_1024,
 * the share of big capacity among the CPUs in use (1024: only big). All big
 * → everyone qualifies (0); none → no one (max). Otherwise the threshold
 * moves between min and max through avg as the little share grows, so the
 * fraction of tasks sent to big cores tracks the big cores' share.
 */
POL_FN u64 pol_thr_perf_cri(u32 big_1024, u64 min, u64 avg, u64 max)
{
	u64 little;

	if (big_1024 >= POL_SCALE)
		return 0;
	if (big_1024 == 0)
		return max;
	if (avg < min)
		avg = min;
	if (max < avg)
		max = avg;
	little = POL_SCALE - big_1024;
	if (little < POL_SCALE / 2)
		return min + (((avg - min) * little) >> (POL_SHIFT - 1));
	return avg + (((max - avg) * (little - POL_SCALE / 2)) >> (POL_SHIFT - 1));
}

/*
 * Which core type a task should move to: 1 big, -1 little, 0 either (stay
 * where it is). Tasks within POL_PERF_CRI_BAND of the threshold have no
 * preference: the threshold splits tasks of near-equal perf-criticality
 * (the workers of one server), whose values wobble across it from run to
 * run, and a strict split moved them between big and little cores on
 * every other wake-up (in the simulator, 8x the migrations of a scheduler
 * without the split on the hybrid server workload, and more energy).
 */
#define POL_PERF_CRI_BAND		1

POL_FN int pol_perf_type(u32 perf_cri, u64 thr)
{
	if (perf_cri > pol_add_sat(thr, POL_PERF_CRI_BAND))
		return 1;
	if ((u64)perf_cri + POL_PERF_CRI_BAND < thr)
		return -1;
	return 0;
}

/*
 * cpufreq target of a CPU, 1..1024 (scx_bpf_cpuperf_set), from its average
 * and current utilisation (0..1024): the higher of the two, so a rise is
 * served at once and a fall only once it lasts; the maximum above 85 %.
 */
POL_FN u32 pol_cpuperf_target(u64 avg_util, u64 cur_util)
{
	u64 u = pol_max(avg_util, cur_util);

	if (u >= POL_CPUPERF_MAX_UTIL)
		return POL_SCALE;
	return (u32)pol_max(u, 1);
}

#endif /* __POL_POWER_H */
