/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_policy.c - libFuzzer harness for the policy core (src/policy/).
 *
 * The unit tests (tests/unit/test_policy.c) pin chosen edge cases; this
 * harness lets libFuzzer search for inputs that break what the headers
 * promise, under ASan and UBSan. Built by tests/tests.mk as
 * $(O)/fuzz_policy, run bounded by tests/fuzz/run.sh.
 *
 * Input format. A header, then operations until the bytes run out:
 *   byte 0       bit 0: a custom (loader-valid) pol_cfg follows, else defaults
 *   [cfg]        slice_max_us, slice_min_us (values), preempt_shift, flags (bytes)
 *   value        start of the harness wall clock (ns, masked below 2^50)
 *   byte         number of CPUs in the world, 1..FZ_CPUS
 *   then         op byte (mod FZ_NR_OPS), then that op's arguments
 * A "value" is a tag byte and 0..8 more bytes (fz_val): the tag picks an
 * edge (0, 1, U64_MAX, 2^63, 1e9, ...), an edge plus a small delta, a small
 * number, or 1/2/4/8 raw bytes. libFuzzer then reaches 0/1/max/overflow
 * edges in one mutation instead of guessing eight bytes. Past the end every
 * byte reads 0, so any prefix is a valid input.
 *
 * Two kinds of operation:
 *  - pure ops (P_*) call one function with raw decoded arguments, over the
 *    whole u64/u32/s64 range: the policy claims to be total ("never UB, never
 *    divides by zero, outputs in documented bounds whatever the inputs");
 *  - stateful ops (S_*) act on a small world kept across the operations of
 *    one input: FZ_TASKS tasks, FZ_CPUS CPUs, the system averages, the
 *    logical clock and the per-LLC domains, driven the way src/bpf/ drives
 *    them (wakeup -> enqueue -> running -> stopping -> quiescent, 10 ms
 *    sys_stat samples, turbulence samples, balance and preemption choices).
 *    Here time is physical: the harness clock only moves forward, by at most
 *    2^36 ns (69 s) per op, and a run lasts what the clock advanced. So the
 *    world stays in the domain the scheduler can reach (times far below
 *    2^62 ns, weights 1..10000, cap/cur 0..1024, a cfg the loader accepts),
 *    and there the exact formulas of the comments are checked too.
 *
 * Invariants checked (each INV() names the promise it checks):
 *  arithmetic (pol_base.h): min/max/clamp/div/sub_sat/add_sat/mul_sat equal
 *    their 128-bit reference (saturating ops never wrap; clamp: lo wins when
 *    inverted); log2x is the bit length (1 for 0); ewma and ewma_asym stay
 *    between old and new, ewma can leave and reach 0, ewma_asym rises with
 *    3/4 weight; interval_to_freq <= freq_max and exact; p2s exact.
 *  task (pol_task.h): init resets what it says; on_wake samples iff 500 us
 *    passed, wake_freq stays between the old value and <= 2000/s, criticality
 *    is exchanged; on_running/on_quiescent frequencies stay between old and
 *    sample; account saturates and adds exactly ran_invr x 100 / weight;
 *    on_stopping averages between old and acc; ctx_boost is the documented
 *    sum (<= 3200, hardirq excludes softirq); lat_cri_raw in [4, 70^2];
 *    lat_cri in [raw, raw + raw/4], gains only from givers > 2 x raw, by at
 *    most 1/8 of the excess, consumes the inherited fields; lat_cri_norm in
 *    0..POL_SCALE; wall_to_invr <= wall and exact unless saturated.
 *  deadline (pol_deadline.h): greed penalty in [1.0, 2.0] x POL_SCALE,
 *    >= 1.5 iff greedy, greedy iff ahead of peers, service never decreases
 *    and a credit never exceeds lag_max; deadline_delta and weight_scale
 *    exact (stretch capped at 8x, never above delta for weight >= 100);
 *    compete window <= its constant; vdeadline never before clk - window;
 *    logical clock never moves backwards nor past the deadline it chases;
 *    clock_service <= ran_ns.
 *  sys (pol_sys.h): slice_target and the system slice within
 *    [slice_min, slice_max] (lo wins for an inverted cfg); thr_lat_cri
 *    between avg and max; avg_util <= POL_SCALE; nr_active >= 1; task_slice
 *    unboosted == system slice, boosted >= slice_min and within its cap;
 *    slice_revoke never wraps.
 *  balance (pol_balance.h): domain_load exact; pick_stealee returns -1 iff
 *    nothing is eligible, else an eligible index (not self, not tried,
 *    queued, below min(n, 64)) of maximal load, ties to the lowest.
 *  preempt (pol_preempt.h): can_preempt equals its documented rules;
 *    victim_better is a strict total order; should_preempt as documented;
 *    est_stop in [now, now + min(avg, slice)]; futex_classify a valid event,
 *    a function of (op & 0x7f) and ret; tick_learn ignores non-ticks, and
 *    otherwise starts afresh, loses a vote, or gains one and moves 1/8 of
 *    the way to the gap (confidence capped); tick_period only when trusted.
 *  cpu (pol_cpu.h): lost_util in 0..POL_SCALE and within 1 of exact; lost_avg
 *    moves towards the sample (strictly down when below); turbulent iff
 *    > 1/8; warmth in 0..POL_SCALE, 0 off its CPU, only decays while away,
 *    a run never cools; warm_wait_ok exact and monotone in the wait.
 *
 * A broken invariant prints the op, the line and the condition to stderr
 * and aborts, which libFuzzer reports as a crash with the input saved.
 *
 * -DFUZZ_SKIP_KNOWN_BUGS skips the inputs of the bugs recorded in
 * tests/fuzz/crashes/ so that a long run can look for others; the default
 * build never skips them, so the bugs are reported until they are fixed.
 *
 * -DFUZZ_SELFTEST replaces pol_slice_target by a local copy that lost its
 * lower clamp (the kind of bug a refactor makes); the harness must find it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/pol.h"

typedef unsigned __int128 u128;

#define FZ_TASKS	4
#define FZ_CPUS		4
#define FZ_MAX_OPS	1024
/* Largest harness clock step per op: 2^36 ns, about 69 s. */
#define FZ_STEP_MASK	((1ULL << 36) - 1)
/* Time values in the stateful world stay below this (never reached in practice). */
#define FZ_TIME_DOMAIN	(1ULL << 60)

/* ------------------------------------------------------------ reporting */

static const char *fz_op = "header";
static char fz_note[256];

__attribute__((noreturn)) static void fz_fail(int line, const char *cond)
{
	fprintf(stderr, "fuzz_policy: invariant broken in %s (fuzz_policy.c:%d): %s%s%s\n",
		fz_op, line, cond, fz_note[0] ? " | " : "", fz_note);
	abort();
}

#define INV(c)		do { if (!(c)) fz_fail(__LINE__, #c); } while (0)
#define NOTE(...)	snprintf(fz_note, sizeof(fz_note), __VA_ARGS__)

static u64 sat128(u128 v) { return v >> 64 ? POL_U64_MAX : (u64)v; }
static u64 umin(u64 a, u64 b) { return a < b ? a : b; }
static u64 umax(u64 a, u64 b) { return a > b ? a : b; }
/* v lies between a and b, whichever order. */
static bool between(u64 v, u64 a, u64 b) { return v >= umin(a, b) && v <= umax(a, b); }

/* ------------------------------------------------------------ decoding */

struct fz_in {
	const u8 *p;
	size_t n;
};

static u8 fz_u8(struct fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static u64 fz_raw(struct fz_in *in, int bytes)
{
	u64 v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (u64)fz_u8(in) << (8 * i);
	return v;
}

static const u64 fz_edges[32] = {
	0, 1, 2, 3, 7, 8, 63, 64, 100, 1023, 1024, 1025, 10000, 100000,
	500000,				/* 500 us: wake sampling, slice min, warm saturation */
	POL_DL_COMPETE_WINDOW_NS,
	5000000,			/* 5 ms: slice max, warm lifetime */
	10000000,			/* 10 ms: sys interval, targeted latency */
	POL_NSEC_PER_SEC,
	50000000000ULL,			/* lag_max x nice0 weight */
	0x7fffffffULL, 0xffffffffULL, 1ULL << 32, 1ULL << 44, 1ULL << 53, 1ULL << 62,
	(1ULL << 63) - 1, 1ULL << 63, (1ULL << 63) + 1, POL_U64_MAX - 1, POL_U64_MAX,
	0xaaaaaaaaaaaaaaaaULL,
};

/* One value: tag byte & 7 selects how it is built (see the file comment). */
static u64 fz_val(struct fz_in *in)
{
	u8 tag = fz_u8(in);
	u64 idx = tag >> 3;

	switch (tag & 7) {
	case 0: return fz_edges[idx];
	case 1: return fz_edges[idx] + (u64)(s64)(int8_t)fz_u8(in);
	case 2: return idx;
	case 3: return fz_raw(in, 1);
	case 4: return fz_raw(in, 2);
	case 5: return fz_raw(in, 4);
	case 6: return fz_raw(in, 8);
	default: return (1ULL << (fz_u8(in) & 63)) + idx - 16;
	}
}

static u32 fz_val32(struct fz_in *in) { return (u32)fz_val(in); }

/* A task weight the kernel can give: 1..10000. */
static u64 fz_weight(struct fz_in *in) { return 1 + fz_val(in) % 10000; }

static void fz_task_raw(struct fz_in *in, struct pol_task_stat *t)
{
	t->avg_runtime_ns = fz_val(in);
	t->acc_runtime_ns = fz_val(in);
	t->wait_freq = fz_val(in);
	t->wake_freq = fz_val(in);
	t->run_freq = fz_val(in);
	t->last_runnable_ns = fz_val(in);
	t->last_quiescent_ns = fz_val(in);
	t->last_running_ns = fz_val(in);
	t->svc_wgt_ns = fz_val(in);
	t->lat_cri = fz_val32(in);
	t->lat_cri_waker = fz_val32(in);
	t->lat_cri_wakee = fz_val32(in);
	t->ran_before = fz_val32(in);
}

/* A cfg the loader accepts (opts.c): 1 <= slice_min_us <= slice_max_us <= 1e6, shift 0..10. */
static void fz_cfg_valid(struct fz_in *in, struct pol_cfg *c)
{
	u64 max_us = 1 + fz_val(in) % 1000000;
	u64 min_us = 1 + fz_val(in) % max_us;

	c->slice_max_ns = max_us * POL_NSEC_PER_USEC;
	c->slice_min_ns = min_us * POL_NSEC_PER_USEC;
	c->preempt_shift = fz_u8(in) % (POL_PREEMPT_SHIFT_MAX + 1);
	c->flags = fz_u8(in) & 0xf;
}

static void fz_cfg_raw(struct fz_in *in, struct pol_cfg *c)
{
	c->slice_min_ns = fz_val(in);
	c->slice_max_ns = fz_val(in);
	c->preempt_shift = fz_val32(in);
	c->flags = fz_val32(in);
}

static void fz_sample_raw(struct fz_in *in, struct pol_sys_sample *x)
{
	x->interval_ns = fz_val(in);
	x->busy_ns = fz_val(in);
	x->nr_sched = fz_val(in);
	x->sum_lat_cri = fz_val(in);
	x->max_lat_cri = fz_val(in);
	x->sum_svc_wgt_ns = fz_val(in);
	x->nr_queued = fz_val(in);
	x->nr_active = fz_val(in);
	x->nr_cpus = fz_val(in);
}

/* ------------------------------------------------------------ the world */

struct fz_task {
	struct pol_task_stat st;
	struct pol_warmth warm;
	u64 weight;		/* 1..10000 */
	u64 vdl;		/* virtual deadline of the last enqueue */
	u64 run_start_ns;	/* harness clock at ops.running */
	s32 cpu;		/* CPU it runs on, -1 when not running */
	bool queued;
};

struct fz_world {
	struct pol_cfg cfg;	/* loader-valid */
	struct pol_sys sys;
	struct fz_task t[FZ_TASKS];
	struct pol_cpu_run run[FZ_CPUS];
	u64 lost_avg[FZ_CPUS];
	struct pol_gap_clock gap[FZ_CPUS];
	u64 gap_seen[FZ_CPUS], gap_sum[FZ_CPUS], gap_read_ns[FZ_CPUS];	/* the timer's */
	struct pol_domain dom[POL_MAX_DOMAINS];
	u64 now_ns;		/* harness wall clock, only moves forward */
	u64 clk;		/* logical clock (pol_deadline.h) */
	u64 nr_queued;
	u32 nr_cpus;
};

static void fz_advance(struct fz_world *w, u64 dt_ns)
{
	w->now_ns += dt_ns & FZ_STEP_MASK;
	if (w->now_ns >= FZ_TIME_DOMAIN)	/* unreachable in FZ_MAX_OPS steps; keeps the domain explicit */
		w->now_ns = FZ_TIME_DOMAIN - 1;
}

/* -------------------------------------------------- shared check helpers */

/* pol_ctx_boost as documented: the sum of the boosts of the set bits, hardirq excludes softirq. */
static u64 ref_ctx_boost(u32 ctx)
{
	static const u64 boost[11] = {
		POL_BOOST_REGULAR, POL_BOOST_REGULAR, POL_BOOST_HIGHEST, POL_BOOST_HIGH,
		POL_BOOST_HIGH, POL_BOOST_MEDIUM, POL_BOOST_HIGH, POL_BOOST_REGULAR,
		POL_BOOST_REGULAR, POL_BOOST_MEDIUM, POL_BOOST_REGULAR,
	};
	u64 sum = 0;

	for (int b = 0; b < 11; b++) {
		if (!(ctx & (1u << b)))
			continue;
		if ((1u << b) == POL_CTX_SOFTIRQ_WAKER && (ctx & POL_CTX_HARDIRQ_WAKER))
			continue;
		sum += boost[b];
	}
	return sum;
}

static u64 ref_freq(u128 interval_ns, u64 freq_max)
{
	if (interval_ns == 0)
		return freq_max;
	return umin((u64)(POL_NSEC_PER_SEC / interval_ns), freq_max);
}

static void check_ewma(u64 old, u64 new, u64 r)
{
	NOTE("old=%llu new=%llu r=%llu", (unsigned long long)old, (unsigned long long)new,
	     (unsigned long long)r);
	INV(between(r, old, new));
	/* "an average can climb out of and fall into zero" */
	if (old == 0 && new >= 2)
		INV(r > 0);
	if (new == 0 && old > 0)
		INV(r < old);
	if (old == new)
		INV(r == old);
	else if (old >= 8 && new >= 8)		/* the 1/8 step always moves */
		INV(r != old);
}

/* lat_cri with inheritance, against lat_cri_raw of the same state (t0 = before). */
static void check_lat_cri(const struct pol_task_stat *t0, const struct pol_task_stat *t1,
			  u32 raw, u32 lc)
{
	u64 giver = (u64)t0->lat_cri_waker + t0->lat_cri_wakee;

	NOTE("raw=%u lc=%u giver=%llu", raw, lc, (unsigned long long)giver);
	INV(raw >= 4 && raw <= 70 * 70);
	INV(lc >= raw && lc <= raw + (raw >> POL_LC_INH_RECEIVER_SHIFT));
	if (lc > raw) {
		INV(giver > 2ULL * raw);
		INV(lc - raw <= (giver - 2ULL * raw) >> POL_LC_INH_GIVER_SHIFT);
	}
	INV(t1->lat_cri == lc);
	INV(t1->lat_cri_waker == 0 && t1->lat_cri_wakee == 0);
}

static void check_greed(const struct pol_task_stat *t0, const struct pol_task_stat *t1,
			u64 avg, u64 weight, struct pol_greed g)
{
	u64 lag_max = POL_TASK_LAG_MAX_NS * POL_WEIGHT_NICE0 / pol_clamp(weight, 1, 10000);

	NOTE("svc=%llu avg=%llu weight=%llu penalty=%llu", (unsigned long long)t0->svc_wgt_ns,
	     (unsigned long long)avg, (unsigned long long)weight, (unsigned long long)g.penalty);
	INV(g.penalty >= POL_SCALE && g.penalty <= 2 * POL_SCALE);
	INV(g.greedy == (t0->svc_wgt_ns > avg));
	INV(g.greedy ? g.penalty >= POL_SCALE + POL_SCALE / 2 : g.penalty <= POL_SCALE + POL_SCALE / 2);
	/* Service never moves down; a credit is bounded to lag_max; greedy tasks keep theirs. */
	INV(t1->svc_wgt_ns >= t0->svc_wgt_ns);
	if (g.greedy)
		INV(t1->svc_wgt_ns == t0->svc_wgt_ns);
	else
		INV(avg - t1->svc_wgt_ns <= lag_max);
}

static void check_deadline_delta(u64 acc, u64 penalty, u32 lat_cri, u64 base, u64 d)
{
	u128 rt = (u128)base + umin(acc, base);
	u128 ref = (u128)sat128(rt * penalty) / umax(lat_cri, 1) >> POL_SHIFT;

	NOTE("acc=%llu pen=%llu lc=%u base=%llu d=%llu", (unsigned long long)acc,
	     (unsigned long long)penalty, lat_cri, (unsigned long long)base, (unsigned long long)d);
	/* The comment's formula, evaluated without wrapping (rt saturates in u64 only if base >= 2^63). */
	if (!(rt >> 64))
		INV(d == ref);
}

static void check_weight_scale(u64 delta, u64 weight, u64 r)
{
	u64 w = pol_clamp(weight, 1, 10000);
	u64 ref = w * POL_WEIGHT_STRETCH_MAX <= POL_WEIGHT_NICE0 ?
		  sat128((u128)delta * POL_WEIGHT_STRETCH_MAX) :
		  sat128((u128)delta * POL_WEIGHT_NICE0) / w;

	NOTE("delta=%llu weight=%llu r=%llu", (unsigned long long)delta, (unsigned long long)weight,
	     (unsigned long long)r);
	INV(r == ref);
	INV(r <= sat128((u128)delta * POL_WEIGHT_STRETCH_MAX));
	if (w >= POL_WEIGHT_NICE0)
		INV(r <= delta);
}

static void check_clock_advance(u64 clk, u64 vdl, u64 nr_queued, u64 r)
{
	NOTE("clk=%llu vdl=%llu q=%llu r=%llu", (unsigned long long)clk, (unsigned long long)vdl,
	     (unsigned long long)nr_queued, (unsigned long long)r);
	INV(r >= clk);				/* never moves backwards */
	INV(r <= umax(clk, vdl));		/* never passes the deadline it moves towards */
	if (vdl > clk && nr_queued <= 1)
		INV(r == vdl);
}

/*
 * pol_slice_floor, by its properties: slice_min unless a round of the queue
 * at slice_min passes POL_ROUND_MAX_NS x active CPUs (saturating); then the
 * largest slice whose round fits, but never under POL_SLICE_FLOOR_NS (nor
 * over slice_min).
 */
static void check_slice_floor(u64 act, u64 q, const struct pol_cfg *c, u64 f)
{
	u128 budget = (u128)POL_ROUND_MAX_NS * umax(act, 1);

	NOTE("active=%llu queued=%llu min=%llu floor=%llu", (unsigned long long)act,
	     (unsigned long long)q, (unsigned long long)c->slice_min_ns, (unsigned long long)f);
	if (budget > POL_U64_MAX)
		budget = POL_U64_MAX;
	INV(f <= c->slice_min_ns);
	INV(f >= umin(c->slice_min_ns, POL_SLICE_FLOOR_NS));
	if (!q || (u128)q * c->slice_min_ns <= budget) {
		INV(f == c->slice_min_ns);
		return;
	}
	if (f > POL_SLICE_FLOOR_NS)		/* the largest slice whose round fits */
		INV((u128)q * f <= budget && (u128)q * (f + 1) > budget);
	else if (f < c->slice_min_ns)		/* held at the floor: no bigger slice fits */
		INV(f == POL_SLICE_FLOOR_NS && (u128)q * (f + 1) > budget);
}

/* cfg may be inverted (min > max): then "lo wins"; lo is the floor for the queue. */
static bool in_slice_bounds(u64 s, const struct pol_cfg *c, u64 act, u64 q)
{
	u64 lo = pol_slice_floor(act, q, c);

	check_slice_floor(act, q, c, lo);
	if (lo > c->slice_max_ns)
		return s == lo;
	return s >= lo && s <= c->slice_max_ns;
}

static void check_sys_update(const struct pol_sys *s0, const struct pol_sys *s1,
			     const struct pol_sys_sample *x, const struct pol_cfg *c)
{
	u64 qn = umax(s1->nr_queued, x->nr_queued);
	u128 budget = (u128)POL_ROUND_MAX_NS * s1->nr_active;

	NOTE("slice=%llu util=%llu thr=%llu avg=%llu max=%llu", (unsigned long long)s1->slice_ns,
	     (unsigned long long)s1->avg_util, (unsigned long long)s1->thr_lat_cri,
	     (unsigned long long)s1->avg_lat_cri, (unsigned long long)s1->max_lat_cri);
	INV(in_slice_bounds(s1->slice_ns, c, s1->nr_active, qn));
	/* a burst cuts the slice at once so that a round of the queue fits */
	if (qn && budget <= POL_U64_MAX)
		INV((u128)qn * s1->slice_ns <= budget || s1->slice_ns <= POL_SLICE_FLOOR_NS ||
		    s1->slice_ns == pol_slice_floor(s1->nr_active, qn, c));
	INV(s1->nr_active >= 1);
	INV(s1->nr_active == umax(x->nr_active, 1));
	INV(s1->nr_intervals == s0->nr_intervals + 1);
	if (s0->avg_util <= POL_SCALE)
		INV(s1->avg_util <= POL_SCALE);
	INV(between(s1->nr_queued, s0->nr_queued, x->nr_queued));
	if (x->nr_sched) {
		INV(between(s1->avg_lat_cri, s0->avg_lat_cri, x->sum_lat_cri / x->nr_sched));
		INV(between(s1->max_lat_cri, s0->max_lat_cri, x->max_lat_cri));
		INV(between(s1->avg_svc_wgt_ns, s0->avg_svc_wgt_ns, x->sum_svc_wgt_ns / x->nr_sched));
	} else {
		INV(s1->avg_lat_cri == s0->avg_lat_cri && s1->max_lat_cri == s0->max_lat_cri);
		INV(s1->avg_svc_wgt_ns == s0->avg_svc_wgt_ns);
	}
	if (s1->max_lat_cri <= s1->avg_lat_cri)
		INV(s1->thr_lat_cri == s1->max_lat_cri);
	else
		INV(s1->thr_lat_cri >= s1->avg_lat_cri && s1->thr_lat_cri <= s1->max_lat_cri);
}

/* s->slice_ns within [floor, slice_max] of a valid cfg (what sys_init/update keep). */
static void check_task_slice(const struct pol_sys *s, const struct pol_cfg *c, u64 avg_rt,
			     u32 lat_cri, struct pol_slice r)
{
	u64 S = s->slice_ns;

	NOTE("S=%llu avg_rt=%llu lc=%u avg_lc=%llu slice=%llu boosted=%d", (unsigned long long)S,
	     (unsigned long long)avg_rt, lat_cri, (unsigned long long)s->avg_lat_cri,
	     (unsigned long long)r.slice_ns, r.boosted);
	if ((c->flags & POL_CFG_NO_SLICE_BOOST) || avg_rt < S)
		INV(!r.boosted);
	if (!r.boosted) {
		INV(r.slice_ns == S);
		return;
	}
	if (pol_can_boost_slice(s, c)) {
		INV(r.slice_ns >= c->slice_min_ns);
		INV(r.slice_ns <= umax(POL_SLICE_BOOST_MAX_NS, c->slice_min_ns));
		/* "its average runtime plus the bonus, at most the cap" (no wrap below 2^62) */
		if (avg_rt < (1ULL << 62))
			INV(r.slice_ns == pol_clamp(avg_rt + POL_SLICE_BOOST_BONUS_NS, c->slice_min_ns,
						    POL_SLICE_BOOST_MAX_NS));
	} else {
		/* the criticality-scaled extension under load: between S and min(avg, 2S) */
		INV(lat_cri > s->avg_lat_cri);
		INV(r.slice_ns >= S && r.slice_ns <= umin(avg_rt, 2 * S));
	}
}

/* Victims must be below: the wakee's own criticality at the threshold, half of it below. */
static u32 ref_preempt_bar(u32 lat_cri, u64 thr)
{
	return lat_cri >= thr ? lat_cri : lat_cri / 2;
}

static bool ref_can_preempt(const struct pol_cpu_run *c, u32 bar, u64 new_stop, u64 now,
			    u64 guard)
{
	if (!(c->flags & POL_RUN_ACTIVE) || (c->flags & (POL_RUN_LOCK_HOLDER | POL_RUN_CLAIMED)))
		return false;
	if (c->lat_cri >= bar)
		return false;
	if ((u128)c->est_stop_ns <= (u128)sat128((u128)now + guard))
		return false;
	return new_stop < c->est_stop_ns;
}

static void check_victim_order(const struct pol_cpu_run *a, const struct pol_cpu_run *b)
{
	bool ab = pol_victim_better(a, b), ba = pol_victim_better(b, a);

	INV(!pol_victim_better(a, a));			/* irreflexive */
	INV(!(ab && ba));				/* asymmetric */
	if (!ab && !ba)					/* total: ties only on equal keys */
		INV(a->lat_cri == b->lat_cri && a->est_stop_ns == b->est_stop_ns);
	if (a->lat_cri != b->lat_cri)
		INV(ab == (a->lat_cri < b->lat_cri));
}

static void check_lost_avg(u64 avg, u64 cur, u64 r)
{
	NOTE("avg=%llu cur=%llu r=%llu", (unsigned long long)avg, (unsigned long long)cur,
	     (unsigned long long)r);
	if (cur >= avg) {
		INV(r >= avg && r <= cur);
	} else {
		INV(r >= cur && r < avg);		/* always moves down, even below 8 */
	}
	if (avg <= POL_SCALE && cur <= POL_SCALE)
		INV(r <= POL_SCALE);
	INV(pol_is_turbulent(r) == (r > POL_TURBULENT_UTIL));
}

static void check_lost_util(u64 interval, u64 lost, u64 irq, u64 r)
{
	NOTE("interval=%llu lost=%llu irq=%llu r=%llu", (unsigned long long)interval,
	     (unsigned long long)lost, (unsigned long long)irq, (unsigned long long)r);
	INV(r <= POL_SCALE);
	if (!interval) {
		INV(r == 0);
	} else {
		u64 clk = lost >= interval ? POL_SCALE : (u64)((u128)lost * POL_SCALE / interval);
		u64 ref = sat128((u128)clk + irq);

		ref = ref > POL_SCALE ? POL_SCALE : ref;
		INV(r <= ref + 1 && r + 1 >= ref);	/* the huge-value path rounds */
		if (!(lost >> 53))
			INV(r == ref);
	}
}

static void check_warmth_now(const struct pol_warmth *w, s32 cpu, u64 now, u64 r)
{
	NOTE("heat=%llu stop=%llu wcpu=%d cpu=%d now=%llu r=%llu", (unsigned long long)w->heat,
	     (unsigned long long)w->last_stop_ns, w->cpu, cpu, (unsigned long long)now,
	     (unsigned long long)r);
	INV(r <= POL_SCALE);
	INV(r <= w->heat);
	if (w->cpu < 0 || cpu != w->cpu || pol_sub_sat(now, w->last_stop_ns) >= POL_WARM_LIFETIME_NS)
		INV(r == 0);
	if (cpu == w->cpu && w->cpu >= 0 && now <= w->last_stop_ns)
		INV(r == umin(w->heat, POL_SCALE));	/* not away yet: full heat */
}

static void check_warm_wait(u64 warmth, u64 wait, u64 budget, bool r)
{
	u64 lim = sat128((u128)budget * (POL_SCALE + umin(warmth, POL_SCALE))) >> POL_SHIFT;

	NOTE("warmth=%llu wait=%llu budget=%llu r=%d", (unsigned long long)warmth,
	     (unsigned long long)wait, (unsigned long long)budget, r);
	INV(r == (budget && warmth && wait <= lim));
	if (r)
		INV(pol_warm_wait_ok(warmth, wait / 2, budget));	/* monotone in the wait */
}

/* --------------------------------------------------- the local bug copy */

#ifdef FUZZ_SELFTEST
/* pol_slice_target with the lower bound of its clamp "refactored" away. */
static u64 fz_slice_target(u64 nr_active, u64 nr_queued, const struct pol_cfg *c)
{
	if (nr_queued == 0)
		return c->slice_max_ns;
	return pol_min(pol_div(POL_TARGETED_LATENCY_NS * pol_max(nr_active, 1), nr_queued),
		       c->slice_max_ns);
}
#define FZ_SLICE_TARGET fz_slice_target
#else
#define FZ_SLICE_TARGET pol_slice_target
#endif

/* ------------------------------------------------------------ operations */

#define FZ_OPS(X)							\
	X(P_MINMAX) X(P_CLAMP) X(P_DIV) X(P_SUB_SAT) X(P_ADD_SAT)	\
	X(P_MUL_SAT) X(P_LOG2X) X(P_EWMA) X(P_EWMA_ASYM) X(P_FREQ)	\
	X(P_P2S) X(P_CTX) X(P_LAT_CRI) X(P_LAT_CRI_NORM)		\
	X(P_WALL_TO_INVR) X(P_TASK_HOOKS) X(P_GREEDY) X(P_DL_DELTA)	\
	X(P_WEIGHT_SCALE) X(P_COMPETE) X(P_VDEADLINE)			\
	X(P_CLOCK) X(P_SYS_INIT) X(P_SLICE_TARGET) X(P_THR)		\
	X(P_SYS_UPDATE) X(P_TASK_SLICE) X(P_CFG_RAW) X(P_PREEMPT)	\
	X(P_FUTEX) X(P_LOST) X(P_WARMTH) X(P_BALANCE)			\
	X(S_INIT) X(S_ADVANCE) X(S_WAKE) X(S_ENQUEUE) X(S_RUNNING)	\
	X(S_STOP) X(S_QUIESCENT) X(S_WARMTH) X(S_SYS_UPDATE)		\
	X(S_CPU_LOST) X(S_BALANCE) X(S_PREEMPT)				\
	X(P_POWER)

#define FZ_ENUM(x) x,
#define FZ_NAME(x) #x,
enum fz_op_id { FZ_OPS(FZ_ENUM) FZ_NR_OPS };
static const char *const fz_op_names[] = { FZ_OPS(FZ_NAME) };

/* ---- pure ops: raw arguments, the whole range ---- */

static void op_arith(int op, struct fz_in *in)
{
	u64 a = fz_val(in), b = fz_val(in), c = fz_val(in), r;

	NOTE("a=%llu b=%llu c=%llu", (unsigned long long)a, (unsigned long long)b,
	     (unsigned long long)c);
	switch (op) {
	case P_MINMAX:
		INV(pol_min(a, b) == umin(a, b) && pol_max(a, b) == umax(a, b));
		break;
	case P_CLAMP:
		r = pol_clamp(a, b, c);
		if (b <= c)
			INV(r >= b && r <= c && (a < b || a > c || r == a));
		else
			INV(r == b);		/* "lo wins over hi when they are inverted" */
		break;
	case P_DIV:
		INV(pol_div(a, b) == (b ? a / b : a));	/* and no SIGFPE for b == 0 */
		break;
	case P_SUB_SAT:
		r = pol_sub_sat(a, b);
		INV(r == (a > b ? a - b : 0) && r <= a);
		break;
	case P_ADD_SAT:
		r = pol_add_sat(a, b);
		INV(r == sat128((u128)a + b) && r >= a && r >= b);
		break;
	case P_MUL_SAT:
		INV(pol_mul_sat(a, b) == sat128((u128)a * b));
		INV(pol_mul_sat(a, b) == pol_mul_sat(b, a));
		break;
	case P_LOG2X:
		r = pol_log2x(a);
		INV(r == (a ? 64 - (u64)__builtin_clzll(a) : 1));
		INV(r >= 1 && r <= 64);
		break;
	case P_EWMA:
		check_ewma(a, b, pol_ewma(a, b));
		break;
	case P_EWMA_ASYM:
		r = pol_ewma_asym(a, b);
		INV(between(r, a, b));
		if (b > a && a >= 4 && b >= 4)
			INV((u128)r * 4 + 3 >= (u128)b * 3 + a);	/* rises with weight 3/4 */
		if (b < a)
			INV(r == pol_ewma(a, b));			/* decays as pol_ewma */
		break;
	case P_FREQ:
		r = pol_interval_to_freq(a, b);
		INV(r <= b && r == ref_freq(a, b));
		break;
	case P_P2S:
		/* documented for percentages: exact, and 100 % is POL_SCALE */
		INV(pol_p2s(a % 1001) == (a % 1001) * POL_SCALE / 100);
		INV(pol_p2s(100) == POL_SCALE);
		break;
	}
}

static void op_ctx(struct fz_in *in)
{
	u32 ctx = fz_val32(in);
	u64 boost = pol_ctx_boost(ctx);

	NOTE("ctx=%#x boost=%llu", ctx, (unsigned long long)boost);
	INV(boost == ref_ctx_boost(ctx));
	INV(boost <= 3200);
	for (int b = 0; b < 32; b++)
		INV(POL_CTX_BIT(ctx, 1u << b) == ((ctx >> b) & 1));
}

static void op_lat_cri(struct fz_in *in)
{
	struct pol_task_stat t0, t1;
	u64 weight = fz_val(in);
	u32 ctx = fz_val32(in), raw, lc, norm, max;

	fz_task_raw(in, &t0);
	t1 = t0;
	raw = pol_lat_cri_raw(&t0, weight, ctx);
	lc = pol_lat_cri(&t1, weight, ctx);
	check_lat_cri(&t0, &t1, raw, lc);
	max = fz_val32(in);
	norm = pol_lat_cri_norm(lc, max);
	INV(norm <= POL_SCALE);
}

static void op_lat_cri_norm(struct fz_in *in)
{
	u32 lc = fz_val32(in), max = fz_val32(in), r = pol_lat_cri_norm(lc, max);

	NOTE("lc=%u max=%u r=%u", lc, max, r);
	INV(r <= POL_SCALE);
	if (!max)
		INV(r == 0);
	else if (lc >= max)
		INV(r == POL_SCALE);
	else
		INV(r == ((u64)lc << POL_SHIFT) / max && r < POL_SCALE);
}

static void op_wall_to_invr(struct fz_in *in)
{
	u64 wall = fz_val(in);
	u32 cap = fz_val32(in), cur = fz_val32(in);
	u64 c = umin(cap, POL_SCALE), f = umin(cur, POL_SCALE), r = pol_wall_to_invr(wall, cap, cur);
	u128 prod;

	c = c ? c : POL_SCALE;
	f = f ? f : POL_SCALE;
	prod = (u128)wall * c * f;
	NOTE("wall=%llu cap=%u cur=%u r=%llu", (unsigned long long)wall, cap, cur,
	     (unsigned long long)r);
	INV(r <= wall);			/* never more than the wall time */
	INV(r == sat128(prod) >> (2 * POL_SHIFT));
	if (!(prod >> 64) && c == POL_SCALE && f == POL_SCALE)
		INV(r == wall);		/* the fastest CPU at full speed: invariant == wall */
}

/* One task hook on an arbitrary (raw) state: totality and the bounds that hold anywhere. */
static void op_task_hooks(struct fz_in *in)
{
	struct pol_task_stat a0, a, b0, b;
	u8 which = fz_u8(in);
	u64 now = fz_val(in), x = fz_val(in), y = fz_val(in), wt = fz_val(in);
	bool sampled;

	fz_task_raw(in, &a0);
	a = a0;
	switch (which % 8) {
	case 0:
		pol_task_on_runnable(&a);
		INV(a.acc_runtime_ns == 0);
		break;
	case 1:
		fz_task_raw(in, &b0);
		b = b0;
		sampled = pol_task_on_wake(&a, &b, now);
		INV(sampled == (pol_sub_sat(now, a0.last_runnable_ns) >= POL_LC_WAKE_INTERVAL_MIN_NS));
		INV(b.lat_cri_waker == a0.lat_cri);
		INV(a.lat_cri_wakee == umax(a0.lat_cri_wakee, b0.lat_cri));
		if (sampled)
			INV(a.last_runnable_ns == now &&
			    between(a.wake_freq, a0.wake_freq,
				    ref_freq(now - a0.last_runnable_ns, POL_LC_FREQ_MAX)));
		else
			INV(a.wake_freq == a0.wake_freq && a.last_runnable_ns == a0.last_runnable_ns);
		break;
	case 2:
		pol_task_on_running(&a, now);
		INV(a.ran_before == 1 && a.last_running_ns == now);
		if (a0.ran_before) {
			INV(a.run_freq <= umax(a0.run_freq, POL_LC_FREQ_MAX));
#ifdef FUZZ_STRICT
			/* the interval is avg_runtime + time asleep: a sum that must not wrap */
			INV(between(a.run_freq, a0.run_freq,
				    ref_freq((u128)a0.avg_runtime_ns +
					     pol_sub_sat(now, a0.last_quiescent_ns), POL_LC_FREQ_MAX)));
#endif
		} else {
			INV(a.run_freq == a0.run_freq);
		}
		break;
	case 3:
		pol_task_account(&a, x, y, wt);
		INV(a.acc_runtime_ns == sat128((u128)a0.acc_runtime_ns + x));
		INV(a.svc_wgt_ns == sat128((u128)a0.svc_wgt_ns +
					   sat128((u128)y * POL_WEIGHT_NICE0) / umax(wt, 1)));
		break;
	case 4:
		pol_task_on_stopping(&a);
		check_ewma(a0.avg_runtime_ns, a0.acc_runtime_ns, a.avg_runtime_ns);
		break;
	case 5:
	case 6:
		pol_task_on_quiescent(&a, now, which & 1);
		if (!(which & 1)) {
			INV(!memcmp(&a, &a0, sizeof(a)));
		} else {
			INV(a.last_quiescent_ns == now);
			INV(between(a.wait_freq, a0.wait_freq,
				    ref_freq(pol_sub_sat(now, a0.last_quiescent_ns), POL_LC_FREQ_MAX)));
		}
		break;
	case 7:
		pol_task_init(&b, (which & 8) ? &a0 : NULL, now, x, y);
		INV(b.last_runnable_ns == now && b.last_quiescent_ns == now && b.last_running_ns == now);
		INV(b.ran_before == 0 && b.acc_runtime_ns == 0 && b.svc_wgt_ns == y);
		INV(b.lat_cri_waker == 0 && b.lat_cri_wakee == 0);
		if (which & 8)
			INV(b.avg_runtime_ns == a0.avg_runtime_ns && b.wait_freq == a0.wait_freq &&
			    b.wake_freq == a0.wake_freq && b.run_freq == a0.run_freq &&
			    b.lat_cri == a0.lat_cri);
		else
			INV(b.avg_runtime_ns == x && !b.wait_freq && !b.wake_freq && !b.run_freq &&
			    !b.lat_cri);
		break;
	}
}

static void op_greedy(struct fz_in *in)
{
	struct pol_task_stat t0, t1;
	u64 avg = fz_val(in), weight = fz_val(in);
	struct pol_greed g;

	fz_task_raw(in, &t0);
	t1 = t0;
	g = pol_greedy_penalty(&t1, avg, weight);
	check_greed(&t0, &t1, avg, weight, g);
}

static void op_deadline(int op, struct fz_in *in)
{
	u64 a = fz_val(in), b = fz_val(in), c = fz_val(in), d = fz_val(in), r;

	NOTE("a=%llu b=%llu c=%llu d=%llu", (unsigned long long)a, (unsigned long long)b,
	     (unsigned long long)c, (unsigned long long)d);
	switch (op) {
	case P_DL_DELTA:
		r = pol_deadline_delta(a, b, (u32)c, d);
		check_deadline_delta(a, b, (u32)c, d, r);
		break;
	case P_WEIGHT_SCALE:
		check_weight_scale(a, b, pol_weight_scale(a, b));
		break;
	case P_COMPETE:
		r = pol_compete_window(a, b);
		INV(r <= POL_DL_COMPETE_WINDOW_NS);
		if (b <= a)
			INV(r == POL_DL_COMPETE_WINDOW_NS);
		else if (a <= POL_U64_MAX / POL_DL_COMPETE_WINDOW_NS)	/* CPU counts */
			INV(r == POL_DL_COMPETE_WINDOW_NS * a / b);	/* window x active / queued */
		break;
	case P_VDEADLINE:
		r = pol_vdeadline(a, b, c);
		/* sub_sat(clk, window) + delta: exact unless the sum leaves u64 */
		if (!(((u128)pol_sub_sat(a, c) + b) >> 64))
			INV(r == pol_sub_sat(a, c) + b && r >= pol_sub_sat(a, c));
		break;
	case P_CLOCK:
		check_clock_advance(a, b, c, pol_clock_advance(a, b, c));
		r = pol_clock_service(a, b, d);
		INV(r <= a);
		INV(r == a / sat128((u128)umax(b, 1) * umax(d, 1)));
		break;
	}
}

static void op_sys_init(struct fz_in *in)
{
	struct pol_cfg c;
	struct pol_sys s;
	u64 nr = fz_val(in);

	pol_cfg_default(&c);
	INV(c.slice_min_ns == POL_SLICE_MIN_NS_DFL && c.slice_max_ns == POL_SLICE_MAX_NS_DFL);
	INV(c.preempt_shift == POL_PREEMPT_SHIFT_DFL && c.flags == 0);
	INV(c.slice_min_ns <= c.slice_max_ns);
	if (fz_u8(in) & 1)
		fz_cfg_raw(in, &c);
	pol_sys_init(&s, &c, nr);
	INV(s.slice_ns == c.slice_max_ns && s.nr_active == nr && s.avg_util == 0);
	INV(s.nr_intervals == 0 && s.nr_queued == 0 && s.avg_svc_wgt_ns == 0);
	INV(s.avg_lat_cri == 0 && s.max_lat_cri == 0 && s.thr_lat_cri == 0);
}

static void op_slice_target(struct fz_in *in, const struct pol_cfg *c)
{
	u64 act = fz_val(in), q = fz_val(in), r = FZ_SLICE_TARGET(act, q, c);

	NOTE("active=%llu queued=%llu min=%llu max=%llu r=%llu", (unsigned long long)act,
	     (unsigned long long)q, (unsigned long long)c->slice_min_ns,
	     (unsigned long long)c->slice_max_ns, (unsigned long long)r);
	INV(in_slice_bounds(r, c, act, q));
	if (!q)
		INV(r == c->slice_max_ns);
	else if (act <= POL_U64_MAX / POL_TARGETED_LATENCY_NS)	/* CPU counts, not 1.8e12 */
		INV(r == pol_clamp(POL_TARGETED_LATENCY_NS * umax(act, 1) / q,
				   pol_slice_floor(act, q, c), c->slice_max_ns));
}

static void op_thr(struct fz_in *in)
{
	u64 max = fz_val(in), avg = fz_val(in);
	u32 sh = fz_val32(in);
	u64 r = pol_thr_lat_cri(max, avg, sh);

	NOTE("max=%llu avg=%llu shift=%u r=%llu", (unsigned long long)max, (unsigned long long)avg,
	     sh, (unsigned long long)r);
	if (max <= avg) {
		INV(r == max);
	} else {
		INV(r >= avg && r <= max);
		if (sh == 0)
			INV(r == avg);
	}
}

/* Raw system state, except slice_ns, which sys_init/update keep in [floor, max]. */
static void fz_sys_raw(struct fz_in *in, struct pol_sys *s, const struct pol_cfg *c)
{
	s->slice_ns = pol_clamp(fz_val(in), umin(c->slice_min_ns, POL_SLICE_FLOOR_NS), c->slice_max_ns);
	s->avg_lat_cri = fz_val(in);
	s->max_lat_cri = fz_val(in);
	s->thr_lat_cri = fz_val(in);
	s->avg_svc_wgt_ns = fz_val(in);
	s->nr_queued = fz_val(in);
	s->nr_active = fz_val(in);
	s->avg_util = fz_val(in);
	s->nr_intervals = fz_val(in) >> 1;	/* not at U64_MAX: "+1" is checked */
}

static void op_sys_update(struct fz_in *in, const struct pol_cfg *c)
{
	struct pol_sys s0, s1;
	struct pol_sys_sample x;

	fz_sys_raw(in, &s0, c);
	fz_sample_raw(in, &x);
	s1 = s0;
	pol_sys_update(&s1, &x, c);
	check_sys_update(&s0, &s1, &x, c);
	INV(pol_can_boost_slice(&s1, c) == (!(c->flags & POL_CFG_NO_SLICE_BOOST) &&
					   s1.avg_util <= POL_SLICE_BOOST_UTIL &&
					   s1.nr_queued <= s1.nr_active));
}

static void op_task_slice(struct fz_in *in, const struct pol_cfg *c)
{
	struct pol_sys s;
	u64 avg_rt, elapsed;
	u32 lc;
	struct pol_slice r;

	fz_sys_raw(in, &s, c);
	avg_rt = fz_val(in);
	lc = fz_val32(in);
	r = pol_task_slice(&s, c, avg_rt, lc);
	check_task_slice(&s, c, avg_rt, lc, r);
	elapsed = fz_val(in);
	INV(pol_slice_revoke(elapsed, r.slice_ns) == (r.slice_ns > elapsed ? r.slice_ns - elapsed : 0));
	INV(pol_slice_revoke(elapsed, r.slice_ns) <= r.slice_ns);
}

/* Any cfg at all (the policy does not trust the loader): total, lo wins. */
static void op_cfg_raw(struct fz_in *in)
{
	struct pol_cfg c;
	struct pol_sys s0, s1;
	struct pol_sys_sample x;
	u64 act, q, r;

	fz_cfg_raw(in, &c);
	act = fz_val(in);
	q = fz_val(in);
	r = pol_slice_target(act, q, &c);
	NOTE("min=%llu max=%llu r=%llu", (unsigned long long)c.slice_min_ns,
	     (unsigned long long)c.slice_max_ns, (unsigned long long)r);
	INV(q ? in_slice_bounds(r, &c, act, q) : r == c.slice_max_ns);
	s0.slice_ns = fz_val(in);
	s0.avg_lat_cri = fz_val(in);
	s0.max_lat_cri = fz_val(in);
	s0.thr_lat_cri = 0;
	s0.avg_svc_wgt_ns = fz_val(in);
	s0.nr_queued = fz_val(in);
	s0.nr_active = fz_val(in);
	s0.avg_util = fz_val(in);
	s0.nr_intervals = 0;
	fz_sample_raw(in, &x);
	s1 = s0;
	pol_sys_update(&s1, &x, &c);
	check_sys_update(&s0, &s1, &x, &c);
	/* Raw everything: only totality (no UB, no trap) is claimed for these. */
	(void)pol_task_slice(&s1, &c, fz_val(in), fz_val32(in));
	(void)pol_task_slice(&s0, &c, fz_val(in), fz_val32(in));
	(void)pol_should_preempt(fz_val32(in), fz_val(in), fz_u8(in) & 1, &c);
}

/*
 * The tick vote: a gap that is no tick leaves the state alone; otherwise the
 * state starts afresh on the gap, loses one vote, stays, or gains one and
 * moves its estimate towards the gap by 1/8 of the way (truncated); the
 * confidence never passes its cap; a period is vouched for only from
 * POL_TICK_CONF_USE votes on.
 */
static void check_tick_learn(u64 st, u64 gap)
{
	u64 st2 = pol_tick_learn(st, gap);
	u64 e0 = st & POL_TICK_EST_MASK, c0 = st >> POL_TICK_EST_BITS;
	u64 e2 = st2 & POL_TICK_EST_MASK, c2 = st2 >> POL_TICK_EST_BITS;

	NOTE("tick st=%#llx gap=%llu -> %#llx", (unsigned long long)st, (unsigned long long)gap,
	     (unsigned long long)st2);
	if (gap < POL_TICK_GAP_MIN_NS || gap > POL_TICK_EST_MASK) {
		INV(st2 == st);
	} else if (st2 != st) {
		INV(c2 <= POL_TICK_CONF_MAX);
		if (!(c2 == 1 && e2 == gap)) {
			if (c2 + 1 == c0) {
				INV(e2 == e0);
			} else {
				INV(c2 == c0 + 1 || (c2 == POL_TICK_CONF_MAX && c0 == c2));
				INV(e2 == (gap >= e0 ? e0 + ((gap - e0) >> 3) : e0 - ((e0 - gap) >> 3)));
			}
		}
	}
	INV(pol_tick_period(st2) == (c2 >= POL_TICK_CONF_USE ? e2 : 0));
}

static void op_preempt(struct fz_in *in, const struct pol_cfg *c)
{
	struct pol_cpu_run a, b;
	u32 lc = fz_val32(in);
	u64 new_stop = fz_val(in), now = fz_val(in), guard = fz_val(in);
	u64 avg = fz_val(in), slice = fz_val(in), thr = fz_val(in), est;
	bool greedy = fz_u8(in) & 1;

	a.est_stop_ns = fz_val(in);
	a.lat_cri = fz_val32(in);
	a.flags = fz_val32(in);
	b.est_stop_ns = fz_val(in);
	b.lat_cri = fz_val32(in);
	b.flags = fz_val32(in);
	NOTE("lc=%u new_stop=%llu now=%llu guard=%llu est=%llu vlc=%u flags=%#x", lc,
	     (unsigned long long)new_stop, (unsigned long long)now, (unsigned long long)guard,
	     (unsigned long long)a.est_stop_ns, a.lat_cri, a.flags);
	INV(pol_can_preempt(&a, lc, new_stop, now, guard) ==
	    ref_can_preempt(&a, lc, new_stop, now, guard));
	check_victim_order(&a, &b);
	INV(pol_preempt_bar(lc, thr) == ref_preempt_bar(lc, thr));
	INV(pol_preempt_bar(lc, thr) <= lc);
	INV(pol_should_preempt(lc, thr, greedy, c) ==
	    (!(c->flags & POL_CFG_NO_PREEMPTION) && !greedy && ref_preempt_bar(lc, thr) > 0));
	est = pol_est_stop(now, avg, slice);
	INV(est >= now);
	INV(est == sat128((u128)now + umin(avg, slice)));
	check_tick_learn(fz_val(in), fz_val(in));
}

static void op_futex(struct fz_in *in)
{
	u64 op = fz_val(in);
	s64 ret = (s64)fz_val(in);
	enum pol_futex_event e = pol_futex_classify(op, ret);
	u64 cmd = op & POL_FUTEX_CMD_MASK;

	NOTE("op=%#llx ret=%lld e=%d", (unsigned long long)op, (long long)ret, e);
	INV(e == POL_FUTEX_NONE || e == POL_FUTEX_ACQUIRE || e == POL_FUTEX_RELEASE);
	/* the flag bits (private, clock) never change the class */
	INV(e == pol_futex_classify(cmd, ret));
	INV(e == pol_futex_classify(cmd | 0x80 | 0x100, ret));
	if (ret < 0)
		INV(e == POL_FUTEX_NONE);	/* a failed call hands nothing over */
	if (e == POL_FUTEX_ACQUIRE)
		INV(ret == 0);
	switch (cmd) {
	case POL_FUTEX_WAIT: case POL_FUTEX_WAIT_BITSET: case POL_FUTEX_WAIT_REQUEUE_PI:
	case POL_FUTEX_LOCK_PI: case POL_FUTEX_LOCK_PI2: case POL_FUTEX_TRYLOCK_PI:
		INV(e == (ret == 0 ? POL_FUTEX_ACQUIRE : POL_FUTEX_NONE));
		break;
	case POL_FUTEX_WAKE: case POL_FUTEX_WAKE_BITSET: case POL_FUTEX_WAKE_OP:
	case POL_FUTEX_REQUEUE: case POL_FUTEX_CMP_REQUEUE:
		INV(e == (ret >= 0 ? POL_FUTEX_RELEASE : POL_FUTEX_NONE));
		break;
	case POL_FUTEX_UNLOCK_PI:
		INV(e == (ret == 0 ? POL_FUTEX_RELEASE : POL_FUTEX_NONE));
		break;
	default:
		INV(e == POL_FUTEX_NONE);
	}
}

static void op_lost(struct fz_in *in)
{
	u64 iv = fz_val(in), lost = fz_val(in), seen = fz_val(in), avg = fz_val(in), u, r;
	u32 lc = fz_val32(in);
	u64 irq = fz_val(in), fp = fz_val(in) & ((POL_SCALE << POL_IRQ_FP_SHIFT) * 2 - 1), fp2;
	u64 seen0 = seen, total = fz_val(in), since = fz_val(in), now = fz_val(in), got;

	u = pol_lost_util(iv, lost, irq);
	check_lost_util(iv, lost, irq, u);
	/* interrupt time never makes a CPU look steadier */
	INV(u >= pol_lost_util(iv, lost, 0));
	/* a gap-clock reading, any values (torn, wrapped): the reader's total never goes back */
	got = pol_gap_read(&seen, total, since, now);
	INV(seen >= seen0);
	INV(got == seen - seen0);
	if (!since)
		INV(got == pol_sub_sat(total, seen0));
	/* the IRQ average moves towards the sample and stays a share */
	fp2 = pol_irq_avg(fp, iv, irq);
	INV(pol_irq_util(fp2) <= POL_SCALE);
	if (fp <= (POL_SCALE << POL_IRQ_FP_SHIFT))
		INV(fp2 <= (POL_SCALE << POL_IRQ_FP_SHIFT));
	{
		u64 cur_fp = pol_share(irq, iv) << POL_IRQ_FP_SHIFT;

		INV(cur_fp >= fp ? (fp2 >= fp && fp2 <= cur_fp) : (fp2 <= fp && fp2 + 8 >= cur_fp));
	}
	r = pol_lost_avg(avg, u);
	check_lost_avg(avg, u, r);
	r = pol_lost_avg(avg, iv);	/* the average of raw values, too */
	check_lost_avg(avg, iv, r);
	INV(pol_wants_steady(lc, avg) == (lc > avg));
}

static void op_warmth(struct fz_in *in)
{
	struct pol_warmth w0, w;
	s32 cpu = (s32)fz_val32(in);
	u64 now = fz_val(in), ran = fz_val(in), wait = fz_val(in), budget = fz_val(in), r;

	w0.heat = fz_val(in);
	w0.last_stop_ns = fz_val(in);
	w0.cpu = (s32)fz_val32(in);
	if (fz_u8(in) & 1)
		cpu = w0.cpu;
	r = pol_warmth_now(&w0, cpu, now);
	check_warmth_now(&w0, cpu, now, r);
	check_warm_wait(r, wait, budget, pol_warm_wait_ok(r, wait, budget));
	check_warm_wait(w0.heat, wait, budget, pol_warm_wait_ok(w0.heat, wait, budget));
	w = w0;
	pol_warmth_on_stop(&w, cpu, ran, now);
	NOTE("heat=%llu ran=%llu", (unsigned long long)w.heat, (unsigned long long)ran);
	INV(w.heat <= POL_SCALE && w.cpu == cpu && w.last_stop_ns == now);
	INV(w.heat >= umin(ran, POL_WARM_SAT_NS) * POL_SCALE / POL_WARM_SAT_NS);	/* running warms */
	if (cpu == w0.cpu)	/* the run itself did not cool it */
		INV(w.heat >= pol_warmth_now(&w0, cpu, pol_sub_sat(now, ran)));
}

static void check_pick(const struct pol_domain *d, u32 n, u32 self, u64 mask, s32 r)
{
	s32 best = -1;
	u64 best_load = 0;

	NOTE("n=%u self=%u mask=%#llx r=%d", n, self, (unsigned long long)mask, r);
#ifdef FUZZ_SKIP_KNOWN_BUGS
	if (n > 0x7fffffffU)	/* known bug 1 (tests/fuzz/crashes/README.md): pol_for's (int) cast */
		return;
#endif
	for (u32 i = 0; i < n && i < POL_MAX_DOMAINS; i++) {
		u64 load = pol_domain_load(&d[i]);

		INV(load == sat128((u128)d[i].queued_wgt * POL_SCALE) / umax(d[i].nr_cpus, 1) / 100);
		if (i == self || (mask >> i & 1) || !d[i].nr_queued)
			continue;
		if (best < 0 || load > best_load) {
			best = (s32)i;
			best_load = load;
		}
	}
	INV(r == best);
	if (r >= 0)
		INV((u32)r < n && (u32)r != self && !(mask >> r & 1) && d[r].nr_queued);
}

static void fz_domain_raw(struct fz_in *in, struct pol_domain *d)
{
	d->queued_wgt = fz_val(in);
	d->nr_queued = fz_val(in);
	d->nr_cpus = fz_val(in);
}

static void op_balance(struct fz_in *in)
{
	struct pol_domain d[POL_MAX_DOMAINS];
	u32 n = fz_val32(in), self = fz_val32(in), k = fz_u8(in) % 8;
	u64 mask = fz_val(in);

	/* a few raw domains, the rest a fill pattern (ties and empties) */
	for (int i = 0; i < POL_MAX_DOMAINS; i++) {
		d[i].queued_wgt = (u64)(i % 3) * 100;
		d[i].nr_queued = i % 3;
		d[i].nr_cpus = 1 + i % 2;
	}
	for (u32 i = 0; i < k; i++)
		fz_domain_raw(in, &d[fz_u8(in) % POL_MAX_DOMAINS]);
	check_pick(d, n, self, mask, pol_pick_stealee(d, n, self, mask));
}

/*
 * pol_power.h: compaction, modes, the latency guard, perf criticality,
 * cpufreq. (Appended last in FZ_OPS so the older seeds keep their ops.)
 */
static void op_power(struct fz_in *in)
{
	static struct pol_order_caps caps;
	u64 busy = fz_val(in), interval = fz_val(in), req = fz_val(in), use;
	u32 cap = fz_val32(in), n = fz_val32(in) % (POL_CC_MAX_CPUS + 8), k = fz_u8(in);
	u64 bounds[POL_PCO_MAX], planned = 0;
	u32 nr, mode = fz_u8(in) % (POL_PM_NR + 1), st, nst = fz_u8(in) % 14;
	struct pol_pm_bounds b;
	struct pol_cc_guard g = { fz_val32(in), fz_u8(in) % 8 };
	u32 old_floor = g.floor, rounds = fz_u8(in) % 40;
	struct pol_task_stat t;
	u64 mn = fz_val(in), av = fz_val(in), mx = fz_val(in), thr;

	NOTE("busy=%llu int=%llu req=%llu cap=%u n=%u mode=%u nst=%u", (unsigned long long)busy,
	     (unsigned long long)interval, (unsigned long long)req, cap, n, mode, nst);
	use = pol_cc_cpu_use(busy, interval, cap);
	INV(use <= POL_SCALE + POL_SCALE / 2);
	INV(pol_cc_cpu_use(busy / 2, interval, cap) <= use);	/* monotone in the busy time */
	INV(pol_cc_req(use) >= use);
	/* a CPU order: a few raw capacities, the rest a pattern */
	for (u32 i = 0; i < POL_CC_MAX_CPUS; i++)
		caps.cap[i] = (u16)(1 + (i * 37) % 1024);
	for (u32 i = 0; i < k % 8; i++)
		caps.cap[fz_u8(in) % 16] = (u16)fz_val32(in);
	nr = pol_cc_nr_active(&caps, n, req);
	if (!n) {
		INV(nr == 0);
	} else {
		INV(nr >= 1 && nr <= umin(n, POL_CC_MAX_CPUS));
		for (u32 i = 0; i + 1 < nr; i++)
			planned += pol_cc_cpu_plan(caps.cap[i]);
		INV(nr == 1 || planned < req);		/* the shortest prefix */
		planned += pol_cc_cpu_plan(caps.cap[nr - 1]);
		INV(nr == umin(n, POL_CC_MAX_CPUS) || planned >= req);
	}
	for (int i = 0; i < POL_PCO_MAX; i++)
		bounds[i] = (i ? bounds[i - 1] : 0) + fz_val32(in);
	st = pol_pco_state(mode, req, bounds, nst);
	INV(st < umax(umin(nst, POL_PCO_MAX), 1));
	if (nst > 1 && mode == POL_PM_POWERSAVE)
		INV(st == 0);
	if (nst > 1 && mode == POL_PM_PERFORMANCE)
		INV(st == umin(nst, POL_PCO_MAX) - 1);
	if (nst > 1 && mode == POL_PM_BALANCED && st > 0)
		INV(bounds[st - 1] < req);		/* the first that covers */
	b = (k & 1) ? pol_pm_bounds_em(bounds, nst) : pol_pm_bounds_noem(cap, req, k & 2);
	INV(b.low <= b.high);
	st = pol_autopilot(use, b, mode);
	INV(st < POL_PM_NR);
	if (use > b.high)
		INV(st == POL_PM_PERFORMANCE);		/* up is immediate */
	if (mode < POL_PM_NR && use <= b.low)
		INV(st >= umin(mode, POL_PM_BALANCED));	/* down at most to the next useful step */
	pol_cc_guard_update(&g, req, nr, busy, n);
	INV(g.floor <= umax(old_floor, n));
	INV(g.calm < POL_CC_CALM_ROUNDS);
	if (req > POL_CC_WAIT_HIGH_NS && nr < n)
		INV(g.floor > nr && g.floor >= umin(old_floor, n));
	INV(pol_overflow_keep(true, &rounds) && rounds == 0);
	for (int i = 0; i < POL_CC_OVERFLOW_LINGER; i++)
		INV(pol_overflow_keep(false, &rounds));
	INV(!pol_overflow_keep(false, &rounds));
	memset(&t, 0, sizeof(t));
	t.wait_freq = fz_val(in);
	t.wake_freq = fz_val(in);
	t.run_freq = fz_val(in);
	t.avg_runtime_ns = fz_val(in);
	t.acc_runtime_ns = fz_val(in);
	INV(pol_perf_cri(&t, fz_val(in)) <= 128);
	thr = pol_thr_perf_cri(cap, mn, av, mx);
	INV(thr <= umax(umax(mn, av), mx));
	if (cap >= POL_SCALE)
		INV(thr == 0);
	INV(pol_cpuperf_target(busy, req) >= 1 && pol_cpuperf_target(busy, req) <= POL_SCALE);
}

/* ---- stateful ops: the world, physical time ---- */

static struct fz_task *fz_pick_task(struct fz_world *w, struct fz_in *in)
{
	return &w->t[fz_u8(in) % FZ_TASKS];
}

static void fz_task_reset(struct fz_world *w, struct fz_task *t, const struct pol_task_stat *parent,
			  u64 weight)
{
	pol_task_init(&t->st, parent, w->now_ns, w->sys.slice_ns, w->sys.avg_svc_wgt_ns);
	t->warm.heat = 0;
	t->warm.last_stop_ns = 0;
	t->warm.cpu = -1;
	t->weight = weight;
	t->vdl = w->clk;
	t->run_start_ns = w->now_ns;
	t->cpu = -1;
	t->queued = false;
}

static void s_init(struct fz_world *w, struct fz_in *in)
{
	u8 i = fz_u8(in) % FZ_TASKS, p = fz_u8(in);
	struct pol_task_stat parent;
	bool has_parent = p % (FZ_TASKS + 1) < FZ_TASKS && p % (FZ_TASKS + 1) != i;
	struct fz_task *t = &w->t[i];

	if (has_parent)
		parent = w->t[p % (FZ_TASKS + 1)].st;
	if (t->cpu >= 0)
		w->run[t->cpu].flags = 0;
	if (t->queued && w->nr_queued)
		w->nr_queued--;
	fz_task_reset(w, t, has_parent ? &parent : NULL, fz_weight(in));
	INV(t->st.last_running_ns == w->now_ns && t->st.ran_before == 0);
	INV(t->st.svc_wgt_ns == w->sys.avg_svc_wgt_ns);	/* level with its peers */
	INV(t->st.avg_runtime_ns == (has_parent ? parent.avg_runtime_ns : w->sys.slice_ns));
}

static void s_wake(struct fz_world *w, struct fz_in *in)
{
	u8 i = fz_u8(in) % FZ_TASKS, j = (i + 1 + fz_u8(in) % (FZ_TASKS - 1)) % FZ_TASKS;
	struct fz_task *waker = &w->t[i], *wakee = &w->t[j];
	struct pol_task_stat a0 = waker->st, b0 = wakee->st;
	u64 iv = pol_sub_sat(w->now_ns, a0.last_runnable_ns);
	bool sampled;

	sampled = pol_task_on_wake(&waker->st, &wakee->st, w->now_ns);
	pol_task_on_runnable(&wakee->st);
	NOTE("interval=%llu freq %llu -> %llu", (unsigned long long)iv,
	     (unsigned long long)a0.wake_freq, (unsigned long long)waker->st.wake_freq);
	INV(sampled == (iv >= POL_LC_WAKE_INTERVAL_MIN_NS));
	if (sampled) {
		INV(waker->st.last_runnable_ns == w->now_ns);
		/* sampled at most every 500 us: the sample is at most 2000/s */
		INV(waker->st.wake_freq <= umax(a0.wake_freq, POL_NSEC_PER_SEC / POL_LC_WAKE_INTERVAL_MIN_NS));
		INV(between(waker->st.wake_freq, a0.wake_freq, ref_freq(iv, POL_LC_FREQ_MAX)));
	} else {
		INV(waker->st.wake_freq == a0.wake_freq);
	}
	INV(wakee->st.lat_cri_waker == a0.lat_cri);
	INV(waker->st.lat_cri_wakee == umax(a0.lat_cri_wakee, b0.lat_cri));
	INV(wakee->st.acc_runtime_ns == 0);
}

/* ops.enqueue: criticality, greed, deadline (src/bpf/task.bpf.c). */
static void s_enqueue(struct fz_world *w, struct fz_in *in)
{
	struct fz_task *t = fz_pick_task(w, in);
	u32 ctx = fz_val32(in), raw, lc;
	struct pol_task_stat t0 = t->st, t1;
	struct pol_greed g;
	u64 delta0, delta, win, wait_max;

	raw = pol_lat_cri_raw(&t0, t->weight, ctx);
	lc = pol_lat_cri(&t->st, t->weight, ctx);
	check_lat_cri(&t0, &t->st, raw, lc);
	t1 = t->st;
	g = pol_greedy_penalty(&t->st, w->sys.avg_svc_wgt_ns, t->weight);
	check_greed(&t1, &t->st, w->sys.avg_svc_wgt_ns, t->weight, g);
	delta0 = pol_deadline_delta(t->st.acc_runtime_ns, g.penalty, lc, w->cfg.slice_max_ns);
	check_deadline_delta(t->st.acc_runtime_ns, g.penalty, lc, w->cfg.slice_max_ns, delta0);
	delta = pol_weight_scale(delta0, t->weight);
	check_weight_scale(delta0, t->weight, delta);
	delta0 = delta;
	wait_max = POL_CTX_BIT(ctx, POL_CTX_KTHREAD) ? POL_DL_KTHREAD_WAIT_MAX_NS : POL_DL_WAIT_MAX_NS;
	delta = pol_deadline_cap(delta0, w->sys.avg_lat_cri, POL_CTX_BIT(ctx, POL_CTX_KTHREAD));
	/* "no delta stands for more than wait_max of real time (less for kernel threads)" */
	INV(delta <= delta0);
	INV((u128)delta * pol_max(w->sys.avg_lat_cri, 1) <= wait_max);
	INV(delta == delta0 || (u128)(delta + 1) * pol_max(w->sys.avg_lat_cri, 1) > wait_max);
	win = pol_compete_window(w->sys.nr_active, w->nr_queued);
	INV(win <= POL_DL_COMPETE_WINDOW_NS);
	t->vdl = pol_vdeadline(w->clk, delta, win);
	NOTE("clk=%llu delta=%llu win=%llu vdl=%llu", (unsigned long long)w->clk,
	     (unsigned long long)delta, (unsigned long long)win, (unsigned long long)t->vdl);
	/* "a deadline is never before the logical clock minus the compete window" */
	INV(t->vdl >= pol_sub_sat(w->clk, win));
	INV((u128)t->vdl == (u128)pol_sub_sat(w->clk, win) + delta);	/* no wrap */
	if (!t->queued) {
		t->queued = true;
		w->nr_queued++;
	}
}

/* ops.running: frequencies, clock, slice, published state for preemption. */
static void s_running(struct fz_world *w, struct fz_in *in)
{
	struct fz_task *t = fz_pick_task(w, in);
	s32 cpu = fz_u8(in) % w->nr_cpus;
	struct pol_task_stat t0 = t->st;
	u64 clk0 = w->clk, est;
	struct pol_slice sl;

	if (t->cpu >= 0)
		return;					/* already running */
	for (int k = 0; k < FZ_TASKS; k++)
		if (w->t[k].cpu == cpu)
			return;				/* CPU busy */
	pol_task_on_running(&t->st, w->now_ns);
	INV(t->st.ran_before == 1 && t->st.last_running_ns == w->now_ns);
	if (t0.ran_before)
		INV(between(t->st.run_freq, t0.run_freq,
			    ref_freq((u128)t0.avg_runtime_ns + pol_sub_sat(w->now_ns, t0.last_quiescent_ns),
				     POL_LC_FREQ_MAX)));
	else
		INV(t->st.run_freq == t0.run_freq);
	w->clk = pol_clock_advance(w->clk, t->vdl, w->nr_queued);
	check_clock_advance(clk0, t->vdl, w->nr_queued, w->clk);
	if (t->queued) {
		t->queued = false;
		w->nr_queued--;
	}
	sl = pol_task_slice(&w->sys, &w->cfg, t->st.avg_runtime_ns, t->st.lat_cri);
	check_task_slice(&w->sys, &w->cfg, t->st.avg_runtime_ns, t->st.lat_cri, sl);
	est = pol_est_stop(w->now_ns, t->st.avg_runtime_ns, sl.slice_ns);
	INV(est >= w->now_ns && est - w->now_ns <= sl.slice_ns);
	w->run[cpu].est_stop_ns = est;
	w->run[cpu].lat_cri = t->st.lat_cri;
	w->run[cpu].flags = POL_RUN_ACTIVE | (fz_u8(in) & 1 ? POL_RUN_LOCK_HOLDER : 0);
	t->cpu = cpu;
	t->run_start_ns = w->now_ns;
}

/* ops.stopping: the run lasts what the clock advanced. */
static void s_stop(struct fz_world *w, struct fz_in *in)
{
	struct fz_task *t = fz_pick_task(w, in);
	u32 cap = fz_u8(in) * 5, cur = fz_u8(in) * 5;	/* 0..1275: out of range is clamped */
	struct pol_task_stat t0;
	struct pol_warmth w0;
	u64 ran, invr, svc, clk0 = w->clk;
	s32 cpu = t->cpu;

	if (cpu < 0)
		return;
	fz_advance(w, fz_val(in));
	ran = w->now_ns - t->run_start_ns;
	t0 = t->st;
	w0 = t->warm;
	invr = pol_wall_to_invr(ran, cap, cur);
	INV(invr <= ran);
	pol_task_account(&t->st, ran, invr, t->weight);
	INV(t->st.acc_runtime_ns == t0.acc_runtime_ns + ran);
	INV(t->st.svc_wgt_ns == t0.svc_wgt_ns + invr * POL_WEIGHT_NICE0 / t->weight);
	pol_task_on_stopping(&t->st);
	check_ewma(t0.avg_runtime_ns, t->st.acc_runtime_ns, t->st.avg_runtime_ns);
	pol_warmth_on_stop(&t->warm, cpu, ran, w->now_ns);
	INV(t->warm.heat <= POL_SCALE && t->warm.cpu == cpu && t->warm.last_stop_ns == w->now_ns);
	if (w0.cpu == cpu)
		INV(t->warm.heat >= pol_warmth_now(&w0, cpu, t->run_start_ns));
	svc = pol_clock_service(ran, w->sys.nr_active, w->sys.avg_lat_cri);
	INV(svc <= ran);
	w->clk += svc;
	INV(w->clk >= clk0);
	w->run[cpu].flags = 0;
	t->cpu = -1;
}

static void s_quiescent(struct fz_world *w, struct fz_in *in)
{
	struct fz_task *t = fz_pick_task(w, in);
	bool sleep = fz_u8(in) & 1;
	struct pol_task_stat t0 = t->st;

	if (t->cpu >= 0)
		return;
	pol_task_on_quiescent(&t->st, w->now_ns, sleep);
	if (!sleep) {
		INV(!memcmp(&t->st, &t0, sizeof(t0)));
		return;
	}
	INV(t->st.last_quiescent_ns == w->now_ns);
	INV(between(t->st.wait_freq, t0.wait_freq,
		    ref_freq(w->now_ns - t0.last_quiescent_ns, POL_LC_FREQ_MAX)));
}

/* Warmth seen later on the same CPU only decays; elsewhere it is 0. */
static void s_warmth(struct fz_world *w, struct fz_in *in)
{
	struct fz_task *t = fz_pick_task(w, in);
	s32 cpu = (fz_u8(in) & 1) ? t->warm.cpu : (s32)(fz_u8(in) % w->nr_cpus);
	u64 dt = fz_val(in) & FZ_STEP_MASK;
	u64 h0 = pol_warmth_now(&t->warm, cpu, w->now_ns);
	u64 h1 = pol_warmth_now(&t->warm, cpu, w->now_ns + dt);
	u64 wait = fz_val(in), budget = fz_val(in);

	check_warmth_now(&t->warm, cpu, w->now_ns, h0);
	check_warmth_now(&t->warm, cpu, w->now_ns + dt, h1);
	INV(h1 <= h0);
	check_warm_wait(h0, wait, budget, pol_warm_wait_ok(h0, wait, budget));
	if (pol_warm_wait_ok(h1, wait, budget))	/* cooler never waits where warmer would not */
		INV(pol_warm_wait_ok(h0, wait, budget));
}

/* The 10 ms timer: a sample consistent with the world. */
static void s_sys_update(struct fz_world *w, struct fz_in *in)
{
	struct pol_sys s0 = w->sys;
	struct pol_sys_sample x;
	u64 nsched = fz_val(in) % 10000;

	x.interval_ns = fz_val(in) & FZ_STEP_MASK;
	x.nr_cpus = w->nr_cpus;
	x.busy_ns = (u64)(((u128)x.interval_ns * x.nr_cpus * (fz_u8(in) % 129)) >> 7);
	x.nr_sched = nsched;
	x.max_lat_cri = fz_val(in) % 6200;
	x.sum_lat_cri = nsched * (x.max_lat_cri ? fz_val(in) % (x.max_lat_cri + 1) : 0);
	x.sum_svc_wgt_ns = nsched * (fz_val(in) & FZ_STEP_MASK);
	x.nr_queued = w->nr_queued;
	x.nr_active = fz_u8(in) % (w->nr_cpus + 1);
	fz_advance(w, x.interval_ns);
	pol_sys_update(&w->sys, &x, &w->cfg);
	check_sys_update(&s0, &w->sys, &x, &w->cfg);
	INV(w->sys.avg_util <= POL_SCALE);	/* from 0, util samples <= 1.0 */
}

/*
 * A CPU's gap clock through opens, closes and timer readings in time
 * order (no torn reads: the unit test covers those), and each reading
 * folded into its turbulence.
 */
static void s_cpu_lost(struct fz_world *w, struct fz_in *in)
{
	u32 cpu = fz_u8(in) % w->nr_cpus, what = fz_u8(in) % 3;
	struct pol_gap_clock *g = &w->gap[cpu];
	u64 now = w->now_ns + 1, iv, lost, cum, irq_fp, irq_ns, irq, u, a0;

	if (what == 0) {
		u64 since = g->gap_since_ns;

		pol_gap_open(g, now);
		INV(g->gap_since_ns == (since ? since : now));
		return;
	}
	if (what == 1) {
		u64 total = g->lost_total_ns, since = g->gap_since_ns;

		pol_gap_close(g, now);
		INV(g->gap_since_ns == 0);
		INV(g->lost_total_ns == total + (since ? now - since : 0));
		return;
	}
	/* a timer round: the lost time since the last one, all of it and no more */
	iv = now - w->gap_read_ns[cpu];
	lost = pol_gap_read(&w->gap_seen[cpu], g->lost_total_ns, g->gap_since_ns, now);
	cum = g->lost_total_ns + (g->gap_since_ns ? now - g->gap_since_ns : 0);
	w->gap_sum[cpu] += lost;
	INV(w->gap_sum[cpu] == cum && w->gap_seen[cpu] == cum);
	INV(lost <= iv);
	w->gap_read_ns[cpu] = now;
	/* two draws in sequence: argument evaluation order is unspecified */
	irq_fp = fz_val(in) % (POL_SCALE << POL_IRQ_FP_SHIFT);
	irq_ns = fz_val(in) % (iv - lost + 1);	/* within idle or ours */
	irq = pol_irq_util(pol_irq_avg(irq_fp, iv, irq_ns));
	u = pol_lost_util(iv, lost, irq);
	a0 = w->lost_avg[cpu];
	check_lost_util(iv, lost, irq, u);
	w->lost_avg[cpu] = pol_lost_avg(a0, u);
	check_lost_avg(a0, u, w->lost_avg[cpu]);
	INV(w->lost_avg[cpu] <= POL_SCALE);
	/* a CPU that loses nothing converges to steady */
	if (u == 0 && a0 > 0)
		INV(w->lost_avg[cpu] < a0);
}

static void s_balance(struct fz_world *w, struct fz_in *in)
{
	u8 k = fz_u8(in) % POL_MAX_DOMAINS;
	u32 n = 1 + fz_u8(in) % POL_MAX_DOMAINS, self = fz_u8(in) % n;
	u64 mask = fz_val(in);

	w->dom[k].nr_cpus = fz_u8(in) % 9;
	w->dom[k].nr_queued = fz_val(in) % 20000;
	w->dom[k].queued_wgt = w->dom[k].nr_queued * fz_weight(in);
	check_pick(w->dom, n, self, mask, pol_pick_stealee(w->dom, n, self, mask));
	check_pick(w->dom, n, self, 0, pol_pick_stealee(w->dom, n, self, 0));
}

/* A waking task looks for a victim among the CPUs, as select_cpu/enqueue do. */
static void s_preempt(struct fz_world *w, struct fz_in *in)
{
	struct fz_task *t = fz_pick_task(w, in);
	u64 guard = fz_val(in) % (2 * POL_NSEC_PER_MSEC), new_stop;
	struct pol_slice sl = pol_task_slice(&w->sys, &w->cfg, t->st.avg_runtime_ns, t->st.lat_cri);
	bool greedy = t->st.svc_wgt_ns > w->sys.avg_svc_wgt_ns;
	s32 victim = -1;

	if (fz_u8(in) & 1)	/* someone else claimed a CPU meanwhile */
		w->run[fz_u8(in) % w->nr_cpus].flags |= POL_RUN_CLAIMED;
	new_stop = pol_est_stop(w->now_ns, t->st.avg_runtime_ns, sl.slice_ns);
	u32 bar = pol_preempt_bar(t->st.lat_cri, w->sys.thr_lat_cri);

	INV(bar == ref_preempt_bar(t->st.lat_cri, w->sys.thr_lat_cri));
	INV(pol_should_preempt(t->st.lat_cri, w->sys.thr_lat_cri, greedy, &w->cfg) ==
	    (!(w->cfg.flags & POL_CFG_NO_PREEMPTION) && !greedy && bar > 0));
	for (u32 c = 0; c < w->nr_cpus; c++) {
		bool ok = pol_can_preempt(&w->run[c], bar, new_stop, w->now_ns, guard);

		INV(ok == ref_can_preempt(&w->run[c], bar, new_stop, w->now_ns, guard));
		for (u32 d = 0; d < w->nr_cpus; d++)
			check_victim_order(&w->run[c], &w->run[d]);
		if (ok && (victim < 0 || pol_victim_better(&w->run[c], &w->run[victim])))
			victim = (s32)c;
	}
	if (victim >= 0) {
		/* never a lock holder, never as critical, and the weakest of the candidates */
		INV(!(w->run[victim].flags & (POL_RUN_LOCK_HOLDER | POL_RUN_CLAIMED)));
		INV(w->run[victim].lat_cri < t->st.lat_cri);
		/* below the threshold: not even as critical as half the wakee */
		if (t->st.lat_cri < w->sys.thr_lat_cri)
			INV((u64)w->run[victim].lat_cri * 2 < t->st.lat_cri);
		for (u32 c = 0; c < w->nr_cpus; c++)
			if (pol_can_preempt(&w->run[c], bar, new_stop, w->now_ns, guard))
				INV(!pol_victim_better(&w->run[c], &w->run[victim]));
	}
}

/* ------------------------------------------------------------ the driver */

static void fz_world_init(struct fz_world *w, struct fz_in *in)
{
	memset(w, 0, sizeof(*w));
	pol_cfg_default(&w->cfg);
	if (fz_u8(in) & 1)
		fz_cfg_valid(in, &w->cfg);
	w->now_ns = fz_val(in) & ((1ULL << 50) - 1);
	w->nr_cpus = 1 + fz_u8(in) % FZ_CPUS;
	pol_sys_init(&w->sys, &w->cfg, w->nr_cpus);
	INV(in_slice_bounds(w->sys.slice_ns, &w->cfg, w->sys.nr_active, w->sys.nr_queued));
	w->clk = w->now_ns;
	for (int i = 0; i < FZ_TASKS; i++)
		fz_task_reset(w, &w->t[i], NULL, POL_WEIGHT_NICE0);
	for (int i = 0; i < POL_MAX_DOMAINS; i++)
		w->dom[i].nr_cpus = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	static struct fz_world w;

	fz_op = "header";
	fz_note[0] = 0;
	fz_world_init(&w, &in);
	for (int n = 0; in.n && n < FZ_MAX_OPS; n++) {
		int op = fz_u8(&in) % FZ_NR_OPS;

		fz_op = fz_op_names[op];
		fz_note[0] = 0;
#ifdef FUZZ_TRACE_OPS	/* which ops an input reaches: how the seed corpus is checked */
		fprintf(stderr, "fuzz_policy: op %s\n", fz_op);
#endif
		switch (op) {
		case P_MINMAX: case P_CLAMP: case P_DIV: case P_SUB_SAT: case P_ADD_SAT:
		case P_MUL_SAT: case P_LOG2X: case P_EWMA: case P_EWMA_ASYM: case P_FREQ:
		case P_P2S:
			op_arith(op, &in);
			break;
		case P_CTX: op_ctx(&in); break;
		case P_LAT_CRI: op_lat_cri(&in); break;
		case P_LAT_CRI_NORM: op_lat_cri_norm(&in); break;
		case P_WALL_TO_INVR: op_wall_to_invr(&in); break;
		case P_TASK_HOOKS: op_task_hooks(&in); break;
		case P_GREEDY: op_greedy(&in); break;
		case P_DL_DELTA: case P_WEIGHT_SCALE: case P_COMPETE: case P_VDEADLINE:
		case P_CLOCK:
			op_deadline(op, &in);
			break;
		case P_SYS_INIT: op_sys_init(&in); break;
		case P_SLICE_TARGET: op_slice_target(&in, &w.cfg); break;
		case P_THR: op_thr(&in); break;
		case P_SYS_UPDATE: op_sys_update(&in, &w.cfg); break;
		case P_TASK_SLICE: op_task_slice(&in, &w.cfg); break;
		case P_CFG_RAW: op_cfg_raw(&in); break;
		case P_PREEMPT: op_preempt(&in, &w.cfg); break;
		case P_FUTEX: op_futex(&in); break;
		case P_LOST: op_lost(&in); break;
		case P_WARMTH: op_warmth(&in); break;
		case P_BALANCE: op_balance(&in); break;
		case S_INIT: s_init(&w, &in); break;
		case S_ADVANCE: fz_advance(&w, fz_val(&in)); break;
		case S_WAKE: s_wake(&w, &in); break;
		case S_ENQUEUE: s_enqueue(&w, &in); break;
		case S_RUNNING: s_running(&w, &in); break;
		case S_STOP: s_stop(&w, &in); break;
		case S_QUIESCENT: s_quiescent(&w, &in); break;
		case S_WARMTH: s_warmth(&w, &in); break;
		case S_SYS_UPDATE: s_sys_update(&w, &in); break;
		case S_CPU_LOST: s_cpu_lost(&w, &in); break;
		case S_BALANCE: s_balance(&w, &in); break;
		case S_PREEMPT: s_preempt(&w, &in); break;
		case P_POWER: op_power(&in); break;
		}
	}
	return 0;
}
