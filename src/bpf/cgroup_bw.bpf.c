/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup_bw.bpf.c - cgroup CPU bandwidth (cpu.max), with --enable-cpu-bw.
 *
 * "Eventual enforcement" (src/policy/pol_cbw.h): a cgroup may run past its
 * budget within a period, and what it overspent is taken off the next one,
 * so its long-run CPU use converges to cpu.max. The pieces:
 *
 *  - state: one struct cbw_cgrp per cgroup of the cpu controller, in a hash
 *    map keyed by cgroup id, made by ops.cgroup_init (at load, parents
 *    first, and at mkdir), updated by ops.cgroup_set_bandwidth (cpu.max,
 *    cpu.max.burst) for the whole subtree, dropped by ops.cgroup_exit.
 *    Each keeps the chain of limited cgroups a task of it is charged to
 *    (itself if limited, then its limited ancestors): a parent's limit
 *    bounds the sum of its children.
 *  - charge: every run-time accounting (tick and stopping, task.bpf.c)
 *    adds the time to each cgroup of the chain; the charge that spends a
 *    budget throttles that cgroup at once (no accounting timer: upstream's
 *    lib/cgroup_bw.bpf.c sums per-LLC counters in a 1-20 ms timer).
 *  - throttled tasks are set aside in their cgroup's own DSQ (vtime, their
 *    deadline) instead of an LLC queue: at enqueue, and select_cpu does not
 *    place them on an idle CPU. A running one is stopped at its next tick
 *    (slice 0) and its slice is not refilled when nothing else runs; for
 *    that last case the loader sets SCX_OPS_ENQ_LAST, so a throttled task
 *    that is alone on its CPU comes back through enqueue.
 *  - the 10 ms statistics timer: every 100 ms the periods are replenished
 *    (pol_cbw_replenish); every round the DSQs of cgroups no longer
 *    throttled are moved back into the LLC queues (upstream re-enqueues two
 *    tasks per ops.dispatch; a timer needs no hook in dispatch and moves a
 *    whole cgroup at once).
 *
 * Never throttled, so the machine cannot stall: the root cgroup, kernel
 * threads, exiting tasks (they may no longer be findable), and the loader
 * itself. Debt is capped (pol_cbw.h), so a throttled task waits about a
 * second at most. If the cgroup disappears or its limit is lifted, its
 * tasks are moved back (cgroup_exit, set_bandwidth, or the next round); a
 * task that moves to another cgroup is dequeued by the kernel and comes
 * back through enqueue; on unload the kernel takes every task out of our
 * DSQs itself.
 */

#define CBW_ROOT_CGID		1ULL
#define CBW_MAX_CGROUPS		4096
/* Cgroups whose set-aside tasks are moved back per timer round. */
#define CBW_RELEASE_MAX		64
/* Throttled tasks of a cgroup wait in DSQ (1 << 62 | id): apart from the LLC DSQs. */
#define CBW_DSQ(cgid)		((1ULL << 62) | (cgid))
/* Replenish when a period is over, within half a statistics round. */
#define CBW_REPLENISH_NS	(POL_CBW_PERIOD_NS - POL_SYS_STAT_INTERVAL_NS / 2)
#define CBW_PF_EXITING		0x00000004
#define CBW_PF_KTHREAD		0x00200000

/* Set by the loader: off unless --enable-cpu-bw. */
const volatile u8 enable_cpu_bw;
const volatile u32 cbw_loader_tgid;

struct cbw_cgrp {
	struct pol_cbw st;
	struct pol_cbw_chain chain;	/* limited cgroups charged, self first */
	u64 used_ns;			/* charged since the last replenish */
	u64 parent_id;
	u32 has_dsq;			/* its DSQ exists: it can be throttled */
	u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CBW_MAX_CGROUPS);
	__type(key, u64);
	__type(value, struct cbw_cgrp);
} cbw_cgrps SEC(".maps");

