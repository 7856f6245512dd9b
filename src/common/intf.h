/* SPDX-License-Identifier: GPL-2.0 */
/*
 * intf.h - what the BPF scheduler and its loader share: limits, the
 * topology the loader passes in, and the statistics it reads out.
 * Plain integer types only, so both sides can include it.
 */
#ifndef __LAVD_INTF_H
#define __LAVD_INTF_H

#include "../policy/pol_base.h"
#include "../policy/pol_cpu.h"

#define LAVD_MAX_CPUS		1024
#define LAVD_MAX_LLCS		64
#define LAVD_VERSION		"0.3.0"

/* Exit codes the BPF side passes to scx_bpf_exit(). */
#define LAVD_EXIT_RESTART_HOTPLUG	1

/* System statistics, published every 10 ms in .bss for the loader. */
/* How a task was last queued before it ran (struct lavd_wait_rec.via). */
enum lavd_via {
	LAVD_VIA_NONE,		/* never queued by us (bypass, or before we saw it) */
	LAVD_VIA_DIRECT,	/* select_cpu put it on an idle CPU */
	LAVD_VIA_IDLE,		/* enqueue put it on an idle CPU's local queue */
	LAVD_VIA_PINNED,	/* the local queue of the only CPU it may use */
	LAVD_VIA_WARM,		/* the local queue of its warm CPU (--warm-cpu-us) */
	LAVD_VIA_LLC,		/* its LLC's deadline-ordered queue */
	LAVD_VIA_CBW,		/* set aside: its cgroup was throttled (cpu.max) */
	LAVD_VIA_NR,
};

/*
 * The longest runnable-to-running wait, and what explains it: where the
 * task waited and how far its deadline was from the logical clock.
 */
struct lavd_wait_rec {
	unsigned long long wait_ns;
	unsigned long long pid;
	char comm[16];			/* TASK_COMM_LEN */
	unsigned int via;		/* enum lavd_via of its last enqueue */
	unsigned int nr_enq;		/* enqueues during the wait */
	long long ahead_ns;		/* deadline - logical clock, at that enqueue */
	long long behind_ns;		/* logical clock - deadline, when it ran */
	unsigned int lat_cri;
	unsigned int weight;		/* p->scx.weight, nice 0 = 100 */
	unsigned int depth_enq;		/* tasks in its LLC queue at that enqueue */
	unsigned int depth_run;		/* ... when it ran */
	unsigned long long ran_ahead;	/* tasks that ran from an LLC queue meanwhile (counted */
					/* per timer round): far more than depth_enq is passing */
};

struct lavd_stats {
	unsigned long long seq;			/* timer rounds */
	unsigned long long nr_sched;		/* tasks started running, total */
	unsigned long long nr_sched_lat_cri;	/* ... with criticality >= the average */
	unsigned long long nr_preempt;		/* victims preempted */
	unsigned long long nr_preempt_ipi;	/* ... of them with an IPI (tick too far) */
	unsigned long long nr_irq_wake;		/* wakeups from interrupt handlers */
	unsigned long long nr_softirq_wake;	/* ... from softirqs (or ksoftirqd) */
	unsigned long long irq_by_count;	/* 1: told by the preempt count, 0: by the idle signature */
	unsigned long long nr_xllc_steal;	/* tasks pulled from another LLC */
	unsigned long long nr_plan_steal;	/* ... of them by the balance plan */
	unsigned long long nr_direct;		/* inserted straight to an idle CPU */
	unsigned long long nr_sync_local;	/* sync wakeups queued behind their waker */
	unsigned long long nr_local_pick;	/* dispatches that took their own CPU's task over the head */
	unsigned long long nr_revoke;		/* boosted slices revoked */
	unsigned long long nr_lock_boost;	/* slice refills for lock holders */
	unsigned long long nr_lock_acquire;	/* futex acquisitions seen */
	unsigned long long nr_warm_wait;		/* wakeups queued for their warm CPU */
	unsigned long long nr_turbulent;	/* CPUs turbulent now */
	unsigned long long nr_turb_place;	/* critical tasks started on turbulent CPUs */
	unsigned long long turbulent_mask;	/* first 64 CPUs, bit set = turbulent */
	struct lavd_wait_rec max_wait;		/* longest runnable-to-running wait seen */
	unsigned long long cur_max_wait_ns;	/* ... in the last second */
	unsigned long long slice_ns;		/* system time slice */
	unsigned long long avg_lat_cri;
	unsigned long long max_lat_cri;
	unsigned long long thr_lat_cri;
	unsigned long long avg_util;		/* 0..1024 */
	unsigned long long nr_queued;		/* EWMA of waiting tasks */
	unsigned long long nr_active;		/* CPUs in use */
	unsigned long long logical_clk;
	unsigned long long nr_tasks;		/* tasks we hold context for */
	unsigned long long max_round_gap_ns;	/* longest time between two statistics rounds */
	/* power (pol_power.h) */
	unsigned long long power_mode;		/* enum pol_power_mode in force */
	unsigned long long nr_overflow;		/* CPUs outside the active set used for their own work */
	unsigned long long pco_state;		/* PCO table row compacted along */
	unsigned long long use_cap;		/* capacity in use, 1024 = one fastest CPU */
	unsigned long long req_cap;		/* ... with headroom: what the active set must carry */
	unsigned long long mode_ms[3];		/* time spent in each power mode since load */
	unsigned long long nr_mode_switch;	/* power mode changes */
	unsigned long long nr_sched_big;	/* tasks started on big cores (big/little only) */
	unsigned long long nr_sched_perf_cri;	/* ... started while performance-critical */
	unsigned long long thr_perf_cri;
	unsigned long long nr_cpuperf_set;	/* cpufreq target changes */
	/* cgroup CPU bandwidth (--enable-cpu-bw), cgroup_bw.bpf.c */
	unsigned long long nr_cbw_throttle;	/* times a cgroup was throttled */
	unsigned long long nr_cbw_throttled;	/* cgroups throttled now */
	unsigned long long nr_cbw_set_aside;	/* tasks set aside while throttled */
	unsigned long long nr_cbw_released;	/* ... and moved back */
	unsigned long long nr_cbw_cgroups;	/* cgroups tracked */
	unsigned long long nr_cbw_untracked;	/* cgroups not tracked (table full) */
	unsigned long long cbw_max_charge_ns;	/* longest run time charged at once */
	unsigned long long cbw_max_overrun_ns;	/* largest overspend of a period */
};

