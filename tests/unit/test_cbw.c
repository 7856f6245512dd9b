/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host unit tests of cgroup CPU bandwidth (src/policy/pol_cbw.h), run under
 * ASan/UBSan: quota normalisation, the effective quota, the per-period token
 * bucket, the throttle decision, the charge chain, and multi-period runs
 * whose long-run use must converge to the quota.
 */
#include "../harness.h"
#include "policy/pol.h"

#define MS	POL_NSEC_PER_MSEC
#define US	POL_NSEC_PER_USEC
#define P	POL_CBW_PERIOD_NS

/* ---- normalisation ---- */

TEST(nquota_edges)
{
	CHECK_EQ(pol_cbw_nquota(POL_U64_MAX, 100000), POL_CBW_INF);	/* "max" */
	CHECK_EQ(pol_cbw_nquota(20000, 0), POL_CBW_INF);		/* no period */
	CHECK_EQ(pol_cbw_nquota(20000, 100000), 20 * MS);		/* 20 % */
	CHECK_EQ(pol_cbw_nquota(100000, 100000), 100 * MS);		/* one CPU */
	CHECK_EQ(pol_cbw_nquota(250000, 100000), 250 * MS);		/* 2.5 CPUs */
	CHECK_EQ(pol_cbw_nquota(50000, 1000000), 5 * MS);		/* 5 % over 1 s */
	CHECK_EQ(pol_cbw_nquota(1000, 1000), 100 * MS);			/* kernel's min period */
	CHECK_EQ(pol_cbw_nquota(1, 3), 33333334);			/* rounded up */
	CHECK_EQ(pol_cbw_nquota(2, 3), 66666667);
	/* Below the floor: 0, and 1 us per second (100 ns per 100 ms). */
	CHECK_EQ(pol_cbw_nquota(0, 100000), POL_CBW_QUOTA_MIN);
	CHECK_EQ(pol_cbw_nquota(1, 1000000), POL_CBW_QUOTA_MIN);
	/* The kernel's smallest quota (1 ms) over its longest period (1 s) is the floor. */
	CHECK_EQ(pol_cbw_nquota(1000, 1000000), POL_CBW_QUOTA_MIN);
	/* Overflowing products saturate to the cap, never wrap or become "max". */
	CHECK_EQ(pol_cbw_nquota(POL_U64_MAX - 1, 1), POL_CBW_QUOTA_MAX);
	CHECK_EQ(pol_cbw_nquota(1ULL << 44, 1000), POL_CBW_QUOTA_MAX);
	CHECK_EQ(pol_cbw_nquota(1ULL << 40, 1ULL << 40), 100 * MS);
}

TEST(norm_matches_128bit)
{
	u64 x = 0x243f6a8885a308d3ULL;

	for (int i = 0; i < 200000; i++) {
		unsigned __int128 want;
		u64 us, p, got;

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		us = x >> (x & 63);
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		p = (x >> (x & 63)) | 1;
		got = pol_cbw_norm(us, p);
		want = ((unsigned __int128)us * P + p - 1) / p;
		if (want >> 64)
			want = POL_U64_MAX;
		if (p <= POL_U64_MAX / P) {
			CHECK_EQ(got, (u64)want);
		} else {
			/*
			 * Periods over two days divide by floor(p / 1e8) >= 1844:
			 * at most 1/1844 high.
			 */
			CHECK(got + 2 >= (u64)want && got <= (u64)want + (u64)want / 1844 + 2);
		}
	}
}

TEST(nburst_edges)
{
	CHECK_EQ(pol_cbw_nburst(0, 100000), 0);
	CHECK_EQ(pol_cbw_nburst(10000, 0), 0);
	CHECK_EQ(pol_cbw_nburst(10000, 100000), 10 * MS);
	CHECK_EQ(pol_cbw_nburst(1, 100000), 1000);		/* no floor for the burst */
	CHECK_EQ(pol_cbw_nburst(POL_U64_MAX, 1), POL_CBW_QUOTA_MAX); /* never unlimited */
}