/* One timer round's scratch. */
struct cbw_round {
	u64 elapsed_ns;
	u32 replenish;
	u32 nr_release;
	u64 nr_cgroups;
	u64 nr_throttled;
};

static struct cbw_round cbw_rnd;
static u64 cbw_release_ids[CBW_RELEASE_MAX];

/*
 * The round's scratch through an opaque pointer: with only constant-offset
 * accesses clang splits a static struct into one variable per field, whose
 * BTF the kernel refuses ("Invalid size").
 */
static __always_inline struct cbw_round *cbw_round(void)
{
	struct cbw_round *r = &cbw_rnd;

	asm volatile("" : "+r"(r));
	return r;
}

u64 cbw_last_replenish_ns;
u64 cbw_nr_throttle_events;
u64 cbw_nr_set_aside;
u64 cbw_nr_released;
u64 cbw_nr_untracked;	/* cgroups we could not track (map full) */
/* What overspending is made of: the longest single charge, the largest overrun. */
u64 cbw_max_charge_ns;
u64 cbw_max_overrun_ns;

static __always_inline struct cbw_cgrp *cbw_lookup(u64 cgid)
{
	return bpf_map_lookup_elem(&cbw_cgrps, &cgid);
}

static __always_inline u64 cbw_cgroup_id(struct cgroup *cgrp)
{
	return cgrp->kn->id;
}

/* Is a cgroup on this chain throttled? */
static __always_inline bool cbw_chain_throttled(struct cbw_cgrp *cg)
{
	struct cbw_cgrp *c;
	u32 n = READ_ONCE(cg->chain.n);
	int i;

	bpf_for(i, 0, POL_CBW_CHAIN_MAX) {
		if ((u32)i >= n)
			break;
		c = cbw_lookup(cg->chain.id[i]);
		if (c && READ_ONCE(c->st.throttled))
			return true;
	}
	return false;
}

/* Should this task wait, its cgroup's budget spent? */
static __always_inline bool cbw_throttled(struct task_struct *p, struct task_ctx *tc)
{
	struct cbw_cgrp *cg;

	if (!enable_cpu_bw || tc->cbw_cgid <= CBW_ROOT_CGID ||
	    (p->flags & (CBW_PF_EXITING | CBW_PF_KTHREAD)) || p->tgid == cbw_loader_tgid)
		return false;
	cg = cbw_lookup(tc->cbw_cgid);
	return cg && cg->has_dsq && cbw_chain_throttled(cg);
}

static __always_inline bool cbw_task_throttled(struct task_struct *p)
{
	struct task_ctx *tc;

	if (!enable_cpu_bw)
		return false;
	tc = get_task_ctx(p);
	return tc && cbw_throttled(p, tc);
}

/*
 * Charge run time to the task's cgroup chain (from task_account). The
 * charge that spends a budget throttles that cgroup. Every task counts,
 * the exempt ones too: they are never stopped, but they use the quota.
 */
static __always_inline void cbw_charge(struct task_ctx *tc, u64 ran_ns)
{
	struct cbw_cgrp *cg, *c;
	u64 used;
	u32 n;
	int i;

	if (!enable_cpu_bw || tc->cbw_cgid <= CBW_ROOT_CGID)
		return;
	cg = cbw_lookup(tc->cbw_cgid);
	if (!cg)
		return;
	n = READ_ONCE(cg->chain.n);
	if (n && ran_ns > READ_ONCE(cbw_max_charge_ns))
		WRITE_ONCE(cbw_max_charge_ns, ran_ns);
	bpf_for(i, 0, POL_CBW_CHAIN_MAX) {
		if ((u32)i >= n)
			break;
		c = cbw_lookup(cg->chain.id[i]);
		if (!c)
			continue;
		used = __sync_fetch_and_add(&c->used_ns, ran_ns) + ran_ns;
		if (!READ_ONCE(c->st.throttled) && pol_cbw_spent(&c->st, used) &&
		    __sync_bool_compare_and_swap(&c->st.throttled, 0, 1))
			__sync_fetch_and_add(&cbw_nr_throttle_events, 1);
	}
}

