/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_simple.c - the kernel's scx_simple in its two modes: fifo (one
 * global FIFO) and vtime (one global queue ordered by weighted virtual
 * time, a sleeper's credit bounded to one slice). Idle CPUs are found like
 * scx_bpf_select_cpu_dfl() and woken tasks dispatched to them directly.
 */
#include "sim.h"

struct simple {
	int vtime_mode;
	u64 vtime_now;
	struct dsq q;
};

#define S(s) ((struct simple *)(s)->priv)

/* scx_bpf_select_cpu_dfl(): prev's idle core, an idle core in the LLC, prev, any idle. */
static s32 select_cpu_dfl(struct sim *s, s32 prev, bool *is_idle)
{
	const struct cpumask *llc = &s->topo->llc_mask[s->topo->cpu[prev].llc];
	s32 cpu;

	*is_idle = true;
	if (s->topo->smt) {
		if (sim_core_idle(s, prev) && sim_claim_idle(s, prev))
			return prev;
		if ((cpu = sim_pick_idle(s, llc, 1)) >= 0)
			return cpu;
		if ((cpu = sim_pick_idle(s, &s->topo->all, 1)) >= 0)
			return cpu;
	}
	if (sim_claim_idle(s, prev))
		return prev;
	if ((cpu = sim_pick_idle(s, llc, 0)) >= 0)
		return cpu;
	if ((cpu = sim_pick_idle(s, &s->topo->all, 0)) >= 0)
		return cpu;
	*is_idle = false;
	return prev;
}

static s32 simple_select_cpu(struct sim *s, struct task *p, s32 prev_cpu, int wake_flags,
			     struct task *waker)
{
	bool is_idle;
	s32 cpu = select_cpu_dfl(s, prev_cpu, &is_idle);

	(void)wake_flags;
	(void)waker;
	if (is_idle) {
		p->scx_slice = SCX_SLICE_DFL_NS;
		sim_local_push(s, cpu, p);
	}
	return cpu;
}

static void simple_enqueue(struct sim *s, struct task *p, u64 enq_flags)
{
	struct simple *x = S(s);
	u64 vtime = p->vtime;

	(void)enq_flags;
	p->scx_slice = SCX_SLICE_DFL_NS;
	if (p->pinned >= 0) {	/* the shared queue cannot hold a pinned task fairly */
		sim_local_push(s, p->pinned, p);
		return;
	}
	if (!x->vtime_mode) {
		dsq_insert(s, &x->q, p, 0);
	} else {
		/* A sleeper gets at most one slice of credit. */
		if ((s64)(vtime - (x->vtime_now - SCX_SLICE_DFL_NS)) < 0)
			vtime = x->vtime_now - SCX_SLICE_DFL_NS;
		dsq_insert(s, &x->q, p, vtime);
	}
	/* The kernel wakes an idle CPU for a task put on the global queue. */
	{
		s32 cpu = mask_first_and(&s->topo->all, &s->idle);

		if (cpu >= 0)
			sim_kick(s, cpu, 0);
	}
}

static void simple_dispatch(struct sim *s, s32 cpu, struct task *prev)
{
	struct task *p = dsq_pop(s, &S(s)->q);

	(void)prev;
	if (p)
		sim_local_push(s, cpu, p);
}

static void simple_runnable(struct sim *s, struct task *p, struct task *waker, u64 f)
{
	(void)s; (void)p; (void)waker; (void)f;
}

static void simple_running(struct sim *s, struct task *p)
{
	struct simple *x = S(s);

	if (x->vtime_mode && (s64)(x->vtime_now - p->vtime) < 0)
		x->vtime_now = p->vtime;
}

static void simple_stopping(struct sim *s, struct task *p, bool runnable)
{
	u64 used = pol_sub_sat(SCX_SLICE_DFL_NS, sim_slice_left(s, p->cpu));

	(void)runnable;
	if (S(s)->vtime_mode)
		p->vtime += used * 100 / p->weight;
}

static void simple_quiescent(struct sim *s, struct task *p, bool sleep)
{
	(void)s; (void)p; (void)sleep;
}

static const struct scx_ops simple_ops = {
	.select_cpu = simple_select_cpu,
	.enqueue = simple_enqueue,
	.dispatch = simple_dispatch,
	.runnable = simple_runnable,
	.running = simple_running,
	.stopping = simple_stopping,
	.quiescent = simple_quiescent,
};

static void init_common(struct sim *s, int vtime)
{
	struct simple *x = calloc(1, sizeof(*x));

	if (!x)
		abort();
	x->vtime_mode = vtime;
	s->priv = x;
}

static void fifo_init(struct sim *s) { init_common(s, 0); }
static void vtime_init(struct sim *s) { init_common(s, 1); }

static void simple_task_new(struct sim *s, struct task *t, struct task *parent)
{
	(void)parent;
	t->vtime = S(s)->vtime_now;	/* simple_enable */
}

static void simple_fini(struct sim *s)
{
	dsq_free(&S(s)->q);
}

static void cls_wake(struct sim *s, struct task *t, struct task *waker, int flags)
{
	scx_wake(s, &simple_ops, t, waker, flags);
}

static void cls_block(struct sim *s, int cpu, struct task *t, int exiting)
{
	scx_block(s, &simple_ops, cpu, t, exiting);
}

static struct task *cls_schedule(struct sim *s, int cpu, struct task *prev)
{
	return scx_schedule(s, &simple_ops, cpu, prev);
}

static void cls_rt_preempt(struct sim *s, int cpu, struct task *prev)
{
	scx_rt_preempt(s, &simple_ops, cpu, prev);
}

const struct sched_class sched_fifo = {
	.name = "fifo",
	.init = fifo_init,
	.task_new = simple_task_new,
	.wake = cls_wake,
	.block = cls_block,
	.schedule = cls_schedule,
	.rt_preempt = cls_rt_preempt,
	.fini = simple_fini,
};

const struct sched_class sched_vtime = {
	.name = "vtime",
	.init = vtime_init,
	.task_new = simple_task_new,
	.wake = cls_wake,
	.block = cls_block,
	.schedule = cls_schedule,
	.rt_preempt = cls_rt_preempt,
	.fini = simple_fini,
};
