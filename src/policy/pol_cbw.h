/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pol_cbw.h - cgroup CPU bandwidth (cpu.max), enforced "eventually".
 *
 * A cgroup's cpu.max "QUOTA PERIOD" allows QUOTA µs of CPU time every
 * PERIOD µs. We do not stop a cgroup exactly at its limit inside a period:
 * the BPF side charges run time as it is accounted (every tick and at every
 * stop), throttles the cgroup once the period's budget is spent, and the
 * little it ran past the budget (one tick per running task, at most) is
 * debt taken off the next period. So the long-run use converges to the
 * quota, which is what upstream scx_lavd --enable-cpu-bw promises too.
 *
 * Every quota is normalised to one 100 ms period (POL_CBW_PERIOD_NS), so a
 * single timer serves every cgroup:
 *   nquota = ceil(quota_us * 100 ms / period_us)         (in ns per 100 ms)
 * "max" (the kernel passes U64_MAX) stays unlimited and never throttles.
 * A child's effective quota is min(own, parent's effective quota). The
 * parent's quota also bounds the sum of its children: the BPF side charges
 * a task's run time to every limited cgroup on its way up (struct
 * pol_cbw_chain) and a task is throttled while any of them is.
 *
 * Each period is a token bucket (pol_cbw_replenish):
 *   debt   = max(used - budget, 0)
 *   credit = min(max(budget - used, 0), burst)            (cpu.max.burst)
 *   budget = nquota_ub * elapsed / 100 ms + credit - debt
 * and the cgroup is throttled while used >= budget (pol_cbw_spent).
 *
 * Where this differs from upstream (lib/cgroup_bw.bpf.c), and why:
 *  - upstream accumulates run time per (cgroup, LLC) and decides throttling
 *    in an adaptive 1-20 ms accounting timer that walks the cgroup tree;
 *    here the charge itself decides (a shared counter per limited cgroup),
 *    so a cgroup stops within one tick of its budget and no tree walk runs
 *    in a timer. The price is one atomic add per limited cgroup on the way
 *    up, per charge.
 *  - upstream keeps a burst allowance that refills at each cpu.max period;
 *    here unused budget simply carries over, capped at the burst
 *    (normalised like the quota): one rule, the same long-run average.
 *  - the grant follows the timer's real elapsed time (capped at 4
 *    periods), so a late timer round does not shrink the quota.
 *  - debt is capped at POL_CBW_DEBT_PERIODS periods of quota, and a finite
 *    quota is at least POL_CBW_QUOTA_MIN: a throttled task always runs
 *    again within about a second, far from the 30 s sched_ext watchdog.
 *    (The kernel's own minimum is 1 ms per period of at most 1 s, i.e.
 *    100 µs per 100 ms: the floor never changes a quota the kernel accepts.)
 *  - no consumption-rate estimate: it only served upstream's adaptive
 *    accounting interval, which we do not need.
 */
#ifndef __POL_CBW_H
#define __POL_CBW_H

#include "pol_base.h"

#define POL_CBW_PERIOD_NS	(100ULL * POL_NSEC_PER_MSEC)
/* "max": no limit (the kernel's RUNTIME_INF for quota_us as well). */
#define POL_CBW_INF		POL_U64_MAX
/* Finite quotas are capped here (about 36 years per 100 ms), so sums stay in s64. */
#define POL_CBW_QUOTA_MAX	(1ULL << 60)
/* ...and floored here: 0.1 % of one CPU. */
#define POL_CBW_QUOTA_MIN	(100ULL * POL_NSEC_PER_USEC)
/* Debt never exceeds this many periods of quota. */
#define POL_CBW_DEBT_PERIODS	10
/* A late timer round grants at most this many periods at once. */
#define POL_CBW_GRANT_PERIODS	4
/* Limited cgroups charged per task: itself and its nearest limited ancestors. */
#define POL_CBW_CHAIN_MAX	4

