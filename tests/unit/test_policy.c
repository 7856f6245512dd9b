/* SPDX-License-Identifier: GPL-2.0 */
/* Host unit tests of the policy core (src/policy/), run under ASan/UBSan. */
#include "../harness.h"
#include "policy/pol.h"

/* ---- pol_base.h ---- */

TEST(log2x_edges)
{
	CHECK_EQ(pol_log2x(0), 1);
	CHECK_EQ(pol_log2x(1), 1);
	CHECK_EQ(pol_log2x(2), 2);
	CHECK_EQ(pol_log2x(3), 2);
	CHECK_EQ(pol_log2x(4), 3);
	CHECK_EQ(pol_log2x(7), 3);
	CHECK_EQ(pol_log2x(1ULL << 32), 33);
	CHECK_EQ(pol_log2x((1ULL << 63) - 1), 63);
	CHECK_EQ(pol_log2x(1ULL << 63), 64);
	CHECK_EQ(pol_log2x(POL_U64_MAX), 64);
}

TEST(log2x_matches_bit_length)
{
	for (int b = 0; b < 64; b++) {
		u64 v = 1ULL << b;

		CHECK_EQ(pol_log2x(v), b + 1);
		CHECK_EQ(pol_log2x(v | (v >> 1)), b + 1);
		if (b)
			CHECK_EQ(pol_log2x(v - 1), b);
	}
}

TEST(div_guards_zero)
{
	CHECK_EQ(pol_div(10, 0), 10);
	CHECK_EQ(pol_div(0, 0), 0);
	CHECK_EQ(pol_div(10, 3), 3);
	CHECK_EQ(pol_div(POL_U64_MAX, 1), POL_U64_MAX);
}

TEST(saturating_arith)
{
	CHECK_EQ(pol_sub_sat(3, 5), 0);
	CHECK_EQ(pol_sub_sat(5, 3), 2);
	CHECK_EQ(pol_add_sat(POL_U64_MAX, 1), POL_U64_MAX);
	CHECK_EQ(pol_add_sat(1, 2), 3);
	CHECK_EQ(pol_mul_sat(0, POL_U64_MAX), 0);
	CHECK_EQ(pol_mul_sat(POL_U64_MAX, 0), 0);
	CHECK_EQ(pol_mul_sat(1ULL << 32, 1ULL << 31), 1ULL << 63);
	CHECK_EQ(pol_mul_sat(1ULL << 32, 1ULL << 32), POL_U64_MAX);
	CHECK_EQ(pol_mul_sat(0xffffffffULL, 0xffffffffULL), 0xfffffffe00000001ULL);
	CHECK_EQ(pol_mul_sat(3ULL << 62 >> 1, 2), 3ULL << 62);
	CHECK_EQ(pol_mul_sat(3ULL << 62, 2), POL_U64_MAX);
	CHECK_EQ(pol_mul_sat(0x1ffffffffULL, 0x80000000ULL), 0xffffffff80000000ULL);
	CHECK_EQ(pol_mul_sat(0x1ffffffffULL, 0x80000001ULL), POL_U64_MAX);
}

TEST(mul_sat_agrees_with_128bit)
{
	u64 x = 88172645463325252ULL;

	for (int i = 0; i < 100000; i++) {
		u64 a, b;
		unsigned __int128 p;

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		a = x >> (x & 63);
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		b = x >> (x & 63);
		p = (unsigned __int128)a * b;
		CHECK_EQ(pol_mul_sat(a, b), p >> 64 ? POL_U64_MAX : (u64)p);
	}
}

TEST(clamp_and_minmax)
{
	CHECK_EQ(pol_clamp(5, 1, 10), 5);
	CHECK_EQ(pol_clamp(0, 1, 10), 1);
	CHECK_EQ(pol_clamp(11, 1, 10), 10);
	CHECK_EQ(pol_clamp(5, 7, 3), 7); /* inverted bounds: lo wins, stays total */
	CHECK_EQ(pol_min(2, 3), 2);
	CHECK_EQ(pol_max(2, 3), 3);
}

TEST(ewma_converges_and_reaches_zero)
{
	u64 a = 0;

	for (int i = 0; i < 200; i++)
		a = pol_ewma(a, 1000);
	CHECK(a >= 990 && a <= 1000);
	for (int i = 0; i < 200; i++)
		a = pol_ewma(a, 0);
	CHECK_EQ(a, 0);
	CHECK_EQ(pol_ewma(1, 0), 0);
	CHECK_EQ(pol_ewma(800, 80), 800 - 100 + 10);
	CHECK_EQ(pol_ewma(800, 0), 400); /* a small value on either side: 50/50 */
	CHECK_EQ(pol_ewma(0, 800), 400);
	CHECK_EQ(pol_ewma(POL_U64_MAX, POL_U64_MAX), POL_U64_MAX);
	CHECK_EQ(pol_ewma(POL_U64_MAX, 8), POL_U64_MAX - ((POL_U64_MAX - 8) >> 3) - 1);
	/* an average of small counts reaches the sample (it froze at 15 for 8 queued) */
	a = 40;
	for (int i = 0; i < 100; i++)
		a = pol_ewma(a, 8);
	CHECK_EQ(a, 8);
	for (int i = 0; i < 100; i++)
		a = pol_ewma(a, 12);
	CHECK_EQ(a, 12);
}

TEST(ewma_asym_rises_fast_decays_slow)
{
	CHECK_EQ(pol_ewma_asym(100, 900), 900 - 225 + 25);
	CHECK_EQ(pol_ewma_asym(900, 100), 900 - 112 + 12);
	CHECK_EQ(pol_ewma_asym(0, 1024), 512);
	CHECK_EQ(pol_ewma_asym(POL_U64_MAX, POL_U64_MAX), POL_U64_MAX);
}

TEST(interval_to_freq)
{
	CHECK_EQ(pol_interval_to_freq(0, 100000), 100000);
	CHECK_EQ(pol_interval_to_freq(1, 100000), 100000);
	CHECK_EQ(pol_interval_to_freq(POL_NSEC_PER_MSEC, 100000), 1000);
	CHECK_EQ(pol_interval_to_freq(POL_NSEC_PER_SEC * 2, 100000), 0);
}

TEST(p2s)
{
	CHECK_EQ(pol_p2s(50), 512);
	CHECK_EQ(pol_p2s(95), 972);
	CHECK_EQ(pol_p2s(85), 870);
	CHECK_EQ(pol_p2s(10), 102);
}

/* ---- pol_task.h ---- */

static struct pol_task_stat fresh(void)
{
	struct pol_task_stat t;

	pol_task_init(&t, NULL, 0, 5 * POL_NSEC_PER_MSEC, 0);
	return t;
}

TEST(lat_cri_worked_examples)
{
	struct pol_task_stat t = fresh();

	/* An idle nice-0 hog: (1 + log2x(1 * 101))^2 = 64 (reference §4). */
	t.avg_runtime_ns = 2 * POL_NSEC_PER_SEC;
	CHECK_EQ(pol_lat_cri_raw(&t, 100, 0), 64);

	/* 100 wakes/s both ways, 1 ms runs, on a wakeup: 39^2 = 1521. */
	t.wait_freq = 100;
	t.wake_freq = 100;
	t.avg_runtime_ns = POL_NSEC_PER_MSEC;
	CHECK_EQ(pol_lat_cri_raw(&t, 100, POL_CTX_WAKEUP), 1521);
}

TEST(lat_cri_monotonic_in_factors)
{
	struct pol_task_stat a = fresh(), b;

	a.wait_freq = 50;
	a.wake_freq = 50;
	a.avg_runtime_ns = 2 * POL_NSEC_PER_MSEC;
	b = a;
	b.wake_freq = 5000;
	CHECK(pol_lat_cri_raw(&b, 100, 0) > pol_lat_cri_raw(&a, 100, 0));
	b = a;
	b.avg_runtime_ns = 100 * POL_NSEC_PER_MSEC; /* log scale: a small change may not show */
	CHECK(pol_lat_cri_raw(&b, 100, 0) <= pol_lat_cri_raw(&a, 100, 0));
	b.avg_runtime_ns = 900 * POL_NSEC_PER_MSEC;
	CHECK(pol_lat_cri_raw(&b, 100, 0) < pol_lat_cri_raw(&a, 100, 0));
	CHECK(pol_lat_cri_raw(&a, 1000, 0) > pol_lat_cri_raw(&a, 100, 0));
	CHECK(pol_lat_cri_raw(&a, 100, POL_CTX_HARDIRQ_WAKER) >
	      pol_lat_cri_raw(&a, 100, POL_CTX_SOFTIRQ_WAKER));
}

TEST(lat_cri_extremes_fit)
{
	struct pol_task_stat t = fresh();
	u32 all = (1u << 11) - 1;

	t.wait_freq = POL_U64_MAX;
	t.wake_freq = POL_U64_MAX;
	t.avg_runtime_ns = 0;
	/* Everything at its max: (34 + 36)^2, the documented bound of 70^2. */
	CHECK_EQ(pol_lat_cri_raw(&t, 10000, all), 4900);
	CHECK(pol_lat_cri_raw(&t, POL_U64_MAX, all) == pol_lat_cri_raw(&t, 10000, all));
	CHECK(pol_lat_cri_raw(&t, 0, 0) == pol_lat_cri_raw(&t, 1, 0));
	t.avg_runtime_ns = POL_U64_MAX;
	t.wait_freq = 0;
	t.wake_freq = 0;
	CHECK_EQ(pol_lat_cri_raw(&t, 1, 0), 9); /* (1 + log2x(1 * 2))^2 */
}

TEST(ctx_boost_values)
{
	CHECK_EQ(pol_ctx_boost(0), 0);
	CHECK_EQ(pol_ctx_boost(POL_CTX_WAKEUP | POL_CTX_SYNC_WAKEUP), 256);
	/* hardirq and softirq are exclusive: hardirq wins */
	CHECK_EQ(pol_ctx_boost(POL_CTX_HARDIRQ_WAKER | POL_CTX_SOFTIRQ_WAKER), 1024);
	CHECK_EQ(pol_ctx_boost(POL_CTX_KTHREAD | POL_CTX_KSOFTIRQD), 768);
	CHECK_EQ(pol_ctx_boost(POL_CTX_PINNED | POL_CTX_LOCK_BOOST), 384);
}

TEST(inheritance_bounded_and_consumed)
{
	struct pol_task_stat t = fresh();
	u32 own, lc;

	t.avg_runtime_ns = 2 * POL_NSEC_PER_SEC;
	own = pol_lat_cri_raw(&t, 100, 0);
	/* Givers below twice our own value change nothing. */
	t.lat_cri_waker = own;
	t.lat_cri_wakee = own;
	CHECK_EQ(pol_lat_cri(&t, 100, 0), own);
	/* A strong chain adds 1/8 of the excess, at most 1/4 of own. */
	t.lat_cri_waker = 2 * own + 80;
	t.lat_cri_wakee = 0;
	CHECK_EQ(pol_lat_cri(&t, 100, 0), own + 10);
	t.lat_cri_waker = 4000;
	t.lat_cri_wakee = 4000;
	lc = pol_lat_cri(&t, 100, 0);
	CHECK_EQ(lc, own + own / 4);
	CHECK_EQ(t.lat_cri, lc);
	/* consumed */
	CHECK_EQ(t.lat_cri_waker, 0);
	CHECK_EQ(t.lat_cri_wakee, 0);
	CHECK_EQ(pol_lat_cri(&t, 100, 0), own);
}