/* A running task whose cgroup is throttled stops at this tick. */
static __always_inline void cbw_tick(struct task_struct *p, struct task_ctx *tc)
{
	if (cbw_throttled(p, tc))
		lavd_set_slice(p, 0);
}

/* ops.init_task: the cgroup a task starts in (cgroup_move follows it). */
static __always_inline void cbw_init_task(struct task_ctx *tc, struct scx_init_task_args *args)
{
	struct cgroup *cgrp;

	tc->cbw_cgid = 0;
	if (!enable_cpu_bw || !args)
		return;
	cgrp = lavd_init_task_cgroup(args);
	if (cgrp)
		tc->cbw_cgid = cbw_cgroup_id(cgrp);
}

/*
 * ops.enqueue: a throttled task is set aside in its cgroup's DSQ; with
 * SCX_OPS_ENQ_LAST a task alone on its CPU whose slice ended comes here
 * (SCX_ENQ_LAST) and keeps its CPU. True if the task was queued here.
 */
static __always_inline bool cbw_enqueue(struct task_struct *p, struct task_ctx *tc,
					u64 enq_flags)
{
	if (!enable_cpu_bw)
		return false;
	if (cbw_throttled(p, tc)) {
		tc->warm_wait = 0;
		note_enq(tc, LAVD_VIA_CBW);
		scx_bpf_dsq_insert_vtime(p, CBW_DSQ(tc->cbw_cgid), READ_ONCE(sys.slice_ns),
					 tc->vdeadline, enq_flags);
		__sync_fetch_and_add(&cbw_nr_set_aside, 1);
		return true;
	}
	if (enq_flags & SCX_ENQ_LAST) {
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, READ_ONCE(sys.slice_ns), enq_flags);
		return true;
	}
	return false;
}

/*
 * Move a cgroup's set-aside tasks back: to the queue of their CPU's LLC,
 * keeping their deadline, or to their CPU's local queue if pinned; then
 * wake an idle CPU to take them. From unlocked contexts only (the timer,
 * cgroup_exit, cgroup_set_bandwidth).
 */
static __noinline int cbw_release(u64 cgid)
{
	struct task_struct *p;

	/*
	 * Nothing carried from one iteration to the next: a counter tested
	 * after the loop would be tracked precisely by the verifier, and the
	 * loop would then never converge ("sequence of jumps too complex").
	 */
	bpf_for_each(scx_dsq, p, CBW_DSQ(cgid), 0) {
		struct task_ctx *tc = get_task_ctx(p);
		s32 cpu = allowed_cpu(p, scx_bpf_task_cpu(p));
		s32 llc = cpu_to_llc(cpu);
		struct pol_domain *d;

		if (is_pinned(p)) {
			if (!scx_bpf_dsq_move(BPF_FOR_EACH_ITER, p, SCX_DSQ_LOCAL_ON | cpu, 0))
				continue;
			scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		} else {
			if (!scx_bpf_dsq_move_vtime(BPF_FOR_EACH_ITER, p, LLC_DSQ(llc), 0))
				continue;
			/* Counted in the LLC's queued load like enqueue does (unaccount_queued). */
			d = llc_dom(llc);
			if (tc && !tc->queued_wgt && d) {
				tc->queued_llc = llc;
				tc->queued_wgt = pol_max(p->scx.weight, 1);
				__sync_fetch_and_add(&d->queued_wgt, tc->queued_wgt);
				__sync_fetch_and_add(&d->nr_queued, 1);
			}
			/* ... and in what core compaction must not strand (power.bpf.c) */
			if (tc && !tc->queued_affn && p->nr_cpus_allowed < nr_cpus_onln) {
				tc->queued_affn = 1;
				__sync_fetch_and_add(&nr_queued_affn, 1);
			}
			if (!kick_idle_in_llc(p, llc))
				scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		}
		__sync_fetch_and_add(&cbw_nr_released, 1);
	}
	return 0;
}

