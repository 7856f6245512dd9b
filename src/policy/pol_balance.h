/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pol_balance.h - choosing where an idle CPU pulls work from.
 *
 * Each LLC has one dispatch queue. A CPU that finds its own LLC's queue
 * empty pulls from another LLC; the victim domain is the one with the most
 * queued *weight* per CPU (balance by weight, not by task count: one nice -10
 * task is as much load as ten nice 0 tasks).
 */
#ifndef __POL_BALANCE_H
#define __POL_BALANCE_H

#include "pol_base.h"

#define POL_MAX_DOMAINS	64

/* Load of one domain (LLC), kept up to date by enqueue and running. */
struct pol_domain {
	u64 queued_wgt;	/* sum of weights of queued tasks */
	u64 nr_queued;	/* number of queued tasks */
	u64 nr_cpus;	/* CPUs that consume this domain's queue */
	u64 run_wgt;	/* weights of the tasks running on its CPUs, at the round */
};

/* Queued weight per CPU, POL_SCALE per nice-0 task per CPU. */
POL_FN u64 pol_domain_load(const struct pol_domain *d)
{
	return pol_div(pol_mul_sat(d->queued_wgt, POL_SCALE), pol_max(d->nr_cpus, 1)) / 100;
}

/*
 * Most loaded domain other than self that has queued tasks and whose bit is
 * set in allowed (bit i = domain i); ties go to the lower index. Returns -1
 * if there is none. d must hold POL_MAX_DOMAINS entries (the BPF verifier
 * checks every index the loop could reach); n is clamped to it.
 */
POL_FN s32 pol_most_loaded(const struct pol_domain *d, u32 n, u32 self, u64 allowed)
{
	s32 best = -1;
	u64 best_load = 0;
	int i;

	pol_for(i, n, POL_MAX_DOMAINS) {
		u64 load;

		if ((u32)i == self || !(allowed & (1ULL << i)) || !d[i].nr_queued)
			continue;
		load = pol_domain_load(&d[i]);
		if (best < 0 || load > best_load) {
			best = (s32)i;
			best_load = load;
		}
	}
	return best;
}

/* Where a CPU whose queue ran dry pulls from: not a domain in tried_mask. */
POL_FN s32 pol_pick_stealee(const struct pol_domain *d, u32 n, u32 self, u64 tried_mask)
{
	return pol_most_loaded(d, n, self, ~tried_mask);
}

/*
 * Dispatch from a shared queue: the head is its earliest deadline, but it
 * may sit on another CPU's run queue, and moving it takes that run queue's
 * lock as well as ours. A task whose run queue is the dispatching CPU's
 * costs neither (the kernel moves it without a migration). So a CPU looks
 * at the first POL_LOCAL_SCAN tasks (each step takes the queue's lock:
 * few) and takes the first of its own whose deadline is within
 * POL_LOCAL_SKIP_NS of real time of the head's (pol_local_pick_ok); else
 * the head.
 *
 * Why it is bounded: the head's own CPU always takes it first, and a
 * later task passes an earlier one by at most the deadline span of
 * POL_LOCAL_SKIP_NS (pol_local_span). Deadlines are in the clock's units:
 * with every CPU busy the clock passes a span L in about L x avg_lat_cri
 * of real time (pol_clock_service), so the real bound maps to
 * POL_LOCAL_SKIP_NS / avg_lat_cri of deadline. Once the clock is past the
 * head's deadline plus that span, tasks queued after it cannot pass it.
 *
 * Not kept: never passing over a head that has waited 1 ms (its age from
 * ops.runnable). At saturation heads are often that old: local picks fell
 * by a third and requests/s by 0.8 % (8580-8632 against 8684-8694, one
 * boot, three runs each), and cyclictest's wake-up maximum under hogs did
 * not improve (26-50 ms against 33-52). That maximum is not a queue wait:
 * the scheduler's own longest wait in the same runs read 8-14 ms, and
 * EEVDF's maximum in the suite ranges from 2 ms to 1.2 s in one VM.
 *
 * A CPU whose task was cut short for a waiting task (preemption) takes
 * the head without looking (dsq.bpf.c): otherwise it took back the task
 * it had just put back, its own and near the head, and the woken task
 * waited for the next CPU to dispatch (cyclictest under CPU hogs, one VM
 * boot: wake-up max 23-33 ms in three runs, 8.0-8.1 ms with the rule).
 *
 * In the VM at saturation (lavd-schbench -m 2 -t 8, 4 CPUs, 8 s, three
 * repetitions), ops.dispatch went from 21.2 to 15.4 us on average and the
 * requests/s from 8407-8434 to 8480-8520.
 */
#define POL_LOCAL_SCAN		4
#define POL_LOCAL_SKIP_NS	(1ULL * POL_NSEC_PER_MSEC)

/* How far past the head's deadline a CPU's own task may be, in deadline units. */
POL_FN u64 pol_local_span(u64 avg_lat_cri)
{
	return pol_div(POL_LOCAL_SKIP_NS, pol_max(avg_lat_cri, 1));
}

POL_FN bool pol_local_pick_ok(u64 head_dl, u64 cand_dl, u64 span)
{
	return cand_dl <= pol_add_sat(head_dl, span);
}

enum {
	POL_BAL_NEUTRAL = 0,
	POL_BAL_STEALER = 1,	/* pulls from stealees before its own queue */
	POL_BAL_STEALEE = 2,	/* gives to stealers */
};

/* A domain's role for one period and how much weight it may still move. */
struct pol_dom_plan {
	u64 role;		/* POL_BAL_* */
	u64 budget_wgt;		/* weight still to pull in (stealer) or give (stealee) */
};