TEST(wake_updates_waker_freq_and_inheritance)
{
	struct pol_task_stat waker = fresh(), wakee = fresh();
	u64 now = 0;

	waker.lat_cri = 700;
	wakee.lat_cri = 900;
	for (int i = 0; i < 100; i++) {
		now += POL_NSEC_PER_MSEC; /* 1000/s */
		CHECK(pol_task_on_wake(&waker, &wakee, now));
	}
	CHECK(waker.wake_freq > 900 && waker.wake_freq <= 1000);
	CHECK_EQ(wakee.lat_cri_waker, 700);
	CHECK_EQ(waker.lat_cri_wakee, 900);
	/* Sampling is gated at 500 us: a wake 100 us later does not count. */
	CHECK(!pol_task_on_wake(&waker, &wakee, now + 100 * POL_NSEC_PER_USEC));
	/* Time going backwards (cross-CPU clocks) is not a huge interval. */
	CHECK(!pol_task_on_wake(&waker, &wakee, now - POL_NSEC_PER_MSEC));
}

TEST(runtime_and_frequencies)
{
	struct pol_task_stat t = fresh();
	u64 now = 0;

	/* Sleep 9 ms, run 1 ms, 100 times: wait_freq -> 100, avg -> 1 ms. */
	for (int i = 0; i < 100; i++) {
		now += 9 * POL_NSEC_PER_MSEC;
		pol_task_on_runnable(&t);
		pol_task_on_running(&t, now);
		pol_task_account(&t, POL_NSEC_PER_MSEC, POL_NSEC_PER_MSEC, 100);
		pol_task_on_stopping(&t);
		now += POL_NSEC_PER_MSEC;
		pol_task_on_quiescent(&t, now, true);
	}
	CHECK(t.avg_runtime_ns > 990 * POL_NSEC_PER_USEC && t.avg_runtime_ns < 1100 * POL_NSEC_PER_USEC);
	CHECK(t.wait_freq >= 95 && t.wait_freq <= 100);
	CHECK(t.run_freq >= 95 && t.run_freq <= 101);
	CHECK_EQ(t.svc_wgt_ns, 100 * POL_NSEC_PER_MSEC);
	/* A non-sleep quiescent (migration) does not count as a wait. */
	pol_task_on_quiescent(&t, now + 1, false);
	CHECK_EQ(t.last_quiescent_ns, now);
}

TEST(account_weights_and_saturates)
{
	struct pol_task_stat t = fresh();

	pol_task_account(&t, 1000, 1000, 200); /* twice nice-0 weight: half the service */
	CHECK_EQ(t.svc_wgt_ns, 500);
	pol_task_account(&t, 1000, 1000, 0);	/* weight 0 is treated as 1 */
	CHECK_EQ(t.svc_wgt_ns, 500 + 100000);
	t.acc_runtime_ns = POL_U64_MAX - 1;
	t.svc_wgt_ns = POL_U64_MAX - 1;
	pol_task_account(&t, 10, POL_U64_MAX, 1);
	CHECK_EQ(t.acc_runtime_ns, POL_U64_MAX);
	CHECK_EQ(t.svc_wgt_ns, POL_U64_MAX);
}

TEST(task_init_from_parent)
{
	struct pol_task_stat parent = fresh(), child;

	parent.wait_freq = 77;
	parent.lat_cri_waker = 5;
	parent.acc_runtime_ns = 99;
	parent.ran_before = 1;
	pol_task_init(&child, &parent, 1234, 5000, 42);
	CHECK_EQ(child.wait_freq, 77);
	CHECK_EQ(child.lat_cri_waker, 0);
	CHECK_EQ(child.acc_runtime_ns, 0);
	CHECK_EQ(child.ran_before, 0);
	CHECK_EQ(child.last_quiescent_ns, 1234);
	CHECK_EQ(child.svc_wgt_ns, 42);
	pol_task_init(&child, NULL, 0, 5000, 0);
	CHECK_EQ(child.avg_runtime_ns, 5000);
	CHECK_EQ(child.wait_freq, 0);
}

TEST(lat_cri_norm)
{
	CHECK_EQ(pol_lat_cri_norm(10, 0), 0);
	CHECK_EQ(pol_lat_cri_norm(10, 10), 1024);
	CHECK_EQ(pol_lat_cri_norm(20, 10), 1024);
	CHECK_EQ(pol_lat_cri_norm(5, 10), 512);
	CHECK_EQ(pol_lat_cri_norm(0, 10), 0);
}

TEST(wall_to_invr)
{
	CHECK_EQ(pol_wall_to_invr(1000000, 1024, 1024), 1000000);
	CHECK_EQ(pol_wall_to_invr(1000000, 512, 1024), 500000);
	CHECK_EQ(pol_wall_to_invr(1000000, 512, 512), 250000);
	CHECK_EQ(pol_wall_to_invr(1000000, 0, 0), 1000000);	/* unknown: full speed */
	CHECK_EQ(pol_wall_to_invr(1000000, 4096, 4096), 1000000); /* clamped */
	CHECK(pol_wall_to_invr(POL_U64_MAX, 1024, 1024) == POL_U64_MAX >> 20);
}

/* ---- pol_deadline.h ---- */

TEST(greedy_penalty_range)
{
	struct pol_task_stat t = fresh();
	struct pol_greed g;
	u64 lag_max = 500 * POL_NSEC_PER_MSEC;

	t.svc_wgt_ns = 10 * POL_NSEC_PER_SEC;
	g = pol_greedy_penalty(&t, t.svc_wgt_ns, 100);	/* level: 1.5x */
	CHECK_EQ(g.penalty, 1536);
	CHECK(!g.greedy);
	g = pol_greedy_penalty(&t, t.svc_wgt_ns + lag_max, 100); /* behind: 1.0x */
	CHECK_EQ(g.penalty, 1024);
	g = pol_greedy_penalty(&t, t.svc_wgt_ns - lag_max, 100); /* ahead: 2.0x */
	CHECK_EQ(g.penalty, 2048);
	CHECK(g.greedy);
	g = pol_greedy_penalty(&t, 0, 100); /* far ahead: capped at 2.0x */
	CHECK_EQ(g.penalty, 2048);
}

TEST(greedy_credit_is_bounded)
{
	struct pol_task_stat t = fresh();
	u64 lag_max = 500 * POL_NSEC_PER_MSEC;
	struct pol_greed g;

	t.svc_wgt_ns = 0;
	g = pol_greedy_penalty(&t, 100 * POL_NSEC_PER_SEC, 100);
	CHECK_EQ(g.penalty, 1024);
	/* A long sleeper is moved up to one lag_max behind, no more credit. */
	CHECK_EQ(t.svc_wgt_ns, 100 * POL_NSEC_PER_SEC - lag_max);
	/* Heavier tasks have a proportionally smaller lag bound. */
	t.svc_wgt_ns = 0;
	pol_greedy_penalty(&t, 100 * POL_NSEC_PER_SEC, 1000);
	CHECK_EQ(t.svc_wgt_ns, 100 * POL_NSEC_PER_SEC - lag_max / 10);
	/* weight 0 and huge weights do not divide by zero */
	g = pol_greedy_penalty(&t, t.svc_wgt_ns, 0);
	CHECK(g.penalty >= 1024 && g.penalty <= 2048);
	g = pol_greedy_penalty(&t, t.svc_wgt_ns, POL_U64_MAX);
	CHECK(g.penalty >= 1024 && g.penalty <= 2048);
}

TEST(deadline_delta_divides_by_criticality)
{
	u64 base = 5 * POL_NSEC_PER_MSEC;
	u64 d64 = pol_deadline_delta(0, 1536, 64, base);
	u64 d640 = pol_deadline_delta(0, 1536, 640, base);

	/* reference §7: lat_cri 64, penalty 1.5 -> 117 us just woken */
	CHECK_EQ(d64, 117187);
	CHECK(d640 * 10 <= d64 + 10 && d640 * 10 >= d64 - 10);
	/* a long runner's term is at most doubled */
	CHECK_EQ(pol_deadline_delta(POL_U64_MAX, 1536, 64, base), 2 * d64 + 1);
	/* criticality 0 is treated as 1, not a division by zero */
	CHECK_EQ(pol_deadline_delta(0, 1024, 0, base), base);
	CHECK_EQ(pol_deadline_delta(0, POL_U64_MAX, 1, POL_U64_MAX), POL_U64_MAX >> 10);
}

TEST(weight_scale)
{
	CHECK_EQ(pol_weight_scale(1000, 100), 1000);	/* nice 0: unchanged */
	CHECK_EQ(pol_weight_scale(1000, 200), 500);
	CHECK_EQ(pol_weight_scale(1000, 20), 5000);	/* nice ~7: below the cap */
	CHECK_EQ(pol_weight_scale(1000, 13), 7692);
	CHECK_EQ(pol_weight_scale(1000, 12), 8000);	/* capped: at most x8 */
	/* the wait a delta stands for is capped at 250 ms x avg_lat_cri */
	CHECK_EQ(pol_deadline_cap(200000, 1000, false), 200000);
	CHECK_EQ(pol_deadline_cap(300000, 1000, false), 250000);
	CHECK_EQ(pol_deadline_cap(POL_U64_MAX, 0, false), 250 * POL_NSEC_PER_MSEC);	/* no division by 0 */
	/* kernel threads: 5 ms worth (khugepaged holding the mmap lock) */
	CHECK_EQ(pol_deadline_cap(200000, 1000, true), 5000);
	CHECK_EQ(pol_deadline_cap(4000, 1000, true), 4000);
	CHECK_EQ(pol_deadline_cap(POL_U64_MAX, 0, true), 5 * POL_NSEC_PER_MSEC);
	CHECK_EQ(pol_weight_scale(1000, 1), 8000);	/* nice 19 */
	CHECK_EQ(pol_weight_scale(1000, 0), 8000);	/* clamped, no division by zero */
	CHECK_EQ(pol_weight_scale(1000000, 10000), 10000);
	CHECK_EQ(pol_weight_scale(1000000, POL_U64_MAX), 10000);
	CHECK_EQ(pol_weight_scale(POL_U64_MAX, 1), POL_U64_MAX);
}

TEST(compete_window)
{
	CHECK_EQ(pol_compete_window(4, 2), POL_DL_COMPETE_WINDOW_NS);
	CHECK_EQ(pol_compete_window(4, 4), POL_DL_COMPETE_WINDOW_NS);
	CHECK_EQ(pol_compete_window(4, 8), POL_DL_COMPETE_WINDOW_NS / 2);
	CHECK_EQ(pol_compete_window(0, 8), 0);
	CHECK_EQ(POL_DL_COMPETE_WINDOW_NS, 4577);
}

TEST(vdeadline_and_clock)
{
	CHECK_EQ(pol_vdeadline(10000, 500, 4577), 10000 - 4577 + 500);
	CHECK_EQ(pol_vdeadline(100, 500, 4577), 500); /* clock near 0: no wrap */
	CHECK_EQ(pol_clock_advance(1000, 900, 1), 1000); /* never backwards */
	CHECK_EQ(pol_clock_advance(1000, 2000, 1), 2000);
	CHECK_EQ(pol_clock_advance(1000, 2000, 4), 1250);
	CHECK_EQ(pol_clock_advance(1000, 2000, 0), 2000);
}