TEST(eff_quota)
{
	CHECK_EQ(pol_cbw_eff_quota(POL_CBW_INF, POL_CBW_INF), POL_CBW_INF);
	CHECK_EQ(pol_cbw_eff_quota(50 * MS, POL_CBW_INF), 50 * MS);
	CHECK_EQ(pol_cbw_eff_quota(POL_CBW_INF, 20 * MS), 20 * MS);
	CHECK_EQ(pol_cbw_eff_quota(50 * MS, 20 * MS), 20 * MS);
	CHECK_EQ(pol_cbw_eff_quota(10 * MS, 20 * MS), 10 * MS);
	CHECK_EQ(pol_cbw_eff_quota(0, 0), 0);
}

/* ---- state ---- */

TEST(configure_and_spent)
{
	struct pol_cbw c = { 0 };

	memset(&c, 0xa5, sizeof(c));
	pol_cbw_configure(&c, POL_CBW_INF, POL_CBW_INF, 5 * MS);
	CHECK(!pol_cbw_limited(&c));
	CHECK_EQ(c.budget, 0);
	CHECK(!pol_cbw_spent(&c, 0));
	CHECK(!pol_cbw_spent(&c, POL_U64_MAX));	/* "max" never throttles */

	pol_cbw_configure(&c, 50 * MS, 20 * MS, 0);	/* parent's is lower */
	CHECK_EQ(c.nquota, 50 * MS);
	CHECK_EQ(c.nquota_ub, 20 * MS);
	CHECK_EQ(c.budget, 20 * MS);
	CHECK_EQ(c.throttled, 0);
	CHECK(!pol_cbw_spent(&c, 0));
	CHECK(!pol_cbw_spent(&c, 20 * MS - 1));
	CHECK(pol_cbw_spent(&c, 20 * MS));
	CHECK(pol_cbw_spent(&c, POL_U64_MAX));
	c.budget = 0;
	CHECK(pol_cbw_spent(&c, 0));
	c.budget = -1;
	CHECK(pol_cbw_spent(&c, 0));
	c.budget = INT64_MIN;
	CHECK(pol_cbw_spent(&c, 0));
	c.budget = INT64_MAX;
	CHECK(!pol_cbw_spent(&c, (POL_U64_MAX >> 1) - 1));
	CHECK(pol_cbw_spent(&c, POL_U64_MAX >> 1));

	/* An out-of-range effective quota still gives a positive budget. */
	pol_cbw_configure(&c, POL_U64_MAX - 1, POL_U64_MAX - 1, POL_U64_MAX);
	CHECK(pol_cbw_limited(&c));
	CHECK_EQ(c.budget, POL_CBW_QUOTA_MAX);
	CHECK_EQ(c.nburst, POL_CBW_QUOTA_MAX);
}

TEST(grant)
{
	CHECK_EQ(pol_cbw_grant(20 * MS, 0), 20 * MS);		/* 0: one period */
	CHECK_EQ(pol_cbw_grant(20 * MS, P), 20 * MS);
	CHECK_EQ(pol_cbw_grant(20 * MS, P / 2), 10 * MS);
	CHECK_EQ(pol_cbw_grant(20 * MS, 110 * MS), 22 * MS);	/* a late timer round */
	CHECK_EQ(pol_cbw_grant(20 * MS, 2 * P), 40 * MS);
	CHECK_EQ(pol_cbw_grant(20 * MS, 100 * P), POL_CBW_GRANT_PERIODS * 20 * MS);
	CHECK_EQ(pol_cbw_grant(20 * MS, POL_U64_MAX), POL_CBW_GRANT_PERIODS * 20 * MS);
	CHECK_EQ(pol_cbw_grant(0, P), 0);
	CHECK_EQ(pol_cbw_grant(1, P), 1);
	CHECK_EQ(pol_cbw_grant(POL_CBW_QUOTA_MAX, 4 * P), 4 * POL_CBW_QUOTA_MAX);
	CHECK_EQ(pol_cbw_grant(POL_U64_MAX, P), POL_CBW_QUOTA_MAX);
	CHECK_EQ(pol_cbw_grant(POL_CBW_QUOTA_MAX - 1, 3 * P + 1),
		 (u64)(((unsigned __int128)(POL_CBW_QUOTA_MAX - 1) * (3 * P + 1)) / P));
}

