/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lavd.bpf.h - state of the BPF scheduler: per-task and per-CPU contexts,
 * maps, the loader-filled topology and the options.
 */
#ifndef __LAVD_BPF_H
#define __LAVD_BPF_H

#include "scx.bpf.h"
#include "../common/intf.h"
#include "../policy/pol.h"

/* DSQ ids: one vtime-ordered DSQ per LLC, id == LLC index. */
#define LLC_DSQ(llc)	((u64)(llc))

/* Per-task context, in task local storage. */
struct task_ctx {
	struct pol_task_stat st;
	u64 vdeadline;		/* virtual deadline at the last enqueue */
	u64 wait_since_ns;	/* became runnable / was put back at */
	u64 exec_at_account;	/* p->se.sum_exec_runtime when last accounted */
	u32 ctx;		/* enum pol_task_ctx bits for the next criticality */
	u32 queued_wgt;		/* weight counted in llc_ctx.queued_wgt, 0 if none */
	s32 queued_llc;		/* which LLC counts it */
	s32 idle_cpu;		/* idle CPU claimed in select_cpu, -1 if none */
	u8 slice_boosted;
	u8 greedy;		/* received more than its peers (no preemption) */
	u32 futex_op;		/* futex(2) op in flight + 1, 0 if none */
	u8 warm_wait;		/* select_cpu chose to wait for the warm prev CPU */
	u64 exec_at_running;	/* p->se.sum_exec_runtime at ops.running */
	s64 enq_ahead_ns;	/* vdeadline - logical_clk at the last enqueue */
	u32 nr_enq;		/* enqueues since it last ran */
	u32 enq_depth;		/* tasks in the LLC queue at the last enqueue there */
	u64 llc_runs_at_enq;	/* nr_llc_runs then */
	u8 enq_via;		/* enum lavd_via of the last enqueue */
	u8 queued_affn;		/* counted in nr_queued_affn (power.bpf.c) */
	u32 perf_cri;		/* performance criticality (pol_perf_cri), at the last run */
	struct pol_warmth warm;
	u64 cbw_cgid;		/* cgroup id, with --enable-cpu-bw (cgroup_bw.bpf.c) */
};

/* Scratch and per-LLC cpumasks live in maps (kptrs cannot be plain globals). */
struct cpu_mask_val {
	struct bpf_cpumask __kptr *tmp;
	struct bpf_cpumask __kptr *tmp2;	/* a task's usable CPUs (pw_allowed) */
};
struct llc_mask_val {
	struct bpf_cpumask __kptr *mask;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctx_stor SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LAVD_MAX_CPUS);
	__type(key, u32);
	__type(value, struct cpu_mask_val);
} cpu_masks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LAVD_MAX_LLCS);
	__type(key, u32);
	__type(value, struct llc_mask_val);
} llc_masks SEC(".maps");

/* CPUs not turbulent (pol_cpu.h), rebuilt by the statistics timer. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct llc_mask_val);
} steady_mask_map SEC(".maps");

struct stat_timer {
	struct bpf_timer timer;
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stat_timer);
} stat_timer_map SEC(".maps");

/* Topology and options, filled by the loader before load. */
const volatile u32 nr_cpu_ids_cfg = 1;		/* CPU ids 0..n-1 may exist */
/*
 * The kernel's nr_cpu_ids (possible CPUs, which sysfs may list fewer of),
 * read at ops.init; 0 until then. A task with that many allowed CPUs may
 * run on any CPU.
 */