TEST(clock_eventually_reaches_old_deadlines)
{
	/*
	 * Starvation bound: a task queued with deadline D is overtaken only by
	 * tasks whose deadline is below D; each run pushes the clock towards
	 * the runner's deadline, new deadlines start near the clock, so the
	 * clock (and thus new deadlines) passes D after finitely many runs.
	 */
	u64 clk = POL_DL_COMPETE_WINDOW_NS, old = clk + 200000;
	int runs = 0;

	while (pol_vdeadline(clk, 10000, POL_DL_COMPETE_WINDOW_NS) < old && runs < 100000) {
		u64 dl = pol_vdeadline(clk, 10000, POL_DL_COMPETE_WINDOW_NS);

		clk = pol_clock_advance(clk, dl, 8);
		runs++;
	}
	/* it cannot: deadlines of 10 us behind the window never pass the clock */
	CHECK(runs == 100000 || pol_vdeadline(clk, 10000, POL_DL_COMPETE_WINDOW_NS) >= old);
	/* but a task with any delta above the window does advance the clock */
	clk = POL_DL_COMPETE_WINDOW_NS;
	runs = 0;
	while (pol_vdeadline(clk, 50000, POL_DL_COMPETE_WINDOW_NS) < old && runs < 100000) {
		clk = pol_clock_advance(clk, pol_vdeadline(clk, 50000, POL_DL_COMPETE_WINDOW_NS), 8);
		runs++;
	}
	CHECK(runs < 1000);
}

TEST(clock_service_bounds_waits)
{
	/*
	 * Tasks with deadlines behind the clock do not move it towards
	 * themselves (above); the service they get does. 50 us runs on 4
	 * active CPUs at average criticality 1000 move it 12 ns each: it
	 * reaches a deadline 20 us ahead (20 ms of run time at criticality
	 * 1000) after 1667 runs, 20.8 ms of real time with all 4 CPUs busy.
	 */
	u64 clk0 = POL_DL_COMPETE_WINDOW_NS, clk = clk0;
	int runs = 0;

	while (clk < clk0 + 20000 && runs < 100000) {
		clk = pol_clock_advance(clk, pol_vdeadline(clk, 1, POL_DL_COMPETE_WINDOW_NS), 8);
		clk += pol_clock_service(50000, 4, 1000);
		runs++;
	}
	CHECK_EQ(runs, 1667);
	CHECK_EQ(pol_clock_service(1000, 0, 0), 1000);	/* no CPU or criticality yet: 1 */
	CHECK_EQ(pol_clock_service(POL_U64_MAX, 1, 1), POL_U64_MAX);
	CHECK_EQ(pol_clock_service(POL_U64_MAX, POL_U64_MAX, POL_U64_MAX), 1);
	CHECK_EQ(pol_clock_service(999, 10, 100), 0);
}

/* ---- pol_sys.h ---- */

static struct pol_cfg cfg_dfl(void)
{
	struct pol_cfg c;

	pol_cfg_default(&c);
	return c;
}

TEST(slice_target)
{
	struct pol_cfg c = cfg_dfl();

	CHECK_EQ(pol_slice_target(4, 0, &c), c.slice_max_ns);
	CHECK_EQ(pol_slice_target(4, 8, &c), 5 * POL_NSEC_PER_MSEC);
	CHECK_EQ(pol_slice_target(4, 20, &c), 2 * POL_NSEC_PER_MSEC);
	CHECK_EQ(pol_slice_target(4, 1000, &c), c.slice_min_ns);
	CHECK_EQ(pol_slice_target(0, 20, &c), POL_NSEC_PER_MSEC / 2);
	CHECK_EQ(pol_slice_target(POL_U64_MAX, 1, &c), c.slice_max_ns);
}

/* A round of a deep queue fits in 400 ms: the floor gives way, to 100 us at least. */
TEST(slice_floor_deep_queue)
{
	struct pol_cfg c = cfg_dfl();
	struct pol_sys s;
	int i;

	/* 3,200 tasks on 4 CPUs at 500 us: exactly 400 ms, slice_min holds */
	CHECK_EQ(pol_slice_floor(4, 3200, &c), 500 * POL_NSEC_PER_USEC);
	CHECK_EQ(pol_slice_target(4, 3200, &c), 500 * POL_NSEC_PER_USEC);
	/* 10,000 tasks: 400 ms x 4 / 10,000 = 160 us */
	CHECK_EQ(pol_slice_floor(4, 10000, &c), 160 * POL_NSEC_PER_USEC);
	CHECK_EQ(pol_slice_target(4, 10000, &c), 160 * POL_NSEC_PER_USEC);
	/* 100,000: held at the 100 us floor */
	CHECK_EQ(pol_slice_floor(4, 100000, &c), POL_SLICE_FLOOR_NS);
	CHECK_EQ(pol_slice_floor(0, 100000, &c), POL_SLICE_FLOOR_NS);
	/* a user's slice_min under the floor is kept */
	c.slice_min_ns = 50 * POL_NSEC_PER_USEC;
	CHECK_EQ(pol_slice_floor(4, 100000, &c), 50 * POL_NSEC_PER_USEC);
	CHECK_EQ(pol_slice_floor(4, 0, &c), 50 * POL_NSEC_PER_USEC);

	/* the system slice follows a storm down at once, and comes back after it */
	c = cfg_dfl();
	pol_sys_init(&s, &c, 4);
	{
		struct pol_sys_sample x = { .interval_ns = POL_SYS_STAT_INTERVAL_NS, .nr_queued = 10000,
					    .nr_active = 4, .nr_cpus = 4 };
		pol_sys_update(&s, &x, &c);
		CHECK_EQ(s.slice_ns, 160 * POL_NSEC_PER_USEC);
	}
	for (i = 0; i < 100; i++) {
		struct pol_sys_sample x = { .interval_ns = POL_SYS_STAT_INTERVAL_NS, .nr_queued = 10000,
					    .nr_active = 4, .nr_cpus = 4 };
		pol_sys_update(&s, &x, &c);
	}
	CHECK(s.slice_ns >= 160 * POL_NSEC_PER_USEC && s.slice_ns < 170 * POL_NSEC_PER_USEC);
	/* a long runner under that load gets at most twice the system slice */
	s.avg_lat_cri = 100;
	CHECK(pol_task_slice(&s, &c, 10 * POL_NSEC_PER_MSEC, 1000).slice_ns <= 2 * s.slice_ns);
	for (i = 0; i < 100; i++) {
		struct pol_sys_sample x = { .interval_ns = POL_SYS_STAT_INTERVAL_NS, .nr_queued = 8,
					    .nr_active = 4, .nr_cpus = 4 };
		pol_sys_update(&s, &x, &c);
	}
	CHECK(s.slice_ns > 2 * POL_NSEC_PER_MSEC);
}

TEST(thr_lat_cri)
{
	CHECK_EQ(pol_thr_lat_cri(1024, 0, 6), 1024 - 16);
	CHECK_EQ(pol_thr_lat_cri(1024, 0, 0), 0);
	CHECK_EQ(pol_thr_lat_cri(100, 200, 6), 100);
	CHECK_EQ(pol_thr_lat_cri(1024, 0, 99), 1024);
}

TEST(sys_update_averages_and_slice)
{
	struct pol_cfg c = cfg_dfl();
	struct pol_sys s;
	struct pol_sys_sample x = {
		.interval_ns = 10 * POL_NSEC_PER_MSEC, .busy_ns = 20 * POL_NSEC_PER_MSEC,
		.nr_sched = 10, .sum_lat_cri = 1000, .max_lat_cri = 400,
		.sum_svc_wgt_ns = 10 * POL_NSEC_PER_SEC, .nr_queued = 20, .nr_active = 4,
		.nr_cpus = 4,
	};

	pol_sys_init(&s, &c, 4);
	CHECK_EQ(s.slice_ns, c.slice_max_ns);
	for (int i = 0; i < 100; i++)
		pol_sys_update(&s, &x, &c);
	/* Shift-based EWMAs settle up to 7 below the input (old>>3 == new>>3). */
	CHECK(s.avg_lat_cri >= 93 && s.avg_lat_cri <= 100);
	CHECK(s.max_lat_cri >= 393 && s.max_lat_cri <= 400);
	CHECK(s.thr_lat_cri > s.avg_lat_cri && s.thr_lat_cri <= s.max_lat_cri);
	CHECK(s.avg_svc_wgt_ns > 990 * POL_NSEC_PER_MSEC && s.avg_svc_wgt_ns <= POL_NSEC_PER_SEC);
	CHECK(s.avg_util >= 505 && s.avg_util <= 512);
	CHECK(s.nr_queued >= 16 && s.nr_queued <= 20);
	/* 10 ms * 4 / 16..20 = 2..2.5 ms */
	CHECK(s.slice_ns >= 1990 * POL_NSEC_PER_USEC && s.slice_ns <= 2510 * POL_NSEC_PER_USEC);
	CHECK_EQ(s.nr_intervals, 100);
}

TEST(sys_update_empty_interval)
{
	struct pol_cfg c = cfg_dfl();
	struct pol_sys s;
	struct pol_sys_sample x = { 0 };

	pol_sys_init(&s, &c, 4);
	s.avg_lat_cri = 50;
	pol_sys_update(&s, &x, &c);
	CHECK_EQ(s.avg_lat_cri, 50); /* nothing ran: kept */
	CHECK_EQ(s.avg_util, 0);
	CHECK_EQ(s.nr_active, 1);
	CHECK(s.slice_ns >= c.slice_min_ns && s.slice_ns <= c.slice_max_ns);
	x.busy_ns = POL_U64_MAX;
	x.interval_ns = 1;
	x.nr_cpus = 1;
	pol_sys_update(&s, &x, &c);
	CHECK(s.avg_util <= POL_SCALE);
}

TEST(slice_always_within_bounds)
{
	struct pol_cfg c = cfg_dfl();
	struct pol_sys s;
	u64 x = 12345;

	c.slice_min_ns = 300 * POL_NSEC_PER_USEC;
	c.slice_max_ns = 3 * POL_NSEC_PER_MSEC;
	pol_sys_init(&s, &c, 8);
	for (int i = 0; i < 20000; i++) {
		struct pol_sys_sample smp = { 0 };

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		smp.interval_ns = x % (20 * POL_NSEC_PER_MSEC);
		smp.nr_queued = (x >> 20) % 300;
		smp.nr_active = (x >> 30) % 9;
		smp.nr_cpus = 8;
		smp.busy_ns = x >> 40;
		pol_sys_update(&s, &smp, &c);
		CHECK(s.slice_ns >= c.slice_min_ns && s.slice_ns <= c.slice_max_ns);
	}
}

