/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pol_sys.h - system-wide statistics (10 ms period) and time slices.
 *
 * A timer samples the CPUs every 10 ms into a struct pol_sys_sample; the
 * averages in struct pol_sys drive criticality thresholds, the fairness
 * reference and the time slice. The slice shares a 10 ms target latency
 * among waiting tasks: 10 ms x active CPUs / queued tasks, clamped.
 */
#ifndef __POL_SYS_H
#define __POL_SYS_H

#include "pol_base.h"

#define POL_SYS_STAT_INTERVAL_NS	(10ULL * POL_NSEC_PER_MSEC)
#define POL_TARGETED_LATENCY_NS		(10ULL * POL_NSEC_PER_MSEC)
#define POL_SLICE_MIN_NS_DFL		(500ULL * POL_NSEC_PER_USEC)
#define POL_SLICE_MAX_NS_DFL		(5ULL * POL_NSEC_PER_MSEC)
#define POL_PREEMPT_SHIFT_DFL		6
#define POL_PREEMPT_SHIFT_MAX		10
/* Boosted slices: a long runner gets its average runtime plus this... */
#define POL_SLICE_BOOST_BONUS_NS	(500ULL * POL_NSEC_PER_USEC)
/* ...at most this... */
#define POL_SLICE_BOOST_MAX_NS		(500ULL * POL_NSEC_PER_MSEC)
/* ...while the system is below 95 % busy. */
#define POL_SLICE_BOOST_UTIL		972

/* Policy options (from the command line). */
enum pol_cfg_flags {
	POL_CFG_NO_SLICE_BOOST	= 1 << 0,
	POL_CFG_NO_PREEMPTION	= 1 << 1,
	POL_CFG_NO_WAKE_SYNC	= 1 << 2,
	POL_CFG_NO_FUTEX_BOOST	= 1 << 3,
};

struct pol_cfg {
	u64 slice_min_ns;
	u64 slice_max_ns;
	u32 preempt_shift;
	u32 flags;		/* enum pol_cfg_flags */
};

/* One 10 ms interval, summed over all CPUs. */
struct pol_sys_sample {
	u64 interval_ns;	/* wall time covered */
	u64 busy_ns;		/* CPU time used by our tasks, summed over CPUs */
	u64 nr_sched;		/* tasks that started running */
	u64 sum_lat_cri;	/* of those tasks */
	u64 max_lat_cri;
	u64 sum_svc_wgt_ns;	/* lifetime weighted service of those tasks */
	u64 nr_queued;		/* tasks waiting in our queues now */
	u64 nr_active;		/* CPUs in use */
	u64 nr_cpus;		/* CPUs online */
};

/* Averages; the only state the policy keeps across intervals. */
struct pol_sys {
	u64 slice_ns;		/* current system time slice */
	u64 avg_lat_cri;
	u64 max_lat_cri;
	u64 thr_lat_cri;	/* criticality at which a task may preempt */
	u64 avg_svc_wgt_ns;	/* reference for fairness lag (pol_deadline.h) */
	u64 nr_queued;		/* EWMA of waiting tasks */
	u64 nr_active;		/* CPUs in use (last interval) */
	u64 avg_util;		/* 0..POL_SCALE, asymmetric EWMA of busy share */
	u64 nr_intervals;
};

POL_FN void pol_cfg_default(struct pol_cfg *c)
{
	c->slice_min_ns = POL_SLICE_MIN_NS_DFL;
	c->slice_max_ns = POL_SLICE_MAX_NS_DFL;
	c->preempt_shift = POL_PREEMPT_SHIFT_DFL;
	c->flags = 0;
}

POL_FN void pol_sys_init(struct pol_sys *s, const struct pol_cfg *c, u64 nr_cpus)
{
	s->slice_ns = c->slice_max_ns;
	s->avg_lat_cri = 0;
	s->max_lat_cri = 0;
	s->thr_lat_cri = 0;
	s->avg_svc_wgt_ns = 0;
	s->nr_queued = 0;
	s->nr_active = nr_cpus;
	s->avg_util = 0;
	s->nr_intervals = 0;
}

