/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_eevdf.c - a model of Linux's EEVDF fair class (6.6 .. 6.12), one
 * runqueue per CPU, no cgroups.
 *
 *   vruntime advances by wall * 1024 / weight while running;
 *   V = the weighted average vruntime of the runqueue (incl. current);
 *   a task is eligible when its vruntime <= V (lag >= 0);
 *   deadline = vruntime + base_slice * 1024 / weight, renewed when reached;
 *   pick = the eligible task with the earliest deadline, with RUN_TO_PARITY
 *   (the current task keeps the CPU until its request is served, if eligible);
 *   lag is kept across sleep and migration, clamped, and re-applied on
 *   placement with the (W + w) / W inflation; new tasks start at V with half
 *   a slice (PLACE_DEADLINE_INITIAL);
 *   wakeup preemption: a woken task preempts when pick would choose it.
 * Placement: select_idle_sibling (prev, idle core in LLC, idle CPU in LLC,
 * else prev); fork: an idle CPU anywhere, else the least loaded runqueue.
 * Balancing: new-idle pull (busiest runqueue in the LLC, then anywhere) and a
 * 4 ms periodic pass evening out runqueue lengths. See docs/sim.md.
 */
#include "sim.h"

#define EEVDF_BASE_SLICE_NS	(3ULL * SIM_NSEC_PER_MSEC)
#define EEVDF_TICK_NS		(1ULL * SIM_NSEC_PER_MSEC)
#define EEVDF_MAX_RQ		4096

struct rq {
	struct task **q;	/* queued, not running */
	int n, cap;
	s64 min_vruntime;
};

struct eevdf {
	struct rq rq[SIM_MAX_CPUS];
	struct cpumask queued;	/* runqueues with a waiting task */
};

#define E(s) ((struct eevdf *)(s)->priv)

static s64 vdelta(u64 wall, u32 w)
{
	return (s64)(wall * 1024 / w);
}

static struct task *rq_curr(struct sim *s, int cpu)
{
	return s->cpu[cpu].curr;
}

static int rq_nr(struct sim *s, int cpu)
{
	return E(s)->rq[cpu].n + (rq_curr(s, cpu) ? 1 : 0);
}

/* Charge the current task's run time to its vruntime. */
static void update_curr(struct sim *s, int cpu)
{
	struct task *t = rq_curr(s, cpu);

	if (!t)
		return;
	sim_update_curr(s, cpu);
	t->e.vruntime += vdelta(t->sum_exec - t->e.exec_start, t->kweight);
	t->e.exec_start = t->sum_exec;
}

/*
 * Sum of w * (v - base) and of w over queued tasks and current (if
 * running), with base = min_vruntime to keep the products small.
 */
static void rq_avg(struct sim *s, int cpu, s64 *sum_wk, s64 *W)
{
	struct rq *r = &E(s)->rq[cpu];
	struct task *c = rq_curr(s, cpu);
	int i;

	*sum_wk = 0;
	*W = 0;
	for (i = 0; i < r->n; i++) {
		*sum_wk += (s64)r->q[i]->kweight * (r->q[i]->e.vruntime - r->min_vruntime);
		*W += r->q[i]->kweight;
	}
	if (c) {
		*sum_wk += (s64)c->kweight * (c->e.vruntime - r->min_vruntime);
		*W += c->kweight;
	}
}

static s64 avg_vruntime(struct sim *s, int cpu)
{
	struct rq *r = &E(s)->rq[cpu];
	s64 sum, W;

	rq_avg(s, cpu, &sum, &W);
	if (!W)
		return r->min_vruntime;
	/* floor division, like the kernel's avg_vruntime() */
	if (sum < 0)
		sum -= W - 1;
	return r->min_vruntime + sum / W;
}

static bool eligible(s64 sum, s64 W, s64 base, const struct task *t)
{
	return sum >= (t->e.vruntime - base) * W;
}

static void update_min_vruntime(struct sim *s, int cpu)
{
	struct rq *r = &E(s)->rq[cpu];
	struct task *c = rq_curr(s, cpu);
	s64 m = c ? c->e.vruntime : INT64_MAX;
	int i;

	for (i = 0; i < r->n; i++)
		if (r->q[i]->e.vruntime < m)
			m = r->q[i]->e.vruntime;
	if (m != INT64_MAX && m > r->min_vruntime)
		r->min_vruntime = m;
}