/*
 * One cgroup in a timer round: replenish its period if it is limited and
 * the period is over; count it; list it for release if it holds set-aside
 * tasks and nothing on its chain is throttled any more.
 */
static long cbw_round_cb(struct bpf_map *map, u64 *key, struct cbw_cgrp *c, void *unused)
{
	struct cbw_round *r = cbw_round();
	u64 id = *key, used;
	s64 over;

	if (r->replenish && c->chain.n && c->chain.id[0] == id) {
		used = __atomic_exchange_n(&c->used_ns, 0, __ATOMIC_SEQ_CST);
		over = (s64)pol_min(used, POL_CBW_QUOTA_MAX) - c->st.budget;
		if (over > 0 && (u64)over > cbw_max_overrun_ns)
			cbw_max_overrun_ns = over;
		pol_cbw_replenish(&c->st, used, r->elapsed_ns);
	}
	r->nr_cgroups++;
	if (READ_ONCE(c->st.throttled))
		r->nr_throttled++;
	if (c->has_dsq && r->nr_release < CBW_RELEASE_MAX &&
	    scx_bpf_dsq_nr_queued(CBW_DSQ(id)) > 0 && !cbw_chain_throttled(c)) {
		cbw_release_ids[r->nr_release & (CBW_RELEASE_MAX - 1)] = id;
		r->nr_release++;
	}
	return 0;
}

/* From the 10 ms statistics timer. */
static __always_inline void cbw_timer_round(void)
{
	struct cbw_round *r = cbw_round();
	u64 now, last;
	int i;

	if (!enable_cpu_bw)
		return;
	now = lavd_now();
	last = cbw_last_replenish_ns;
	r->elapsed_ns = last ? pol_sub_sat(now, last) : POL_CBW_PERIOD_NS;
	r->replenish = !last || r->elapsed_ns >= CBW_REPLENISH_NS;
	if (r->replenish)
		cbw_last_replenish_ns = now;
	r->nr_release = 0;
	r->nr_cgroups = 0;
	r->nr_throttled = 0;
	bpf_for_each_map_elem(&cbw_cgrps, cbw_round_cb, NULL, 0);
	bpf_for(i, 0, CBW_RELEASE_MAX) {
		if ((u32)i >= r->nr_release)
			break;
		cbw_release(cbw_release_ids[i]);
	}
	stats.nr_cbw_throttle = READ_ONCE(cbw_nr_throttle_events);
	stats.nr_cbw_throttled = r->nr_throttled;
	stats.nr_cbw_set_aside = READ_ONCE(cbw_nr_set_aside);
	stats.nr_cbw_released = READ_ONCE(cbw_nr_released);
	stats.nr_cbw_cgroups = r->nr_cgroups;
	stats.nr_cbw_untracked = READ_ONCE(cbw_nr_untracked);
	stats.cbw_max_charge_ns = READ_ONCE(cbw_max_charge_ns);
	stats.cbw_max_overrun_ns = cbw_max_overrun_ns;
}

