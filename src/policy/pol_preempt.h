/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pol_preempt.h - choosing a CPU to preempt for a waking critical task.
 *
 * When a latency-critical task wakes and no idle CPU fits, the CPU running
 * the least critical task in the waker's LLC is asked to switch early: its
 * task's slice is shortened so it yields at its next scheduling point. We
 * never pick a CPU that is idle or runs something that is not ours, whose
 * task is about to stop anyway, that runs a task not clearly less critical
 * (pol_preempt_bar), or that runs a user-space lock holder (preempting those
 * convoys the lock).
 *
 * Upstream compares two random candidates and keeps, in places, the *more*
 * critical one (observation O1 of the reference): the intent, and what is
 * done here, is to preempt the weaker of the two: lower criticality first,
 * then the one that would run longer.
 */
#ifndef __POL_PREEMPT_H
#define __POL_PREEMPT_H

#include "pol_base.h"
#include "pol_sys.h"

/* What a CPU runs now, as published at ops.running. */
enum pol_run_flags {
	POL_RUN_ACTIVE		= 1 << 0, /* one of our tasks is running */
	POL_RUN_LOCK_HOLDER	= 1 << 1, /* ... and it holds a user-space lock */
	POL_RUN_CLAIMED		= 1 << 2, /* another waker already preempts it */
	POL_RUN_SLICE_BOUND	= 1 << 3, /* ... and it stops when its slice ends, not by blocking */
	/*
	 * Bits from POL_RUN_GEN_SHIFT up count the runs started on the CPU, so
	 * a claim (compare-and-swap of the flags) fails when the task changed
	 * between reading the CPU and claiming it: otherwise the IPI meant for
	 * a hog could preempt the critical task that just replaced it.
	 */
	POL_RUN_GEN_SHIFT	= 8,
};

struct pol_cpu_run {
	u64 est_stop_ns;	/* when its task is expected to stop */
	u32 lat_cri;		/* criticality of its task */
	u32 flags;		/* enum pol_run_flags */
};

/* When a task starting now is expected to stop: its usual run, at most its slice. */
POL_FN u64 pol_est_stop(u64 now_ns, u64 avg_runtime_ns, u64 slice_ns)
{
	return pol_add_sat(now_ns, pol_min(avg_runtime_ns, slice_ns));
}

/*
 * Which running tasks a waking one may preempt: those of criticality below
 * the returned bar (0: none).
 *
 * A task at or above the system threshold (pol_thr_lat_cri, near the top of
 * the range) may preempt any less critical one, as upstream allows. Upstream
 * stops there, so a task a little below the top never preempts anything:
 * in the VM, cyclictest's timer-woken threads (criticality about 1000, the
 * threshold 2300) queued behind CPU hogs (about 300) for the rest of a 5 ms
 * slice: wake-up p99 8 ms against EEVDF's 2 ms. Any task may therefore also
 * preempt one of less than half its criticality (POL_PREEMPT_GAP_SHIFT):
 * the same run gave p99 0.24 ms. Peers of similar criticality (the two ends
 * of a pipe, hackbench's senders and receivers) still never preempt each
 * other, which is what keeps switches and throughput where they were.
 */
#define POL_PREEMPT_GAP_SHIFT	1

POL_FN u32 pol_preempt_bar(u32 lat_cri, u64 thr_lat_cri)
{
	if (lat_cri >= thr_lat_cri)
		return lat_cri;
	return lat_cri >> POL_PREEMPT_GAP_SHIFT;
}

/*
 * May a newcomer expected to stop at new_stop_ns preempt CPU c, whose task
 * must be of criticality below bar (pol_preempt_bar)? guard_ns: a task due
 * to stop within that is left alone.
 */
POL_FN bool pol_can_preempt(const struct pol_cpu_run *c, u32 bar, u64 new_stop_ns,
			    u64 now_ns, u64 guard_ns)
{
	if ((c->flags & (POL_RUN_ACTIVE | POL_RUN_LOCK_HOLDER | POL_RUN_CLAIMED)) !=
	    POL_RUN_ACTIVE)
		return false;
	if (c->lat_cri >= bar)
		return false;
	/* About to stop anyway: preempting gains nothing and costs a switch. */
	if (c->est_stop_ns <= pol_add_sat(now_ns, guard_ns))
		return false;
	/* It would be done before the newcomer: let it finish. */
	return new_stop_ns < c->est_stop_ns;
}

/* Is a a better victim than b? Less critical first, then the longer to run. */
POL_FN bool pol_victim_better(const struct pol_cpu_run *a, const struct pol_cpu_run *b)
{
	if (a->lat_cri != b->lat_cri)
		return a->lat_cri < b->lat_cri;
	return a->est_stop_ns > b->est_stop_ns;
}

/*
 * How a victim is made to switch. A shortened slice costs nothing, but the
 * kernel only sees it expire at the victim's next tick (HZ=250: up to
 * 4 ms), which is most of the wait a critical wakeup then sees: in the VM
 * under 4 CPU hogs, cyclictest waited p50 7.9 ms with slices alone against
 * EEVDF's 0.1 ms. So the slice is shortened when the victim's next tick is
 * within wait_max_ns, and the victim is sent an IPI (SCX_KICK_PREEMPT) only
 * when it is not. Ticks keep their phase (a tick stopped while idle restarts
 * on the same grid), so the next one is due a whole number of tick
 * periods after the last one seen.
 */
