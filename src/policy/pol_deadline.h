/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pol_deadline.h - the logical clock, fairness lag and virtual deadlines.
 *
 * Every runnable task gets a virtual deadline: the logical clock, minus a
 * small compete window, plus a delta that is its expected runtime divided by
 * its latency criticality and multiplied by a greed penalty. Ten times more
 * critical is ten times closer. The dispatch queues are ordered by it
 * (earliest virtual deadline first).
 *
 * Fairness (differs from upstream on purpose, see observation O3 of the
 * reference): upstream compares a task's lifetime service with the system's
 * average service *per schedule*, two different quantities, so nearly every
 * task looks greedy. Here both sides are lifetime weighted service
 * (pol_task_stat.svc_wgt_ns, like a vruntime): the system side is the
 * average svc_wgt_ns of the tasks that ran recently (pol_sys.avg_svc_wgt_ns),
 * so the lag says how far ahead or behind its peers a task is.
 */
#ifndef __POL_DEADLINE_H
#define __POL_DEADLINE_H

#include "pol_base.h"
#include "pol_task.h"

/* 300 ms >> 16: how far behind the clock a new deadline may start (ns). */
#define POL_DL_COMPETE_WINDOW_NS	((300ULL * POL_NSEC_PER_MSEC) >> 16)
/* Largest lag credited or charged for a nice-0 task (scaled by 100/weight). */
#define POL_TASK_LAG_MAX_NS		(500ULL * POL_NSEC_PER_MSEC)
/*
 * Penalty slope: deadlines 1x as far for a task a full lag_max behind its
 * peers, 1.5x level with them, 2x a full lag_max ahead.
 */
#define POL_LC_GREEDY_SHIFT		1

/* Greed penalty state of one computation. */
struct pol_greed {
	u64 penalty;	/* POL_SCALE .. 2 * POL_SCALE */
	bool greedy;	/* the task has received more than its peers */
};

/*
 * Penalty from the lag between the peers' average service and the task's.
 * A task that sleeps a lot falls behind; its credit is bounded to lag_max by
 * moving its service up (so a long sleeper cannot bank unlimited priority).
 * A task ahead of its peers is charged up to lag_max.
 */
POL_FN struct pol_greed pol_greedy_penalty(struct pol_task_stat *t, u64 avg_svc_wgt_ns,
					  u64 weight)
{
	struct pol_greed g;
	u64 lag_max = pol_div(POL_TASK_LAG_MAX_NS * POL_WEIGHT_NICE0, pol_clamp(weight, 1, 10000));
	u64 charge; /* lag_max - lag, in 0 .. 2 * lag_max */

	if (avg_svc_wgt_ns >= t->svc_wgt_ns) {
		u64 lag = avg_svc_wgt_ns - t->svc_wgt_ns;

		if (lag > lag_max) {
			t->svc_wgt_ns = avg_svc_wgt_ns - lag_max;
			lag = lag_max;
		}
		charge = lag_max - lag;
		g.greedy = false;
	} else {
		u64 ahead = pol_min(t->svc_wgt_ns - avg_svc_wgt_ns, lag_max);

		charge = lag_max + ahead;
		g.greedy = true;
	}
	g.penalty = POL_SCALE + (pol_div(charge << POL_SHIFT, lag_max) >> POL_LC_GREEDY_SHIFT);
	return g;
}

/*
 * Deadline delta (ns of virtual time):
 *   (runtime_base + min(acc_runtime, runtime_base)) * penalty / lat_cri
 * A task just woken gets the smallest runtime term, one that keeps running
 * at most twice that. runtime_base is the maximum slice (upstream hard-codes
 * 5 ms there whatever --slice-max-us says: observation O20).
 */
POL_FN u64 pol_deadline_delta(u64 acc_runtime_ns, u64 penalty, u32 lat_cri, u64 runtime_base_ns)
{
	u64 rt = runtime_base_ns + pol_min(acc_runtime_ns, runtime_base_ns);

	return pol_div(pol_mul_sat(rt, penalty), pol_max(lat_cri, 1)) >> POL_SHIFT;
}

/*
 * Weight scaling of a deadline delta: x nice0 weight / weight. Without it
 * a nice 10 CPU hog and a nice -5 one, equally critical, alternate 1:1
 * (the simulator showed CPU shares of 14 vs 17 where EEVDF gives 3 vs 32);
 * with it their deadlines advance in inverse proportion to their weights,
 * as a vruntime does. Upstream lets weight in only through the logarithm of
 * the criticality and the bounded greed penalty.
 *
 * The stretch is capped at POL_WEIGHT_STRETCH_MAX x (about nice 9): a
 * deadline far beyond the logical clock is a wait of about that long, and
 * uncapped, nice 19 kernel threads (weight 1, x100) waited 4.8 s under
 * stress-ng in the VM. With the cap the lowest weights still get the
 * smallest share, and no wait grows with 1/weight.
 */