TEST(task_slice_boost)
{
	struct pol_cfg c = cfg_dfl();
	struct pol_sys s;
	struct pol_slice r;

	pol_sys_init(&s, &c, 4);
	s.slice_ns = 2 * POL_NSEC_PER_MSEC;
	s.avg_util = 500;
	s.nr_queued = 1;
	s.nr_active = 4;
	s.avg_lat_cri = 100;
	/* short runner: system slice */
	r = pol_task_slice(&s, &c, POL_NSEC_PER_MSEC, 100);
	CHECK_EQ(r.slice_ns, 2 * POL_NSEC_PER_MSEC);
	CHECK(!r.boosted);
	/* long runner with spare CPU: its runtime + 500 us */
	r = pol_task_slice(&s, &c, 20 * POL_NSEC_PER_MSEC, 100);
	CHECK_EQ(r.slice_ns, 20500 * POL_NSEC_PER_USEC);
	CHECK(r.boosted);
	/* ... capped at 500 ms */
	r = pol_task_slice(&s, &c, 10 * POL_NSEC_PER_SEC, 100);
	CHECK_EQ(r.slice_ns, POL_SLICE_BOOST_MAX_NS);
	/* under load only critical long runners get an extension, at most 2x */
	s.avg_util = 1000;
	r = pol_task_slice(&s, &c, 20 * POL_NSEC_PER_MSEC, 50);
	CHECK_EQ(r.slice_ns, 2 * POL_NSEC_PER_MSEC);
	CHECK(!r.boosted);
	r = pol_task_slice(&s, &c, 20 * POL_NSEC_PER_MSEC, 400);
	CHECK_EQ(r.slice_ns, 4 * POL_NSEC_PER_MSEC);
	CHECK(r.boosted);
	r = pol_task_slice(&s, &c, 3 * POL_NSEC_PER_MSEC, 400);
	CHECK_EQ(r.slice_ns, 3 * POL_NSEC_PER_MSEC);
	/* --no-slice-boost */
	c.flags |= POL_CFG_NO_SLICE_BOOST;
	s.avg_util = 500;
	r = pol_task_slice(&s, &c, 20 * POL_NSEC_PER_MSEC, 400);
	CHECK_EQ(r.slice_ns, 2 * POL_NSEC_PER_MSEC);
	CHECK(!pol_can_boost_slice(&s, &c));
}

TEST(can_boost_needs_spare_cpu)
{
	struct pol_cfg c = cfg_dfl();
	struct pol_sys s;

	pol_sys_init(&s, &c, 4);
	s.avg_util = 972;
	s.nr_queued = 4;
	CHECK(pol_can_boost_slice(&s, &c));
	s.avg_util = 973;
	CHECK(!pol_can_boost_slice(&s, &c));
	s.avg_util = 0;
	s.nr_queued = 5;
	CHECK(!pol_can_boost_slice(&s, &c));
}

TEST(slice_revoke)
{
	CHECK_EQ(pol_slice_revoke(1000, 5000), 4000);
	CHECK_EQ(pol_slice_revoke(5000, 5000), 0);
	CHECK_EQ(pol_slice_revoke(POL_U64_MAX, 5000), 0);
}

TEST(pinned_slice_cap)
{
	struct pol_slice boosted = { .slice_ns = 80000000, .boosted = true };
	struct pol_slice plain = { .slice_ns = 4000000, .boosted = false };
	struct pol_slice r;

	/* nothing pinned waits, or the cap is off: unchanged */
	r = pol_pinned_cap(boosted, 4000000, 5000000, false);
	CHECK_EQ(r.slice_ns, 80000000);
	CHECK(r.boosted);
	r = pol_pinned_cap(boosted, 4000000, 0, true);
	CHECK_EQ(r.slice_ns, 80000000);
	/* a pinned task waits: min(pinned, system slice), never boosted */
	r = pol_pinned_cap(boosted, 4000000, 5000000, true);
	CHECK_EQ(r.slice_ns, 4000000);
	CHECK(!r.boosted);
	r = pol_pinned_cap(boosted, 4000000, 1000000, true);
	CHECK_EQ(r.slice_ns, 1000000);
	r = pol_pinned_cap(plain, 4000000, 1000000, true);
	CHECK_EQ(r.slice_ns, 1000000);
	CHECK_EQ(pol_pinned_slice(4000000, 0), POL_U64_MAX);
	CHECK_EQ(pol_pinned_slice(4000000, 1000000), 1000000);
	CHECK_EQ(pol_pinned_slice(500000, 1000000), 500000);
}

/* Where pol_pinned_cap_may_bite says no, the cap leaves the slice as it is. */
TEST(pinned_cap_may_bite_is_exact)
{
	static const u64 slices[] = { 0, 1, 500000, 999999, 1000000, 1000001, 4000000,
				      5000000, 80000000, POL_U64_MAX };
	static const u64 pinned[] = { 0, 1, 1000000, 5000000, POL_U64_MAX };
	struct pol_slice sl, r;
	unsigned i, j, k, b;

	for (i = 0; i < sizeof(slices) / sizeof(slices[0]); i++)
		for (j = 0; j < sizeof(slices) / sizeof(slices[0]); j++)
			for (k = 0; k < sizeof(pinned) / sizeof(pinned[0]); k++)
				for (b = 0; b < 2; b++) {
					sl.slice_ns = slices[i];
					sl.boosted = b;
					r = pol_pinned_cap(sl, slices[j], pinned[k], true);
					if (!pol_pinned_cap_may_bite(sl, slices[j], pinned[k])) {
						CHECK_EQ(r.slice_ns, sl.slice_ns);
						CHECK_EQ(r.boosted, sl.boosted);
					}
				}
	/* and it does say yes where the cap bites */
	sl.slice_ns = 4000000;
	sl.boosted = false;
	CHECK(!pol_pinned_cap_may_bite(sl, 4000000, 5000000));
	CHECK(pol_pinned_cap_may_bite(sl, 4000000, 1000000));
	sl.boosted = true;
	CHECK(pol_pinned_cap_may_bite(sl, 4000000, 5000000));
	CHECK(!pol_pinned_cap_may_bite(sl, 4000000, 0));
}

/* ---- pol_balance.h ---- */

TEST(pick_stealee_by_weight_not_count)
{
	struct pol_domain d[4] = {
		{ .queued_wgt = 0, .nr_queued = 0, .nr_cpus = 4 },	/* self */
		{ .queued_wgt = 500, .nr_queued = 5, .nr_cpus = 4 },	/* 5 nice-0 tasks */
		{ .queued_wgt = 8668, .nr_queued = 1, .nr_cpus = 4 },	/* 1 nice -20 task */
		{ .queued_wgt = 0, .nr_queued = 0, .nr_cpus = 4 },
	};

	CHECK_EQ(pol_pick_stealee(d, 4, 0, 0), 2);
	CHECK_EQ(pol_pick_stealee(d, 4, 0, 1ULL << 2), 1);
	CHECK_EQ(pol_pick_stealee(d, 4, 0, (1ULL << 2) | (1ULL << 1)), -1);
	CHECK_EQ(pol_pick_stealee(d, 4, 2, 0), 1); /* never self */
	CHECK_EQ(pol_pick_stealee(d, 0, 0, 0), -1);
	/* per CPU: the same weight on fewer CPUs is more load */
	d[1].queued_wgt = 8668;
	d[1].nr_cpus = 2;
	CHECK_EQ(pol_pick_stealee(d, 4, 0, 0), 1);
	/* nr_cpus 0 does not divide by zero */
	d[3].nr_queued = 1;
	d[3].queued_wgt = 1;
	d[3].nr_cpus = 0;
	CHECK(pol_pick_stealee(d, 4, 0, 0) >= 0);
	/* n beyond the table bound is clamped */
	CHECK(pol_pick_stealee(d, 4, 0, 0) == pol_pick_stealee(d, 4, 0, 0));
}

/* A CPU's own task near the head: within 1 ms of real time, in deadline units. */
TEST(local_pick_bound)
{
	u64 head = 1000000;

	/* avg_lat_cri 1000: 1 ms of real time is 1000 units of deadline */
	CHECK(pol_local_span(1000) == 1000);
	CHECK(pol_local_pick_ok(head, head, pol_local_span(1000)));
	CHECK(pol_local_pick_ok(head, head - 5, pol_local_span(1000)));	/* earlier: fine */
	CHECK(pol_local_pick_ok(head, head + 1000, pol_local_span(1000)));
	CHECK(!pol_local_pick_ok(head, head + 1001, pol_local_span(1000)));
	/* more critical tasks on average: the clock is slower, the span narrower */
	CHECK(!pol_local_pick_ok(head, head + 1000, pol_local_span(2000)));
	CHECK(pol_local_pick_ok(head, head + 500, pol_local_span(2000)));
	/* no average yet: taken as 1, the span is the whole millisecond */
	CHECK(pol_local_span(0) == POL_LOCAL_SKIP_NS);
	CHECK(pol_local_pick_ok(head, head + POL_LOCAL_SKIP_NS, pol_local_span(0)));
	CHECK(!pol_local_pick_ok(head, head + POL_LOCAL_SKIP_NS + 1, pol_local_span(0)));
	/* a head near the top of the range does not wrap */
	CHECK(pol_local_pick_ok(~0ULL - 3, ~0ULL, pol_local_span(1000)));
}

TEST(pick_stealee_ties_lower_index)
{
	struct pol_domain d[3] = {
		{ .queued_wgt = 100, .nr_queued = 1, .nr_cpus = 1 },
		{ .queued_wgt = 100, .nr_queued = 1, .nr_cpus = 1 },
		{ .queued_wgt = 100, .nr_queued = 1, .nr_cpus = 1 },
	};

	CHECK_EQ(pol_pick_stealee(d, 3, 1, 0), 0);
	CHECK_EQ(pol_pick_stealee(d, 3, 0, 0), 1);
}

/* Two saturated LLCs, one with 10x the waiting weight: the plan moves it. */
TEST(plan_balance_saturated_domains)
{
	struct pol_domain d[POL_MAX_DOMAINS] = {
		{ .queued_wgt = 200, .nr_queued = 2, .nr_cpus = 4 },
		{ .queued_wgt = 2000, .nr_queued = 20, .nr_cpus = 4 },
	};
	struct pol_dom_plan p[POL_MAX_DOMAINS];
	struct pol_bal_sum sum;

	CHECK_EQ(pol_plan_balance(d, 2, p, &sum, 0), 1);
	/* fair = 1100 each; both queued: band 1100 / 16 = 68 */
	CHECK_EQ(p[0].role, POL_BAL_STEALER);
	CHECK_EQ(p[0].budget_wgt, 450);
	CHECK_EQ(p[1].role, POL_BAL_STEALEE);
	CHECK_EQ(p[1].budget_wgt, 450);
	CHECK_EQ(pol_pick_planned(d, p, 2, 0), 1);
	CHECK_EQ(pol_pick_planned(d, p, 2, 1), -1);	/* a stealee does not pull */
	CHECK_EQ(pol_domain_avg_wgt(&d[1]), 100);
	/* budgets run out: roles end, no more pulls */
	for (int k = 0; k < 4; k++)
		pol_plan_charge(&p[0], &p[1], 100);
	CHECK_EQ(p[0].budget_wgt, 50);
	pol_plan_charge(&p[0], &p[1], 100);
	CHECK_EQ(p[0].role, POL_BAL_NEUTRAL);
	CHECK_EQ(p[1].role, POL_BAL_NEUTRAL);
	CHECK_EQ(pol_pick_planned(d, p, 2, 0), -1);
}

/*
 * --mig-delta-pct: the band around the fair share is that % of it. Fair is
 * 1100 each below; 1000 and 1200 are 9 % off it: moved with the default
 * band (1/16 = 6 %) and with 5 %, left alone with 10 %.
 */