_Static_assert((POL_CBW_CHAIN_MAX & (POL_CBW_CHAIN_MAX - 1)) == 0, "chain index is masked");

/* Bandwidth state of one cgroup. */
struct pol_cbw {
	u64 nquota;		/* own limit, ns per 100 ms; POL_CBW_INF: none */
	u64 nquota_ub;		/* effective: min(own, parent's nquota_ub) */
	u64 nburst;		/* unused budget that may carry over, ns */
	s64 budget;		/* allowance of this period; <= 0: in debt */
	u64 nr_periods;		/* replenished periods */
	u64 nr_throttled;	/* ... that ended throttled */
	u32 throttled;		/* budget spent: its tasks wait */
	u32 pad;
};

/*
 * The limited cgroups a task of this cgroup is charged to, nearest first:
 * the cgroup itself if it has a limit, then its ancestors that have one.
 */
struct pol_cbw_chain {
	u64 id[POL_CBW_CHAIN_MAX];
	u32 n;
	u32 pad;
};

/*
 * us per period_us, normalised to ns per 100 ms, rounded up:
 * ceil(us * 1e8 / period_us), computed without overflow as
 * (us / p) * 1e8 + ceil((us % p) * 1e8 / p), saturating.
 */
POL_FN u64 pol_cbw_norm(u64 us, u64 period_us)
{
	u64 q = pol_div(us, period_us);
	u64 r = us - q * period_us;
	u64 hi = pol_mul_sat(q, POL_CBW_PERIOD_NS);
	u64 lo;

	if (r <= POL_U64_MAX / POL_CBW_PERIOD_NS) {
		lo = pol_div(r * POL_CBW_PERIOD_NS, period_us);
		if (lo * period_us != r * POL_CBW_PERIOD_NS)
			lo++;	/* round up */
	} else {
		/* only for a period above 1.8e11 us (two days): close enough */
		lo = pol_div(r, pol_div(period_us, POL_CBW_PERIOD_NS)) + 1;
	}
	return pol_add_sat(hi, lo);
}

/*
 * Normalised quota of cpu.max "quota_us period_us": POL_CBW_INF for "max"
 * (U64_MAX) or a zero period, else within [QUOTA_MIN, QUOTA_MAX].
 */
POL_FN u64 pol_cbw_nquota(u64 quota_us, u64 period_us)
{
	if (quota_us == POL_CBW_INF || !period_us)
		return POL_CBW_INF;
	return pol_clamp(pol_cbw_norm(quota_us, period_us), POL_CBW_QUOTA_MIN,
			 POL_CBW_QUOTA_MAX);
}

/* Normalised cpu.max.burst: 0 when none, never unlimited. */
POL_FN u64 pol_cbw_nburst(u64 burst_us, u64 period_us)
{
	if (!period_us || !burst_us)
		return 0;
	return pol_min(pol_cbw_norm(burst_us, period_us), POL_CBW_QUOTA_MAX);
}

/* A child's effective quota: its own, or its parent's if that is lower. */
POL_FN u64 pol_cbw_eff_quota(u64 own, u64 parent_ub)
{
	return pol_min(own, parent_ub);
}

POL_FN bool pol_cbw_limited(const struct pol_cbw *c)
{
	return c->nquota_ub != POL_CBW_INF;
}

/*
 * (Re)configure: a new limit starts a fresh period with the full budget,
 * unthrottled; the next charge or replenish decides again.
 */
POL_FN void pol_cbw_configure(struct pol_cbw *c, u64 nquota, u64 nquota_ub, u64 nburst)
{
	c->nquota = nquota;
	c->nquota_ub = pol_cbw_eff_quota(nquota, nquota_ub);
	c->nburst = pol_min(nburst, POL_CBW_QUOTA_MAX);
	c->budget = pol_cbw_limited(c) ? (s64)pol_min(c->nquota_ub, POL_CBW_QUOTA_MAX) : 0;
	c->throttled = 0;
}