static void rq_add(struct sim *s, int cpu, struct task *t)
{
	struct rq *r = &E(s)->rq[cpu];

	if (s->check && t->where != TW_NONE)
		sim_fail(s, "task %d added to runqueue %d while queued (%d)", t->id, cpu, t->where);
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->q = realloc(r->q, (size_t)r->cap * sizeof(*r->q));
		if (!r->q)
			abort();
	}
	t->heap_idx = r->n;
	r->q[r->n++] = t;
	mask_set(&E(s)->queued, cpu);
	t->where = TW_RQ;
	t->where_id = cpu;
	t->cpu = cpu;
}

static void rq_del(struct sim *s, int cpu, struct task *t)
{
	struct rq *r = &E(s)->rq[cpu];
	int i = t->heap_idx;

	if (s->check && (t->where != TW_RQ || t->where_id != cpu || r->q[i] != t))
		sim_fail(s, "task %d not on runqueue %d", t->id, cpu);
	/* keep order: removal by shifting keeps the pick deterministic */
	memmove(&r->q[i], &r->q[i + 1], (size_t)(r->n - i - 1) * sizeof(*r->q));
	if (!--r->n)
		mask_clr(&E(s)->queued, cpu);
	for (; i < r->n; i++)
		r->q[i]->heap_idx = i;
	t->heap_idx = -1;
	t->where = TW_NONE;
}

static s64 lag_limit(const struct task *t)
{
	u64 l = 2 * EEVDF_BASE_SLICE_NS > EEVDF_TICK_NS ? 2 * EEVDF_BASE_SLICE_NS : EEVDF_TICK_NS;

	return vdelta(l, t->kweight);
}

/* t leaves cpu's runqueue (it is not in r->q): remember its lag. */
static void save_lag(struct sim *s, int cpu, struct task *t)
{
	s64 lag = avg_vruntime(s, cpu) - t->e.vruntime, lim = lag_limit(t);

	t->e.vlag = lag > lim ? lim : lag < -lim ? -lim : lag;
}

static void place(struct sim *s, int cpu, struct task *t, int initial)
{
	s64 V = avg_vruntime(s, cpu), lag = 0, sum, W, vslice;

	rq_avg(s, cpu, &sum, &W);
	if (!initial && W) {
		lag = t->e.vlag;
		lag = lag * (W + t->kweight) / W;
	}
	t->e.vruntime = V - lag;
	vslice = vdelta(EEVDF_BASE_SLICE_NS, t->kweight);
	if (initial)
		vslice /= 2;
	t->e.deadline = t->e.vruntime + vslice;
}

/* Pick: eligible with the earliest deadline; RUN_TO_PARITY protects curr. */
static struct task *pick_eevdf(struct sim *s, int cpu, struct task *curr)
{
	struct rq *r = &E(s)->rq[cpu];
	struct task *best = NULL, *any = NULL;
	s64 sum, W;
	int i;

	rq_avg(s, cpu, &sum, &W);
	if (curr && !eligible(sum, W, r->min_vruntime, curr))
		curr = NULL;
	if (curr && curr->e.vlag == curr->e.deadline)	/* RUN_TO_PARITY marker */
		return curr;
	if (curr)
		best = curr;
	for (i = 0; i < r->n; i++) {
		struct task *t = r->q[i];

		if (!any || t->e.deadline < any->e.deadline)
			any = t;
		if (!eligible(sum, W, r->min_vruntime, t))
			continue;
		if (!best || t->e.deadline < best->e.deadline)
			best = t;
	}
	if (!best)
		best = curr ? curr : any;
	if (!best)
		best = rq_curr(s, cpu);
	return best;
}

static void set_slice(struct sim *s, int cpu, struct task *t)
{
	s64 left = t->e.deadline - t->e.vruntime;
	u64 wall = left > 0 ? ((u64)left * t->kweight + 1023) / 1024 : 1;

	t->e.vlag = t->e.deadline;	/* RUN_TO_PARITY: protected until the deadline */
	sim_set_slice(s, cpu, wall);
}