#define POL_PREEMPT_TICK_WAIT_NS	(250ULL * POL_NSEC_PER_USEC)

/* ns until the next tick of a CPU whose last tick was at last_tick_ns; 0 if unknown. */
POL_FN u64 pol_tick_wait(u64 now_ns, u64 last_tick_ns, u64 tick_ns)
{
	if (!tick_ns || !last_tick_ns || now_ns < last_tick_ns)
		return 0;
	return tick_ns - (now_ns - last_tick_ns) % tick_ns;
}

/*
 * When a running task due to stop at stop_ns really switches. A task that
 * blocks stops when it blocks, but the end of a slice is only noticed at
 * the CPU's next tick: a slice-bound stop moves to the first tick at or
 * after it (to the next tick if it is already past: the task outlived its
 * slice). Without this a CPU hog whose slice had run out, or was about to,
 * looked "about to stop anyway" to pol_can_preempt and was left alone, and
 * a critical task woken then waited for that tick: up to 4 ms at 250 Hz. In
 * the VM, a 60 Hz frame pipeline under CPU hogs took 10.4 ms instead of 6.9
 * for its p99 in about half the runs that way.
 */
POL_FN u64 pol_real_stop(u64 stop_ns, bool slice_bound, u64 last_tick_ns, u64 tick_ns)
{
	u64 n;

	if (!slice_bound || !tick_ns || !last_tick_ns)
		return stop_ns;
	if (stop_ns <= last_tick_ns)
		return pol_add_sat(last_tick_ns, tick_ns);
	n = pol_div(pol_add_sat(stop_ns - last_tick_ns, tick_ns - 1), tick_ns);
	return pol_add_sat(last_tick_ns, pol_mul_sat(n, tick_ns));
}

/* Does the victim need an IPI, or will its next tick do? */
POL_FN bool pol_preempt_needs_ipi(u64 tick_wait_ns, u64 wait_max_ns)
{
	return tick_wait_ns > wait_max_ns;
}

/*
 * The tick period, learnt from the gaps between consecutive ticks of one CPU
 * (ops.tick runs only while one of our tasks runs, so a gap may span
 * several periods). Gaps under 100 us are not ticks (the first tick after a
 * stop may come early) and are ignored.
 *
 * This used to be the shortest gap ever seen. But a tick that comes late
 * (its vCPU or its interrupt held up) makes the next gap short by as much,
 * and the minimum kept that forever. In the VM (HZ=250) it read 3455-3895
 * us after 5 s of cyclictest under CPU hogs. Taken for the period, it put
 * victims' next ticks in the wrong place: slices were cut where an IPI was
 * needed, and ~1 % of the wakeups waited about a millisecond (p99 953 us in
 * the repetition that read 3455, ~200 us in the others; IPIs for 88-94 %
 * of preemptions in such runs instead of 99.8 %). Learnt as below: 3999-4008
 * us in six repetitions.
 *
 * So the estimate is voted on. A gap within 1/16 of the estimate agrees:
 * it raises the confidence (at most POL_TICK_CONF_MAX) and moves the
 * estimate by 1/8 of the difference. A gap within 1/16 of a whole number
 * of periods (ticks skipped while idle) changes nothing once the estimate
 * is trusted, and counts against it before: else a first gap of half the
 * period (after a tick late by that much) would be confirmed by every true
 * gap, as two of its periods. Any other gap lowers the confidence, and
 * replaces the estimate when there is none left. A late tick and the short
 * gap after it cost two votes; a wrong first estimate is replaced after a
 * few true gaps. It is used (pol_tick_period) only from POL_TICK_CONF_USE
 * votes on: only gaps of about one estimated period, seen that often,
 * make it trusted.
 *
 * State, one u64 so that CPUs racing on it never mix two halves: the
 * estimate in the low POL_TICK_EST_BITS bits (ns), the confidence above.
 */
#define POL_TICK_GAP_MIN_NS	(100ULL * POL_NSEC_PER_USEC)
#define POL_TICK_EST_BITS	40	/* ~18 min: any tick period fits */
#define POL_TICK_EST_MASK	((1ULL << POL_TICK_EST_BITS) - 1)
#define POL_TICK_CONF_MAX	16ULL
#define POL_TICK_CONF_USE	4ULL
#define POL_TICK_TOL_SHIFT	4	/* agreement: within 1/16 of a period */

POL_FN u64 pol_tick_pack(u64 est_ns, u64 conf)
{
	return (conf << POL_TICK_EST_BITS) | (est_ns & POL_TICK_EST_MASK);
}

/* The tick period a learnt state vouches for; 0 = not known yet. */
POL_FN u64 pol_tick_period(u64 state)
{
	if ((state >> POL_TICK_EST_BITS) < POL_TICK_CONF_USE)
		return 0;
	return state & POL_TICK_EST_MASK;
}