TEST(replenish_debt_credit)
{
	struct pol_cbw c = { 0 };

	pol_cbw_configure(&c, 20 * MS, POL_CBW_INF, 0);
	/* 8 ms over: 8 ms of debt off the next period. */
	pol_cbw_replenish(&c, 28 * MS, P);
	CHECK_EQ(c.budget, 12 * MS);
	CHECK_EQ(c.throttled, 0);
	/* Under-spend without a burst is lost. */
	pol_cbw_replenish(&c, 2 * MS, P);
	CHECK_EQ(c.budget, 20 * MS);
	/* Exactly the budget: nothing owed, nothing carried. */
	pol_cbw_replenish(&c, 20 * MS, P);
	CHECK_EQ(c.budget, 20 * MS);
	CHECK_EQ(c.nr_periods, 3);
	CHECK_EQ(c.nr_throttled, 0);

	/* With a 10 ms burst, unused budget carries over up to 10 ms. */
	pol_cbw_configure(&c, 20 * MS, POL_CBW_INF, 10 * MS);
	pol_cbw_replenish(&c, 15 * MS, P);
	CHECK_EQ(c.budget, 25 * MS);
	pol_cbw_replenish(&c, 0, P);
	CHECK_EQ(c.budget, 30 * MS);
	pol_cbw_replenish(&c, 0, P);
	CHECK_EQ(c.budget, 30 * MS);	/* capped: quota + burst */
}

TEST(replenish_throttled_while_in_debt)
{
	struct pol_cbw c = { 0 };

	pol_cbw_configure(&c, 20 * MS, POL_CBW_INF, 0);
	c.throttled = 1;
	/* 45 ms used: 25 over, more than one period's quota. */
	pol_cbw_replenish(&c, 45 * MS, P);
	CHECK_EQ(c.budget, -5 * MS);
	CHECK_EQ(c.throttled, 1);
	CHECK(pol_cbw_spent(&c, 0));
	CHECK_EQ(c.nr_throttled, 1);
	pol_cbw_replenish(&c, 0, P);
	CHECK_EQ(c.budget, 15 * MS);
	CHECK_EQ(c.throttled, 0);
	CHECK_EQ(c.nr_throttled, 2);
}

TEST(replenish_debt_capped)
{
	struct pol_cbw c = { 0 };
	int periods = 0;

	/* A huge overspend (a whole minute at once) is throttled for a bounded time. */
	pol_cbw_configure(&c, 20 * MS, POL_CBW_INF, 0);
	pol_cbw_replenish(&c, 60000 * MS, P);
	CHECK_EQ(c.budget, -(s64)(POL_CBW_DEBT_PERIODS * 20 * MS) + (s64)(20 * MS));
	while (c.throttled && periods < 100) {
		pol_cbw_replenish(&c, 0, P);
		periods++;
	}
	CHECK(periods <= POL_CBW_DEBT_PERIODS);
	/* The floor quota repays the capped debt within the same bound. */
	pol_cbw_configure(&c, pol_cbw_nquota(0, 100000), POL_CBW_INF, 0);
	pol_cbw_replenish(&c, POL_U64_MAX, POL_U64_MAX);
	for (periods = 0; c.throttled && periods < 100; periods++)
		pol_cbw_replenish(&c, 0, P);
	CHECK(periods <= POL_CBW_DEBT_PERIODS);
}