TEST(plan_balance_band_pct)
{
	struct pol_domain d[POL_MAX_DOMAINS] = {
		{ .queued_wgt = 1000, .nr_queued = 10, .nr_cpus = 4 },
		{ .queued_wgt = 1200, .nr_queued = 12, .nr_cpus = 4 },
	};
	struct pol_dom_plan p[POL_MAX_DOMAINS];
	struct pol_bal_sum sum;

	CHECK_EQ(pol_plan_balance(d, 2, p, &sum, 0), 1);
	CHECK_EQ(p[0].role, POL_BAL_STEALER);
	CHECK_EQ(p[0].budget_wgt, 50);
	CHECK_EQ(pol_plan_balance(d, 2, p, &sum, 5), 1);
	CHECK_EQ(p[1].role, POL_BAL_STEALEE);
	CHECK_EQ(pol_plan_balance(d, 2, p, &sum, 10), 0);
	CHECK_EQ(p[0].role, POL_BAL_NEUTRAL);
	CHECK_EQ(p[1].role, POL_BAL_NEUTRAL);
	/*
	 * At 100 % a stealer would need no load at all, and the plan only runs
	 * while every queue holds work: it never moves anything. 100 against
	 * 60000 (fair 30050): nothing at 100 % (or above, clamped), a move at 99.
	 */
	d[0].queued_wgt = 100;
	d[1].queued_wgt = 60000;
	CHECK_EQ(pol_plan_balance(d, 2, p, &sum, 100), 0);
	CHECK_EQ(pol_plan_balance(d, 2, p, &sum, 250), 0);
	CHECK_EQ(pol_plan_balance(d, 2, p, &sum, 99), 1);
	CHECK_EQ(p[0].role, POL_BAL_STEALER);
	CHECK_EQ(p[1].role, POL_BAL_STEALEE);
}

/* Weight, not count: 1 nice -20 task outweighs 5 nice-0 ones. */
TEST(plan_balance_by_weight)
{
	struct pol_domain d[POL_MAX_DOMAINS] = {
		{ .queued_wgt = 500, .nr_queued = 5, .nr_cpus = 2 },
		{ .queued_wgt = 8668, .nr_queued = 1, .nr_cpus = 2 },
		{ .queued_wgt = 100, .nr_queued = 1, .nr_cpus = 2, .run_wgt = 200 },
	};
	struct pol_dom_plan p[POL_MAX_DOMAINS];
	struct pol_bal_sum sum;

	CHECK_EQ(pol_plan_balance(d, 3, p, &sum, 0), 1);
	CHECK_EQ(p[0].role, POL_BAL_STEALER);
	CHECK_EQ(p[1].role, POL_BAL_STEALEE);
	CHECK_EQ(p[2].role, POL_BAL_STEALER);
	/* fair = 9468 / 3 = 3156; running weight counts: (3156 - 300) / 2 */
	CHECK_EQ(p[2].budget_wgt, 1428);
	CHECK_EQ(pol_pick_planned(d, p, 3, 2), 1);
	/* an empty queue pulls by itself: no plan then */
	d[2].nr_queued = 0;
	d[2].queued_wgt = 0;
	CHECK_EQ(pol_plan_balance(d, 3, p, &sum, 0), 0);
	CHECK_EQ(p[0].role, POL_BAL_NEUTRAL);
	CHECK_EQ(pol_pick_planned(d, p, 3, 2), -1);
	/* unequal CPUs: the fair share follows them */
	d[0] = (struct pol_domain){ .queued_wgt = 600, .nr_queued = 6, .nr_cpus = 6 };
	d[1] = (struct pol_domain){ .queued_wgt = 200, .nr_queued = 2, .nr_cpus = 2 };
	CHECK_EQ(pol_plan_balance(d, 2, p, &sum, 0), 0);	/* 100 per CPU each: balanced */
	CHECK_EQ(p[0].role, POL_BAL_NEUTRAL);
	CHECK_EQ(p[1].role, POL_BAL_NEUTRAL);
}

TEST(plan_balance_edges)
{
	struct pol_domain d[POL_MAX_DOMAINS] = {
		{ .queued_wgt = 1000, .nr_queued = 10, .nr_cpus = 4 },
	};
	struct pol_dom_plan p[POL_MAX_DOMAINS];
	struct pol_bal_sum sum;

	CHECK_EQ(pol_plan_balance(d, 1, p, &sum, 0), 0);	/* one domain: nothing to balance */
	CHECK_EQ(p[0].role, POL_BAL_NEUTRAL);
	CHECK_EQ(pol_pick_planned(d, p, 1, 0), -1);
	CHECK_EQ(pol_plan_balance(d, 0, p, &sum, 0), 0);
	memset(d, 0, sizeof(d));
	CHECK_EQ(pol_plan_balance(d, 4, p, &sum, 0), 0);	/* nothing queued, no CPUs: no division */
	d[0] = (struct pol_domain){ .queued_wgt = 1000, .nr_queued = 10, .nr_cpus = 0 };
	d[1] = (struct pol_domain){ .queued_wgt = 0, .nr_queued = 0, .nr_cpus = 0 };
	CHECK_EQ(pol_plan_balance(d, 2, p, &sum, 0), 0);	/* no CPUs at all */
	/* a domain without CPUs never gets a role */
	d[1].nr_cpus = 4;
	pol_plan_balance(d, 2, p, &sum, 0);
	CHECK_EQ(p[0].role, POL_BAL_NEUTRAL);
	/* huge weights saturate instead of wrapping */
	d[0] = (struct pol_domain){ .queued_wgt = ~0ULL / 2, .nr_queued = 1, .nr_cpus = 64 };
	d[1] = (struct pol_domain){ .queued_wgt = 1, .nr_queued = 1, .nr_cpus = 64 };
	CHECK_EQ(pol_plan_balance(d, 2, p, &sum, 0), 1);
	CHECK_EQ(p[1].role, POL_BAL_STEALER);
	CHECK(p[1].budget_wgt > 0);
	/* out-of-range self */
	CHECK_EQ(pol_pick_planned(d, p, 2, 64), -1);
	CHECK_EQ(pol_pick_planned(d, p, 2, 5), -1);
	/* n beyond the table is clamped */
	CHECK(pol_plan_balance(d, ~0U, p, &sum, 0) <= POL_MAX_DOMAINS);
	CHECK_EQ(pol_domain_avg_wgt(&(struct pol_domain){ .queued_wgt = 5 }), 0);
}

/* ---- pol_preempt.h ---- */

static struct pol_cpu_run run(u32 lc, u64 stop, u32 flags)
{
	struct pol_cpu_run r = { .est_stop_ns = stop, .lat_cri = lc, .flags = flags };

	return r;
}

TEST(can_preempt_rules)
{
	u64 now = 1000000, guard = 500000;
	struct pol_cpu_run r = run(100, now + 4000000, POL_RUN_ACTIVE);

	/* bar = the criticality a victim must stay below (pol_preempt_bar) */
	CHECK(pol_can_preempt(&r, 200, now + 100000, now, guard));
	CHECK(pol_can_preempt(&r, 101, now + 100000, now, guard));
	CHECK(!pol_can_preempt(&r, 100, now + 100000, now, guard));	/* not below the bar */
	CHECK(!pol_can_preempt(&r, 50, now + 100000, now, guard));
	CHECK(!pol_can_preempt(&r, 0, now + 100000, now, guard));
	r.flags = 0;							/* idle / not ours */
	CHECK(!pol_can_preempt(&r, 200, now + 100000, now, guard));
	r.flags = POL_RUN_ACTIVE | POL_RUN_LOCK_HOLDER;			/* never a lock holder */
	CHECK(!pol_can_preempt(&r, 4000, now + 100000, now, guard));
	r.flags = POL_RUN_ACTIVE | POL_RUN_CLAIMED;			/* already taken */
	CHECK(!pol_can_preempt(&r, 4000, now + 100000, now, guard));
	r = run(100, now + guard, POL_RUN_ACTIVE);			/* near its end */
	CHECK(!pol_can_preempt(&r, 200, now + 1, now, guard));
	r = run(100, now + 2000000, POL_RUN_ACTIVE);			/* done before us */
	CHECK(!pol_can_preempt(&r, 200, now + 3000000, now, guard));
	/* at the end of time the guard saturates: conservative, no preemption */
	r = run(100, POL_U64_MAX, POL_RUN_ACTIVE);
	CHECK(!pol_can_preempt(&r, 200, POL_U64_MAX - 1, POL_U64_MAX - 10, guard));
	CHECK(pol_can_preempt(&r, 200, POL_U64_MAX - 1, 0, guard));
}

/* A slice's end is seen at the next tick: a hog past its slice is not "about to stop". */
TEST(real_stop_of_a_slice_is_at_a_tick)
{
	u64 tick = 4000000, last = 10000000, guard = 500000;
	struct pol_cpu_run r;

	CHECK_EQ(pol_real_stop(last + 1000000, true, last, tick), last + tick);
	CHECK_EQ(pol_real_stop(last + tick, true, last, tick), last + tick);
	CHECK_EQ(pol_real_stop(last + tick + 1, true, last, tick), last + 2 * tick);
	CHECK_EQ(pol_real_stop(last - 1, true, last, tick), last + tick);	/* outlived its slice */
	/* a task that blocks, or no tick known: as estimated */
	CHECK_EQ(pol_real_stop(last + 1000000, false, last, tick), last + 1000000);
	CHECK_EQ(pol_real_stop(last + 1000000, true, last, 0), last + 1000000);
	CHECK_EQ(pol_real_stop(last + 1000000, true, 0, tick), last + 1000000);
	CHECK_EQ(pol_real_stop(POL_U64_MAX - 1, true, POL_U64_MAX - 3, tick), POL_U64_MAX);
	/* a hog whose slice ended 100 us ago, 1 ms after its tick: a victim now */
	r = run(100, pol_real_stop(last + 900000, true, last, tick), POL_RUN_ACTIVE | POL_RUN_SLICE_BOUND);
	CHECK(pol_can_preempt(&r, 200, last + 1000000 + 50000, last + 1000000, guard));
	/* ... but not when its tick is 300 us away */
	CHECK(!pol_can_preempt(&r, 200, last + tick - 300000 + 50000, last + tick - 300000, guard));
}

TEST(preempt_ipi_only_when_the_tick_is_far)
{
	u64 tick = 4000000, last = 10000000;

	/* the next tick is a whole number of periods after the last one */
	CHECK_EQ(pol_tick_wait(last + 1000000, last, tick), 3000000);
	CHECK_EQ(pol_tick_wait(last + 3900000, last, tick), 100000);
	CHECK_EQ(pol_tick_wait(last + 9000000, last, tick), 3000000);	/* idle in between */
	CHECK_EQ(pol_tick_wait(last, last, tick), tick);		/* just ticked */
	/* unknown: no period yet, no tick yet, or a clock read before the tick */
	CHECK_EQ(pol_tick_wait(last + 1, last, 0), 0);
	CHECK_EQ(pol_tick_wait(last + 1, 0, tick), 0);
	CHECK_EQ(pol_tick_wait(last - 1, last, tick), 0);
	CHECK(!pol_preempt_needs_ipi(POL_PREEMPT_TICK_WAIT_NS, POL_PREEMPT_TICK_WAIT_NS));
	CHECK(pol_preempt_needs_ipi(POL_PREEMPT_TICK_WAIT_NS + 1, POL_PREEMPT_TICK_WAIT_NS));
	CHECK(!pol_preempt_needs_ipi(0, POL_PREEMPT_TICK_WAIT_NS));	/* unknown: no IPI */
}

