/* SPDX-License-Identifier: GPL-2.0 */
/*
 * floor.bpf.c - a minimal sched_ext scheduler, for measurement only.
 *
 * It tells how much of a benchmark gap between LAVD and EEVDF is the cost
 * of sched_ext itself (a task taken from a shared queue at every switch)
 * and how much is LAVD's policy. It is not a scheduler to use: no
 * criticality, no preemption, no topology, no load balancing.
 *
 *   fifo:  one shared queue, first in first out
 *   vtime: one shared queue ordered by weighted virtual run time, a
 *          sleeper's lag capped at one slice (fair queueing at its simplest)
 *
 * Either way a waking task goes straight to an idle CPU when the kernel's
 * default idle search finds one.
 */
#include "bpf/scx.bpf.h"

#define FLOOR_DSQ	0
#define FLOOR_SLICE_NS	5000000ULL	/* 5 ms */
#define FLOOR_WEIGHT_ONE 100ULL		/* p->scx.weight of nice 0 */

const volatile u32 floor_vtime;	/* 0: fifo, 1: vtime */

u64 vtime_now;			/* largest vtime that started running */
int exit_kind;			/* set by ops.exit; exit_reason is valid then */
char exit_reason[128];

/* Run time at ops.running, to charge the run at ops.stopping. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, u64);
} exec_at_running SEC(".maps");

s32 BPF_STRUCT_OPS(floor_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	bool idle = false;
	s32 cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &idle);

	if (idle)
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, FLOOR_SLICE_NS, 0);
	return cpu;
}

void BPF_STRUCT_OPS(floor_enqueue, struct task_struct *p, u64 enq_flags)
{
	u64 now_v, v = p->scx.dsq_vtime;

	if (!floor_vtime) {
		scx_bpf_dsq_insert(p, FLOOR_DSQ, FLOOR_SLICE_NS, enq_flags);
		return;
	}
	/* A sleeper comes back at most one slice behind the running ones. */
	now_v = READ_ONCE(vtime_now);
	if (now_v > FLOOR_SLICE_NS && (s64)(v - (now_v - FLOOR_SLICE_NS)) < 0)
		v = now_v - FLOOR_SLICE_NS;
	scx_bpf_dsq_insert_vtime(p, FLOOR_DSQ, FLOOR_SLICE_NS, v, enq_flags);
}

void BPF_STRUCT_OPS(floor_dispatch, s32 cpu, struct task_struct *prev)
{
	scx_bpf_dsq_move_to_local(FLOOR_DSQ);
}

void BPF_STRUCT_OPS(floor_running, struct task_struct *p)
{
	u64 *at;

	if (!floor_vtime)
		return;
	if ((s64)(p->scx.dsq_vtime - READ_ONCE(vtime_now)) > 0)
		WRITE_ONCE(vtime_now, p->scx.dsq_vtime);
	at = bpf_task_storage_get(&exec_at_running, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (at)
		*at = p->se.sum_exec_runtime;
}

/* Charge what ran, from the run time (a slice the kernel refilled is not ours). */
void BPF_STRUCT_OPS(floor_stopping, struct task_struct *p, bool runnable)
{
	u64 *at, ran, w = p->scx.weight ? p->scx.weight : 1;

	if (!floor_vtime)
		return;
	at = bpf_task_storage_get(&exec_at_running, p, 0, 0);
	if (!at)
		return;
	ran = p->se.sum_exec_runtime - *at;
	p->scx.dsq_vtime += ran * FLOOR_WEIGHT_ONE / w;
}

void BPF_STRUCT_OPS(floor_enable, struct task_struct *p)
{
	p->scx.dsq_vtime = READ_ONCE(vtime_now);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(floor_init)
{
	return scx_bpf_create_dsq(FLOOR_DSQ, -1);
}

void BPF_STRUCT_OPS(floor_exit, struct scx_exit_info *ei)
{
	bpf_probe_read_kernel_str(exit_reason, sizeof(exit_reason), ei->reason);
	__sync_val_compare_and_swap(&exit_kind, 0, ei->kind);
}

SEC(".struct_ops.link")
struct sched_ext_ops floor_ops = {
	.select_cpu	= (void *)floor_select_cpu,
	.enqueue	= (void *)floor_enqueue,
	.dispatch	= (void *)floor_dispatch,
	.running	= (void *)floor_running,
	.stopping	= (void *)floor_stopping,
	.enable		= (void *)floor_enable,
	.init		= (void *)floor_init,
	.exit		= (void *)floor_exit,
	.timeout_ms	= 30000,
	.name		= "floor",
};

char _license[] SEC("license") = "GPL";