TEST(replenish_unlimited_and_extremes)
{
	struct pol_cbw c = { 0 };

	pol_cbw_configure(&c, POL_CBW_INF, POL_CBW_INF, 0);
	c.throttled = 1;
	c.budget = -5;
	pol_cbw_replenish(&c, POL_U64_MAX, P);
	CHECK_EQ(c.throttled, 0);
	CHECK_EQ(c.budget, 0);
	CHECK_EQ(c.nr_periods, 0);

	/* Garbage in the state never overflows (UBSan watches). */
	pol_cbw_configure(&c, 20 * MS, POL_CBW_INF, POL_U64_MAX);
	c.budget = INT64_MIN;
	pol_cbw_replenish(&c, POL_U64_MAX, POL_U64_MAX);
	CHECK(c.throttled);
	c.budget = INT64_MAX;
	pol_cbw_replenish(&c, 0, POL_U64_MAX);
	CHECK(!c.throttled);
	c.nquota_ub = POL_U64_MAX - 1;
	c.budget = INT64_MAX;
	pol_cbw_replenish(&c, 0, POL_U64_MAX);
	CHECK(c.budget > 0);
	c.budget = INT64_MIN;
	pol_cbw_replenish(&c, POL_U64_MAX, 0);
	CHECK(c.budget < 0);
}

/* ---- chain ---- */

TEST(chain_build)
{
	struct pol_cbw_chain a, b, c, d, e, f;

	pol_cbw_chain_build(&a, NULL, 7, false);
	CHECK_EQ(a.n, 0);
	pol_cbw_chain_build(&a, NULL, 7, true);
	CHECK_EQ(a.n, 1);
	CHECK_EQ(a.id[0], 7);
	CHECK_EQ(a.id[1], 0);
	pol_cbw_chain_build(&b, &a, 8, false);		/* unlimited child */
	CHECK_EQ(b.n, 1);
	CHECK_EQ(b.id[0], 7);
	pol_cbw_chain_build(&c, &b, 9, true);
	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.id[0], 9);
	CHECK_EQ(c.id[1], 7);
	pol_cbw_chain_build(&d, &c, 10, true);
	pol_cbw_chain_build(&e, &d, 11, true);
	CHECK_EQ(e.n, 4);
	pol_cbw_chain_build(&f, &e, 12, true);		/* the farthest drops out */
	CHECK_EQ(f.n, 4);
	CHECK_EQ(f.id[0], 12);
	CHECK_EQ(f.id[1], 11);
	CHECK_EQ(f.id[2], 10);
	CHECK_EQ(f.id[3], 9);
	pol_cbw_chain_build(&f, &e, 12, false);
	CHECK_EQ(f.n, 4);
	CHECK_EQ(f.id[0], 11);
	e.n = 0xffffffff;				/* a corrupt count is bounded */
	pol_cbw_chain_build(&f, &e, 12, true);
	CHECK_EQ(f.n, 4);
}

/* ---- multi-period runs ---- */

/*
 * A cgroup of nr_cpus CPU hogs (or less, demand_pct of each CPU) under
 * nquota, as the BPF side runs it: every tick each running hog charges the
 * tick, then the cgroup is throttled if the budget is spent (so it
 * overspends up to one tick per hog); timer rounds come every 90..120 ms.
 * Returns the long-run use in per mille of one CPU, after a warm-up.
 */
struct run {
	u64 nquota, nburst, tick_ns;
	int nr_cpus, periods;
	int max_streak;		/* longest run of throttled period starts */
};