TEST(tick_period_is_voted_on)
{
	const u64 ms = 1000000;
	u64 st = 0;
	int i;

	CHECK_EQ(pol_tick_period(0), 0);
	st = pol_tick_learn(st, 12 * ms);	/* first gap: three periods, idle between */
	CHECK_EQ(pol_tick_period(st), 0);	/* one vote is not enough */
	st = pol_tick_learn(st, 4 * ms);	/* disagrees, and no confidence is left */
	CHECK_EQ(st & POL_TICK_EST_MASK, 4 * ms);
	for (i = 0; i < 2; i++)
		st = pol_tick_learn(st, 4 * ms);
	CHECK_EQ(pol_tick_period(st), 0);	/* three votes */
	st = pol_tick_learn(st, 4 * ms);
	CHECK_EQ(pol_tick_period(st), 4 * ms);
	for (i = 0; i < 20; i++)
		st = pol_tick_learn(st, 4 * ms);
	CHECK_EQ(st >> POL_TICK_EST_BITS, POL_TICK_CONF_MAX);
	/* Skipped ticks, once trusted: no vote either way. */
	CHECK_EQ(pol_tick_learn(st, 12 * ms), st);
	CHECK_EQ(pol_tick_learn(st, 8 * ms + 100000), st);
	CHECK_EQ(pol_tick_period(st), 4 * ms);

	/* A tick 1.5 ms late: the gap before it is long, the one after short. */
	st = pol_tick_learn(st, 5500000);
	st = pol_tick_learn(st, 2500000);
	CHECK_EQ(pol_tick_period(st), 4 * ms);	/* the shortest gap would say 2.5 ms */
	CHECK_EQ(st >> POL_TICK_EST_BITS, POL_TICK_CONF_MAX - 2);

	/* Jitter within 1/16 agrees and moves the estimate by 1/8 of it. */
	st = pol_tick_learn(st, 4 * ms + 80000);
	CHECK_EQ(pol_tick_period(st), 4 * ms + 10000);
	st = pol_tick_learn(st, 4 * ms - 70000);
	CHECK_EQ(pol_tick_period(st), 4 * ms);

	/* Not ticks, or absurd: ignored. */
	CHECK_EQ(pol_tick_learn(st, 50000), st);
	CHECK_EQ(pol_tick_learn(st, POL_TICK_EST_MASK + 1), st);
	CHECK_EQ(pol_tick_learn(0, 50000), 0);
	/* A state that no learning produced starts afresh. */
	CHECK_EQ(pol_tick_learn(POL_U64_MAX, 4 * ms), pol_tick_pack(4 * ms, 1));
}

/*
 * A first gap of half the period (a tick 2 ms late, then one on time):
 * every true gap is two of those, yet the period learnt is the true one.
 */
TEST(tick_period_not_fooled_by_a_half_gap)
{
	const u64 ms = 1000000;
	u64 st = pol_tick_learn(0, 2 * ms);
	int i;

	for (i = 0; i < 8; i++)
		st = pol_tick_learn(st, 4 * ms);
	CHECK_EQ(pol_tick_period(st), 4 * ms);
}

/*
 * 4 CPUs ticking at 250 Hz, one tick in 20 late by up to 2 ms (a vCPU held
 * up): the period stays within 1 % of 4 ms, and is known after the first
 * few ticks. The shortest gap, the rule before, fell to about 2 ms.
 */
TEST(tick_period_survives_late_ticks)
{
	const u64 period = 4000000;
	u64 st = 0, last[4] = { 0 }, rnd = 12345, shortest = POL_U64_MAX, t, late;
	int i, c, known_at = -1;

	for (i = 1; i <= 2000; i++) {
		for (c = 0; c < 4; c++) {
			rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
			late = (rnd >> 33) % 20 == 0 ? (rnd >> 40) % 2000000 : (rnd >> 40) % 20000;
			t = (u64)i * period + late;
			if (last[c]) {
				st = pol_tick_learn(st, t - last[c]);
				shortest = pol_min(shortest, t - last[c]);
			}
			last[c] = t;
			if (known_at < 0 && pol_tick_period(st))
				known_at = i;
			if (known_at >= 0)
				CHECK(pol_absdiff(pol_tick_period(st), period) <= period / 100);
		}
	}
	CHECK(known_at >= 0 && known_at <= 4);
	CHECK(shortest < period * 3 / 4);	/* the sequence has late ticks */
}

TEST(hardirq_bits_from_the_ticks)
{
	/* classic layout: NEED_RESCHED (inverted) at bit 31, hardirq at 16 */
	CHECK_EQ(pol_hardirq_mask(0x80010000U), 0x000f0000U);
	/* 7.3 as seen in the VM: hardirq at bit 24 (bit 63 is not read) */
	CHECK_EQ(pol_hardirq_mask(0x01000000U), 0x0f000000U);
	/* preempt and softirq bytes are ignored */
	CHECK_EQ(pol_hardirq_mask(0x00010103U), 0x000f0000U);
	/* nothing learnt, or nothing that can be a 4-bit count */
	CHECK_EQ(pol_hardirq_mask(0), 0);
	CHECK_EQ(pol_hardirq_mask(0x0000ffffU), 0);
	CHECK_EQ(pol_hardirq_mask(0x80000000U), 0);
	CHECK_EQ(pol_hardirq_mask(0x20000000U), 0);
	CHECK_EQ(pol_hardirq_mask(0x10000000U), 0xf0000000U);
}

TEST(victim_is_the_weaker_one)
{
	/* Upstream's O1: of two candidates take the less critical one. */
	struct pol_cpu_run a = run(100, 5000, POL_RUN_ACTIVE), b = run(300, 9000, POL_RUN_ACTIVE);

	CHECK(pol_victim_better(&a, &b));
	CHECK(!pol_victim_better(&b, &a));
	/* same criticality: the one that would run longer */
	b.lat_cri = 100;
	CHECK(pol_victim_better(&b, &a));
	CHECK(!pol_victim_better(&a, &b));
	CHECK(!pol_victim_better(&a, &a));
}

TEST(preempt_bar)
{
	/* at or above the threshold: anything less critical */
	CHECK_EQ(pol_preempt_bar(1000, 900), 1000);
	CHECK_EQ(pol_preempt_bar(900, 900), 900);
	/* below it: only what is under half as critical */
	CHECK_EQ(pol_preempt_bar(899, 900), 449);
	CHECK_EQ(pol_preempt_bar(1000, 2300), 500);
	CHECK_EQ(pol_preempt_bar(1, 2300), 0);
	CHECK_EQ(pol_preempt_bar(0, 0), 0);
	CHECK_EQ(pol_preempt_bar(0xffffffffU, POL_U64_MAX), 0x7fffffffU);

	/* the VM case: a cyclictest thread (~1000) over a CPU hog (~300) */
	struct pol_cpu_run hog = run(300, 5000000, POL_RUN_ACTIVE);
	struct pol_cpu_run peer = run(600, 5000000, POL_RUN_ACTIVE);

	CHECK(pol_can_preempt(&hog, pol_preempt_bar(1000, 2300), 1010000, 1000000, 500000));
	CHECK(!pol_can_preempt(&peer, pol_preempt_bar(1000, 2300), 1010000, 1000000, 500000));
	CHECK(pol_can_preempt(&peer, pol_preempt_bar(2400, 2300), 1010000, 1000000, 500000));
}

TEST(should_preempt)
{
	struct pol_cfg c = cfg_dfl();

	CHECK(pol_should_preempt(1000, 900, false, &c));
	CHECK(pol_should_preempt(900, 900, false, &c));
	CHECK(pol_should_preempt(899, 900, false, &c));		/* may take a weak victim */
	CHECK(pol_should_preempt(2, 900, false, &c));
	CHECK(!pol_should_preempt(1, 900, false, &c));		/* no victim is below 0 */
	CHECK(!pol_should_preempt(1000, 900, true, &c));	/* greedy */
	CHECK(!pol_should_preempt(0, 0, false, &c));
	c.flags |= POL_CFG_NO_PREEMPTION;
	CHECK(!pol_should_preempt(1000, 900, false, &c));
}

TEST(est_stop)
{
	CHECK_EQ(pol_est_stop(100, 50, 200), 150);
	CHECK_EQ(pol_est_stop(100, 500, 200), 300);
	CHECK_EQ(pol_est_stop(POL_U64_MAX - 1, 500, 200), POL_U64_MAX);
}

TEST(futex_classify)
{
	CHECK_EQ(pol_futex_classify(POL_FUTEX_WAIT, 0), POL_FUTEX_ACQUIRE);
	CHECK_EQ(pol_futex_classify(POL_FUTEX_WAIT | 128, 0), POL_FUTEX_ACQUIRE); /* PRIVATE */
	CHECK_EQ(pol_futex_classify(POL_FUTEX_WAIT, -11), POL_FUTEX_NONE);	 /* EAGAIN */
	CHECK_EQ(pol_futex_classify(POL_FUTEX_WAIT_BITSET | 256, 0), POL_FUTEX_ACQUIRE);
	CHECK_EQ(pol_futex_classify(POL_FUTEX_LOCK_PI, 0), POL_FUTEX_ACQUIRE);
	CHECK_EQ(pol_futex_classify(POL_FUTEX_LOCK_PI2, -4), POL_FUTEX_NONE);
	CHECK_EQ(pol_futex_classify(POL_FUTEX_TRYLOCK_PI, 0), POL_FUTEX_ACQUIRE);
	CHECK_EQ(pol_futex_classify(POL_FUTEX_WAKE, 3), POL_FUTEX_RELEASE);
	CHECK_EQ(pol_futex_classify(POL_FUTEX_WAKE, 0), POL_FUTEX_RELEASE);
	CHECK_EQ(pol_futex_classify(POL_FUTEX_WAKE, -14), POL_FUTEX_NONE);
	CHECK_EQ(pol_futex_classify(POL_FUTEX_WAKE_OP, 1), POL_FUTEX_RELEASE);
	CHECK_EQ(pol_futex_classify(POL_FUTEX_UNLOCK_PI, 0), POL_FUTEX_RELEASE);
	CHECK_EQ(pol_futex_classify(POL_FUTEX_UNLOCK_PI, -1), POL_FUTEX_NONE);
	CHECK_EQ(pol_futex_classify(12, 0), POL_FUTEX_NONE);
	CHECK_EQ(pol_futex_classify(POL_U64_MAX, 0), POL_FUTEX_NONE);
}

/* ---- pol_cpu.h ---- */

