/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pol_task.h - per-task statistics and latency criticality.
 *
 * A task is latency critical when it is woken often (it waits on others),
 * wakes others often (others wait on it) and runs briefly each time. Those
 * three rates are measured at the scheduler callbacks and combined on a log
 * scale, so that a factor of two in any of them moves criticality by a step.
 * Criticality also flows along wake chains: a short task in the middle of a
 * frame pipeline inherits some of its waker's and wakees' urgency.
 */
#ifndef __POL_TASK_H
#define __POL_TASK_H

#include "pol_base.h"

/* Frequencies above 100k/s (intervals under 10 us) are not distinguished. */
#define POL_LC_FREQ_MAX			100000ULL
/* Runtimes of a second or more are all "long". */
#define POL_LC_RUNTIME_MAX_NS		POL_NSEC_PER_SEC
/* One runtime factor step per 500 us below a second. */
#define POL_LC_RUNTIME_STEP_NS		(500ULL * POL_NSEC_PER_USEC)
/* A waker's wake frequency is sampled at most every 500 us (caps it at 2000/s). */
#define POL_LC_WAKE_INTERVAL_MIN_NS	(500ULL * POL_NSEC_PER_USEC)
/* Inheritance: take 1/8 of the excess given, at most 1/4 of the own value. */
#define POL_LC_INH_GIVER_SHIFT		3
#define POL_LC_INH_RECEIVER_SHIFT	2
/* Task weight of nice 0 (the kernel's sched_ext weight scale is 1..10000). */
#define POL_WEIGHT_NICE0		100ULL

/* Context bits of a task at the time its criticality is computed. */
enum pol_task_ctx {
	POL_CTX_WAKEUP		= 1 << 0,  /* enqueued by a wakeup */
	POL_CTX_SYNC_WAKEUP	= 1 << 1,  /* the waker is about to sleep */
	POL_CTX_HARDIRQ_WAKER	= 1 << 2,  /* woken from hardirq/NMI context */
	POL_CTX_SOFTIRQ_WAKER	= 1 << 3,  /* woken from softirq or by ksoftirqd */
	POL_CTX_RT_WAKER	= 1 << 4,  /* woken by an RT/DL task */
	POL_CTX_KTHREAD		= 1 << 5,  /* kernel thread */
	POL_CTX_KSOFTIRQD	= 1 << 6,  /* ksoftirqd */
	POL_CTX_WQ_WORKER	= 1 << 7,  /* workqueue or io_uring worker */
	POL_CTX_AFFINITIZED	= 1 << 8,  /* restricted cpumask */
	POL_CTX_PINNED		= 1 << 9,  /* one CPU allowed, or migration disabled */
	POL_CTX_LOCK_BOOST	= 1 << 10, /* recently held a user-space lock */
};

/* Additive weight boosts per context bit (dimensionless multipliers of the weight). */
#define POL_BOOST_REGULAR	128
#define POL_BOOST_MEDIUM	256
#define POL_BOOST_HIGH		512
#define POL_BOOST_HIGHEST	1024

struct pol_task_stat {
	u64 avg_runtime_ns;	/* EWMA of the run length between wakeups */
	u64 acc_runtime_ns;	/* run time since the last wakeup */
	u64 wait_freq;		/* EWMA, sleeps per second */
	u64 wake_freq;		/* EWMA, wakeups of others per second */
	u64 run_freq;		/* EWMA, runs per second */
	u64 last_runnable_ns;	/* last time this task woke another (wake_freq sampling) */
	u64 last_quiescent_ns;	/* last time it went to sleep */
	u64 last_running_ns;	/* last time it started running */
	u64 svc_wgt_ns;		/* lifetime service, ns x nice0 weight / weight */
	u32 lat_cri;		/* last computed latency criticality */
	u32 lat_cri_waker;	/* criticality of the last waker, for inheritance */
	u32 lat_cri_wakee;	/* highest criticality among recent wakees */
	u32 ran_before;		/* non-zero once it has run under us */
};

/* A new task: start from its parent's behaviour when known, else neutral. */
POL_FN void pol_task_init(struct pol_task_stat *t, const struct pol_task_stat *parent,
			  u64 now_ns, u64 slice_ns, u64 svc_wgt_ns)
{
	if (parent) {
		*t = *parent;
		t->acc_runtime_ns = 0;
		t->lat_cri_waker = 0;
		t->lat_cri_wakee = 0;
	} else {
		t->avg_runtime_ns = slice_ns;
		t->acc_runtime_ns = 0;
		t->wait_freq = 0;
		t->wake_freq = 0;
		t->run_freq = 0;
		t->lat_cri = 0;
		t->lat_cri_waker = 0;
		t->lat_cri_wakee = 0;
	}
	t->last_runnable_ns = now_ns;
	t->last_quiescent_ns = now_ns;
	t->last_running_ns = now_ns;
	t->ran_before = 0;
	/* Start level with the others: neither credit nor debt (see pol_deadline.h). */
	t->svc_wgt_ns = svc_wgt_ns;
}