static u64 run_periods(struct run *r)
{
	struct pol_cbw c = { 0 };
	u64 x = 0x9e3779b97f4a7c15ULL, used_total = 0, wall_total = 0;
	int streak = 0;

	pol_cbw_configure(&c, r->nquota, POL_CBW_INF, r->nburst);
	r->max_streak = 0;
	for (int i = 0; i < r->periods; i++) {
		u64 elapsed, used = 0, t;

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		/* whole ticks, so the hogs' demand is exactly nr_cpus CPUs */
		elapsed = (90 * MS + x % (30 * MS)) / r->tick_ns * r->tick_ns;
		streak = c.throttled ? streak + 1 : 0;
		if (streak > r->max_streak)
			r->max_streak = streak;
		for (t = 0; t + r->tick_ns <= elapsed; t += r->tick_ns) {
			if (c.throttled)
				continue;
			used += r->nr_cpus * r->tick_ns;
			if (pol_cbw_spent(&c, used))
				c.throttled = 1;
		}
		if (i >= 20) {		/* past the first periods */
			used_total += used;
			wall_total += elapsed;
		}
		pol_cbw_replenish(&c, used, elapsed);
	}
	return used_total * 1000 / wall_total;
}

/* |got - want| within pct % of want. */
static int near(u64 got, u64 want, u64 pct)
{
	u64 d = got > want ? got - want : want - got;

	return d * 100 <= want * pct;
}

TEST(converges_20pct_two_hogs)
{
	struct run r = { .nquota = pol_cbw_nquota(20000, 100000), .tick_ns = 4 * MS,
			 .nr_cpus = 2, .periods = 600 };
	u64 got = run_periods(&r);

	printf("  20%% quota, 2 hogs, 4 ms ticks: %llu per mille\n", (unsigned long long)got);
	CHECK(near(got, 200, 3));
	CHECK(r.max_streak <= 1);
}

TEST(converges_various)
{
	static const struct { u64 q, p; int cpus; u64 tick; } cases[] = {
		{ 5000, 100000, 1, 4 * MS },		/* 5 %, one hog */
		{ 50000, 100000, 4, 4 * MS },		/* 50 %, four hogs */
		{ 150000, 100000, 2, 1 * MS },		/* 1.5 CPUs, HZ=1000 */
		{ 30000, 250000, 3, 10 * MS },		/* 12 % over 250 ms, HZ=100 */
		{ 7000, 33000, 2, 4 * MS },		/* odd period: 21.2 % */
		{ 1000, 1000, 8, 4 * MS },		/* kernel's min period, one CPU */
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		u64 nq = pol_cbw_nquota(cases[i].q, cases[i].p);
		struct run r = { .nquota = nq, .tick_ns = cases[i].tick,
				 .nr_cpus = cases[i].cpus, .periods = 1000 };
		u64 want = nq * 1000 / P, got = run_periods(&r);

		printf("  quota %llu/%llu, %d hogs: %llu per mille (want %llu)\n",
		       (unsigned long long)cases[i].q, (unsigned long long)cases[i].p,
		       cases[i].cpus, (unsigned long long)got, (unsigned long long)want);
		CHECK(near(got, want, 3));
	}
}

TEST(under_quota_is_not_throttled)
{
	/* Demand of one CPU under a 2-CPU quota: uses all it wants. */
	struct run r = { .nquota = pol_cbw_nquota(200000, 100000), .tick_ns = 4 * MS,
			 .nr_cpus = 1, .periods = 300 };

	u64 got = run_periods(&r);

	CHECK_EQ(got, 1000);
	CHECK_EQ(r.max_streak, 0);
}