/*
 * Deep queues. A round of N queued tasks at the minimum slice takes
 * N x slice_min / active CPUs: 10,000 threads woken at once on 4 CPUs
 * waited up to 1.26 s in the VM for their first run at 500 us, past the
 * 1 s every wait must stay under. When a round at slice_min would exceed
 * POL_ROUND_MAX_NS, the floor gives way so that a round fits in it, but
 * never below POL_SLICE_FLOOR_NS: under that, switching (5-20 us a switch
 * under TCG) would eat a tenth of the CPU. Only pathological queues reach
 * this: on 4 CPUs, more than 3,200 waiting tasks. Upstream keeps slice_min
 * whatever the queue depth.
 */
#define POL_ROUND_MAX_NS		(400ULL * POL_NSEC_PER_MSEC)
#define POL_SLICE_FLOOR_NS		(100ULL * POL_NSEC_PER_USEC)

/* Largest slice whose round of the queue fits in POL_ROUND_MAX_NS (at least the floor). */
POL_FN u64 pol_slice_fit(u64 nr_active, u64 nr_queued)
{
	if (nr_queued == 0)
		return POL_U64_MAX;
	return pol_max(pol_div(pol_mul_sat(POL_ROUND_MAX_NS, pol_max(nr_active, 1)), nr_queued),
		       POL_SLICE_FLOOR_NS);
}

/* Lowest system slice for this queue depth: slice_min, or less for a deep queue. */
POL_FN u64 pol_slice_floor(u64 nr_active, u64 nr_queued, const struct pol_cfg *c)
{
	return pol_min(c->slice_min_ns, pol_slice_fit(nr_active, nr_queued));
}

/* Target slice: the 10 ms latency budget shared by the waiting tasks. */
POL_FN u64 pol_slice_target(u64 nr_active, u64 nr_queued, const struct pol_cfg *c)
{
	u64 slice;

	if (nr_queued == 0)
		return c->slice_max_ns;
	slice = pol_div(POL_TARGETED_LATENCY_NS * pol_max(nr_active, 1), nr_queued);
	return pol_clamp(slice, pol_slice_floor(nr_active, nr_queued, c), c->slice_max_ns);
}

/* Threshold of criticality for preemption: 1/2^shift of the way down from max to avg. */
POL_FN u64 pol_thr_lat_cri(u64 max_lat_cri, u64 avg_lat_cri, u32 shift)
{
	if (max_lat_cri <= avg_lat_cri)
		return max_lat_cri;
	return max_lat_cri - ((max_lat_cri - avg_lat_cri) >> pol_min(shift, 63));
}

/* Fold one interval into the averages. */
POL_FN void pol_sys_update(struct pol_sys *s, const struct pol_sys_sample *x,
			   const struct pol_cfg *c)
{
	u64 capacity_ns, util, q_now;

	if (x->nr_sched) {
		s->avg_lat_cri = pol_ewma(s->avg_lat_cri, x->sum_lat_cri / x->nr_sched);
		s->max_lat_cri = pol_ewma(s->max_lat_cri, x->max_lat_cri);
		s->avg_svc_wgt_ns = pol_ewma(s->avg_svc_wgt_ns, x->sum_svc_wgt_ns / x->nr_sched);
	}
	s->thr_lat_cri = pol_thr_lat_cri(s->max_lat_cri, s->avg_lat_cri, c->preempt_shift);

	capacity_ns = pol_mul_sat(x->interval_ns, pol_max(x->nr_cpus, 1));
	util = pol_min(pol_div(pol_mul_sat(x->busy_ns, POL_SCALE), capacity_ns), POL_SCALE);
	if (!capacity_ns)
		util = 0;
	s->avg_util = pol_ewma_asym(s->avg_util, util);

	s->nr_queued = pol_ewma(s->nr_queued, x->nr_queued);
	s->nr_active = pol_max(x->nr_active, 1);
	/*
	 * A burst of wake-ups (10,000 threads released at once) is a deep
	 * queue now, long before the averages say so: the floor and the
	 * round-fitting cap follow the deeper of the average and the sample,
	 * and the cap applies at once rather than through the average (which
	 * needs ~20 intervals to come down from 5 ms).
	 */
	q_now = pol_max(s->nr_queued, x->nr_queued);
	s->slice_ns = pol_clamp(pol_ewma(s->slice_ns, pol_slice_target(s->nr_active, s->nr_queued, c)),
				pol_slice_floor(s->nr_active, q_now, c), c->slice_max_ns);
	s->slice_ns = pol_min(s->slice_ns, pol_slice_fit(s->nr_active, q_now));
	s->nr_intervals++;
}