/*
 * Quota earned over elapsed_ns of wall time: nquota_ub per 100 ms, for at
 * most POL_CBW_GRANT_PERIODS periods (0 counts as one period).
 * Split as (ub / P) * e + (ub % P) * e / P: neither product overflows for
 * ub <= QUOTA_MAX and e <= 4 P.
 */
POL_FN u64 pol_cbw_grant(u64 nquota_ub, u64 elapsed_ns)
{
	u64 e = elapsed_ns ? pol_min(elapsed_ns, POL_CBW_GRANT_PERIODS * POL_CBW_PERIOD_NS) :
			     POL_CBW_PERIOD_NS;
	u64 ub = pol_min(nquota_ub, POL_CBW_QUOTA_MAX);
	u64 q = pol_div(ub, POL_CBW_PERIOD_NS);
	u64 r = ub - q * POL_CBW_PERIOD_NS;

	return q * e + pol_div(r * e, POL_CBW_PERIOD_NS);
}

/*
 * Is the budget of this period spent, with used_ns charged so far? This is
 * the throttle decision. An unlimited cgroup never is.
 */
POL_FN bool pol_cbw_spent(const struct pol_cbw *c, u64 used_ns)
{
	if (!pol_cbw_limited(c))
		return false;
	if (c->budget <= 0)
		return true;
	return used_ns >= (u64)c->budget;
}

/*
 * End of a period: the cgroup used used_ns (charged since the last
 * replenish) and elapsed_ns of wall time passed. Overspend becomes debt,
 * underspend carries over up to the burst, and the new period's quota is
 * added. Throttled afterwards only if still in debt.
 */
POL_FN void pol_cbw_replenish(struct pol_cbw *c, u64 used_ns, u64 elapsed_ns)
{
	const s64 lim = (s64)(2 * POL_CBW_QUOTA_MAX);
	u64 debt_max;
	s64 left;

	if (!pol_cbw_limited(c)) {
		c->budget = 0;
		c->throttled = 0;
		return;
	}
	c->nr_periods++;
	if (c->throttled)
		c->nr_throttled++;
	/* Both terms within +-2^61: the difference cannot overflow. */
	left = c->budget > lim ? lim : c->budget < -lim ? -lim : c->budget;
	left -= (s64)pol_min(used_ns, (u64)lim);
	debt_max = pol_min(pol_mul_sat(c->nquota_ub, POL_CBW_DEBT_PERIODS), (u64)lim);
	if (left > 0)
		left = (s64)pol_min((u64)left, c->nburst);
	else if ((u64)-left > debt_max)
		left = -(s64)debt_max;
	c->budget = left + (s64)pol_cbw_grant(c->nquota_ub, elapsed_ns);
	c->throttled = c->budget <= 0;
}

/*
 * The chain of a cgroup from its parent's: itself first if it is limited,
 * then the parent's chain, the farthest dropped past POL_CBW_CHAIN_MAX.
 * parent may be NULL (the root, or a parent we do not know).
 */
POL_FN void pol_cbw_chain_build(struct pol_cbw_chain *out, const struct pol_cbw_chain *parent,
				u64 self_id, bool self_limited)
{
	u32 off = self_limited ? 1 : 0;
	u32 pn = parent ? (u32)pol_min(parent->n, POL_CBW_CHAIN_MAX) : 0;
	int k;

	/*
	 * Slot k holds the parent's slot k - off. No counter carried across
	 * iterations: under BPF the verifier widens such a counter in an
	 * open-coded loop and then cannot bound an index made from it.
	 */
	pol_for(k, POL_CBW_CHAIN_MAX, POL_CBW_CHAIN_MAX) {
		u32 j = (u32)k - off;

		if ((u32)k < off)
			out->id[k] = self_id;
		else if (j < pn)
			out->id[k] = parent->id[j];
		else
			out->id[k] = 0;
	}
	out->n = (u32)pol_min(pn + off, POL_CBW_CHAIN_MAX);
	out->pad = 0;
}

#endif /* __POL_CBW_H */