/* A cgroup's effective quota and chain from its parent's, and a fresh period. */
static __always_inline void cbw_refresh(struct cbw_cgrp *c, u64 id)
{
	struct cbw_cgrp *parent = c->parent_id ? cbw_lookup(c->parent_id) : NULL;
	u64 ub = POL_CBW_INF;

	if (parent)
		ub = parent->st.nquota_ub;
	pol_cbw_configure(&c->st, c->st.nquota, ub, c->st.nburst);
	/* (two calls: a pointer chosen by ?: can compile to arithmetic the verifier refuses) */
	if (parent)
		pol_cbw_chain_build(&c->chain, &parent->chain, id, c->st.nquota != POL_CBW_INF);
	else
		pol_cbw_chain_build(&c->chain, NULL, id, c->st.nquota != POL_CBW_INF);
	WRITE_ONCE(c->used_ns, 0);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(lavd_cgroup_init, struct cgroup *cgrp,
			     struct scx_cgroup_init_args *args)
{
	struct cbw_cgrp c = {};
	struct lavd_cgroup_bw bw;
	struct cgroup *parent;
	u64 id = cbw_cgroup_id(cgrp);
	s32 err;

	if (!enable_cpu_bw)
		return 0;
	if (cgrp->level > 0) {
		parent = bpf_cgroup_ancestor(cgrp, cgrp->level - 1);
		if (parent) {
			c.parent_id = cbw_cgroup_id(parent);
			bpf_cgroup_release(parent);
		}
	}
	lavd_cgroup_init_bw(args, &bw);
	c.st.nquota = pol_cbw_nquota(bw.quota_us, bw.period_us);
	c.st.nburst = pol_cbw_nburst(bw.burst_us, bw.period_us);
	cbw_refresh(&c, id);
	if (id != CBW_ROOT_CGID) {
		err = scx_bpf_create_dsq(CBW_DSQ(id), -1);
		c.has_dsq = !err || err == -17; /* -EEXIST: ours already */
	}
	/* Never fail a mkdir: a cgroup we cannot track is just not throttled. */
	if (bpf_map_update_elem(&cbw_cgrps, &id, &c, BPF_ANY)) {
		if (c.has_dsq)
			scx_bpf_destroy_dsq(CBW_DSQ(id));
		__sync_fetch_and_add(&cbw_nr_untracked, 1);
	}
	return 0;
}

void BPF_STRUCT_OPS(lavd_cgroup_exit, struct cgroup *cgrp)
{
	u64 id = cbw_cgroup_id(cgrp);
	struct cbw_cgrp *c = cbw_lookup(id);
	u32 has_dsq;

	if (!c)
		return;
	has_dsq = c->has_dsq;
	/* Gone from the map first: no enqueue can choose its DSQ after this. */
	bpf_map_delete_elem(&cbw_cgrps, &id);
	if (!has_dsq)
		return;
	/*
	 * Only exiting tasks can still be in a cgroup being removed, and we
	 * never throttle those; put back anything there anyway. Destroying a
	 * DSQ that holds tasks is an error that would unload us: keep it then.
	 */
	cbw_release(id);
	if (scx_bpf_dsq_nr_queued(CBW_DSQ(id)) == 0)
		scx_bpf_destroy_dsq(CBW_DSQ(id));
}

void BPF_STRUCT_OPS(lavd_cgroup_move, struct task_struct *p, struct cgroup *from,
		    struct cgroup *to)
{
	struct task_ctx *tc = get_task_ctx(p);

	if (enable_cpu_bw && tc)
		tc->cbw_cgid = cbw_cgroup_id(to);
}

/* The subtree of a cgroup whose cpu.max changed, parents before children. */
static __noinline int cbw_refresh_subtree(struct cgroup *cgrp)
{
	struct cgroup_subsys_state *pos;
	struct cbw_cgrp *c;
	u64 id;

	bpf_rcu_read_lock();
	bpf_for_each(css, pos, &cgrp->self, BPF_CGROUP_ITER_DESCENDANTS_PRE) {
		id = cbw_cgroup_id(pos->cgroup);
		c = cbw_lookup(id);
		if (c)
			cbw_refresh(c, id);
	}
	bpf_rcu_read_unlock();
	return 0;
}

void BPF_STRUCT_OPS(lavd_cgroup_set_bandwidth, struct cgroup *cgrp, u64 period_us,
		    u64 quota_us, u64 burst_us)
{
	u64 id = cbw_cgroup_id(cgrp);
	struct cbw_cgrp *c = cbw_lookup(id);

	if (!enable_cpu_bw || !c)
		return;
	c->st.nquota = pol_cbw_nquota(quota_us, period_us);
	c->st.nburst = pol_cbw_nburst(burst_us, period_us);
	/* Descendants' effective quotas and chains follow; all restart a period unthrottled. */
	cbw_refresh_subtree(cgrp);
	/* Its own set-aside tasks may run now; descendants' follow at the next round. */
	if (c->has_dsq && !cbw_chain_throttled(c))
		cbw_release(id);
}