static void check_preempt(struct sim *s, int cpu, struct task *p)
{
	struct task *c = rq_curr(s, cpu);

	if (!c) {
		sim_kick(s, cpu, 0);
		return;
	}
	update_curr(s, cpu);
	if (p->e.deadline < c->e.deadline && pick_eevdf(s, cpu, c) == p)
		sim_kick(s, cpu, 1);
}

static int select_idle_sibling(struct sim *s, int prev)
{
	const struct cpumask *llc = &s->topo->llc_mask[s->topo->cpu[prev].llc];
	int cpu;

	if (sim_claim_idle(s, prev))
		return prev;
	if (s->topo->smt && (cpu = sim_pick_idle(s, llc, 1)) >= 0)
		return cpu;
	if ((cpu = sim_pick_idle(s, llc, 0)) >= 0)
		return cpu;
	return prev;
}

static int find_idlest(struct sim *s, int parent_cpu)
{
	const struct cpumask *llc = &s->topo->llc_mask[s->topo->cpu[parent_cpu].llc];
	int cpu, best = -1, i;

	if (s->topo->smt && (cpu = sim_pick_idle(s, llc, 1)) >= 0)
		return cpu;
	if ((cpu = sim_pick_idle(s, llc, 0)) >= 0)
		return cpu;
	if ((cpu = sim_pick_idle(s, &s->topo->all, 0)) >= 0)
		return cpu;
	for (i = 0; i < s->nr_cpus; i++)
		if (best < 0 || rq_nr(s, i) < rq_nr(s, best))
			best = i;
	return best;
}

static void eevdf_wake(struct sim *s, struct task *t, struct task *waker, int flags)
{
	int cpu;

	(void)waker;
	if (t->pinned >= 0)
		cpu = t->pinned;
	else if (flags & WAKE_FORK)
		cpu = find_idlest(s, t->cpu);
	else
		cpu = select_idle_sibling(s, t->cpu);
	if (rq_curr(s, cpu))
		update_curr(s, cpu);
	place(s, cpu, t, flags & WAKE_FORK);
	rq_add(s, cpu, t);
	check_preempt(s, cpu, t);
}

static void eevdf_block(struct sim *s, int cpu, struct task *t, int exiting)
{
	update_curr(s, cpu);
	/* t is current: its lag is taken with it still counted in V */
	save_lag(s, cpu, t);
	(void)exiting;
}

/* Move a queued task from runqueue src to dst, keeping its lag. */
static void migrate(struct sim *s, int src, int dst, struct task *t)
{
	rq_del(s, src, t);
	save_lag(s, src, t);
	if (rq_curr(s, dst))
		update_curr(s, dst);
	place(s, dst, t, 0);
	rq_add(s, dst, t);
}

/* The queued task a balancer takes: the most recently queued. */
static struct task *rq_victim(struct sim *s, int cpu)
{
	struct rq *r = &E(s)->rq[cpu];

	return r->n ? r->q[r->n - 1] : NULL;
}

static bool pull_from(struct sim *s, int cpu, const struct cpumask *m)
{
	int w, best = -1, bn = 0;

	for (w = 0; w < SIM_MASK_WORDS; w++) {
		u64 bits = E(s)->queued.w[w] & m->w[w];

		while (bits) {
			int i = w * 64 + __builtin_ctzll(bits), n;

			bits &= bits - 1;
			if (i == cpu)
				continue;
			n = rq_nr(s, i);
			if (n >= 2 && n > bn) {
				best = i;
				bn = n;
			}
		}
	}
	if (best < 0)
		return false;
	migrate(s, best, cpu, rq_victim(s, best));
	return true;
}

static struct task *eevdf_schedule(struct sim *s, int cpu, struct task *prev)
{
	struct rq *r = &E(s)->rq[cpu];
	struct task *next;

	if (prev) {
		update_curr(s, cpu);
		if (prev->e.vruntime >= prev->e.deadline)
			prev->e.deadline = prev->e.vruntime + vdelta(EEVDF_BASE_SLICE_NS, prev->kweight);
	}
	if (!prev && !r->n) {
		/* new-idle balance */
		if (!pull_from(s, cpu, &s->topo->llc_mask[s->topo->cpu[cpu].llc]))
			pull_from(s, cpu, &s->topo->all);
	}
	update_min_vruntime(s, cpu);
	next = pick_eevdf(s, cpu, prev);
	if (!next)
		return NULL;
	if (next != prev) {
		rq_del(s, cpu, next);
		if (prev) {
			prev->where = TW_NONE;
			prev->e.vlag = 0;
			rq_add(s, cpu, prev);
		}
	}
	next->e.exec_start = next->sum_exec;
	next->cpu = cpu;
	set_slice(s, cpu, next);
	return next;
}