struct pol_bal_sum {
	u64 total_wgt;	/* load of all domains */
	u64 total_cpus;
	u64 nr_busy;	/* domains with queued work */
};

/*
 * The sums go through memory (sum, written with volatile stores): a sum
 * kept in a register is exact for the BPF verifier, which then cannot
 * merge the loop's states and gives up ("sequence of jumps is too
 * complex"); loaded from memory it is just a number.
 */
POL_FN void pol_bal_add(u64 *acc, u64 v)
{
	*(volatile u64 *)acc = *(volatile u64 *)acc + v;
}

/*
 * Plan one period. A domain's load is the weight it runs and queues (what
 * the CPUs of an LLC must get through); its fair share is the total load times
 * its share of the CPUs; it is a stealer at or below fair - band, with a
 * budget of half the gap (pulling the whole gap overshoots: the stealee's
 * CPUs keep consuming meanwhile), a stealee at or above fair + band with
 * queued work, likewise. The band is fair / 16 (upstream's band when every
 * domain is loaded), or band_pct % of fair (--mig-delta-pct, 1..100; a
 * wider band moves less, and at 100 % only a domain with nothing, or twice
 * its share, takes part). Returns the number of stealees; with fewer than
 * two domains, or a domain with an empty queue, every domain is neutral.
 */
POL_FN u32 pol_plan_balance(const struct pol_domain *d, u32 n, struct pol_dom_plan *plan,
			    struct pol_bal_sum *sum, u32 band_pct)
{
	u32 nr_stealees = 0;
	u64 total_wgt, total_cpus;
	int i;

	sum->total_wgt = 0;
	sum->total_cpus = 0;
	sum->nr_busy = 0;
	pol_for(i, n, POL_MAX_DOMAINS) {
		plan[i].role = POL_BAL_NEUTRAL;
		plan[i].budget_wgt = 0;
		pol_bal_add(&sum->total_wgt, d[i].queued_wgt + d[i].run_wgt);
		pol_bal_add(&sum->total_cpus, d[i].nr_cpus);
		pol_bal_add(&sum->nr_busy, d[i].nr_queued ? 1 : 0);
	}
	total_wgt = *(volatile u64 *)&sum->total_wgt;
	total_cpus = *(volatile u64 *)&sum->total_cpus;
	/*
	 * While some queue is empty its CPUs pull by themselves when they run
	 * dry (pol_pick_stealee), at once and by what waits now; a plan made
	 * from a 10 ms sample only adds stale moves then (on the simulator's
	 * 8-LLC server under an intermittent load it raised the imbalance by
	 * 40 %). Plan only when every queue holds work.
	 */
	if (n < 2 || !total_wgt || !total_cpus ||
	    *(volatile u64 *)&sum->nr_busy < pol_min(n, POL_MAX_DOMAINS))
		return 0;
	pol_for(i, n, POL_MAX_DOMAINS) {
		u64 fair = pol_div(pol_mul_sat(total_wgt, d[i].nr_cpus), total_cpus);
		u64 band = band_pct ? pol_mul_sat(fair, pol_min(band_pct, 100)) / 100 : fair >> 4;
		u64 load = d[i].queued_wgt + d[i].run_wgt;

		if (!d[i].nr_cpus)
			continue;
		if (load + band <= fair) {
			plan[i].role = POL_BAL_STEALER;
			plan[i].budget_wgt = (fair - load) / 2;
		} else if (d[i].nr_queued && load >= fair + band && load > fair) {
			plan[i].role = POL_BAL_STEALEE;
			plan[i].budget_wgt = (load - fair) / 2;
			nr_stealees++;
		}
		if (!plan[i].budget_wgt)
			plan[i].role = POL_BAL_NEUTRAL;
	}
	return nr_stealees;
}

/*
 * For a CPU of domain self: the stealee to pull from now, the most loaded
 * one with budget and queued work; -1 if self is not a stealer with budget
 * or there is none.
 */
POL_FN s32 pol_pick_planned(const struct pol_domain *d, const struct pol_dom_plan *plan,
			    u32 n, u32 self)
{
	u64 stealees = 0;
	int i;

	if (self >= POL_MAX_DOMAINS || self >= n || plan[self].role != POL_BAL_STEALER ||
	    !plan[self].budget_wgt)
		return -1;
	pol_for(i, n, POL_MAX_DOMAINS) {
		if (plan[i].role == POL_BAL_STEALEE && plan[i].budget_wgt)
			stealees |= 1ULL << i;
	}
	return pol_most_loaded(d, n, self, stealees);
}

/* Average weight of a queued task of d (the estimate of what a pull moves). */
POL_FN u64 pol_domain_avg_wgt(const struct pol_domain *d)
{
	return d->nr_queued ? d->queued_wgt / d->nr_queued : 0;
}

/* A pull of wgt moved: charge both budgets; a spent budget ends the role. */
POL_FN void pol_plan_charge(struct pol_dom_plan *stealer, struct pol_dom_plan *stealee, u64 wgt)
{
	wgt = pol_max(wgt, 1);
	stealer->budget_wgt = pol_sub_sat(stealer->budget_wgt, wgt);
	stealee->budget_wgt = pol_sub_sat(stealee->budget_wgt, wgt);
	if (!stealer->budget_wgt)
		stealer->role = POL_BAL_NEUTRAL;
	if (!stealee->budget_wgt)
		stealee->role = POL_BAL_NEUTRAL;
}

#endif /* __POL_BALANCE_H */