u32 nr_cpu_ids_kern;
const volatile u32 nr_cpus_onln = 1;
const volatile u32 nr_llcs = 1;
const volatile u16 cpu_llc[LAVD_MAX_CPUS];	/* LLC index of each CPU */
const volatile u8 cpu_known[LAVD_MAX_CPUS];	/* online at load */
const volatile u8 smt_on;
const volatile u64 slice_min_ns = POL_SLICE_MIN_NS_DFL;
const volatile u64 slice_max_ns = POL_SLICE_MAX_NS_DFL;
const volatile u32 preempt_shift = POL_PREEMPT_SHIFT_DFL;
const volatile u32 pol_flags;			/* enum pol_cfg_flags */
const volatile u32 verbose;
const volatile u8 preempt_kick;			/* preempt with an IPI, not a shorter slice */
const volatile u64 warm_cpu_ns;			/* --warm-cpu-us: wait budget for a warm CPU, 0 = off */
const volatile u64 pinned_slice_ns;		/* --pinned-slice-us: 0 = off (pol_pinned_cap) */
const volatile u32 mig_delta_pct;		/* --mig-delta-pct: balance band, % of fair; 0 = fair / 16 */

/* State. */
struct cpu_ctx cpu_ctxs[LAVD_MAX_CPUS];
struct pol_domain llc_doms[LAVD_MAX_LLCS];	/* load of each LLC queue */
struct pol_dom_plan llc_plan[LAVD_MAX_LLCS];	/* roles and budgets, every 10 ms */
struct pol_bal_sum llc_bal_sum;		/* pol_plan_balance's scratch */
struct pol_sys sys;
struct lavd_stats stats;
u64 logical_clk = POL_DL_COMPETE_WINDOW_NS;
/*
 * Tasks started from an LLC queue, summed from the CPUs' counts every timer
 * round, for the longest-wait record: a counter shared by every CPU at each
 * switch would cost a contended atomic for a diagnostic.
 */
u64 nr_llc_runs;
u64 nr_tasks;
u64 last_timer_ns;
u64 tick_state;	/* the tick period as learnt (pol_tick_learn); read with pol_tick_period */

struct lavd_exit_info uei;
char uei_dump[LAVD_EXIT_DUMP_LEN];

/*
 * One record when the scheduler exits, so the loader can sleep in the ring
 * buffer's poll instead of waking every 100 ms to look at uei: on an idle
 * machine those wake-ups were a CPU woken ten times a second by us.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} exit_rb SEC(".maps");

/*
 * Remembered for the longest-wait record (struct lavd_wait_rec), at every
 * enqueue: ours (dsq.bpf.c) and a cpu.max set-aside (cgroup_bw.bpf.c).
 */
static __always_inline void note_enq(struct task_ctx *tc, u8 via)
{
	tc->enq_via = via;
	tc->enq_depth = 0;
	tc->nr_enq++;
	tc->enq_ahead_ns = (s64)(tc->vdeadline - READ_ONCE(logical_clk));
}

static __always_inline struct pol_cfg lavd_cfg(void)
{
	struct pol_cfg c = {
		.slice_min_ns = slice_min_ns,
		.slice_max_ns = slice_max_ns,
		.preempt_shift = preempt_shift,
		.flags = pol_flags,
	};
	return c;
}

static __always_inline struct task_ctx *get_task_ctx(struct task_struct *p)
{
	return bpf_task_storage_get(&task_ctx_stor, p, 0, 0);
}

/*
 * Array indexes are masked after the range check: clang may do the check
 * on a copy of the index the verifier cannot relate to the register used
 * for the access, while a mask with a power of two always bounds it.
 */
_Static_assert((LAVD_MAX_CPUS & (LAVD_MAX_CPUS - 1)) == 0, "mask needs a power of two");
_Static_assert((LAVD_MAX_LLCS & (LAVD_MAX_LLCS - 1)) == 0, "mask needs a power of two");
static __always_inline u32 mask_idx(u32 v, u32 mask)
{
	/* Opaque to the compiler, so it cannot drop the mask as redundant. */
	asm volatile("" : "+r"(v));
	return v & mask;
}
#define CPU_IDX(cpu)	mask_idx((u32)(cpu), LAVD_MAX_CPUS - 1)
#define LLC_IDX(llc)	mask_idx((u32)(llc), LAVD_MAX_LLCS - 1)