POL_FN u64 pol_tick_learn(u64 state, u64 gap_ns)
{
	u64 est = state & POL_TICK_EST_MASK, conf = state >> POL_TICK_EST_BITS;
	u64 k, whole;

	if (gap_ns < POL_TICK_GAP_MIN_NS || gap_ns > POL_TICK_EST_MASK)
		return state;
	if (!est || conf > POL_TICK_CONF_MAX)
		return pol_tick_pack(gap_ns, 1);
	/* The nearest whole number of periods, and how far the gap is from it. */
	k = pol_div(gap_ns + est / 2, est);
	whole = k * est;	/* < 2 * gap_ns + est: no overflow at 40 bits */
	if (k && pol_absdiff(gap_ns, whole) <= est >> POL_TICK_TOL_SHIFT) {
		if (k == 1) {
			est = gap_ns >= est ? est + ((gap_ns - est) >> 3) : est - ((est - gap_ns) >> 3);
			return pol_tick_pack(est, pol_min(conf + 1, POL_TICK_CONF_MAX));
		}
		if (conf >= POL_TICK_CONF_USE)
			return state;
	}
	if (conf > 1)
		return pol_tick_pack(est, conf - 1);
	return pol_tick_pack(gap_ns, 1);
}

/*
 * How many CPUs of the LLC are looked at for a victim: the previous CPU,
 * then the ones after it in id order. Upstream (and this scheduler before)
 * looked at two random ones besides the previous CPU: with 4 CPU hogs and 4
 * cyclictest threads on 4 CPUs they often fell on CPUs already claimed or
 * running another critical thread while a hog ran elsewhere, and that
 * wakeup then waited a whole slice (cyclictest p99 7.9 ms in the VM).
 */
#define POL_PREEMPT_CANDS	8

/* Claims tried on the chosen victim, its task re-judged after each failure. */
#define POL_PREEMPT_CLAIM_TRIES	3

/*
 * Should a waking task look for a victim at all? Not when greedy (it has had
 * more than its share), nor when it could preempt nobody (pol_preempt_bar).
 */
POL_FN bool pol_should_preempt(u32 lat_cri, u64 thr_lat_cri, bool greedy, const struct pol_cfg *c)
{
	if (c->flags & POL_CFG_NO_PREEMPTION)
		return false;
	return !greedy && pol_preempt_bar(lat_cri, thr_lat_cri) > 0;
}

/*
 * User-space locks, seen through futex system calls. Returning 0 from a
 * wait (or a PI lock) means the task was handed the lock it waited for;
 * waking waiters means it is giving one up. Uncontended locks never enter
 * the kernel and are not seen: an approximation, as upstream's.
 */
enum pol_futex_event { POL_FUTEX_NONE, POL_FUTEX_ACQUIRE, POL_FUTEX_RELEASE };

/* futex(2) command numbers (include/uapi/linux/futex.h), without the flag bits. */
#define POL_FUTEX_WAIT		0
#define POL_FUTEX_WAKE		1
#define POL_FUTEX_REQUEUE	3
#define POL_FUTEX_CMP_REQUEUE	4
#define POL_FUTEX_WAKE_OP	5
#define POL_FUTEX_LOCK_PI	6
#define POL_FUTEX_UNLOCK_PI	7
#define POL_FUTEX_TRYLOCK_PI	8
#define POL_FUTEX_WAIT_BITSET	9
#define POL_FUTEX_WAKE_BITSET	10
#define POL_FUTEX_WAIT_REQUEUE_PI 11
#define POL_FUTEX_LOCK_PI2	13
#define POL_FUTEX_CMD_MASK	0x7f	/* strips FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */

/* Classify a finished futex(2) call: op as passed, ret as returned. */
POL_FN enum pol_futex_event pol_futex_classify(u64 op, s64 ret)
{
	switch (op & POL_FUTEX_CMD_MASK) {
	case POL_FUTEX_WAIT:
	case POL_FUTEX_WAIT_BITSET:
	case POL_FUTEX_WAIT_REQUEUE_PI:
	case POL_FUTEX_LOCK_PI:
	case POL_FUTEX_LOCK_PI2:
	case POL_FUTEX_TRYLOCK_PI:
		return ret == 0 ? POL_FUTEX_ACQUIRE : POL_FUTEX_NONE;
	case POL_FUTEX_WAKE:
	case POL_FUTEX_WAKE_BITSET:
	case POL_FUTEX_WAKE_OP:
	case POL_FUTEX_REQUEUE:
	case POL_FUTEX_CMP_REQUEUE:
		/* Upstream is inconsistent here (ret >= 0 vs > 0, O11): a wake of nobody releases too. */
		return ret >= 0 ? POL_FUTEX_RELEASE : POL_FUTEX_NONE;
	case POL_FUTEX_UNLOCK_PI:
		return ret == 0 ? POL_FUTEX_RELEASE : POL_FUTEX_NONE;
	default:
		return POL_FUTEX_NONE;
	}
}

#endif /* __POL_PREEMPT_H */
