/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim.h - lavd-sim: a deterministic discrete-event model of CPUs, tasks and
 * schedulers. Time is integer nanoseconds; the only floating point is in
 * the workload generator (exponential inter-arrival times) and in metrics.
 *
 * Layout:
 *   engine.c       event queue, CPUs, task programs, the sched_ext core
 *                  (local DSQs, keep-prev, idle masks), invariants
 *   sched_lavd.c   LAVD: the callbacks of src/bpf/ on top of src/policy/
 *   sched_simple.c fifo and vtime (scx_simple's two modes)
 *   sched_eevdf.c  a model of Linux EEVDF with per-CPU runqueues
 *   topo.c         built-in and JSON topologies, power model
 *   workload.c     built-in and JSON (rt-app subset) workloads
 *   metrics.c      histograms, summary table, JSON, CSV, gnuplot
 */
#ifndef __SIM_H
#define __SIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy/pol.h"

#define SIM_MAX_CPUS	256
#define SIM_MASK_WORDS	(SIM_MAX_CPUS / 64)
#define SIM_MAX_LLCS	64
#define SIM_MAX_CLASSES	8
#define SIM_MAX_OPS	96
#define SIM_MAX_TMPL	32
#define SIM_MAX_NAMES	32	/* semaphores, locks, barriers */
#define SIM_MAX_TASKS	65536
#define SIM_NSEC_PER_MSEC 1000000ULL
#define SIM_NSEC_PER_USEC 1000ULL

/* sched_ext constants the core models. */
#define SCX_SLICE_DFL_NS	(20ULL * SIM_NSEC_PER_MSEC)
/* Throughput of one hardware thread while its SMT sibling is busy (/1024). */
#define SIM_SMT_SPEED		640
/* Invariant bound: no runnable task waits longer than this. */
#define SIM_WAIT_BOUND_NS	(2000ULL * SIM_NSEC_PER_MSEC)
/* Scheduler tick (HZ=250): a 1 ns slice is noticed only at the next one. */
#define SIM_TICK_NS		(4ULL * SIM_NSEC_PER_MSEC)

/* --lavd-opt: LAVD mechanisms switched off (or varied) for comparisons. */
enum {
	SIM_LAVD_NO_PREEMPT	= 1 << 0,	/* POL_CFG_NO_PREEMPTION */
	SIM_LAVD_NO_LOCK_BOOST	= 1 << 1,	/* --no-futex-boost: no futex tracepoints */
	SIM_LAVD_NO_INHERIT	= 1 << 2,	/* zero lat_cri_waker/wakee before pol_lat_cri */
	SIM_LAVD_PREEMPT_KICK	= 1 << 3,	/* --preempt-kick: SCX_KICK_PREEMPT, not a 1 ns slice */
	SIM_LAVD_NO_TURBULENCE	= 1 << 4,	/* placement sees every CPU as steady */
	SIM_LAVD_NO_WARMTH	= 1 << 5,	/* warm_wait_ok() always false */
	SIM_LAVD_COUNT_BALANCE	= 1 << 6,	/* steal by queued task count, not weight */
	SIM_LAVD_NO_PLAN	= 1 << 7,	/* no pol_plan_balance: pull only from an empty queue */
	SIM_LAVD_NO_COMPACTION	= 1 << 8,	/* --no-core-compaction: every CPU usable */
	SIM_LAVD_PERFORMANCE	= 1 << 9,	/* --performance (else the autopilot) */
	SIM_LAVD_BALANCED	= 1 << 10,	/* --balanced */
	SIM_LAVD_POWERSAVE	= 1 << 11,	/* --powersave */
};

struct cpumask { u64 w[SIM_MASK_WORDS]; };

static inline void mask_set(struct cpumask *m, int c) { m->w[c >> 6] |= 1ULL << (c & 63); }
static inline void mask_clr(struct cpumask *m, int c) { m->w[c >> 6] &= ~(1ULL << (c & 63)); }
static inline int mask_test(const struct cpumask *m, int c) { return (m->w[c >> 6] >> (c & 63)) & 1; }
/* Lowest CPU in a & b, or -1. */
static inline int mask_first_and(const struct cpumask *a, const struct cpumask *b)
{
	for (int i = 0; i < SIM_MASK_WORDS; i++) {
		u64 v = a->w[i] & b->w[i];
		if (v)
			return i * 64 + __builtin_ctzll(v);
	}
	return -1;
}

/* ---- topology ---- */
struct sim_cpu_desc {
	int core, llc, node, sibling;	/* sibling: other thread of the core or -1 */
	u32 cap;			/* 1..1024 */
	u32 idle_mw, active_mw;		/* power model */
};

struct sim_topo {
	char name[64];
	int nr_cpus, nr_llcs, nr_cores, smt;
	u64 capacity_milli;	/* full-speed CPUs' worth of throughput x 1000 */
	struct sim_cpu_desc cpu[SIM_MAX_CPUS];
	struct cpumask llc_mask[SIM_MAX_LLCS];
	struct cpumask all;
};

int topo_load(struct sim_topo *t, const char *name_or_file, char *err, size_t errlen);

/* ---- workload ---- */
enum op_kind {
	OP_RUN,		/* a..b ns of work (uniform), at capacity 1024 */
	OP_SLEEP,	/* a..b ns */
	OP_TIMER,	/* sleep to the next multiple of a ns since the task started */
	OP_SUSPEND,	/* wait on semaphore arg */
	OP_RESUME,	/* post semaphore arg (wakes one waiter) */
	OP_LOCK,	/* mutex arg */
	OP_UNLOCK,
	OP_BARRIER,	/* barrier arg */
	OP_FORK,	/* spawn template arg */
	OP_EXIT,
	OP_FRAME_START,	/* a frame begins (game metric) */
	OP_FRAME_END,	/* the oldest open frame completes */
	OP_REQ_WAIT,	/* take a request from the server queue, or block */
	OP_REQ_RUN,	/* run the request's service work */
	OP_REQ_DONE,	/* request complete (latency metric) */
};

struct sim_op {
	u8 kind;
	u8 sync;	/* resume followed by a block: SCX_WAKE_SYNC */
	int16_t arg;
	u64 a, b;
};

struct sim_tmpl {
	char name[32];
	int cls;
	int nice;
	int pinned;	/* CPU or -1 */
	int instances;	/* at start; 0 for fork-only templates */
	int loops;	/* -1: forever */
	int kthread;
	int rt;		/* SCHED_FIFO: outside the scheduler under test (pinned) */
	int family;	/* wake chains are learnt inside a family */
	int nr_ops;
	struct sim_op ops[SIM_MAX_OPS];
};

struct sim_workload {
	char name[64];
	int nr_tmpl;
	struct sim_tmpl tmpl[SIM_MAX_TMPL];
	int nr_cls;
	char cls[SIM_MAX_CLASSES][16];
	int nr_sem, nr_lock, nr_bar;
	char sem_name[SIM_MAX_NAMES][32], lock_name[SIM_MAX_NAMES][32], bar_name[SIM_MAX_NAMES][32];
	int sem_init[SIM_MAX_NAMES];
	int bar_n[SIM_MAX_NAMES];	/* participants (instances using it) */
	u64 req_rate;			/* requests per second (0: no arrivals) */
	u64 req_work_min, req_work_max;	/* service work per request, ns */
	int req_cls;
	u64 frame_period_ns;		/* game frames: deadline */
	int frame_cls;
};

int workload_load(struct sim_workload *w, const char *name_or_file, const struct sim_topo *t,
		  char *err, size_t errlen);

/* ---- histograms (log-linear, 1/64 relative resolution) ---- */
#define HIST_SUB_BITS	6
#define HIST_BUCKETS	(64 << HIST_SUB_BITS)
struct hist {
	u64 n, max, sum;
	u32 b[HIST_BUCKETS];
};
void hist_add(struct hist *h, u64 v);
u64 hist_pct(const struct hist *h, u32 per_mille_x10);	/* 5000 = p50, 9990 = p99.9 */

/* ---- tasks ---- */
enum task_state { TS_NEW, TS_SLEEPING, TS_QUEUED, TS_RUNNING, TS_DEAD };
enum task_where { TW_NONE, TW_LOCAL, TW_DSQ, TW_RQ, TW_CPU, TW_RTQ };

struct task {
	int id, tmpl, cls, pinned, kthread, family, rt;
	int nice;
	u32 weight;		/* sched_ext scale, nice 0 = 100 */
	u32 kweight;		/* kernel scale, nice 0 = 1024 */
	u8 state, where;
	int where_id;		/* CPU, DSQ or runqueue index */
	int cpu;		/* current or last CPU */
	int pc, loops_left;
	u64 work_left;		/* of the current OP_RUN / OP_REQ_RUN */
	u64 tstart;		/* for OP_TIMER */
	u64 timer_next;
	u64 sleep_gen;
	u64 wait_since;		/* runnable since (metrics), 0 if not waiting */
	u64 sum_exec;		/* wall ns on CPU */
	u64 work_done;		/* invariant ns of work completed */
	u64 req_arrival, req_work;
	u64 ready_seq;
	u64 timer_expiry;	/* when the last OP_TIMER fired */
	int nr_locks;		/* workload mutexes it owns (ground truth) */
	u8 futex_acquire;	/* blocked on a contended lock: its futex wait returns 0 when it runs */
	u8 lock_waited;		/* got its lock by waiting: its unlock calls futex_wake (glibc) */
	u64 scx_slice;		/* p->scx.slice given at insert / running */
	u64 dsq_key, dsq_seq;	/* order in a DSQ */
	int last_cpu;		/* CPU it last ran on, -1 never */
	int heap_idx;		/* position in a queue heap, -1 if none */
	struct task *next;	/* FIFO / wait-list link */
	/* per-scheduler state */
	struct {
		struct pol_task_stat st;
		u64 vdeadline, wait_since_ns, exec_at_account;
		u32 ctx, queued_wgt;
		s32 queued_llc;
		u8 slice_boosted, greedy, lock_holder, lock_refilled;
		u8 warm_wait;		/* select_cpu chose to wait for the warm prev CPU */
		u64 exec_at_running;
		struct pol_warmth warm;
		u32 perf_cri;		/* pol_perf_cri at the last run */
		u8 queued_dsq;		/* last queued in an LLC DSQ (the latency guard) */
	} l;
	struct {
		s64 vruntime, deadline, vlag;
		u64 slice;
		u64 exec_start;
	} e;
	u64 vtime;
};

/* ---- CPUs ---- */
struct sim_cpu {
	struct task *curr;
	u64 seg_start;		/* progress accounted up to here */
	u32 speed;		/* /1024 of a full-capacity thread */
	u64 slice_end;		/* absolute */
	u64 run_start;		/* curr started running (this turn) */
	u64 gen;		/* completion event generation */
	u64 target;		/* when curr's phase or slice ends */
	u64 ev_t;		/* time of the pending completion event */
	u8 ev_pending;
	u8 resched;		/* a reschedule event is pending */
	u8 preempt;		/* ...and it preempts curr */
	u64 busy_ns, idle_ns, last_acct;
	struct task *local_head, *local_tail;	/* local DSQ (FIFO) */
	int local_n;
	u64 nr_switch;
	/* SCHED_FIFO tasks (workload "policy"): they run above the class under test */
	struct task *rt;	/* running RT task, curr is then NULL */
	struct task *rtq;	/* RT tasks waiting for this CPU (FIFO) */
	u64 rt_seg_start, rt_gen;
	u8 in_idle;		/* running the idle task (update_idle) */
};

static inline bool cpu_busy(const struct sim_cpu *c)
{
	return c->curr || c->rt;
}

/* ---- schedulers ---- */
struct sim;
enum { WAKE_SYNC = 1, WAKE_FORK = 2 };
struct sched_class {
	const char *name;
	u64 timer_period_ns;
	void (*init)(struct sim *s);
	void (*task_new)(struct sim *s, struct task *t, struct task *parent);
	/* t became runnable; waker is NULL for interrupts/timers. */
	void (*wake)(struct sim *s, struct task *t, struct task *waker, int flags);
	/* curr on cpu blocks (sleep) or exits. */
	void (*block)(struct sim *s, int cpu, struct task *t, int exiting);
	/*
	 * cpu must choose what runs: prev is still running (slice over or
	 * preempted) or NULL. Returns the task to run (may be prev); the class
	 * sets the slice with sim_set_slice().
	 */
	struct task *(*schedule)(struct sim *s, int cpu, struct task *prev);
	void (*timer)(struct sim *s);
	void (*check)(struct sim *s);	/* class invariants, may be NULL */
	void (*task_dead)(struct sim *s, struct task *t);
	/*
	 * The running task t finished a futex call the BPF tracepoints would
	 * classify as an acquire (1) or a release (0). May be NULL.
	 */
	void (*futex)(struct sim *s, struct task *t, int acquire);
	/*
	 * An RT task takes cpu from the running task prev, which stays
	 * runnable: the class keeps it queued for that CPU (sched_ext: stopping
	 * then the head of the local DSQ). Required.
	 */
	void (*rt_preempt)(struct sim *s, int cpu, struct task *prev);
	/* cpu enters (1) or leaves (0) the idle task: ops.update_idle. May be NULL. */
	void (*update_idle)(struct sim *s, int cpu, bool idle);
	void (*fini)(struct sim *s);	/* free the class's queues (not s->priv) */
};

extern const struct sched_class sched_lavd, sched_eevdf, sched_fifo, sched_vtime;

/* ---- the simulation ---- */
__extension__ typedef unsigned __int128 ev_key_t;
struct ev {
	ev_key_t key;		/* time << 64 | sequence */
	u32 kind, id;
	u64 gen;
};

struct cls_stat {
	struct hist delay;
	u64 runtime, work, nr_tasks_done, nr_run;
};

struct sim_timeline {
	u64 t, busy, queued, slice;
	u64 turbulent;		/* LAVD: turbulent CPUs at the last timer round */
	u64 used;		/* CPUs that ran anything in the last 10 ms */
	u32 imb_wgt_milli;	/* max/min LLC load per capacity x 1000, 0 if undefined */
	u32 imb_cnt_milli;	/* the same with task counts */
};

struct sim_stats {
	struct hist delay;		/* all tasks */
	struct cls_stat cls[SIM_MAX_CLASSES];
	u64 tmpl_runtime[SIM_MAX_TMPL];	/* CPU time per task template */
	struct hist req;		/* request latency */
	u64 req_done, req_arrived, req_dropped;
	u64 *frames;			/* frame latencies (ns) */
	u64 nr_frames, cap_frames, frame_miss;
	u64 migrations, preemptions, csw, slice_expiries, keep_prev, wakeups, forks, exits;
	u64 nr_events;
	u64 lock_owner_preempted;	/* a task owning a mutex put back while runnable */
	u64 lavd_direct, lavd_sync_local, lavd_steal, lavd_revoke, lavd_boosted;
	u64 lavd_plan_steal;		/* ...of lavd_steal, pulls by the balance plan */
	u64 lavd_preempt;		/* try_preempt claimed a victim */
	u64 cpus_used_sum;		/* CPUs that ran anything, summed over 10 ms samples */
	u64 lavd_mode_switch;		/* power mode changes */
	u64 lavd_orphan_feeds;		/* LLC queues with no usable CPU given one (pw_feed_orphans) */
	u64 lavd_mode_rounds[3];	/* timer rounds in each power mode (enum pol_power_mode) */
	u64 lavd_active_sum;		/* usable CPUs summed over timer rounds */
	u64 lavd_sched_big;		/* big/little: runs started on big cores */
	u64 lavd_sched_perf_cri;	/* ... by performance-critical tasks */
	u64 lavd_sched_perf_cri_big;	/* ... of those on big cores */
	u64 lavd_preempt_ipi;		/* ... and kicked it (its tick was too far) */
	u64 lavd_preempt_lock_holder;	/* ...whose task is a (futex-seen) lock holder: must be 0 */
	u64 lavd_preempt_owner;		/* ...whose task owns a mutex (ground truth, seen or not) */
	u64 lavd_lock_acquire, lavd_lock_release, lavd_lock_refill, lavd_keep_prev;
	u64 migrations_xllc;		/* migrations to a CPU of another LLC */
	u64 rt_preempt;			/* fair/scx tasks put back for an RT task */
	u64 lavd_turb_place;		/* running: wants_steady task on a turbulent CPU */
	u64 lavd_steady_runs;		/* running: tasks that wanted a steady CPU */
	u64 lavd_turbulent_rounds;	/* sum over timer rounds of turbulent CPUs */
	u64 lavd_timer_rounds;
	u64 lavd_warm_wait;		/* enqueued to wait for the warm prev CPU */
	/* LLC load imbalance, sampled every 10 ms (multi-LLC topologies) */
	struct hist imb_wgt, imb_cnt;	/* max/min x 1000, samples with every LLC loaded */
	u64 imb_samples, imb_empty;	/* samples; ...with an LLC empty while another is not */
	u64 imb_wgt_sum, imb_cnt_sum;	/* for the means */
	struct sim_timeline *tl;
	u64 nr_tl, cap_tl;
};

struct sim {
	const struct sim_topo *topo;
	const struct sim_workload *wl;
	const struct sched_class *cls;
	u64 seed, rng;
	u64 now, end;
	int nr_cpus;
	struct sim_cpu cpu[SIM_MAX_CPUS];
	struct cpumask idle, idle_smt;
	struct task **tasks;		/* by id */
	int nr_tasks, cap_tasks;
	struct task *free_tasks;
	int nr_live;
	u64 dead_exec;			/* run time of tasks that exited */
	/* event heap */
	struct ev *heap;
	u64 nr_heap, cap_heap, seq;
	struct ev *fifo;		/* events due now, in order */
	u64 nr_fifo, cap_fifo, fifo_head;
	/* synchronisation objects */
	int sem_count[SIM_MAX_NAMES];
	struct task *sem_wait[SIM_MAX_NAMES];
	struct task *lock_owner[SIM_MAX_NAMES];
	struct task *lock_wait[SIM_MAX_NAMES];
	int bar_count[SIM_MAX_NAMES];
	struct task *bar_wait[SIM_MAX_NAMES];
	/* server request queue (ring) */
	u64 *req_q;			/* pairs: arrival, work */
	u64 req_head, req_tail, req_cap;
	struct task *req_waiters;
	/* game frames */
	u64 frame_open[256];
	u64 frame_head, frame_tail;
	/* options */
	int check;
	u32 lavd_opts;			/* SIM_LAVD_* */
	u64 lavd_warm_cpu_us;		/* --warm-cpu-us (0: off, the loader's default) */
	u64 fault_at;			/* corrupt the state after this event (tests) */
	FILE *trace;
	void *priv;			/* scheduler state */
	struct sim_stats st;
	u64 prev_busy_tl;
	u64 prev_busy_cpu[SIM_MAX_CPUS];	/* busy_ns at the last stat sample (CPUs used) */
	char errbuf[256];
};

/* A dispatch queue: FIFO (key = insertion order) or vtime-ordered heap. */
struct dsq {
	struct task **h;
	int n, cap, id;
};
void dsq_insert(struct sim *s, struct dsq *d, struct task *t, u64 key);
struct task *dsq_pop(struct sim *s, struct dsq *d);
struct task *dsq_remove(struct sim *s, struct dsq *d, struct task *t);
void dsq_free(struct dsq *d);

/* The sched_ext core: what the kernel does around the BPF callbacks. */
enum { SCX_ENQ_WAKEUP = 1, SCX_ENQ_CPU_SELECTED = 2 };
struct scx_ops {
	/* waker: the running task that wakes p (NULL for interrupts), as current is in BPF */
	s32 (*select_cpu)(struct sim *s, struct task *p, s32 prev_cpu, int wake_flags,
			  struct task *waker);
	void (*enqueue)(struct sim *s, struct task *p, u64 enq_flags);
	void (*dispatch)(struct sim *s, s32 cpu, struct task *prev);
	void (*runnable)(struct sim *s, struct task *p, struct task *waker, u64 enq_flags);
	void (*running)(struct sim *s, struct task *p);
	void (*stopping)(struct sim *s, struct task *p, bool runnable);
	void (*quiescent)(struct sim *s, struct task *p, bool sleep);
};
void scx_wake(struct sim *s, const struct scx_ops *o, struct task *t, struct task *waker, int flags);
void scx_block(struct sim *s, const struct scx_ops *o, int cpu, struct task *t, int exiting);
struct task *scx_schedule(struct sim *s, const struct scx_ops *o, int cpu, struct task *prev);
void scx_rt_preempt(struct sim *s, const struct scx_ops *o, int cpu, struct task *prev);
u64 sim_slice_left(struct sim *s, int cpu);

/* engine API used by the scheduler classes */
void sim_set_slice(struct sim *s, int cpu, u64 slice_ns);
void sim_kick(struct sim *s, int cpu, int preempt);
void sim_update_curr(struct sim *s, int cpu);	/* account curr's progress up to now */
bool sim_claim_idle(struct sim *s, int cpu);	/* test-and-clear, like scx */
int sim_pick_idle(struct sim *s, const struct cpumask *m, int core);	/* claims */
bool sim_core_idle(struct sim *s, int cpu);
void sim_local_push(struct sim *s, int cpu, struct task *t);
void sim_local_push_head(struct sim *s, int cpu, struct task *t);
struct task *sim_local_pop(struct sim *s, int cpu);
void sim_fail(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
u64 sim_rand(struct sim *s);
u64 sim_rand_next(u64 *state);	/* the same splitmix64, on a separate stream */
const struct cpumask *sim_allowed(struct sim *s, struct task *t, struct cpumask *tmp);

int sim_run(struct sim *s);
void sim_init(struct sim *s, const struct sim_topo *t, const struct sim_workload *w,
	      const struct sched_class *c, u64 seed, u64 duration_ns);
void sim_free(struct sim *s);

/* metrics.c */
struct sim_opts {
	const char *topo, *workload, *sched, *json, *csv, *plot, *trace, *lavd_opt;
	u64 seed, duration_ms, fault_at;
	int check;
};
void report_table(struct sim *s, FILE *f);
int report_json(struct sim *s, const struct sim_opts *o, const char *path);
int report_csv(struct sim *s, const char *dir);
int report_plot(struct sim *s, const char *dir);
void report_set_opts(const struct sim_opts *o);

/* prio_to_weight of the kernel, nice -20..19 */
u32 nice_to_kweight(int nice);
u32 nice_to_scx_weight(int nice);

#endif /* __SIM_H */