/* The task became runnable after a wakeup: a new run begins. */
POL_FN void pol_task_on_runnable(struct pol_task_stat *t)
{
	t->acc_runtime_ns = 0;
}

/*
 * The waker woke wakee at now_ns: update the waker's wake frequency and
 * exchange criticality for inheritance. Returns true if wake_freq was sampled.
 */
POL_FN bool pol_task_on_wake(struct pol_task_stat *waker, struct pol_task_stat *wakee,
			     u64 now_ns)
{
	u64 interval = pol_sub_sat(now_ns, waker->last_runnable_ns);
	bool sampled = false;

	if (interval >= POL_LC_WAKE_INTERVAL_MIN_NS) {
		waker->wake_freq = pol_ewma(waker->wake_freq,
					    pol_interval_to_freq(interval, POL_LC_FREQ_MAX));
		waker->last_runnable_ns = now_ns;
		sampled = true;
	}
	wakee->lat_cri_waker = waker->lat_cri;
	if (wakee->lat_cri > waker->lat_cri_wakee)
		waker->lat_cri_wakee = wakee->lat_cri;
	return sampled;
}

/* The task starts running. */
POL_FN void pol_task_on_running(struct pol_task_stat *t, u64 now_ns)
{
	if (t->ran_before) {
		u64 interval = t->avg_runtime_ns + pol_sub_sat(now_ns, t->last_quiescent_ns);

		t->run_freq = pol_ewma(t->run_freq,
				       pol_interval_to_freq(interval, POL_LC_FREQ_MAX));
	}
	t->ran_before = 1;
	t->last_running_ns = now_ns;
}

/*
 * The task ran ran_ns (wall) and used ran_invr_ns of capacity-invariant time
 * since last accounted. weight is p->scx.weight (1..10000).
 */
POL_FN void pol_task_account(struct pol_task_stat *t, u64 ran_ns, u64 ran_invr_ns, u64 weight)
{
	t->acc_runtime_ns = pol_add_sat(t->acc_runtime_ns, ran_ns);
	t->svc_wgt_ns = pol_add_sat(t->svc_wgt_ns,
				    pol_div(pol_mul_sat(ran_invr_ns, POL_WEIGHT_NICE0),
					    pol_max(weight, 1)));
}

/* The task stops running (end of slice, preempted or going to sleep). */
POL_FN void pol_task_on_stopping(struct pol_task_stat *t)
{
	/*
	 * acc_runtime is cumulative since the wakeup: a task preempted several
	 * times feeds growing values, so a CPU hog's average tends to its
	 * whole burst length, which is what "how long does it run" means.
	 */
	t->avg_runtime_ns = pol_ewma(t->avg_runtime_ns, t->acc_runtime_ns);
}

/* The task leaves the runnable set; sleep is true for a real sleep. */
POL_FN void pol_task_on_quiescent(struct pol_task_stat *t, u64 now_ns, bool sleep)
{
	u64 interval;

	if (!sleep)
		return;
	interval = pol_sub_sat(now_ns, t->last_quiescent_ns);
	t->wait_freq = pol_ewma(t->wait_freq, pol_interval_to_freq(interval, POL_LC_FREQ_MAX));
	t->last_quiescent_ns = now_ns;
}

/* Bit b of ctx as 0 or 1. */
#define POL_CTX_BIT(ctx, flag)	(((ctx) / (flag)) & 1)

/*
 * Sum of weight boosts for the context bits (before adding the base 1).
 * Branch-free on purpose: eleven independent ifs would be 2^11 paths for
 * the BPF verifier. A hardirq waker excludes the softirq boost.
 */
POL_FN u64 pol_ctx_boost(u32 ctx)
{
	u64 hard = POL_CTX_BIT(ctx, POL_CTX_HARDIRQ_WAKER);
	u64 soft = POL_CTX_BIT(ctx, POL_CTX_SOFTIRQ_WAKER) & (hard ^ 1);

	return POL_CTX_BIT(ctx, POL_CTX_WAKEUP) * POL_BOOST_REGULAR +
	       POL_CTX_BIT(ctx, POL_CTX_SYNC_WAKEUP) * POL_BOOST_REGULAR +
	       hard * POL_BOOST_HIGHEST +
	       soft * POL_BOOST_HIGH +
	       POL_CTX_BIT(ctx, POL_CTX_RT_WAKER) * POL_BOOST_HIGH +
	       POL_CTX_BIT(ctx, POL_CTX_KTHREAD) * POL_BOOST_MEDIUM +
	       POL_CTX_BIT(ctx, POL_CTX_KSOFTIRQD) * POL_BOOST_HIGH +
	       POL_CTX_BIT(ctx, POL_CTX_WQ_WORKER) * POL_BOOST_REGULAR +
	       POL_CTX_BIT(ctx, POL_CTX_AFFINITIZED) * POL_BOOST_REGULAR +
	       POL_CTX_BIT(ctx, POL_CTX_PINNED) * POL_BOOST_MEDIUM +
	       POL_CTX_BIT(ctx, POL_CTX_LOCK_BOOST) * POL_BOOST_REGULAR;
}

