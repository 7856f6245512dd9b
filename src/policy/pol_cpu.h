/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pol_cpu.h - turbulent and steady CPUs.
 *
 * A CPU that loses a good share of its time to interrupts, softirqs,
 * hypervisor steal or RT/DL tasks is "turbulent": a latency-critical task
 * placed there may be held up by things we do not schedule. Each 10 ms the
 * share of the interval that was neither idle nor running our tasks, plus
 * the interrupt time the kernel accounted inside it, is folded into a
 * fast-rise, slow-decay average; above 1/8 the CPU is turbulent
 * (upstream's threshold: a latency headroom below 896/1024).
 *
 * The time neither idle nor ours is measured as gaps: a gap opens when our
 * task stops or the CPU leaves idle, and closes when our task runs or the
 * CPU goes idle (struct pol_gap_clock). Only the CPU itself writes its gap
 * clock; the statistics timer on another CPU only reads it. Counting idle
 * and run time instead and calling the rest lost (until 2026-12-07) had the
 * timer reset counters the CPU was adding to, so a run that ended while
 * the timer read could vanish: a whole interval of a busy CPU "lost".
 * Reading gaps, a race misplaces at most one gap, time that was lost anyway.
 */
#ifndef __POL_CPU_H
#define __POL_CPU_H

#include "pol_base.h"

#define POL_TURBULENT_UTIL	(POL_SCALE >> 3)

/* part / whole as a share 0..POL_SCALE (0 for an empty whole). */
POL_FN u64 pol_share(u64 part_ns, u64 whole_ns)
{
	if (!whole_ns)
		return 0;
	if (part_ns >= whole_ns)
		return POL_SCALE;
	/* Huge values: scale the divisor down instead of overflowing the product. */
	if (part_ns >> 53)
		return part_ns / (whole_ns >> POL_SHIFT);
	return part_ns * POL_SCALE / whole_ns;
}

/*
 * A CPU's clock of lost time. lost_total_ns: the gaps closed so far;
 * gap_since_ns: when the open gap began, 0 if none. A CPU idle or running
 * ours since before we were loaded has no gap open: nothing is counted
 * for it that was not seen.
 */
struct pol_gap_clock {
	u64 lost_total_ns;
	u64 gap_since_ns;
};

/*
 * The CPU stops running ours or leaves idle (now_ns > 0). The stores are
 * volatile: another CPU reads the clock unlocked (pol_gap_read), so the
 * compiler must keep their order; x86 keeps stores in order itself.
 */
POL_FN void pol_gap_open(struct pol_gap_clock *g, u64 now_ns)
{
	if (!g->gap_since_ns)
		*(volatile u64 *)&g->gap_since_ns = now_ns;
}

/* The CPU runs ours or goes idle: the total grows before the gap is cleared. */
POL_FN void pol_gap_close(struct pol_gap_clock *g, u64 now_ns)
{
	u64 since = g->gap_since_ns;

	if (since) {
		*(volatile u64 *)&g->lost_total_ns = g->lost_total_ns + pol_sub_sat(now_ns, since);
		*(volatile u64 *)&g->gap_since_ns = 0;
	}
}

/*
 * Lost time since the last reading, from a copy of the clock read (total
 * first, then the gap start) while the CPU may be changing it. *seen_ns is
 * the reader's own: the total lost up to its last reading. A reading that
 * caught a gap already closed into the total but not yet cleared counts
 * that gap twice; *seen_ns keeps the higher total, so the next readings
 * give the excess back instead of counting it again.
 */
POL_FN u64 pol_gap_read(u64 *seen_ns, u64 lost_total_ns, u64 gap_since_ns, u64 now_ns)
{
	u64 cum = lost_total_ns, lost;

	if (gap_since_ns)
		cum = pol_add_sat(cum, pol_sub_sat(now_ns, gap_since_ns));
	lost = pol_sub_sat(cum, *seen_ns);
	*seen_ns = pol_max(*seen_ns, cum);
	return lost;
}

/*
 * Share (0..POL_SCALE) of an interval lost to what we do not schedule.
 * lost_ns is the gap time (pol_gap_read); an interrupt or softirq that hits
 * while our task runs (or while the CPU idles) hides outside the gaps:
 * irq_util is the share of IRQ, softirq and steal time the kernel
 * accounted (pol_irq_avg), added back. It may overlap the gaps; the sum is
 * capped at the whole interval.
 */
POL_FN u64 pol_lost_util(u64 interval_ns, u64 lost_ns, u64 irq_util)
{
	if (!interval_ns)
		return 0;
	return pol_min(pol_add_sat(pol_share(lost_ns, interval_ns), irq_util), POL_SCALE);
}

/*
 * Average share of IRQ, softirq and steal time, new sample weight 1/8,
 * kept with POL_IRQ_FP_SHIFT extra fraction bits (so small shares do not
 * truncate away). Without irqtime accounting (Debian's kernels) the
 * kernel's counters are tick-sampled: one 4 ms tick that lands in a softirq
 * charges 40 % of a 10 ms interval. The fast-rise turbulence average would
 * take that single hit as a turbulent CPU (under plain CPU hogs in the VM,
 * one CPU was); averaged over about 8 intervals the samples estimate the
 * real share. Read the share with pol_irq_util.
 */
#define POL_IRQ_FP_SHIFT	8

POL_FN u64 pol_irq_avg(u64 avg_fp, u64 interval_ns, u64 irq_ns)
{
	u64 cur_fp = pol_share(irq_ns, interval_ns) << POL_IRQ_FP_SHIFT;

	return avg_fp - (avg_fp >> 3) + (cur_fp >> 3);
}

POL_FN u64 pol_irq_util(u64 avg_fp)
{
	return pol_min(avg_fp >> POL_IRQ_FP_SHIFT, POL_SCALE);
}

/*
 * Fold an interval into the CPU's average lost share: 1/4 weight to a rise,
 * 1/8 to a fall. A CPU that loses half of one interval or more (an RT hog:
 * all of it) is turbulent at once; a lesser disturbance must last two or
 * more intervals. A third of a single interval lost is not turbulence: in
 * the VM a vCPU the host did not run for 3 ms while its guest was between
 * two tasks looked so, and with a 3/4 rise that one interval made the CPU
 * turbulent for some 150 ms (upstream averages over a 128 ms half-life, which
 * takes some 25 ms to see an RT hog). Not pol_ewma_asym: its small-value
 * rule halves the average on any quiet interval, and one quiet interval
 * should not clear a CPU that is disturbed most of the time.
 */
POL_FN u64 pol_lost_avg(u64 avg, u64 cur)
{
	u64 n;

	if (cur > avg) {
		n = avg - (avg >> 2) + (cur >> 2);
		/* a 1/4 step can truncate to nothing: still move towards cur */
		return n == avg ? avg + 1 : n;
	}
	if (cur == avg)
		return avg;
	n = avg - (avg >> 3) + (cur >> 3);
	/* below 8 a 1/8 step truncates to nothing: still move towards cur */
	return n == avg ? avg - 1 : n;
}

POL_FN bool pol_is_turbulent(u64 lost_avg)
{
	return lost_avg > POL_TURBULENT_UTIL;
}

/* Tasks more critical than average should be placed on steady CPUs when possible. */
POL_FN bool pol_wants_steady(u32 lat_cri, u64 avg_lat_cri)
{
	return lat_cri > avg_lat_cri;
}

/*
 * Cache warmth of a task on the CPU it last ran on, 0..POL_SCALE. Running
 * warms: 500 us of run time saturates it. Being away cools: linearly to
 * nothing in 5 ms. Away time is counted from the end of the last run, not
 * from its start (upstream counts the run itself as away time: O12).
 */
#define POL_WARM_SAT_NS		(500ULL * POL_NSEC_PER_USEC)
#define POL_WARM_LIFETIME_NS	(5ULL * POL_NSEC_PER_MSEC)

struct pol_warmth {
	u64 heat;		/* at last_stop_ns */
	u64 last_stop_ns;
	s32 cpu;		/* the CPU it is warm on, -1 if none */
};

POL_FN u64 pol_warmth_now(const struct pol_warmth *w, s32 cpu, u64 now_ns)
{
	u64 away, heat = pol_min(w->heat, POL_SCALE);

	if (w->cpu < 0 || cpu != w->cpu)
		return 0;
	away = pol_sub_sat(now_ns, w->last_stop_ns);
	if (away >= POL_WARM_LIFETIME_NS)
		return 0;
	return heat - heat * away / POL_WARM_LIFETIME_NS;
}

/* The task stops on cpu after running ran_ns. */
POL_FN void pol_warmth_on_stop(struct pol_warmth *w, s32 cpu, u64 ran_ns, u64 now_ns)
{
	u64 gain = pol_min(ran_ns, POL_WARM_SAT_NS) * POL_SCALE / POL_WARM_SAT_NS;
	u64 base = 0;

	if (cpu == w->cpu) {
		/* warmth at the start of this run: the run itself did not cool it */
		u64 start = pol_sub_sat(now_ns, ran_ns);

		base = pol_warmth_now(w, cpu, start);
	}
	w->heat = pol_min(base + gain, POL_SCALE);
	w->last_stop_ns = now_ns;
	w->cpu = cpu;
}

/*
 * Should a waking task wait for its warm, busy previous CPU rather than
 * move to an idle one? Yes if the expected wait fits a budget that grows
 * with warmth: budget_ns x (1 + warmth), i.e. up to twice budget_ns.
 * wait_ns: until prev's task is expected to stop, plus what is queued there.
 */
POL_FN bool pol_warm_wait_ok(u64 warmth, u64 wait_ns, u64 budget_ns)
{
	if (!budget_ns || !warmth)
		return false;
	return wait_ns <= pol_mul_sat(budget_ns, POL_SCALE + pol_min(warmth, POL_SCALE)) >> POL_SHIFT;
}

#endif /* __POL_CPU_H */