/* An RT task takes the CPU: put_prev_task_fair, prev stays on the runqueue. */
static void eevdf_rt_preempt(struct sim *s, int cpu, struct task *prev)
{
	update_curr(s, cpu);
	if (prev->e.vruntime >= prev->e.deadline)
		prev->e.deadline = prev->e.vruntime + vdelta(EEVDF_BASE_SLICE_NS, prev->kweight);
	prev->where = TW_NONE;
	prev->e.vlag = 0;
	rq_add(s, cpu, prev);
}

static u64 rq_load(struct sim *s, int cpu)
{
	struct rq *r = &E(s)->rq[cpu];
	struct task *c = rq_curr(s, cpu);
	u64 l = c ? c->kweight : 0;
	int i;

	for (i = 0; i < r->n; i++)
		l += r->q[i]->kweight;
	return l;
}

/*
 * Periodic balance by load (sum of weights, the kernel uses PELT-averaged
 * load): move from the most to the least loaded runqueue the heaviest
 * queued task whose move reduces the imbalance, until none does.
 */
static void eevdf_timer(struct sim *s)
{
	u64 load[SIM_MAX_CPUS];
	int moves = s->nr_cpus, lo, hi, i;

	for (i = 0; i < s->nr_cpus; i++)
		load[i] = rq_load(s, i);
	while (moves-- > 0) {
		struct rq *r;
		struct task *best = NULL;
		u64 diff;

		lo = hi = -1;
		for (i = 0; i < s->nr_cpus; i++) {
			if (lo < 0 || load[i] < load[lo])
				lo = i;
			if (E(s)->rq[i].n && (hi < 0 || load[i] > load[hi]))
				hi = i;
		}
		if (lo < 0 || hi < 0 || load[hi] <= load[lo])
			break;
		diff = load[hi] - load[lo];
		r = &E(s)->rq[hi];
		for (i = 0; i < r->n; i++)
			if (r->q[i]->kweight < diff && (!best || r->q[i]->kweight > best->kweight))
				best = r->q[i];
		if (!best)
			break;
		load[hi] -= best->kweight;
		load[lo] += best->kweight;
		migrate(s, hi, lo, best);
		if (!rq_curr(s, lo))
			sim_kick(s, lo, 0);
	}
}

static void eevdf_init(struct sim *s)
{
	s->priv = calloc(1, sizeof(struct eevdf));
	if (!s->priv)
		abort();
}

static void eevdf_task_new(struct sim *s, struct task *t, struct task *parent)
{
	(void)s;
	(void)parent;
	t->e.vlag = 0;
}

static void eevdf_check(struct sim *s)
{
	int cpu, i;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct rq *r = &E(s)->rq[cpu];

		for (i = 0; i < r->n; i++) {
			struct task *t = r->q[i];
			s64 vs = vdelta(EEVDF_BASE_SLICE_NS, t->kweight);

			if (t->where != TW_RQ || t->where_id != cpu || t->heap_idx != i)
				sim_fail(s, "runqueue %d slot %d holds task %d (where %d/%d)", cpu, i,
					 t->id, t->where, t->where_id);
			if (t->e.deadline - t->e.vruntime > vs)
				sim_fail(s, "task %d requests more than a slice", t->id);
		}
	}
}

static void eevdf_fini(struct sim *s)
{
	int i;

	for (i = 0; i < SIM_MAX_CPUS; i++)
		free(E(s)->rq[i].q);
}

const struct sched_class sched_eevdf = {
	.name = "eevdf",
	.timer_period_ns = 4 * SIM_NSEC_PER_MSEC,
	.init = eevdf_init,
	.task_new = eevdf_task_new,
	.wake = eevdf_wake,
	.block = eevdf_block,
	.schedule = eevdf_schedule,
	.timer = eevdf_timer,
	.check = eevdf_check,
	.rt_preempt = eevdf_rt_preempt,
	.fini = eevdf_fini,
};