/* May a long runner get more than the system slice? Only with spare CPU. */
POL_FN bool pol_can_boost_slice(const struct pol_sys *s, const struct pol_cfg *c)
{
	if (c->flags & POL_CFG_NO_SLICE_BOOST)
		return false;
	return s->avg_util <= POL_SLICE_BOOST_UTIL && s->nr_queued <= s->nr_active;
}

struct pol_slice {
	u64 slice_ns;
	bool boosted;
};

/*
 * Slice of a task starting to run. Tasks that usually run longer than the
 * system slice get what they need while the machine has spare CPU (fewer
 * switches for batch work), or a criticality-scaled extension under load.
 */
POL_FN struct pol_slice pol_task_slice(const struct pol_sys *s, const struct pol_cfg *c,
				       u64 avg_runtime_ns, u32 lat_cri)
{
	struct pol_slice r = { .slice_ns = s->slice_ns, .boosted = false };
	u64 S = s->slice_ns;

	if ((c->flags & POL_CFG_NO_SLICE_BOOST) || avg_runtime_ns < S)
		return r;
	if (pol_can_boost_slice(s, c)) {
		r.slice_ns = pol_clamp(avg_runtime_ns + POL_SLICE_BOOST_BONUS_NS, c->slice_min_ns,
				       POL_SLICE_BOOST_MAX_NS);
		r.boosted = true;
	} else if (lat_cri > s->avg_lat_cri) {
		u64 ext = pol_div(S * lat_cri, s->avg_lat_cri + 1);

		r.slice_ns = pol_clamp(S + ext, S, pol_min(avg_runtime_ns, 2 * S));
		r.boosted = true;
	}
	return r;
}

/*
 * --pinned-slice-us (upstream's default 5000 us; 0: off): while a task that
 * may only run on this CPU waits for it (mostly per-CPU kernel threads,
 * which the LLC queues cannot serve), what runs there gets at most
 * min(pinned_slice, system slice) and no boost. Without it a kworker could
 * wait behind a boosted slice of up to 500 ms.
 */
#define POL_PINNED_SLICE_NS_DFL	(5000ULL * POL_NSEC_PER_USEC)

POL_FN u64 pol_pinned_slice(u64 sys_slice_ns, u64 pinned_slice_ns)
{
	return pinned_slice_ns ? pol_min(pinned_slice_ns, sys_slice_ns) : POL_U64_MAX;
}

POL_FN struct pol_slice pol_pinned_cap(struct pol_slice sl, u64 sys_slice_ns, u64 pinned_slice_ns,
				       bool pinned_waiting)
{
	if (!pinned_slice_ns || !pinned_waiting)
		return sl;
	sl.slice_ns = pol_min(sl.slice_ns, pol_pinned_slice(sys_slice_ns, pinned_slice_ns));
	sl.boosted = false;
	return sl;
}

/*
 * Whether pol_pinned_cap can change sl at all: only a boosted slice or one
 * longer than the cap. When it cannot, ops.running need not ask the kernel
 * whether its local queue holds a task (a kfunc call per context switch;
 * tasks that run less than the system slice, most of them, never need it).
 */
POL_FN bool pol_pinned_cap_may_bite(struct pol_slice sl, u64 sys_slice_ns, u64 pinned_slice_ns)
{
	return pinned_slice_ns &&
	       (sl.boosted || sl.slice_ns > pol_pinned_slice(sys_slice_ns, pinned_slice_ns));
}

/*
 * Revoke a boost: the running task has used elapsed_ns; what is left of a
 * regular slice? 0 means "switch at the next scheduling point".
 */
POL_FN u64 pol_slice_revoke(u64 elapsed_ns, u64 slice_ns)
{
	return pol_sub_sat(slice_ns, elapsed_ns);
}

#endif /* __POL_SYS_H */
