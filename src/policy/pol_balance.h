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
};

/* Queued weight per CPU, POL_SCALE per nice-0 task per CPU. */
POL_FN u64 pol_domain_load(const struct pol_domain *d)
{
	return pol_div(pol_mul_sat(d->queued_wgt, POL_SCALE), pol_max(d->nr_cpus, 1)) / 100;
}

/*
 * Most loaded domain other than self that has queued tasks and is not in
 * tried_mask (bit i = domain i already tried); ties go to the lower index.
 * Returns -1 if there is none. d must hold POL_MAX_DOMAINS entries (the BPF
 * verifier checks every index the loop could reach); n is clamped to it.
 */
POL_FN s32 pol_pick_stealee(const struct pol_domain *d, u32 n, u32 self, u64 tried_mask)
{
	s32 best = -1;
	u64 best_load = 0;
	int i;

	pol_for(i, n, POL_MAX_DOMAINS) {
		u64 load;

		if ((u32)i == self || (tried_mask & (1ULL << i)) || !d[i].nr_queued)
			continue;
		load = pol_domain_load(&d[i]);
		if (best < 0 || load > best_load) {
			best = (s32)i;
			best_load = load;
		}
	}
	return best;
}

#endif /* __POL_BALANCE_H */