#define POL_WEIGHT_STRETCH_MAX	8

POL_FN u64 pol_weight_scale(u64 delta, u64 weight)
{
	weight = pol_clamp(weight, 1, 10000);
	if (weight * POL_WEIGHT_STRETCH_MAX <= POL_WEIGHT_NICE0)
		return pol_mul_sat(delta, POL_WEIGHT_STRETCH_MAX);
	return pol_div(pol_mul_sat(delta, POL_WEIGHT_NICE0), weight);
}

/*
 * Longest wait a deadline delta may stand for. With every CPU busy the
 * clock passes a delta d within about d x avg_lat_cri of real time
 * (pol_clock_service), so a delta is capped at this / avg_lat_cri. Without
 * the cap a task of criticality c waits about its runtime term x the
 * weight stretch x avg_lat_cri / c: in the VM under a 10,000-thread storm
 * khugepaged (nice 19, rarely awake, so of the lowest criticality) waited
 * 10 s; with it, 0.72 s in one VM run but still 4.7 s in another, so the
 * cap is not all that keeps such a task waiting. The cap only binds for such outliers: a nice-0 hog among hogs
 * stands for about 15 ms, a nice-19 one for about 120 ms; with critical
 * tasks raising avg_lat_cri, a few times that.
 */
#define POL_DL_WAIT_MAX_NS	(250ULL * POL_NSEC_PER_MSEC)

/*
 * Kernel threads get a far smaller bound: they do short work that user
 * tasks wait on, often holding a lock those tasks need. In the VM,
 * khugepaged (nice 19, criticality ~440) waited 40-50 ms behind critical
 * wake-ups while it held the mmap lock of a request server collapsing its
 * huge pages: every server thread that touched a new page stalled with it,
 * and request p99 went from 0.9 ms to 55 ms in two runs out of three.
 */
#define POL_DL_KTHREAD_WAIT_MAX_NS	(5ULL * POL_NSEC_PER_MSEC)

POL_FN u64 pol_deadline_cap(u64 delta, u64 avg_lat_cri, bool kthread)
{
	u64 wait_max_ns = kthread ? POL_DL_KTHREAD_WAIT_MAX_NS : POL_DL_WAIT_MAX_NS;

	return pol_min(delta, pol_div(wait_max_ns, pol_max(avg_lat_cri, 1)));
}

/*
 * Compete window: new deadlines start this far behind the clock. Under
 * overload (more queued tasks than active CPUs) it narrows so that freshly
 * woken tasks cannot jump a long queue by much.
 */
POL_FN u64 pol_compete_window(u64 nr_active, u64 nr_queued)
{
	if (nr_queued > nr_active)
		return pol_div(POL_DL_COMPETE_WINDOW_NS * nr_active, nr_queued);
	return POL_DL_COMPETE_WINDOW_NS;
}

/* Virtual deadline of a task enqueued now. */
POL_FN u64 pol_vdeadline(u64 clk, u64 delta, u64 window)
{
	return pol_sub_sat(clk, window) + delta;
}

/*
 * The logical clock advances when a task starts running with a deadline
 * ahead of it, by that gap divided by the number of queued tasks: under load
 * it moves slowly, so deadlines of waiting tasks stay competitive and every
 * queued task is eventually at the head. It never moves backwards.
 */
POL_FN u64 pol_clock_advance(u64 clk, u64 vdeadline, u64 nr_queued)
{
	if (vdeadline <= clk)
		return clk;
	return clk + pol_div(vdeadline - clk, pol_max(nr_queued, 1));
}

/*
 * ... and it also advances with service. Advancing only towards deadlines
 * ahead of it (above) stalls the clock while the running tasks' deadlines
 * are behind it: then tasks that sleep and wake briefly keep getting
 * deadlines just past the clock and a task queued with a longer delta
 * waits until they all stop. In the VM, 10,000 threads woken at once saw a
 * 6.7 s wait that way (upstream's clock has the same flaw).
 *
 * Deadline deltas are run time x penalty / lat_cri: nanoseconds per unit
 * of criticality. Service in the same units is ran_ns / avg_lat_cri, shared
 * by the active CPUs. With every CPU busy the clock then passes a deadline
 * d ahead of it within about d x avg_lat_cri of real time: a task of
 * average criticality waits at most about its runtime term (5-20 ms), a
 * more critical one less, a less critical one more, and none indefinitely.
 * Criticality still orders tasks queued within that span of each other.
 */
POL_FN u64 pol_clock_service(u64 ran_ns, u64 nr_active, u64 avg_lat_cri)
{
	return pol_div(ran_ns, pol_mul_sat(pol_max(nr_active, 1), pol_max(avg_lat_cri, 1)));
}

#endif /* __POL_DEADLINE_H */