/*
 * The hardirq bits of the preempt count, learnt from the ticks. The layout
 * differs between kernels (x86 7.2: the classic hardirq count at bit 16;
 * 7.3, whose count is 64-bit: at bit 24, as read off its ticks in the VM),
 * but ops.tick always runs in the tick's interrupt, so the lowest bit above
 * the preempt and softirq bytes that every tick's count has set is the
 * hardirq count's lowest bit; the count is 4 bits wide in both layouts.
 * tick_and: AND of the low 32 bits of the counts seen at ticks. 0: unknown.
 */
#define POL_PC_LOW_BYTES	0xffffU	/* preempt and softirq counts */
#define POL_PC_HARDIRQ_WIDTH	0xfU

POL_FN u32 pol_hardirq_mask(u32 tick_and)
{
	u32 m = tick_and & ~POL_PC_LOW_BYTES;
	u32 low = m & (~m + 1);

	/* a hardirq count needs 4 bits: none that high is one */
	if (!low || low > (1U << 28))
		return 0;
	return low * POL_PC_HARDIRQ_WIDTH;
}

/*
 * Latency criticality before inheritance:
 *   (log2x(wait_ft * wake_ft) + log2x(runtime_ft * weight_ft))^2
 * wait_ft, wake_ft = min(freq, 100k) + 1; runtime_ft counts 500 us steps
 * below one second (1..2001); weight_ft = weight * (1 + boosts) + 1.
 * Squaring the sum of logs spreads the range (64 for an idle hog, ~1500 for a
 * frame thread): it is an amplification, not a linearisation.
 * The result is below 70^2 + inheritance, so it fits in u32 comfortably.
 */
POL_FN u32 pol_lat_cri_raw(const struct pol_task_stat *t, u64 weight, u32 ctx)
{
	u64 wait_ft = pol_min(t->wait_freq, POL_LC_FREQ_MAX) + 1;
	u64 wake_ft = pol_min(t->wake_freq, POL_LC_FREQ_MAX) + 1;
	u64 runtime_ft = 1, weight_ft, sum;

	if (t->avg_runtime_ns < POL_LC_RUNTIME_MAX_NS)
		runtime_ft += (POL_LC_RUNTIME_MAX_NS - t->avg_runtime_ns) / POL_LC_RUNTIME_STEP_NS;
	weight = pol_clamp(weight, 1, 10000);
	weight_ft = weight * (1 + pol_ctx_boost(ctx)) + 1;

	sum = pol_log2x(wait_ft * wake_ft) + pol_log2x(runtime_ft * weight_ft);
	return (u32)(sum * sum);
}

/*
 * Criticality with inheritance. If what the waker and the strongest wakee
 * bring is more than twice our own, take 1/8 of the excess, capped at 1/4 of
 * our own value: a chain amplifies geometrically but boundedly. The inherited
 * fields are consumed (reset) so a relationship must be renewed to count.
 */
POL_FN u32 pol_lat_cri(struct pol_task_stat *t, u64 weight, u32 ctx)
{
	u64 lc = pol_lat_cri_raw(t, weight, ctx);
	u64 giver = (u64)t->lat_cri_waker + t->lat_cri_wakee;

	if (giver > 2 * lc)
		lc += pol_min((giver - 2 * lc) >> POL_LC_INH_GIVER_SHIFT,
			      lc >> POL_LC_INH_RECEIVER_SHIFT);
	t->lat_cri_waker = 0;
	t->lat_cri_wakee = 0;
	t->lat_cri = (u32)lc;
	return (u32)lc;
}

/* Criticality relative to the system maximum, 0..POL_SCALE. */
POL_FN u32 pol_lat_cri_norm(u32 lat_cri, u32 max_lat_cri)
{
	if (max_lat_cri == 0)
		return 0;
	if (lat_cri >= max_lat_cri)
		return POL_SCALE;
	return (u32)(((u64)lat_cri << POL_SHIFT) / max_lat_cri);
}

/*
 * Wall time to capacity- and frequency-invariant time: what the same work
 * would take on the fastest CPU at full speed. cap and cur are 1..1024.
 */
POL_FN u64 pol_wall_to_invr(u64 wall_ns, u32 cap, u32 cur)
{
	u64 c = pol_min(cap, POL_SCALE), f = pol_min(cur, POL_SCALE);

	if (!c)
		c = POL_SCALE;
	if (!f)
		f = POL_SCALE;
	return (pol_mul_sat(wall_ns, c * f)) >> (2 * POL_SHIFT);
}

#endif /* __POL_TASK_H */
