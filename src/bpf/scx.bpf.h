/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx.bpf.h - our thin layer over the sched_ext BPF interface: helpers,
 * error/exit macros, exit-info recording and kernel-version compatibility.
 *
 * Compatibility is decided here and only here: the scheduler calls the
 * wrappers below and never tests kernel versions. vmlinux.h (generated from
 * the 7.3 kernel's BTF) declares every kfunc as __weak __ksym, so a kfunc a
 * kernel lacks resolves to 0 and bpf_ksym_exists() tells at load time.
 */
#ifndef __LAVD_SCX_BPF_H
#define __LAVD_SCX_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define BPF_STRUCT_OPS(name, args...) \
	SEC("struct_ops/" #name) BPF_PROG(name, ##args)
#define BPF_STRUCT_OPS_SLEEPABLE(name, args...) \
	SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
/* The iterator of the enclosing bpf_for_each() (bpf_helpers.h names it ___it). */
#define BPF_FOR_EACH_ITER	(&___it)
#define READ_ONCE(x)		(*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))

/* Format a message into the kernel's exit info: the *_bstr kfuncs take an array of u64. */
#define __scx_bstr_call(call, fmt, args...)					\
	({									\
		static char ___fmt[] = fmt;					\
		unsigned long long ___param[___bpf_narg(args) + 1] = {};	\
		_Pragma("GCC diagnostic push")					\
		_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")		\
		___bpf_fill(___param, args);					\
		_Pragma("GCC diagnostic pop")					\
		call;								\
	})
#define scx_bpf_error(fmt, args...)						\
	__scx_bstr_call(scx_bpf_error_bstr(___fmt, ___param, sizeof(___param)), \
			fmt, ##args)
#define scx_bpf_exit(code, fmt, args...)					\
	__scx_bstr_call(scx_bpf_exit_bstr(code, ___fmt, ___param, sizeof(___param)), \
			fmt, ##args)

/* bpf_cpumask kfuncs (kernel/bpf/cpumask.c); not all are in vmlinux.h. */
struct bpf_cpumask *bpf_cpumask_create(void) __ksym;
void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;
void bpf_cpumask_set_cpu(u32 cpu, struct bpf_cpumask *cpumask) __ksym;
void bpf_cpumask_clear_cpu(u32 cpu, struct bpf_cpumask *cpumask) __ksym;
bool bpf_cpumask_test_cpu(u32 cpu, const struct cpumask *cpumask) __ksym;
bool bpf_cpumask_and(struct bpf_cpumask *dst, const struct cpumask *src1,
		     const struct cpumask *src2) __ksym;
bool bpf_cpumask_empty(const struct cpumask *cpumask) __ksym;
u32 bpf_cpumask_any_distribute(const struct cpumask *cpumask) __ksym;
void bpf_rcu_read_lock(void) __ksym;
void bpf_rcu_read_unlock(void) __ksym;

#define LAVD_EXIT_RECORD(uei, dumpbuf, ei)						\
	({									\
		bpf_probe_read_kernel_str((uei).reason, sizeof((uei).reason),	\
					  (ei)->reason);			\
		bpf_probe_read_kernel_str((uei).msg, sizeof((uei).msg), (ei)->msg); \
		bpf_probe_read_kernel_str((dumpbuf), sizeof(dumpbuf), (ei)->dump);	\
		(uei).exit_code = (ei)->exit_code;				\
		__sync_val_compare_and_swap(&(uei).kind, 0, (ei)->kind);	\
	})

/*
 * Slice of a task: the setter kfunc where the kernel has it (7.x warns on
 * direct writes), a direct write otherwise.
 */
static __always_inline void lavd_set_slice(struct task_struct *p, u64 slice_ns)
{
	if (bpf_ksym_exists(scx_bpf_task_set_slice))
		scx_bpf_task_set_slice(p, slice_ns);
	else
		p->scx.slice = slice_ns;
}

/*
 * Scheduler clock (ns, CLOCK_MONOTONIC), the same in every callback and the
 * timer. Not scx_bpf_now(), which upstream LAVD uses: it returns this CPU's
 * rq clock while the kernel marks it valid, and on 7.2 and 7.3 it stayed
 * "valid" on an idle CPU long after its last update. In the statistics timer
 * (a softirq on an idle CPU) it read up to 870 ms behind
 * bpf_ktime_get_ns() while throttled cgroups left the machine idle, so rounds
 * saw no time pass, skipped cgroup period refills, then saw ~900 ms at once;
 * that was the cpu.max under-delivery blamed on "timer gaps" before (the
 * timer itself fired every 10 ms). In running/runnable it read up to 5-7 ms
 * behind in the VM. One TSC read per call is the price.
 */
static __always_inline u64 lavd_now(void)
{
	return bpf_ktime_get_ns();
}

/*
 * Pull the head of dsq_id into this CPU's local DSQ. 7.1+ kernels also have
 * a two-argument form under the BTF name ..___v2; libbpf 1.4 strips "___"
 * suffixes when it matches kernel names, so we cannot name it here, and the
 * one-argument form exists on every kernel we support.
 */
static __always_inline bool lavd_move_to_local(u64 dsq_id)
{
	return scx_bpf_dsq_move_to_local(dsq_id);
}

/*
 * cpu.max of a cgroup as ops.cgroup_init sees it: scx_cgroup_init_args has
 * bw_period_us/bw_quota_us/bw_burst_us from 6.17 on. Without them (the
 * loader then refuses --enable-cpu-bw) every cgroup reads as "max".
 */
struct lavd_cgroup_bw {
	u64 period_us;
	u64 quota_us;		/* U64_MAX: "max" */
	u64 burst_us;
};

static __always_inline void lavd_cgroup_init_bw(struct scx_cgroup_init_args *args,
						struct lavd_cgroup_bw *bw)
{
	bw->period_us = 100000;
	bw->quota_us = ~0ULL;
	bw->burst_us = 0;
	if (bpf_core_field_exists(args->bw_quota_us)) {
		bw->period_us = args->bw_period_us;
		bw->quota_us = args->bw_quota_us;
		bw->burst_us = args->bw_burst_us;
	}
}

/* The cgroup a task starts in (scx_init_task_args.cgroup, CONFIG_EXT_GROUP_SCHED). */
static __always_inline struct cgroup *lavd_init_task_cgroup(struct scx_init_task_args *args)
{
	if (bpf_core_field_exists(args->cgroup))
		return args->cgroup;
	return NULL;
}

#endif /* __LAVD_SCX_BPF_H */