static __always_inline struct cpu_ctx *get_cpu_ctx(s32 cpu)
{
	if ((u32)cpu >= LAVD_MAX_CPUS)
		return NULL;
	return &cpu_ctxs[CPU_IDX(cpu)];
}

static __always_inline s32 cpu_to_llc(s32 cpu)
{
	u32 llc;

	if ((u32)cpu >= LAVD_MAX_CPUS)
		return 0;
	llc = cpu_llc[CPU_IDX(cpu)];
	return llc < nr_llcs && llc < LAVD_MAX_LLCS ? llc : 0;
}

static __always_inline bool cpu_is_known(s32 cpu)
{
	return (u32)cpu < LAVD_MAX_CPUS && cpu_known[CPU_IDX(cpu)];
}

static __always_inline struct pol_domain *llc_dom(s32 llc)
{
	if ((u32)llc >= LAVD_MAX_LLCS)
		return NULL;
	return &llc_doms[LLC_IDX(llc)];
}

static __always_inline struct bpf_cpumask *llc_mask(s32 llc)
{
	u32 key = llc;
	struct llc_mask_val *v = bpf_map_lookup_elem(&llc_masks, &key);

	return v ? v->mask : NULL;
}

static __always_inline struct bpf_cpumask *steady_mask(void)
{
	u32 key = 0;
	struct llc_mask_val *v = bpf_map_lookup_elem(&steady_mask_map, &key);

	return v ? v->mask : NULL;
}

static __always_inline struct bpf_cpumask *cpu_tmp_mask(s32 cpu)
{
	u32 key = cpu;
	struct cpu_mask_val *v = bpf_map_lookup_elem(&cpu_masks, &key);

	return v ? v->tmp : NULL;
}

static __always_inline struct bpf_cpumask *cpu_tmp2_mask(s32 cpu)
{
	u32 key = cpu;
	struct cpu_mask_val *v = bpf_map_lookup_elem(&cpu_masks, &key);

	return v ? v->tmp2 : NULL;
}

static __always_inline bool cpu_runs_idle_task(s32 cpu)
{
	struct task_struct *curr;
	bool idle;

	bpf_rcu_read_lock();
	curr = scx_bpf_cpu_curr(cpu);
	idle = curr && curr->pid == 0;
	bpf_rcu_read_unlock();
	return idle;
}

/*
 * Put a new empty cpumask into a map value's kptr slot (ops.init), releasing
 * whatever was there; -12 (ENOMEM) if none could be made.
 */
static __always_inline s32 install_cpumask(struct bpf_cpumask __kptr **slot)
{
	struct bpf_cpumask *m = bpf_cpumask_create();

	if (!m)
		return -12;
	m = bpf_kptr_xchg(slot, m);
	if (m)
		bpf_cpumask_release(m);
	return 0;
}

/*
 * Is any CPU of mask idle? One look at the kernel's idle mask. Under
 * saturation no CPU is, and this spares the idle-CPU searches that would
 * all fail: in the VM at schbench saturation ops.select_cpu cost 8.7 us
 * (time is instructions under -icount) against 2.5 us with idle CPUs.
 */
static __always_inline bool any_idle(const struct cpumask *mask)
{
	const struct cpumask *idle = scx_bpf_get_idle_cpumask();
	bool any = bpf_cpumask_intersects(idle, mask);

	scx_bpf_put_idle_cpumask(idle);
	return any;
}

/* Is the whole core of cpu idle (every SMT sibling)? */
static __always_inline bool core_idle(s32 cpu)
{
	const struct cpumask *smt = scx_bpf_get_idle_smtmask();
	bool idle = bpf_cpumask_test_cpu(cpu, smt);

	scx_bpf_put_idle_cpumask(smt);
	return idle;
}

static __always_inline bool is_pinned(const struct task_struct *p)
{
	return p->nr_cpus_allowed == 1;
}

#endif /* __LAVD_BPF_H */
