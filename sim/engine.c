/* SPDX-License-Identifier: GPL-2.0 */
/*
 * engine.c - the event loop, CPUs and task programs, and the part of the
 * sched_ext core the BPF schedulers rely on (local DSQs, idle masks,
 * keep-prev). Everything is driven by one heap of events ordered by
 * (time, sequence number), so equal-time events run in creation order and a
 * run is a pure function of its inputs and seed.
 */
#include <stdarg.h>
#include <math.h>
#include "sim.h"

enum { EV_CPU, EV_RESCHED, EV_WAKE, EV_ARRIVAL, EV_STAT, EV_CLS_TIMER, EV_END, EV_RT, EV_RT_WAKE };

static const u32 prio_to_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
	110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
};

u32 nice_to_kweight(int nice)
{
	if (nice < -20)
		nice = -20;
	if (nice > 19)
		nice = 19;
	return prio_to_weight[nice + 20];
}

/* sched_ext: weight * 100 / 1024, rounded, in 1..10000. */
u32 nice_to_scx_weight(int nice)
{
	u64 w = ((u64)nice_to_kweight(nice) * 100 + 512) / 1024;

	return (u32)pol_clamp(w, 1, 10000);
}

void sim_fail(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "lavd-sim: invariant violated at event %llu (t=%llu ns): ",
		(unsigned long long)s->st.nr_events, (unsigned long long)s->now);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(3);
}

#define CHECK(s, cond, ...) do { if (!(cond)) sim_fail(s, __VA_ARGS__); } while (0)