/* Per-CPU context; read by other CPUs (statistics timer, victim search). */
struct cpu_ctx {
	/* what runs here now, published at ops.running */
	u64 running_at_ns;
	u64 running_slice_ns;
	u64 est_stop_ns;	/* pol_cpu_run: when it is expected to stop */
	u32 running_lat_cri;	/* pol_cpu_run: its criticality */
	u32 run_flags;		/* pol_cpu_run: enum pol_run_flags */
	u32 run_gen;		/* runs started here, for run_flags' upper bits */
	u8 running_boosted;
	u8 lock_refilled;	/* this run's slice was refilled once for its lock */
	u64 running_wgt;	/* p->scx.weight of what runs here, 0 when none */
	/* counters for the current 10 ms interval, reset by the timer */
	u64 busy_ns;
	u64 nr_sched;
	u64 sum_lat_cri;
	u64 max_lat_cri;
	u64 sum_svc_wgt_ns;
	u64 nr_lat_cri;
	/* lifetime counters */
	u64 tot_sched;
	u64 tot_lat_cri;
	u64 tot_preempt;
	u64 tot_preempt_ipi;
	u64 tot_irq_wake;
	u64 tot_softirq_wake;
	u64 tot_xllc_steal;
	u64 tot_plan_steal;	/* pulls by the balance plan (pol_plan_balance) */
	u64 tot_direct;
	u64 tot_sync_local;
	u64 tot_local_pick;	/* dispatches that took a task of this CPU's run queue over the head */
	u64 tot_revoke;
	u64 tot_lock_boost;
	u64 tot_lock_acquire;
	u64 tot_turb_place;	/* critical tasks that started on this CPU while turbulent */
	u64 tot_warm_wait;	/* wakeups that waited for their warm CPU */
	/*
	 * turbulence: time neither idle nor running our tasks, as gaps that
	 * this CPU alone opens and closes; the timer reads them up to now, so
	 * a long gap is split at the round, not charged to one interval in a lump.
	 */
	struct pol_gap_clock gap;
	u64 lost_seen_ns;	/* the timer's: lost time up to its last round (pol_gap_read) */
	u64 irq_seen_ns;	/* kernel's IRQ+softirq+steal total at the last round */
	u64 irq_avg_fp;		/* pol_irq_avg of its share */
	u64 lost_avg;		/* pol_lost_avg, 0..1024 */
	u8 turbulent;
	struct lavd_wait_rec max_wait;	/* longest wait seen on this CPU, since load */
	u64 cur_max_wait_ns;	/* ... since the last timer round */
	u64 cur_max_qwait_ns;	/* ... of tasks that waited in an LLC queue (the latency guard) */
	u64 last_tick_ns;	/* when ops.tick last ran here (pol_tick_wait) */
	/* power: utilisation, the compaction sets, cpufreq, perf criticality */
	u64 util_cur;		/* busy share of the last interval, 0..1024 */
	u64 util_avg;		/* pol_ewma_asym of util_cur */
	u32 cpuperf_cur;	/* last cpufreq target set, 0 = never */
	/*
	 * scx_bpf_cpuperf_cap/cur as read at the last timer round (1..1024, 0
	 * before the first): run-time accounting at every ops.stopping uses
	 * these instead of two kfunc calls under the run-queue lock.
	 */
	u32 perf_cap;
	u32 perf_cur;
	u8 active;		/* in the active set */
	u8 overflow;		/* in the overflow set */
	u32 ovf_rounds;		/* pol_overflow_keep's count */
	u64 sum_perf_cri;	/* of tasks started this interval */
	u64 min_perf_cri;	/* ... 0 = none yet */
	u64 max_perf_cri;
	u64 tot_llc_runs;	/* tasks started here from an LLC queue (the longest-wait record) */
	u64 tot_sched_big;
	u64 tot_sched_perf_cri;
	u64 tot_cpuperf_set;
};

/*
 * Exit information, recorded in ops.exit and read by the loader. kind is
 * written last, with a full barrier, so a reader that sees kind != 0 sees
 * the strings too.
 */
#define LAVD_EXIT_REASON_LEN	128
#define LAVD_EXIT_MSG_LEN	1024
#define LAVD_EXIT_DUMP_LEN	16384
struct lavd_exit_info {
	int kind;
	long long exit_code;
	char reason[LAVD_EXIT_REASON_LEN];
	char msg[LAVD_EXIT_MSG_LEN];
};

#endif /* __LAVD_INTF_H */