TEST(lost_util)
{
	u64 ms = POL_NSEC_PER_MSEC;

	CHECK_EQ(pol_lost_util(10 * ms, 0, 0), 0);			/* no gaps */
	CHECK_EQ(pol_lost_util(10 * ms, 5 * ms, 0), 512);		/* half RT/IRQ */
	CHECK_EQ(pol_lost_util(10 * ms, 10 * ms, 0), 1024);
	CHECK_EQ(pol_lost_util(10 * ms, 12 * ms, 0), 1024);		/* a gap read twice: capped */
	CHECK_EQ(pol_lost_util(0, 5 * ms, 512), 0);
	CHECK_EQ(pol_lost_util(1, 1, 0), 1024);
	CHECK_EQ(pol_lost_util(POL_U64_MAX, POL_U64_MAX, 0), 1024);
	/* interrupts inside our run time or idle time count as lost */
	CHECK_EQ(pol_lost_util(10 * ms, 0, 512), 512);
	CHECK_EQ(pol_lost_util(10 * ms, 5 * ms, 256), 768);
	CHECK_EQ(pol_lost_util(10 * ms, 5 * ms, 512), 1024);		/* RT + IRQ: whole interval */
	CHECK_EQ(pol_lost_util(10 * ms, 0, 2048), 1024);		/* overlap capped */
	CHECK_EQ(pol_lost_util(10 * ms, POL_U64_MAX, POL_U64_MAX), 1024); /* no wrap */
	CHECK_EQ(pol_share(5 * ms, 10 * ms), 512);
	CHECK_EQ(pol_share(1, 0), 0);
}

TEST(gap_clock)
{
	struct pol_gap_clock g = { 0, 0 };
	u64 ms = POL_NSEC_PER_MSEC, seen = 0;

	/* idle or ours since before load: nothing seen, nothing lost */
	CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, g.gap_since_ns, 10 * ms), 0);
	pol_gap_close(&g, 11 * ms);			/* going idle with no gap open */
	CHECK_EQ(g.lost_total_ns, 0);
	/* our task stops at 12 ms, an RT task runs until 15 ms, ours again */
	pol_gap_open(&g, 12 * ms);
	pol_gap_open(&g, 13 * ms);			/* already open: keeps its start */
	CHECK_EQ(g.gap_since_ns, 12 * ms);
	pol_gap_close(&g, 15 * ms);
	CHECK_EQ(g.lost_total_ns, 3 * ms);
	CHECK_EQ(g.gap_since_ns, 0);
	CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, g.gap_since_ns, 20 * ms), 3 * ms);
	CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, g.gap_since_ns, 30 * ms), 0);
	/* an RT hog across rounds: each round gets its own part of the gap */
	pol_gap_open(&g, 32 * ms);
	CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, g.gap_since_ns, 40 * ms), 8 * ms);
	CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, g.gap_since_ns, 50 * ms), 10 * ms);
	pol_gap_close(&g, 55 * ms);
	CHECK_EQ(g.lost_total_ns, 26 * ms);
	CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, g.gap_since_ns, 60 * ms), 5 * ms);
	CHECK_EQ(seen, 26 * ms);
	/*
	 * Read while the CPU closes a gap (61..63 ms): the new total with the
	 * old start counts the gap twice; the excess comes off the next rounds,
	 * never a run of ours counted as lost.
	 */
	pol_gap_open(&g, 61 * ms);
	{
		u64 old_since = g.gap_since_ns;

		pol_gap_close(&g, 63 * ms);
		CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, old_since, 70 * ms), 2 * ms + 9 * ms);
	}
	CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, g.gap_since_ns, 80 * ms), 0);
	pol_gap_open(&g, 85 * ms);
	CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, g.gap_since_ns, 90 * ms), 0);
	CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, g.gap_since_ns, 100 * ms), 6 * ms);
	/* the old total with the gap already cleared: missed now, counted next round */
	pol_gap_close(&g, 101 * ms);
	CHECK_EQ(pol_gap_read(&seen, 28 * ms, 0, 105 * ms), 0);
	CHECK_EQ(pol_gap_read(&seen, g.lost_total_ns, g.gap_since_ns, 110 * ms), 1 * ms);
	CHECK_EQ(seen, g.lost_total_ns);
}

TEST(irq_avg)
{
	u64 ms = POL_NSEC_PER_MSEC, fp = 0;
	int i;

	/* one tick-sampled 4 ms softirq hit in a quiet CPU: not turbulent */
	fp = pol_irq_avg(fp, 10 * ms, 4 * ms);
	CHECK(!pol_is_turbulent(pol_lost_avg(0, pol_lost_util(10 * ms, 0, pol_irq_util(fp)))));
	CHECK_EQ(pol_irq_util(fp), 409 / 8);
	/* a sustained half: the average converges there, and turbulence follows */
	for (i = 0; i < 100; i++)
		fp = pol_irq_avg(fp, 10 * ms, 5 * ms);
	CHECK(pol_irq_util(fp) >= 510 && pol_irq_util(fp) <= 512);
	/* and decays back when the interrupts stop */
	for (i = 0; i < 100; i++)
		fp = pol_irq_avg(fp, 10 * ms, 0);
	CHECK(pol_irq_util(fp) <= 1);
	CHECK_EQ(pol_irq_util(POL_U64_MAX), POL_SCALE);
	CHECK_EQ(pol_irq_avg(0, 0, 5 * ms), 0);	/* empty interval */
}

TEST(turbulence_rises_fast_decays_slow)
{
	u64 a = 0;
	int up = 0, down = 0, i;

	/* an RT hog (all of an interval lost) makes a quiet CPU turbulent at once */
	CHECK(pol_is_turbulent(pol_lost_avg(0, POL_SCALE)));
	CHECK(pol_is_turbulent(pol_lost_avg(0, POL_SCALE / 2 + 4)));
	/* a third of one interval lost does not, nor three such intervals 10 apart */
	for (i = 0; i < 30; i++) {
		a = pol_lost_avg(a, i % 10 ? 0 : POL_SCALE / 3);
		CHECK(!pol_is_turbulent(a));
	}
	/* but two in a row do */
	CHECK(pol_is_turbulent(pol_lost_avg(pol_lost_avg(0, POL_SCALE / 3), POL_SCALE / 3)));
	/* a sustained share just above the threshold is reached, not approached forever */
	a = 0;
	while (!pol_is_turbulent(a) && up < 1000) {
		a = pol_lost_avg(a, POL_TURBULENT_UTIL + 1);
		up++;
	}
	CHECK(up < 1000);
	CHECK_EQ(pol_lost_avg(a, a), a);
	/* a CPU disturbed for long stays turbulent through a few quiet intervals */
	a = 0;
	up = 0;
	while (!pol_is_turbulent(a) && up < 100) {
		a = pol_lost_avg(a, 900);
		up++;
	}
	CHECK_EQ(up, 1);
	for (i = 0; i < 50; i++)
		a = pol_lost_avg(a, 900);
	while (pol_is_turbulent(a) && down < 1000) {
		a = pol_lost_avg(a, 0);
		down++;
	}
	CHECK(down > up * 5);
	/* and every step moves towards the sample, even by 1 */
	CHECK_EQ(pol_lost_avg(7, 8), 8);
	CHECK_EQ(pol_lost_avg(8, 7), 7);
	CHECK(!pol_is_turbulent(POL_TURBULENT_UTIL));
	CHECK(pol_is_turbulent(POL_TURBULENT_UTIL + 1));
	CHECK(pol_wants_steady(101, 100));
	CHECK(!pol_wants_steady(100, 100));
}

TEST(warmth_grows_and_decays)
{
	struct pol_warmth w = { .heat = 0, .last_stop_ns = 0, .cpu = -1 };
	u64 us = POL_NSEC_PER_USEC;

	CHECK_EQ(pol_warmth_now(&w, 0, 0), 0);
	pol_warmth_on_stop(&w, 2, 250 * us, 1000 * us);
	CHECK_EQ(w.heat, 512);
	CHECK_EQ(pol_warmth_now(&w, 2, 1000 * us), 512);
	CHECK_EQ(pol_warmth_now(&w, 3, 1000 * us), 0);		/* other CPU: cold */
	CHECK_EQ(pol_warmth_now(&w, 2, 3500 * us), 256);	/* half way through 5 ms */
	CHECK_EQ(pol_warmth_now(&w, 2, 6000 * us), 0);
	/* a run on the same CPU adds to what was left at its start */
	pol_warmth_on_stop(&w, 2, 250 * us, 3750 * us);
	CHECK_EQ(w.heat, 256 + 512);
	/* the run time itself is not "away" time (O12) */
	pol_warmth_on_stop(&w, 2, 4 * POL_NSEC_PER_MSEC, 8 * POL_NSEC_PER_MSEC);
	CHECK_EQ(w.heat, 1024);
	/* moving resets */
	pol_warmth_on_stop(&w, 5, 100 * us, 9 * POL_NSEC_PER_MSEC);
	CHECK_EQ(w.cpu, 5);
	CHECK_EQ(w.heat, 204);
	/* time going backwards does not underflow */
	CHECK(pol_warmth_now(&w, 5, 0) <= 1024);
}

TEST(warm_wait_budget)
{
	CHECK(!pol_warm_wait_ok(0, 0, 1000));		/* cold: never wait */
	CHECK(!pol_warm_wait_ok(1024, 0, 0));		/* feature off */
	CHECK(pol_warm_wait_ok(1024, 2000, 1000));	/* warm: up to 2x */
	CHECK(!pol_warm_wait_ok(1024, 2001, 1000));
	CHECK(pol_warm_wait_ok(512, 1500, 1000));
	CHECK(!pol_warm_wait_ok(512, 1501, 1000));
	CHECK(pol_warm_wait_ok(POL_U64_MAX, 2000, 1000));
}


/* ---- pol_power.h: compaction, power modes, perf criticality, cpufreq ---- */

TEST(cc_cpu_use_scales_by_capacity_and_spikes)
{
	u64 ms10 = 10000000;

	CHECK_EQ(pol_cc_cpu_use(0, ms10, 1024), 0);
	CHECK_EQ(pol_cc_cpu_use(ms10 / 2, ms10, 1024), 512);	/* half busy, full CPU */
	CHECK_EQ(pol_cc_cpu_use(ms10 / 2, ms10, 512), 256);	/* half busy, half CPU */
	/* 90 % busy: no premium yet (922 is the bound) */
	CHECK_EQ(pol_cc_cpu_use(ms10 * 9 / 10, ms10, 1024), 921);
	/* saturated: 1.5x, it may be hiding demand */
	CHECK_EQ(pol_cc_cpu_use(ms10, ms10, 1024), 1536);
	/* busy longer than the interval (clock skew) counts as full */
	CHECK_EQ(pol_cc_cpu_use(2 * ms10, ms10, 1024), 1536);
	CHECK_EQ(pol_cc_cpu_use(ms10, 0, 1024), 0);
	CHECK_EQ(pol_cc_cpu_use(POL_U64_MAX, ms10, 1024), 1536);
	CHECK_EQ(pol_cc_cpu_use(ms10 / 2, ms10, 0), 0);		/* cap clamped to 1: 512*1>>10 */
}

TEST(cc_nr_active_walks_the_order)
{
	static struct pol_order_caps c8 = { { 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024 } };
	static struct pol_order_caps h4 = { { 1024, 1024, 600, 600 } };
	const struct pol_order_caps *caps = &c8, *hyb = &h4;

	CHECK_EQ(pol_cc_req(0), 0);
	CHECK_EQ(pol_cc_req(1024), 1280);
	CHECK_EQ(pol_cc_nr_active(caps, 8, 0), 1);		/* never 0 CPUs */
	CHECK_EQ(pol_cc_nr_active(caps, 8, 512), 1);		/* one CPU at half */
	CHECK_EQ(pol_cc_nr_active(caps, 8, 513), 2);
	CHECK_EQ(pol_cc_nr_active(caps, 8, pol_cc_req(1024)), 3);	/* 1280 / 512 -> 3 */
	CHECK_EQ(pol_cc_nr_active(caps, 8, POL_U64_MAX), 8);	/* more than all: all */
	CHECK_EQ(pol_cc_nr_active(caps, 0, 1000), 0);
	CHECK_EQ(pol_cc_nr_active(hyb, 4, 1024 + 300), 3);	/* 512 + 512 + 300 */
	CHECK_EQ(pol_cc_nr_active(hyb, 4, 1024 + 301), 4);
}