/* splitmix64 */
u64 sim_rand_next(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

u64 sim_rand(struct sim *s)
{
	return sim_rand_next(&s->rng);
}

static u64 rand_range(struct sim *s, u64 a, u64 b)
{
	if (b <= a)
		return a;
	return a + sim_rand(s) % (b - a + 1);
}

/* ---------------------------------------------------------------- heap */

/*
 * A 4-ary min-heap on the 128-bit key (time << 64 | sequence): one compare
 * per child, half the depth of a binary heap.
 */
static inline ev_key_t ev_key(const struct ev *e)
{
	return e->key;
}

static void ev_push(struct sim *s, u64 t, u32 kind, u32 id, u64 gen)
{
	struct ev e = { ((ev_key_t)t << 64) | s->seq++, kind, id, gen };
	u64 i;

	if (s->nr_heap == s->cap_heap) {
		s->cap_heap = s->cap_heap ? 2 * s->cap_heap : 1024;
		s->heap = realloc(s->heap, s->cap_heap * sizeof(*s->heap));
		if (!s->heap)
			abort();
	}
	i = s->nr_heap++;
	while (i) {
		u64 p = (i - 1) / 4;

		if (e.key >= ev_key(&s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
}

static struct ev ev_pop(struct sim *s)
{
	struct ev top = s->heap[0], last = s->heap[--s->nr_heap];
	u64 i = 0, n = s->nr_heap;

	for (;;) {
		u64 c = 4 * i + 1, k, best;

		if (c >= n)
			break;
		best = c;
		for (k = c + 1; k < c + 4 && k < n; k++)
			if (s->heap[k].key < s->heap[best].key)
				best = k;
		if (s->heap[best].key >= last.key)
			break;
		s->heap[i] = s->heap[best];
		i = best;
	}
	if (n)
		s->heap[i] = last;
	return top;
}

/*
 * Events for "now" (reschedules) skip the heap: they go to a FIFO that is
 * merged with the heap by key, so the order is still (time, sequence).
 */
static void ev_push_now(struct sim *s, u32 kind, u32 id)
{
	if (s->nr_fifo == s->cap_fifo) {
		u64 n = s->cap_fifo ? 2 * s->cap_fifo : 256, i;
		struct ev *f = malloc(n * sizeof(*f));

		if (!f)
			abort();
		for (i = 0; i < s->nr_fifo; i++)
			f[i] = s->fifo[(s->fifo_head + i) % s->cap_fifo];
		free(s->fifo);
		s->fifo = f;
		s->fifo_head = 0;
		s->cap_fifo = n;
	}
	s->fifo[(s->fifo_head + s->nr_fifo++) % s->cap_fifo] =
		(struct ev){ ((ev_key_t)s->now << 64) | s->seq++, kind, id, 0 };
}

static struct ev ev_next(struct sim *s)
{
	if (s->nr_fifo && (!s->nr_heap || s->fifo[s->fifo_head].key < s->heap[0].key)) {
		struct ev e = s->fifo[s->fifo_head];

		s->fifo_head = (s->fifo_head + 1) % s->cap_fifo;
		s->nr_fifo--;
		return e;
	}
	return ev_pop(s);
}

static inline u64 ev_time(const struct ev *e)
{
	return (u64)(e->key >> 64);
}

/* ---------------------------------------------------------------- DSQs */

static bool dsq_before(const struct task *a, const struct task *b)
{
	return a->dsq_key < b->dsq_key || (a->dsq_key == b->dsq_key && a->dsq_seq < b->dsq_seq);
}

static void dsq_up(struct dsq *d, int i)
{
	struct task *t = d->h[i];

	while (i) {
		int p = (i - 1) / 2;

		if (!dsq_before(t, d->h[p]))
			break;
		d->h[i] = d->h[p];
		d->h[i]->heap_idx = i;
		i = p;
	}
	d->h[i] = t;
	t->heap_idx = i;
}

static void dsq_down(struct dsq *d, int i)
{
	struct task *t = d->h[i];

	for (;;) {
		int c = 2 * i + 1;

		if (c >= d->n)
			break;
		if (c + 1 < d->n && dsq_before(d->h[c + 1], d->h[c]))
			c++;
		if (!dsq_before(d->h[c], t))
			break;
		d->h[i] = d->h[c];
		d->h[i]->heap_idx = i;
		i = c;
	}
	d->h[i] = t;
	t->heap_idx = i;
}

void dsq_insert(struct sim *s, struct dsq *d, struct task *t, u64 key)
{
	if (s->check)
		CHECK(s, t->where == TW_NONE, "task %d inserted in DSQ %d while in queue kind %d",
		      t->id, d->id, t->where);
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->h = realloc(d->h, d->cap * sizeof(*d->h));
		if (!d->h)
			abort();
	}
	t->dsq_key = key;
	t->dsq_seq = s->seq++;
	t->where = TW_DSQ;
	t->where_id = d->id;
	d->h[d->n++] = t;
	dsq_up(d, d->n - 1);
}

struct task *dsq_remove(struct sim *s, struct dsq *d, struct task *t)
{
	int i = t->heap_idx;

	if (s->check)
		CHECK(s, t->where == TW_DSQ && t->where_id == d->id && i >= 0 && i < d->n &&
		      d->h[i] == t, "task %d not in DSQ %d", t->id, d->id);
	d->n--;
	if (i != d->n) {
		d->h[i] = d->h[d->n];
		d->h[i]->heap_idx = i;
		dsq_down(d, i);
		dsq_up(d, d->h[i]->heap_idx);
	}
	t->heap_idx = -1;
	t->where = TW_NONE;
	return t;
}

struct task *dsq_pop(struct sim *s, struct dsq *d)
{
	return d->n ? dsq_remove(s, d, d->h[0]) : NULL;
}

void dsq_free(struct dsq *d)
{
	free(d->h);
	d->h = NULL;
	d->n = d->cap = 0;
}

/* ---------------------------------------------------------------- CPUs */

static void set_idle(struct sim *s, int cpu)
{
	int sib = s->topo->cpu[cpu].sibling;

	mask_set(&s->idle, cpu);
	if (sib < 0 || mask_test(&s->idle, sib)) {
		mask_set(&s->idle_smt, cpu);
		if (sib >= 0)
			mask_set(&s->idle_smt, sib);
	}
}

static void clr_idle(struct sim *s, int cpu)
{
	int sib = s->topo->cpu[cpu].sibling;

	mask_clr(&s->idle, cpu);
	mask_clr(&s->idle_smt, cpu);
	if (sib >= 0)
		mask_clr(&s->idle_smt, sib);
}

bool sim_claim_idle(struct sim *s, int cpu)
{
	if (!mask_test(&s->idle, cpu))
		return false;
	clr_idle(s, cpu);
	return true;
}

bool sim_core_idle(struct sim *s, int cpu)
{
	return mask_test(&s->idle_smt, cpu);
}

int sim_pick_idle(struct sim *s, const struct cpumask *m, int core)
{
	int cpu = mask_first_and(m, core ? &s->idle_smt : &s->idle);

	if (cpu >= 0)
		clr_idle(s, cpu);
	return cpu;
}

const struct cpumask *sim_allowed(struct sim *s, struct task *t, struct cpumask *tmp)
{
	if (t->pinned < 0)
		return &s->topo->all;
	memset(tmp, 0, sizeof(*tmp));
	mask_set(tmp, t->pinned);
	return tmp;
}

/* The idle task is put: ops.update_idle(cpu, false), once per idle period. */
static void cpu_leave_idle(struct sim *s, int cpu)
{
	struct sim_cpu *c = &s->cpu[cpu];

	if (c->in_idle) {
		c->in_idle = 0;
		if (s->cls->update_idle)
			s->cls->update_idle(s, cpu, false);
	}
}

static void cpu_acct(struct sim *s, struct sim_cpu *c)
{
	u64 d = s->now - c->last_acct;

	if (cpu_busy(c))
		c->busy_ns += d;
	else
		c->idle_ns += d;
	c->last_acct = s->now;
}

static u32 cpu_speed(struct sim *s, int cpu)
{
	int sib = s->topo->cpu[cpu].sibling;
	u32 sp = s->topo->cpu[cpu].cap;

	if (sib >= 0 && cpu_busy(&s->cpu[sib]))
		sp = sp * SIM_SMT_SPEED >> 10;
	return sp ? sp : 1;
}

/* Charge ran_ns of CPU time that did work (at most what the task has left). */
static void task_charge(struct sim *s, struct task *t, u64 ran, u64 work)
{
	if (work > t->work_left)
		work = t->work_left;
	t->work_left -= work;
	t->work_done += work;
	t->sum_exec += ran;
	s->st.cls[t->cls].runtime += ran;
	s->st.tmpl_runtime[t->tmpl] += ran;
	s->st.cls[t->cls].work += work;
}

void sim_update_curr(struct sim *s, int cpu)
{
	struct sim_cpu *c = &s->cpu[cpu];
	struct task *t = c->curr;
	u64 ran;

	if (!t || s->now == c->seg_start)
		return;
	ran = s->now - c->seg_start;
	task_charge(s, t, ran, ran * c->speed >> 10);
	c->seg_start = s->now;
}

/*
 * (Re)arm the CPU's completion event: end of the run phase or of the slice.
 * Lazily: if an event is already pending no later than the new target, it
 * is kept and re-pushed when it fires early, so re-arming to a later time
 * (the common case: a sibling starts running) costs no heap operation.
 */
static void cpu_arm(struct sim *s, int cpu)
{
	struct sim_cpu *c = &s->cpu[cpu];
	struct task *t = c->curr;
	u64 done, when;

	if (!t) {
		c->gen++;
		c->ev_pending = 0;
		return;
	}
	c->speed = cpu_speed(s, cpu);
	done = s->now + (t->work_left * 1024 + c->speed - 1) / c->speed;
	when = done < c->slice_end ? done : c->slice_end;
	if (when < s->now)
		when = s->now;
	c->target = when;
	if (c->ev_pending && c->ev_t <= when)
		return;
	c->gen++;
	c->ev_pending = 1;
	c->ev_t = when;
	ev_push(s, when, EV_CPU, (u32)cpu, c->gen);
}

/* The sibling's speed changes when this CPU starts or stops running. */
static void sibling_changed(struct sim *s, int cpu)
{
	int sib = s->topo->cpu[cpu].sibling;

	if (sib >= 0 && s->cpu[sib].curr) {
		sim_update_curr(s, sib);
		cpu_arm(s, sib);
	}
}

void sim_set_slice(struct sim *s, int cpu, u64 slice_ns)
{
	struct sim_cpu *c = &s->cpu[cpu];

	c->slice_end = s->now + slice_ns;
	if (c->curr)
		cpu_arm(s, cpu);
}

u64 sim_slice_left(struct sim *s, int cpu)
{
	return pol_sub_sat(s->cpu[cpu].slice_end, s->now);
}

void sim_kick(struct sim *s, int cpu, int preempt)
{
	struct sim_cpu *c = &s->cpu[cpu];

	if (c->curr && !preempt)
		return;
	if (preempt)
		c->preempt = 1;
	if (!c->resched) {
		c->resched = 1;
		ev_push_now(s, EV_RESCHED, (u32)cpu);
	}
}

/* A task enters cpu's local DSQ (from no queue). */
static void local_claim(struct sim *s, int cpu, struct task *t)
{
	if (s->check)
		CHECK(s, t->where == TW_NONE, "task %d inserted in local DSQ %d while queued (%d)",
		      t->id, cpu, t->where);
	t->where = TW_LOCAL;
	t->where_id = cpu;
	t->cpu = cpu;
	s->cpu[cpu].local_n++;
}

void sim_local_push(struct sim *s, int cpu, struct task *t)
{
	struct sim_cpu *c = &s->cpu[cpu];

	local_claim(s, cpu, t);
	t->next = NULL;
	if (c->local_tail)
		c->local_tail->next = t;
	else
		c->local_head = t;
	c->local_tail = t;
	/* An enqueue on the local queue of an idle CPU wakes it (an RT task's CPU looks later). */
	if (!cpu_busy(c))
		sim_kick(s, cpu, 0);
}

/* SCX_ENQ_HEAD: the CPU's next task (a task an RT task took the CPU from). */
void sim_local_push_head(struct sim *s, int cpu, struct task *t)
{
	struct sim_cpu *c = &s->cpu[cpu];

	local_claim(s, cpu, t);
	t->next = c->local_head;
	c->local_head = t;
	if (!c->local_tail)
		c->local_tail = t;
}

struct task *sim_local_pop(struct sim *s, int cpu)
{
	struct sim_cpu *c = &s->cpu[cpu];
	struct task *t = c->local_head;

	(void)s;
	if (!t)
		return NULL;
	c->local_head = t->next;
	if (!c->local_head)
		c->local_tail = NULL;
	c->local_n--;
	t->next = NULL;
	t->where = TW_NONE;
	return t;
}

/* ---------------------------------------------------------------- sched_ext core */

void scx_wake(struct sim *s, const struct scx_ops *o, struct task *t, struct task *waker, int flags)
{
	u64 enq = (flags & WAKE_FORK) ? 0 : SCX_ENQ_WAKEUP;

	/* select_cpu only runs for tasks that may run on more than one CPU. */
	if (t->pinned < 0) {
		t->cpu = o->select_cpu(s, t, t->cpu, flags, waker);
		enq |= SCX_ENQ_CPU_SELECTED;
	} else {
		t->cpu = t->pinned;
	}
	o->runnable(s, t, waker, enq);
	if (t->where == TW_NONE)	/* not dispatched directly by select_cpu */
		o->enqueue(s, t, enq);
}

void scx_block(struct sim *s, const struct scx_ops *o, int cpu, struct task *t, int exiting)
{
	(void)cpu;
	(void)exiting;
	o->stopping(s, t, false);
	o->quiescent(s, t, true);
}

/*
 * What the kernel does when a sched_ext CPU picks its next task: the local
 * DSQ first, else ops.dispatch. A previous task still runnable is put back
 * with ops.enqueue only if something else is there to run; otherwise it
 * keeps the CPU with its slice refilled to SCX_SLICE_DFL and no callbacks
 * (balance_one's "keep prev" without SCX_OPS_ENQ_LAST).
 */
struct task *scx_schedule(struct sim *s, const struct scx_ops *o, int cpu, struct task *prev)
{
	struct sim_cpu *c = &s->cpu[cpu];
	struct task *next;

	if (!c->local_n)
		o->dispatch(s, cpu, prev);
	if (prev) {
		if (!c->local_n) {
			if (!sim_slice_left(s, cpu)) {
				s->st.keep_prev++;
				sim_set_slice(s, cpu, SCX_SLICE_DFL_NS);
			}
			return prev;
		}
		o->stopping(s, prev, true);
		prev->state = TS_QUEUED;
		prev->where = TW_NONE;
		o->enqueue(s, prev, 0);
	}
	next = sim_local_pop(s, cpu);
	if (next) {
		next->cpu = cpu;
		/* put_prev_task_idle (ops.update_idle) comes before set_next_task (ops.running) */
		cpu_leave_idle(s, cpu);
		o->running(s, next);
		sim_set_slice(s, cpu, next->scx_slice);
	}
	return next;
}

/*
 * A higher sched class (an RT task) takes the CPU from prev, which is still
 * runnable: put_prev_task_scx() calls ops.stopping(p, true) and, the slice
 * not being used up, puts p back at the head of the local DSQ without
 * ops.enqueue. (LAVD has no ops.cpu_release.)
 */
void scx_rt_preempt(struct sim *s, const struct scx_ops *o, int cpu, struct task *prev)
{
	prev->scx_slice = sim_slice_left(s, cpu);
	if (!prev->scx_slice)
		prev->scx_slice = 1;
	o->stopping(s, prev, true);
	prev->state = TS_QUEUED;
	prev->where = TW_NONE;
	sim_local_push_head(s, cpu, prev);
}

/* ---------------------------------------------------------------- tasks */

static struct task *task_new(struct sim *s, int tmpl_id)
{
	const struct sim_tmpl *tp = &s->wl->tmpl[tmpl_id];
	struct task *t = s->free_tasks;

	if (t) {
		s->free_tasks = t->next;
	} else {
		if (s->nr_tasks >= SIM_MAX_TASKS) {
			fprintf(stderr, "lavd-sim: more than %d tasks\n", SIM_MAX_TASKS);
			exit(1);
		}
		if (s->nr_tasks == s->cap_tasks) {
			s->cap_tasks = s->cap_tasks ? 2 * s->cap_tasks : 256;
			s->tasks = realloc(s->tasks, s->cap_tasks * sizeof(*s->tasks));
			if (!s->tasks)
				abort();
		}
		t = malloc(sizeof(*t));
		if (!t)
			abort();
		memset(t, 0, sizeof(*t));
		t->id = s->nr_tasks;
		s->tasks[s->nr_tasks++] = t;
	}
	{
		int id = t->id;
		u64 gen = t->sleep_gen;

		memset(t, 0, sizeof(*t));
		t->id = id;
		t->sleep_gen = gen + 1;
	}
	t->tmpl = tmpl_id;
	t->cls = tp->cls;
	t->pinned = tp->pinned;
	t->kthread = tp->kthread;
	t->rt = tp->rt;
	t->family = tp->family;
	t->nice = tp->nice;
	t->weight = nice_to_scx_weight(tp->nice);
	t->kweight = nice_to_kweight(tp->nice);
	t->state = TS_NEW;
	t->where = TW_NONE;
	t->cpu = tp->pinned >= 0 ? tp->pinned : 0;
	t->last_cpu = -1;
	t->loops_left = tp->loops;
	t->heap_idx = -1;
	t->tstart = s->now;
	t->timer_next = s->now;
	s->nr_live++;
	return t;
}

static void trace(struct sim *s, int cpu, const char *what, const struct task *t)
{
	if (s->trace)
		fprintf(s->trace, "%llu %d %s %d\n", (unsigned long long)s->now, cpu, what,
			t ? t->id : -1);
}

static void rt_wake(struct sim *s, struct task *t);

static void task_wake(struct sim *s, struct task *t, struct task *waker, int flags)
{
	if (s->check)
		CHECK(s, t->state == TS_SLEEPING || t->state == TS_NEW,
		      "waking task %d in state %d", t->id, t->state);
	t->state = TS_QUEUED;
	t->wait_since = s->now;
	t->sleep_gen++;
	s->st.wakeups++;
	trace(s, waker ? waker->cpu : -1, "wake", t);
	if (t->rt)
		rt_wake(s, t);
	else
		s->cls->wake(s, t, waker, flags);
}

static void frame_done(struct sim *s)
{
	u64 lat;

	if (s->frame_head == s->frame_tail)
		return;
	lat = s->now - s->frame_open[s->frame_head++ & 255];
	if (s->st.nr_frames == s->st.cap_frames) {
		s->st.cap_frames = s->st.cap_frames ? 2 * s->st.cap_frames : 1024;
		s->st.frames = realloc(s->st.frames, s->st.cap_frames * sizeof(u64));
		if (!s->st.frames)
			abort();
	}
	s->st.frames[s->st.nr_frames++] = lat;
	if (lat > s->wl->frame_period_ns)
		s->st.frame_miss++;
}

static bool req_pop(struct sim *s, struct task *t)
{
	if (s->req_head == s->req_tail)
		return false;
	t->req_arrival = s->req_q[2 * (s->req_head % s->req_cap)];
	t->req_work = s->req_q[2 * (s->req_head % s->req_cap) + 1];
	s->req_head++;
	return true;
}

enum { ADV_RUN, ADV_BLOCK, ADV_EXIT };

/*
 * Execute the instantaneous operations of a running task until it has work
 * to do (ADV_RUN), blocks (ADV_BLOCK) or exits (ADV_EXIT).
 */
static int task_advance(struct sim *s, struct task *t)
{
	const struct sim_tmpl *tp = &s->wl->tmpl[t->tmpl];
	int steps = 0;

	while (!t->work_left) {
		const struct sim_op *op;
		struct task *w;

		if (t->pc >= tp->nr_ops) {
			t->pc = 0;
			if (t->loops_left > 0 && --t->loops_left == 0)
				return ADV_EXIT;
		}
		if (++steps > 4 * tp->nr_ops + 8) {
			fprintf(stderr, "lavd-sim: task %s makes no progress (a loop without run or"
				" block)\n", tp->name);
			exit(1);
		}
		op = &tp->ops[t->pc++];
		switch (op->kind) {
		case OP_RUN:
			t->work_left = rand_range(s, op->a, op->b);
			break;
		case OP_REQ_RUN:
			t->work_left = t->req_work;
			break;
		case OP_SLEEP:
			ev_push(s, s->now + rand_range(s, op->a, op->b), EV_WAKE, (u32)t->id,
				t->sleep_gen + 1);
			return ADV_BLOCK;
		case OP_TIMER:
			/* Periodic, absolute: missed periods are skipped (like vsync). */
			t->timer_next += op->a;
			if (t->timer_next <= s->now)
				t->timer_next += ((s->now - t->timer_next) / op->a + 1) * op->a;
			t->timer_expiry = t->timer_next;
			ev_push(s, t->timer_next, EV_WAKE, (u32)t->id, t->sleep_gen + 1);
			return ADV_BLOCK;
		case OP_SUSPEND:
			if (s->sem_count[op->arg] > 0) {
				s->sem_count[op->arg]--;
				break;
			}
			t->next = NULL;
			{
				struct task **pp = &s->sem_wait[op->arg];

				while (*pp)
					pp = &(*pp)->next;
				*pp = t;
			}
			return ADV_BLOCK;
		case OP_RESUME:
			w = s->sem_wait[op->arg];
			if (w) {
				s->sem_wait[op->arg] = w->next;
				w->next = NULL;
				task_wake(s, w, t, op->sync ? WAKE_SYNC : 0);
			} else {
				s->sem_count[op->arg]++;
			}
			break;
		case OP_LOCK:
			if (!s->lock_owner[op->arg]) {
				/* Uncontended: no system call, nothing for the scheduler to see. */
				s->lock_owner[op->arg] = t;
				t->nr_locks++;
				break;
			}
			/* futex_wait: returns 0 once the unlocker hands the lock over. */
			t->futex_acquire = 1;
			t->next = NULL;
			{
				struct task **pp = &s->lock_wait[op->arg];

				while (*pp)
					pp = &(*pp)->next;
				*pp = t;
			}
			return ADV_BLOCK;
		case OP_UNLOCK:
			w = s->lock_wait[op->arg];
			if (s->lock_owner[op->arg] != t)
				break;
			s->lock_owner[op->arg] = w;
			t->nr_locks--;
			if (w) {
				s->lock_wait[op->arg] = w->next;
				w->next = NULL;
				w->nr_locks++;
				task_wake(s, w, t, 0);
			}
			/*
			 * glibc calls futex_wake when the lock word says "contended":
			 * someone waits, or the owner itself got the lock by waiting.
			 * The release is seen at the syscall's exit, after the wakeup.
			 */
			if ((w || t->lock_waited) && s->cls->futex && !t->rt)
				s->cls->futex(s, t, 0);
			t->lock_waited = 0;
			break;
		case OP_BARRIER:
			if (++s->bar_count[op->arg] >= s->wl->bar_n[op->arg]) {
				s->bar_count[op->arg] = 0;
				while ((w = s->bar_wait[op->arg])) {
					s->bar_wait[op->arg] = w->next;
					w->next = NULL;
					task_wake(s, w, t, 0);
				}
				break;
			}
			t->next = s->bar_wait[op->arg];
			s->bar_wait[op->arg] = t;
			return ADV_BLOCK;
		case OP_FORK:
			w = task_new(s, op->arg);
			w->cpu = t->cpu;
			if (!w->rt)
				s->cls->task_new(s, w, t);
			s->st.forks++;
			task_wake(s, w, t, WAKE_FORK);
			break;
		case OP_EXIT:
			return ADV_EXIT;
		case OP_FRAME_START:
			if (s->frame_tail - s->frame_head < 256)
				s->frame_open[s->frame_tail++ & 255] =
					t->timer_expiry ? t->timer_expiry : s->now;
			break;
		case OP_FRAME_END:
			frame_done(s);
			break;
		case OP_REQ_WAIT:
			if (req_pop(s, t))
				break;
			t->next = s->req_waiters;
			s->req_waiters = t;
			return ADV_BLOCK;
		case OP_REQ_DONE:
			if (t->req_arrival) {
				hist_add(&s->st.req, s->now - t->req_arrival);
				s->st.req_done++;
				t->req_arrival = 0;
			}
			break;
		}
	}
	return ADV_RUN;
}

/* ---------------------------------------------------------------- scheduling */

static void cpu_start(struct sim *s, int cpu, struct task *t)
{
	struct sim_cpu *c = &s->cpu[cpu];
	u64 delay = s->now - t->wait_since;

	cpu_acct(s, c);
	clr_idle(s, cpu);
	cpu_leave_idle(s, cpu);
	c->curr = t;
	c->seg_start = s->now;
	c->run_start = s->now;
	t->state = TS_RUNNING;
	t->where = TW_CPU;
	t->where_id = cpu;
	t->cpu = cpu;
	if (t->last_cpu >= 0 && t->last_cpu != cpu) {
		s->st.migrations++;
		if (s->topo->cpu[t->last_cpu].llc != s->topo->cpu[cpu].llc)
			s->st.migrations_xllc++;
	}
	t->last_cpu = cpu;
	hist_add(&s->st.delay, delay);
	hist_add(&s->st.cls[t->cls].delay, delay);
	if (s->check)
		CHECK(s, delay <= SIM_WAIT_BOUND_NS, "task %d waited %llu ns", t->id,
		      (unsigned long long)delay);
	t->wait_since = 0;
	s->st.csw++;
	s->st.cls[t->cls].nr_run++;
	c->nr_switch++;
	trace(s, cpu, "run", t);
	sibling_changed(s, cpu);
	/* Back from a futex wait that handed it the lock: sys_exit_futex, after ops.running. */
	if (t->futex_acquire) {
		t->futex_acquire = 0;
		t->lock_waited = 1;
		if (s->cls->futex)
			s->cls->futex(s, t, 1);
	}
}

static void cpu_go_idle(struct sim *s, int cpu)
{
	struct sim_cpu *c = &s->cpu[cpu];

	cpu_acct(s, c);
	c->curr = NULL;
	c->gen++;
	c->ev_pending = 0;
	set_idle(s, cpu);
	if (!c->in_idle) {
		c->in_idle = 1;
		if (s->cls->update_idle)
			s->cls->update_idle(s, cpu, true);
	}
	sibling_changed(s, cpu);
}

static void task_free(struct sim *s, struct task *t)
{
	t->state = TS_DEAD;
	t->where = TW_NONE;
	s->dead_exec += t->sum_exec;
	t->sum_exec = 0;
	s->nr_live--;
	s->st.exits++;
	s->st.cls[t->cls].nr_tasks_done++;
	if (s->cls->task_dead && !t->rt)
		s->cls->task_dead(s, t);
	t->next = s->free_tasks;
	s->free_tasks = t;
}

/*
 * The CPU's current task ends its turn (prev, still runnable) or has
 * already left (prev NULL): choose and start the next one, running
 * instantaneous operations of tasks that block right away.
 */
static void cpu_schedule(struct sim *s, int cpu, struct task *prev, int preempt)
{
	struct sim_cpu *c = &s->cpu[cpu];

	for (;;) {
		struct task *next;
		int r;

		if (prev)
			sim_update_curr(s, cpu);
		next = s->cls->schedule(s, cpu, prev);
		if (prev && next != prev) {
			trace(s, cpu, preempt ? "preempt" : "stop", prev);
			if (preempt)
				s->st.preemptions++;
			if (prev->nr_locks)
				s->st.lock_owner_preempted++;
			cpu_acct(s, c);
			c->curr = NULL;
			prev->wait_since = s->now;
			prev->state = TS_QUEUED;
			if (prev->where == TW_CPU)
				prev->where = TW_NONE;	/* class forgot to queue it */
		}
		if (!next) {
			cpu_go_idle(s, cpu);
			return;
		}
		if (next != prev)
			cpu_start(s, cpu, next);
		r = task_advance(s, next);
		if (r == ADV_RUN) {
			cpu_arm(s, cpu);
			return;
		}
		sim_update_curr(s, cpu);
		s->cls->block(s, cpu, next, r == ADV_EXIT);
		trace(s, cpu, r == ADV_EXIT ? "exit" : "block", next);
		cpu_acct(s, c);
		c->curr = NULL;
		next->where = TW_NONE;
		if (r == ADV_EXIT)
			task_free(s, next);
		else
			next->state = TS_SLEEPING;
		prev = NULL;
		preempt = 0;
	}
}

/* The running task's phase ended or its slice expired. */
static void ev_cpu(struct sim *s, int cpu)
{
	struct sim_cpu *c = &s->cpu[cpu];
	struct task *t = c->curr;
	int r;

	sim_update_curr(s, cpu);
	if (!t->work_left) {
		r = task_advance(s, t);
		if (r != ADV_RUN) {
			s->cls->block(s, cpu, t, r == ADV_EXIT);
			trace(s, cpu, r == ADV_EXIT ? "exit" : "block", t);
			cpu_acct(s, c);
			c->curr = NULL;
			t->where = TW_NONE;
			if (r == ADV_EXIT)
				task_free(s, t);
			else
				t->state = TS_SLEEPING;
			cpu_schedule(s, cpu, NULL, 0);
			return;
		}
	}
	if (s->now >= c->slice_end) {
		s->st.slice_expiries++;
		cpu_schedule(s, cpu, t, 0);
		return;
	}
	cpu_arm(s, cpu);
}

/* ---------------------------------------------------------------- RT tasks */

/*
 * SCHED_FIFO tasks (workload "policy": "SCHED_FIFO", pinned): the class
 * under test never sees them. One runs on its CPU until it blocks, taking
 * the CPU from whatever ran there; RT tasks of one CPU queue FIFO. Their
 * work is wall time (not slowed by a busy SMT sibling), but they do slow the
 * sibling. For LAVD that time is neither idle nor its own: lost time.
 */
static void rt_run(struct sim *s, int cpu);

static void rt_start(struct sim *s, int cpu, struct task *t)
{
	struct sim_cpu *c = &s->cpu[cpu];
	struct task *prev = c->curr;
	u64 delay = s->now - t->wait_since;

	cpu_acct(s, c);
	if (prev) {
		sim_update_curr(s, cpu);
		trace(s, cpu, "preempt", prev);
		s->st.preemptions++;
		s->st.rt_preempt++;
		if (prev->nr_locks)
			s->st.lock_owner_preempted++;
		/* the class still sees prev on the CPU, as in put_prev_task */
		s->cls->rt_preempt(s, cpu, prev);
		c->curr = NULL;
		c->gen++;
		c->ev_pending = 0;
		prev->wait_since = s->now;
		prev->state = TS_QUEUED;
		if (s->check)
			CHECK(s, prev->where != TW_NONE && prev->where != TW_CPU,
			      "task %d preempted by RT task %d is in no queue", prev->id, t->id);
	} else {
		clr_idle(s, cpu);
		cpu_leave_idle(s, cpu);
	}
	c->rt = t;
	c->rt_seg_start = s->now;
	t->state = TS_RUNNING;
	t->where = TW_CPU;
	t->where_id = cpu;
	t->cpu = cpu;
	t->last_cpu = cpu;
	t->wait_since = 0;
	hist_add(&s->st.cls[t->cls].delay, delay);
	s->st.cls[t->cls].nr_run++;
	trace(s, cpu, "run", t);
	if (!prev)
		sibling_changed(s, cpu);
	rt_run(s, cpu);
}

/*
 * Woken (possibly by the task running on its CPU, in the middle of its
 * program): it takes the CPU once the current event is done, at the same time.
 */
static void rt_wake(struct sim *s, struct task *t)
{
	t->where = TW_RTQ;
	t->where_id = t->pinned;
	ev_push_now(s, EV_RT_WAKE, (u32)t->id);
}

static void ev_rt_wake(struct sim *s, struct task *t)
{
	int cpu = t->pinned;
	struct sim_cpu *c = &s->cpu[cpu];
	struct task **pp = &c->rtq;

	t->where = TW_NONE;
	if (!c->rt) {
		rt_start(s, cpu, t);
		return;
	}
	while (*pp)
		pp = &(*pp)->next;
	t->next = NULL;
	*pp = t;
	t->where = TW_RTQ;
	t->where_id = cpu;
}

/* Account the running RT task's time up to now. */
static void rt_update(struct sim *s, struct sim_cpu *c)
{
	u64 ran = s->now - c->rt_seg_start;

	/* RT work is wall time: not slowed by a busy sibling. */
	task_charge(s, c->rt, ran, ran);
	c->rt_seg_start = s->now;
}

/* The RT task on cpu has no work left: advance its program, then run on or leave. */
static void rt_run(struct sim *s, int cpu)
{
	struct sim_cpu *c = &s->cpu[cpu];
	struct task *t = c->rt, *n;
	int r = task_advance(s, t);

	if (r == ADV_RUN) {
		c->rt_gen++;
		ev_push(s, s->now + t->work_left, EV_RT, (u32)cpu, c->rt_gen);
		return;
	}
	trace(s, cpu, r == ADV_EXIT ? "exit" : "block", t);
	cpu_acct(s, c);
	c->rt = NULL;
	c->rt_gen++;
	t->where = TW_NONE;
	if (r == ADV_EXIT)
		task_free(s, t);
	else
		t->state = TS_SLEEPING;
	if ((n = c->rtq)) {
		c->rtq = n->next;
		n->next = NULL;
		n->where = TW_NONE;
		rt_start(s, cpu, n);
		return;
	}
	/* back to the class: what was put back, or whatever it has for this CPU */
	cpu_schedule(s, cpu, NULL, 0);
}

static void ev_rt(struct sim *s, int cpu)
{
	struct sim_cpu *c = &s->cpu[cpu];

	rt_update(s, c);
	rt_run(s, cpu);
}

static void ev_arrival(struct sim *s)
{
	const struct sim_workload *w = s->wl;
	u64 work = rand_range(s, w->req_work_min, w->req_work_max);
	double u = ((double)(sim_rand(s) >> 11) + 0.5) / 9007199254740992.0;
	u64 gap = (u64)(-log(u) * (double)POL_NSEC_PER_SEC / (double)w->req_rate);
	struct task *t;

	s->st.req_arrived++;
	if ((t = s->req_waiters)) {
		s->req_waiters = t->next;
		t->next = NULL;
		t->req_arrival = s->now;
		t->req_work = work;
		task_wake(s, t, NULL, 0);
	} else if (s->req_tail - s->req_head < s->req_cap) {
		s->req_q[2 * (s->req_tail % s->req_cap)] = s->now;
		s->req_q[2 * (s->req_tail % s->req_cap) + 1] = work;
		s->req_tail++;
	} else {
		s->st.req_dropped++;
	}
	ev_push(s, s->now + (gap ? gap : 1), EV_ARRIVAL, 0, 0);
}

/* ---------------------------------------------------------------- invariants */

static void check_all(struct sim *s, int full)
{
	u64 busy = 0, idle = 0, exec = s->dead_exec;
	int i;

	for (i = 0; i < s->nr_cpus; i++) {
		struct sim_cpu *c = &s->cpu[i];

		if (c->curr)
			CHECK(s, c->curr->state == TS_RUNNING && c->curr->where == TW_CPU &&
			      c->curr->where_id == i, "CPU %d runs task %d in state %d/%d", i,
			      c->curr->id, c->curr->state, c->curr->where);
		if (c->rt)
			CHECK(s, !c->curr && c->rt->state == TS_RUNNING && c->rt->where == TW_CPU &&
			      c->rt->where_id == i && c->rt->pinned == i,
			      "CPU %d runs RT task %d in state %d/%d beside task %d", i, c->rt->id,
			      c->rt->state, c->rt->where, c->curr ? c->curr->id : -1);
		if (cpu_busy(c) && mask_test(&s->idle, i))
			sim_fail(s, "CPU %d is busy and marked idle", i);
		busy += c->busy_ns + (cpu_busy(c) ? s->now - c->last_acct : 0);
		idle += c->idle_ns + (cpu_busy(c) ? 0 : s->now - c->last_acct);
		if (c->curr)
			exec += s->now - c->seg_start;
		if (c->rt)
			exec += s->now - c->rt_seg_start;
	}
	CHECK(s, busy + idle == (u64)s->nr_cpus * s->now,
	      "CPU time not conserved: busy %llu + idle %llu != %d x %llu",
	      (unsigned long long)busy, (unsigned long long)idle, s->nr_cpus,
	      (unsigned long long)s->now);
	if (!full)
		return;
	for (i = 0; i < s->nr_tasks; i++) {
		struct task *t = s->tasks[i];

		exec += t->sum_exec;
		if (t->state == TS_QUEUED) {
			CHECK(s, t->where != TW_NONE && t->where != TW_CPU,
			      "runnable task %d is in no queue", t->id);
			CHECK(s, s->now - t->wait_since <= SIM_WAIT_BOUND_NS,
			      "runnable task %d waits for %llu ns", t->id,
			      (unsigned long long)(s->now - t->wait_since));
		}
	}
	CHECK(s, exec == busy, "task run time %llu != CPU busy time %llu",
	      (unsigned long long)exec, (unsigned long long)busy);
	if (s->cls->check)
		s->cls->check(s);
}

/*
 * Load of each LLC per capacity: the weights (or the number) of its runnable
 * tasks, running on its CPUs or queued for them (LAVD: its DSQ; EEVDF: the
 * runqueues; fifo/vtime: the CPU a task last ran on), per 1024 of capacity.
 * The imbalance is max / min over the LLCs, when every LLC has load.
 */
static void sample_imbalance(struct sim *s, struct sim_timeline *tl)
{
	u64 wgt[SIM_MAX_LLCS] = { 0 }, cnt[SIM_MAX_LLCS] = { 0 }, cap[SIM_MAX_LLCS] = { 0 };
	u64 wmax = 0, wmin = ~0ULL, cmax = 0, cmin = ~0ULL;
	int i, n = s->topo->nr_llcs;

	for (i = 0; i < s->nr_cpus; i++)
		cap[s->topo->cpu[i].llc] += s->topo->cpu[i].cap;
	for (i = 0; i < s->nr_tasks; i++) {
		const struct task *t = s->tasks[i];
		int llc;

		if ((t->state != TS_QUEUED && t->state != TS_RUNNING) || t->rt)
			continue;
		llc = s->topo->cpu[t->cpu].llc;
		wgt[llc] += t->weight;
		cnt[llc]++;
	}
	for (i = 0; i < n; i++) {
		u64 w = cap[i] ? wgt[i] * 1024 * 1024 / cap[i] : 0;
		u64 c = cap[i] ? cnt[i] * 100 * 1024 * 1024 / cap[i] : 0;

		wmax = pol_max(wmax, w);
		wmin = pol_min(wmin, w);
		cmax = pol_max(cmax, c);
		cmin = pol_min(cmin, c);
	}
	if (!wmax)
		return;		/* nothing runnable: no imbalance to speak of */
	s->st.imb_samples++;
	if (!wmin) {
		s->st.imb_empty++;
		return;
	}
	tl->imb_wgt_milli = (u32)pol_min(wmax * 1000 / wmin, 0xffffffffULL);
	tl->imb_cnt_milli = (u32)pol_min(cmax * 1000 / cmin, 0xffffffffULL);
	hist_add(&s->st.imb_wgt, tl->imb_wgt_milli);
	hist_add(&s->st.imb_cnt, tl->imb_cnt_milli);
	s->st.imb_wgt_sum += tl->imb_wgt_milli;
	s->st.imb_cnt_sum += tl->imb_cnt_milli;
}

static void ev_stat(struct sim *s)
{
	u64 busy = 0, q = 0, used = 0;
	int i;

	for (i = 0; i < s->nr_cpus; i++) {
		struct sim_cpu *c = &s->cpu[i];
		u64 b = c->busy_ns + (cpu_busy(c) ? s->now - c->last_acct : 0);

		busy += b;
		/* a CPU that ran anything in the window could not sleep through it */
		used += b != s->prev_busy_cpu[i];
		s->prev_busy_cpu[i] = b;
	}
	s->st.cpus_used_sum += used;
	for (i = 0; i < s->nr_tasks; i++)
		if (s->tasks[i]->state == TS_QUEUED && !s->tasks[i]->rt)
			q++;
	if (s->st.nr_tl == s->st.cap_tl) {
		s->st.cap_tl = s->st.cap_tl ? 2 * s->st.cap_tl : 256;
		s->st.tl = realloc(s->st.tl, s->st.cap_tl * sizeof(*s->st.tl));
		if (!s->st.tl)
			abort();
	}
	s->st.tl[s->st.nr_tl++] = (struct sim_timeline){ s->now, busy - s->prev_busy_tl, q, 0, 0,
							   used, 0, 0 };
	if (s->topo->nr_llcs > 1)
		sample_imbalance(s, &s->st.tl[s->st.nr_tl - 1]);
	s->prev_busy_tl = busy;
	if (s->check)
		check_all(s, 1);
	ev_push(s, s->now + 10 * SIM_NSEC_PER_MSEC, EV_STAT, 0, 0);
}

/* ---------------------------------------------------------------- run */

void sim_init(struct sim *s, const struct sim_topo *t, const struct sim_workload *w,
	      const struct sched_class *c, u64 seed, u64 duration_ns)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->topo = t;
	s->wl = w;
	s->cls = c;
	s->seed = seed;
	s->rng = seed * 0x2545f4914f6cdd1dULL + 1;
	s->end = duration_ns;
	s->nr_cpus = t->nr_cpus;
	for (i = 0; i < s->nr_cpus; i++) {
		set_idle(s, i);
		s->cpu[i].in_idle = 1;
	}
	for (i = 0; i < w->nr_sem; i++)
		s->sem_count[i] = w->sem_init[i];
	s->req_cap = 1 << 16;
	s->req_q = calloc(2 * s->req_cap, sizeof(u64));
}

void sim_free(struct sim *s)
{
	int i;

	for (i = 0; i < s->nr_tasks; i++)
		free(s->tasks[i]);
	free(s->tasks);
	free(s->heap);
	free(s->fifo);
	free(s->req_q);
	if (s->priv && s->cls->fini)
		s->cls->fini(s);
	free(s->st.frames);
	free(s->st.tl);
	free(s->priv);
}

int sim_run(struct sim *s)
{
	const struct sim_workload *w = s->wl;
	int i, k;

	s->cls->init(s);
	if (s->cls->update_idle)
		for (i = 0; i < s->nr_cpus; i++)
			s->cls->update_idle(s, i, true);
	/* Start every instance at t=0, in template order, each after a short stagger. */
	for (i = 0; i < w->nr_tmpl; i++) {
		for (k = 0; k < w->tmpl[i].instances; k++) {
			struct task *t = task_new(s, i);

			t->cpu = t->pinned >= 0 ? t->pinned : (int)((u64)t->id % (u64)s->nr_cpus);
			if (!t->rt)
				s->cls->task_new(s, t, NULL);
			t->state = TS_SLEEPING;
			ev_push(s, rand_range(s, 0, 100 * SIM_NSEC_PER_USEC), EV_WAKE, (u32)t->id,
				t->sleep_gen + 1);
		}
	}
	if (w->req_rate)
		ev_push(s, SIM_NSEC_PER_MSEC, EV_ARRIVAL, 0, 0);
	ev_push(s, 10 * SIM_NSEC_PER_MSEC, EV_STAT, 0, 0);
	if (s->cls->timer_period_ns)
		ev_push(s, s->cls->timer_period_ns, EV_CLS_TIMER, 0, 0);
	ev_push(s, s->end, EV_END, 0, 0);

	for (;;) {
		struct ev e = ev_next(s);
		struct task *t;

		s->now = ev_time(&e);
		switch (e.kind) {
		case EV_CPU:
			if (e.gen != s->cpu[e.id].gen)
				continue;
			s->cpu[e.id].ev_pending = 0;
			if (!s->cpu[e.id].curr)
				continue;
			if (s->now < s->cpu[e.id].target) {	/* fired early: re-arm */
				s->cpu[e.id].ev_pending = 1;
				s->cpu[e.id].ev_t = s->cpu[e.id].target;
				ev_push(s, s->cpu[e.id].target, EV_CPU, e.id, e.gen);
				continue;
			}
			ev_cpu(s, (int)e.id);
			break;
		case EV_RESCHED: {
			struct sim_cpu *c = &s->cpu[e.id];
			int pre = c->preempt;

			c->resched = 0;
			c->preempt = 0;
			if ((c->curr && !pre) || c->rt)	/* an RT task's CPU reschedules when it leaves */
				continue;
			if (pre)	/* SCX_KICK_PREEMPT zeroes the current slice */
				c->slice_end = s->now;
			cpu_schedule(s, (int)e.id, c->curr, pre);
			break;
		}
		case EV_WAKE:
			t = s->tasks[e.id];
			if (t->sleep_gen + 1 != e.gen || (t->state != TS_SLEEPING))
				continue;
			task_wake(s, t, NULL, 0);
			break;
		case EV_ARRIVAL:
			ev_arrival(s);
			break;
		case EV_RT_WAKE:
			ev_rt_wake(s, s->tasks[e.id]);
			break;
		case EV_RT:
			if (e.gen != s->cpu[e.id].rt_gen || !s->cpu[e.id].rt)
				continue;
			ev_rt(s, (int)e.id);
			break;
		case EV_STAT:
			ev_stat(s);
			break;
		case EV_CLS_TIMER:
			s->cls->timer(s);
			ev_push(s, s->now + s->cls->timer_period_ns, EV_CLS_TIMER, 0, 0);
			break;
		case EV_END:
			for (i = 0; i < s->nr_cpus; i++) {
				sim_update_curr(s, i);
				if (s->cpu[i].rt)
					rt_update(s, &s->cpu[i]);
				cpu_acct(s, &s->cpu[i]);
			}
			if (s->check)
				check_all(s, 1);
			return 0;
		}
		s->st.nr_events++;
		if (s->fault_at && s->st.nr_events == s->fault_at)
			s->cpu[0].busy_ns++;	/* --fault-at: test that --check catches it */
		if (s->check)
			check_all(s, 0);
	}
}