TEST(burst_keeps_long_run_average)
{
	/* 20 % with a 20 ms burst, a job busy one period in three. */
	struct pol_cbw c = { 0 };
	u64 used_total = 0, peak = 0;

	pol_cbw_configure(&c, pol_cbw_nquota(20000, 100000), POL_CBW_INF,
			  pol_cbw_nburst(20000, 100000));
	for (int i = 0; i < 300; i++) {
		u64 used = 0;

		if (i % 3 == 2) {
			for (int t = 0; t < 25 && !c.throttled; t++) {
				used += 2 * 4 * MS;
				if (pol_cbw_spent(&c, used))
					c.throttled = 1;
			}
		}
		used_total += used;
		peak = pol_max(peak, used);
		pol_cbw_replenish(&c, used, P);
	}
	/* The busy period may use quota + burst (40 ms, plus a tick's overshoot)... */
	CHECK(peak >= 40 * MS && peak <= 48 * MS);
	/* ...yet no more than the quota on average. */
	CHECK(used_total / 300 <= 20 * MS);
	/* Without the burst it gets 20 ms (+ overshoot) per busy period. */
	pol_cbw_configure(&c, pol_cbw_nquota(20000, 100000), POL_CBW_INF, 0);
	peak = 0;
	for (int i = 0; i < 30; i++) {
		u64 used = 0;

		if (i % 3 == 2) {
			for (int t = 0; t < 25 && !c.throttled; t++) {
				used += 2 * 4 * MS;
				if (pol_cbw_spent(&c, used))
					c.throttled = 1;
			}
		}
		peak = pol_max(peak, used);
		pol_cbw_replenish(&c, used, P);
	}
	CHECK(peak <= 28 * MS);
}

TEST(nested_parent_bounds_children)
{
	/*
	 * Parent 20 %, children A (max) and B (50 %, effective 20 %), two hogs
	 * each. Every charge goes to the child (if limited) and to the parent;
	 * a child runs while nothing on its chain is throttled.
	 */
	struct pol_cbw parent = { 0 }, a = { 0 }, b = { 0 };
	u64 used_p = 0, used_a = 0, used_b = 0, tot_a = 0, tot_b = 0, wall = 0;
	struct pol_cbw_chain cp, ca, cb;

	pol_cbw_configure(&parent, pol_cbw_nquota(20000, 100000), POL_CBW_INF, 0);
	pol_cbw_configure(&a, pol_cbw_nquota(POL_U64_MAX, 100000), parent.nquota_ub, 0);
	pol_cbw_configure(&b, pol_cbw_nquota(50000, 100000), parent.nquota_ub, 0);
	CHECK_EQ(a.nquota, POL_CBW_INF);
	CHECK_EQ(a.nquota_ub, 20 * MS);
	CHECK_EQ(b.nquota_ub, 20 * MS);
	pol_cbw_chain_build(&cp, NULL, 100, true);
	pol_cbw_chain_build(&ca, &cp, 101, a.nquota != POL_CBW_INF);
	pol_cbw_chain_build(&cb, &cp, 102, b.nquota != POL_CBW_INF);
	CHECK_EQ(ca.n, 1);
	CHECK_EQ(ca.id[0], 100);
	CHECK_EQ(cb.n, 2);

	for (int i = 0; i < 500; i++) {
		for (int t = 0; t < 25; t++) {
			bool run_a = !parent.throttled;
			bool run_b = !parent.throttled && !b.throttled;

			if (run_a) {
				used_a += 8 * MS;
				used_p += 8 * MS;
			}
			if (run_b) {
				used_b += 8 * MS;
				used_p += 8 * MS;
			}
			if (pol_cbw_spent(&parent, used_p))
				parent.throttled = 1;
			if (pol_cbw_spent(&b, used_b))
				b.throttled = 1;
		}
		if (i >= 20) {
			tot_a += used_a;
			tot_b += used_b;
			wall += P;
		}
		pol_cbw_replenish(&parent, used_p, P);
		pol_cbw_replenish(&b, used_b, P);
		used_p = used_a = used_b = 0;
	}
	printf("  parent 20%%: A %llu, B %llu per mille\n",
	       (unsigned long long)(tot_a * 1000 / wall), (unsigned long long)(tot_b * 1000 / wall));
	/* Together the children use the parent's 20 %. */
	CHECK(near((tot_a + tot_b) * 1000 / wall, 200, 3));
}

HARNESS_MAIN("cbw")