TEST(pco_state_by_mode)
{
	u64 b[3] = { 1024, 4096, 8192 };

	CHECK_EQ(pol_pco_state(POL_PM_POWERSAVE, 9000, b, 3), 0);
	CHECK_EQ(pol_pco_state(POL_PM_PERFORMANCE, 0, b, 3), 2);
	CHECK_EQ(pol_pco_state(POL_PM_BALANCED, 0, b, 3), 0);
	CHECK_EQ(pol_pco_state(POL_PM_BALANCED, 1024, b, 3), 0);
	CHECK_EQ(pol_pco_state(POL_PM_BALANCED, 1025, b, 3), 1);
	CHECK_EQ(pol_pco_state(POL_PM_BALANCED, 99999, b, 3), 2);	/* none covers: the last */
	CHECK_EQ(pol_pco_state(POL_PM_BALANCED, 99999, b, 1), 0);
	CHECK_EQ(pol_pco_state(POL_PM_BALANCED, 99999, b, 0), 0);
	CHECK_EQ(pol_pco_state(POL_PM_PERFORMANCE, 0, b, 1000), 10);	/* clamped to POL_PCO_MAX */
}

TEST(pm_bounds)
{
	u64 b[4] = { 600, 2000, 5000, 9000 };
	struct pol_pm_bounds x;

	x = pol_pm_bounds_noem(1024, 8 * 1024, true);
	CHECK_EQ(x.low, 512);
	CHECK_EQ(x.high, 2048);
	x = pol_pm_bounds_noem(600, 8 * 1024, false);
	CHECK_EQ(x.low, 300);
	CHECK_EQ(x.high, 4096);
	x = pol_pm_bounds_noem(1024, 1024, true);	/* one CPU: high never below low */
	CHECK_EQ(x.high, 512);
	x = pol_pm_bounds_em(b, 4);
	CHECK_EQ(x.low, 600);
	CHECK_EQ(x.high, 5000);
	x = pol_pm_bounds_em(b, 1);
	CHECK_EQ(x.low, 600);
	CHECK_EQ(x.high, 600);
	x = pol_pm_bounds_em(b, 0);
	CHECK_EQ(x.low, 0);
	CHECK_EQ(x.high, 0);
}

TEST(autopilot_with_hysteresis)
{
	struct pol_pm_bounds b = { .low = 512, .high = 2048 };

	/* from scratch (no mode yet) the raw comparison */
	CHECK_EQ(pol_autopilot(0, b, POL_PM_NR), POL_PM_POWERSAVE);
	CHECK_EQ(pol_autopilot(512, b, POL_PM_NR), POL_PM_POWERSAVE);
	CHECK_EQ(pol_autopilot(513, b, POL_PM_NR), POL_PM_BALANCED);
	CHECK_EQ(pol_autopilot(2049, b, POL_PM_NR), POL_PM_PERFORMANCE);
	/* up is immediate */
	CHECK_EQ(pol_autopilot(513, b, POL_PM_POWERSAVE), POL_PM_BALANCED);
	CHECK_EQ(pol_autopilot(2049, b, POL_PM_POWERSAVE), POL_PM_PERFORMANCE);
	/* down only clearly below: 7/8 of the bound */
	CHECK_EQ(pol_autopilot(2048, b, POL_PM_PERFORMANCE), POL_PM_PERFORMANCE);
	CHECK_EQ(pol_autopilot(1793, b, POL_PM_PERFORMANCE), POL_PM_PERFORMANCE);
	CHECK_EQ(pol_autopilot(1792, b, POL_PM_PERFORMANCE), POL_PM_BALANCED);
	CHECK_EQ(pol_autopilot(500, b, POL_PM_BALANCED), POL_PM_BALANCED);
	CHECK_EQ(pol_autopilot(448, b, POL_PM_BALANCED), POL_PM_POWERSAVE);
	/* a collapse from performance goes all the way, unless near low */
	CHECK_EQ(pol_autopilot(10, b, POL_PM_PERFORMANCE), POL_PM_POWERSAVE);
	CHECK_EQ(pol_autopilot(500, b, POL_PM_PERFORMANCE), POL_PM_BALANCED);
}

TEST(overflow_lingers_then_leaves)
{
	u32 rounds = 0;
	int i;

	CHECK(pol_overflow_keep(true, &rounds));
	for (i = 0; i < POL_CC_OVERFLOW_LINGER; i++)
		CHECK(pol_overflow_keep(false, &rounds));
	CHECK(!pol_overflow_keep(false, &rounds));
	CHECK(pol_overflow_keep(true, &rounds));	/* work again: back, count reset */
	CHECK_EQ(rounds, 0);
}

TEST(perf_cri_orders_tasks)
{
	struct pol_task_stat render = { 0 }, audio = { 0 }, hog = { 0 };

	render.wait_freq = 60;
	render.wake_freq = 60;
	render.run_freq = 60;
	render.avg_runtime_ns = 8000000;	/* 8 ms a frame */
	audio.wait_freq = 200;
	audio.wake_freq = 200;
	audio.run_freq = 200;
	audio.avg_runtime_ns = 50000;		/* 50 us a buffer */
	hog.run_freq = 1;
	hog.avg_runtime_ns = POL_NSEC_PER_SEC;
	/* the render thread needs a fast core more than the brief audio thread */
	CHECK(pol_perf_cri(&render, 100) > pol_perf_cri(&audio, 100));
	/* a hog uses a lot of CPU but waits on nothing */
	CHECK(pol_perf_cri(&render, 100) > pol_perf_cri(&hog, 100));
	/* weight counts */
	CHECK(pol_perf_cri(&render, 1000) > pol_perf_cri(&render, 100));
	/* extremes stay small and defined */
	hog.wait_freq = hog.wake_freq = hog.run_freq = POL_U64_MAX;
	hog.avg_runtime_ns = POL_U64_MAX;
	CHECK(pol_perf_cri(&hog, POL_U64_MAX) < 200);
	CHECK_EQ(pol_perf_cri(&(struct pol_task_stat){ 0 }, 0), 2);
}

TEST(thr_perf_cri_follows_big_share)
{
	CHECK_EQ(pol_thr_perf_cri(1024, 10, 20, 40), 0);	/* only big: all */
	CHECK_EQ(pol_thr_perf_cri(0, 10, 20, 40), 40);		/* no big: none */
	CHECK_EQ(pol_thr_perf_cri(512, 10, 20, 40), 20);	/* half: the average */
	CHECK_EQ(pol_thr_perf_cri(768, 10, 20, 40), 15);	/* mostly big: below avg */
	CHECK_EQ(pol_thr_perf_cri(256, 10, 20, 40), 30);	/* mostly little: above */
	CHECK_EQ(pol_thr_perf_cri(1, 10, 20, 40), 39);
	/* inconsistent averages are ordered, never wrap */
	CHECK_EQ(pol_thr_perf_cri(512, 30, 20, 10), 30);
	CHECK(pol_thr_perf_cri(256, 30, 20, 10) >= 30);
}

TEST(cpuperf_target)
{
	CHECK_EQ(pol_cpuperf_target(0, 0), 1);
	CHECK_EQ(pol_cpuperf_target(300, 100), 300);
	CHECK_EQ(pol_cpuperf_target(100, 600), 600);		/* a rise is served at once */
	CHECK_EQ(pol_cpuperf_target(869, 0), 869);
	CHECK_EQ(pol_cpuperf_target(870, 0), 1024);
	CHECK_EQ(pol_cpuperf_target(POL_U64_MAX, 0), 1024);
}

TEST(cc_guard_grows_on_waits_and_decays)
{
	struct pol_cc_guard g = { 0, 0 };
	int i;

	pol_cc_guard_update(&g, POL_CC_WAIT_HIGH_NS, 2, 0, 32);	/* at the bound: nothing */
	CHECK_EQ(g.floor, 0);
	pol_cc_guard_update(&g, POL_CC_WAIT_HIGH_NS + 1, 2, 0, 32);
	CHECK_EQ(g.floor, 3);					/* 2 + 1 + 2/4 */
	{
		struct pol_cc_guard h = { 0, 0 };

		pol_cc_guard_update(&h, 2000000, 2, 20, 32);	/* 20 waiting: 20 more */
		CHECK_EQ(h.floor, 22);
		pol_cc_guard_update(&h, 2000000, 22, POL_U64_MAX, 32);
		CHECK_EQ(h.floor, 32);
	}
	pol_cc_guard_update(&g, 5000000, 8, 1, 32);
	CHECK_EQ(g.floor, 11);					/* 8 + 1 + 2 */
	pol_cc_guard_update(&g, 5000000, 32, 99, 32);	/* all in use: no growth */
	CHECK_EQ(g.floor, 11);
	pol_cc_guard_update(&g, 5000000, 30, 0, 32);		/* capped at n */
	CHECK_EQ(g.floor, 32);
	/* calm rounds: an eighth plus one every POL_CC_CALM_ROUNDS */
	for (i = 0; i < POL_CC_CALM_ROUNDS - 1; i++)
		pol_cc_guard_update(&g, 0, 32, 0, 32);
	CHECK_EQ(g.floor, 32);
	pol_cc_guard_update(&g, 0, 32, 0, 32);
	CHECK_EQ(g.floor, 27);
	/* a middling wait resets the calm count without growing */
	for (i = 0; i < POL_CC_CALM_ROUNDS - 1; i++)
		pol_cc_guard_update(&g, 0, 32, 0, 32);
	pol_cc_guard_update(&g, POL_CC_WAIT_LOW_NS, 32, 0, 32);
	pol_cc_guard_update(&g, 0, 32, 0, 32);
	CHECK_EQ(g.floor, 27);
	/* down to 0, never below */
	for (i = 0; i < 100 * POL_CC_CALM_ROUNDS; i++)
		pol_cc_guard_update(&g, 0, 1, 0, 32);
	CHECK_EQ(g.floor, 0);
	g.floor = 5;
	pol_cc_guard_update(&g, POL_U64_MAX, 0, 9, 0);		/* n = 0: no growth */
	CHECK_EQ(g.floor, 5);
}

TEST(perf_type_has_a_band)
{
	CHECK_EQ(pol_perf_type(20, 10), 1);
	CHECK_EQ(pol_perf_type(12, 10), 1);
	CHECK_EQ(pol_perf_type(11, 10), 0);	/* within the band: stay */
	CHECK_EQ(pol_perf_type(10, 10), 0);
	CHECK_EQ(pol_perf_type(9, 10), 0);
	CHECK_EQ(pol_perf_type(8, 10), -1);
	CHECK_EQ(pol_perf_type(0, 0), 0);
	CHECK_EQ(pol_perf_type(0, POL_U64_MAX), -1);
	CHECK_EQ(pol_perf_type(0xffffffffU, POL_U64_MAX), -1);
	CHECK_EQ(pol_perf_type(0xffffffffU, 0), 1);
}

HARNESS_MAIN("unit")
