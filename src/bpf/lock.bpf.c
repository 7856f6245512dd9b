/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lock.bpf.c - user-space lock holders, seen through futex system calls.
 *
 * A task that got a lock (its futex wait returned 0) is not preempted and,
 * if its slice runs out while it still holds it, gets one refill so it can
 * release the lock before others pile up behind it. Waking waiters is a
 * release. The op in flight (system-call tracepoints only) is kept per
 * task (upstream keeps it per CPU, where a blocking wait that returns on
 * another CPU, or another task's call, overwrites it: observation O11). The
 * lock state is the CPU's, for the current run only (futex_event), so
 * nothing leaks when a task dies or a call fails.
 *
 * Two ways to see the calls, both loaded only without --no-futex-boost:
 * fexit probes on the kernel's futex functions (as upstream prefers) or,
 * when the kernel's BTF lacks __futex_wait or futex_wake, the futex
 * system-call tracepoints. The loader picks the set from the BTF before
 * loading and always loads the tracepoints too: if __futex_wait's or
 * futex_wake's probe then fails to attach, it detaches the probes and
 * attaches the tracepoints (another probe that fails is only reported:
 * that call goes untracked). Only one set is ever attached, so no call is
 * counted twice. The probes cost only futex calls. An
 * attached system-call tracepoint puts every system call of every task on
 * the slow tracing path: in the VM, lavd-schbench at saturation did 4.5 %
 * fewer requests per second with the tracepoints than with no tracking.
 */

struct sys_enter_args {
	unsigned long long pad;
	long id;
	unsigned long args[6];
};

struct sys_exit_args {
	unsigned long long pad;
	long id;
	long ret;
};

/*
 * The lock state lives in the CPU's run flags, not in the task: a futex call
 * returns in the caller's context, on the CPU it runs on, between that
 * run's ops.running (which clears the flag) and its ops.stopping (which
 * reads it for the boost). That saves a task-storage lookup per futex call:
 * the probes fire on every futex call of every task, ~2.7 per context
 * switch in lavd-schbench at saturation. The probe may be preempted between
 * reading the flags and setting them, but it only resumes once its task is
 * current again, after a new ops.running, so it never marks another task's
 * run. Calls by tasks not ours (the CPU is not ACTIVE) are ignored.
 */
static __always_inline void futex_event(enum pol_futex_event ev)
{
	struct cpu_ctx *cc = get_cpu_ctx(bpf_get_smp_processor_id());
	u32 flags;

	if (!cc || ev == POL_FUTEX_NONE)
		return;
	flags = READ_ONCE(cc->run_flags);
	if (!(flags & POL_RUN_ACTIVE))
		return;
	if (ev == POL_FUTEX_ACQUIRE) {
		cc->tot_lock_acquire++;
		/* It is running here now: protect it from preemption at once. */
		if (!(flags & POL_RUN_LOCK_HOLDER))
			__sync_fetch_and_or(&cc->run_flags, POL_RUN_LOCK_HOLDER);
	} else if (flags & POL_RUN_LOCK_HOLDER) {
		__sync_fetch_and_and(&cc->run_flags, ~(u32)POL_RUN_LOCK_HOLDER);
	}
}

SEC("?tracepoint/syscalls/sys_enter_futex")
int lavd_futex_enter(struct sys_enter_args *ctx)
{
	struct task_ctx *tc = get_task_ctx(bpf_get_current_task_btf());

	if (tc)
		tc->futex_op = (u32)(ctx->args[1] & POL_FUTEX_CMD_MASK) + 1;
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_futex")
int lavd_futex_exit(struct sys_exit_args *ctx)
{
	struct task_ctx *tc = get_task_ctx(bpf_get_current_task_btf());
	u32 op;

	if (!tc || !tc->futex_op)
		return 0;
	op = tc->futex_op - 1;
	tc->futex_op = 0;
	futex_event(pol_futex_classify(op, ctx->ret));
	return 0;
}

/* futex_wait(2), futex_waitv(2), futex_wake(2): the newer single-purpose calls. */
SEC("?tracepoint/syscalls/sys_exit_futex_wait")
int lavd_futex_wait_exit(struct sys_exit_args *ctx)
{
	futex_event(ctx->ret == 0 ? POL_FUTEX_ACQUIRE : POL_FUTEX_NONE);
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_futex_waitv")
int lavd_futex_waitv_exit(struct sys_exit_args *ctx)
{
	futex_event(ctx->ret >= 0 ? POL_FUTEX_ACQUIRE : POL_FUTEX_NONE);
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_futex_wake")
int lavd_futex_wake_exit(struct sys_exit_args *ctx)
{
	futex_event(ctx->ret >= 0 ? POL_FUTEX_RELEASE : POL_FUTEX_NONE);
	return 0;
}

/*
 * Kernel-function probes. Each function stands for the futex(2) command
 * that reaches it.
 *
 * A wait is an acquire only if it returned 0, so the wait side needs fexit,
 * whose return value is read with bpf_get_func_ret (the functions' argument
 * lists change between kernels, 7.x added futex_wake's "pop"; their int
 * return does not), and one classification (pol_futex_classify) serves the
 * probes and the tracepoints.
 *
 * The wake side is a release whatever the call returns: user space gave
 * the lock word back before it asked the kernel to wake waiters (and a
 * failed FUTEX_UNLOCK_PI was called by a task that did not own the lock).
 * So it uses fentry, which the kernel calls without calling the function
 * from the trampoline: an fexit trampoline also calls the original function
 * itself, between two more calls that pin the trampoline image. Wakes are
 * the most frequent futex calls: lavd-schbench at saturation makes ~1.7
 * per context switch, against ~1 wait.
 */
static __always_inline s64 fexit_ret(u64 *ctx)
{
	u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return (s32)ret;
}

/* An fexit probe on kernel function fn, classified as futex(2) command cmd. */
#define FUTEX_FEXIT(name, fn, cmd)							\
	SEC("?fexit/" #fn)								\
	int name(u64 *ctx)								\
	{										\
		futex_event(pol_futex_classify(cmd, fexit_ret(ctx)));			\
		return 0;								\
	}

/* An fentry probe on kernel function fn, a lock release. */
#define FUTEX_FENTRY_RELEASE(name, fn)							\
	SEC("?fentry/" #fn)								\
	int name(u64 *ctx)								\
	{										\
		futex_event(POL_FUTEX_RELEASE);						\
		return 0;								\
	}

/* FUTEX_WAIT, FUTEX_WAIT_BITSET and futex_wait(2) all end in __futex_wait. */
FUTEX_FEXIT(lavd_fx_wait, __futex_wait, POL_FUTEX_WAIT)
FUTEX_FEXIT(lavd_fx_wait_requeue_pi, futex_wait_requeue_pi, POL_FUTEX_WAIT_REQUEUE_PI)
FUTEX_FEXIT(lavd_fx_lock_pi, futex_lock_pi, POL_FUTEX_LOCK_PI)
/* FUTEX_WAKE, FUTEX_WAKE_BITSET and futex_wake(2). */
FUTEX_FENTRY_RELEASE(lavd_fx_wake, futex_wake)
FUTEX_FENTRY_RELEASE(lavd_fx_wake_op, futex_wake_op)
/* FUTEX_REQUEUE and FUTEX_CMP_REQUEUE wake (or move) waiters: a release. */
FUTEX_FENTRY_RELEASE(lavd_fx_requeue, futex_requeue)
FUTEX_FENTRY_RELEASE(lavd_fx_unlock_pi, futex_unlock_pi)

/* futex_waitv(2): the index of the futex that woke it, or an error. */
SEC("?fexit/futex_wait_multiple")
int lavd_fx_wait_multiple(u64 *ctx)
{
	futex_event(fexit_ret(ctx) >= 0 ? POL_FUTEX_ACQUIRE : POL_FUTEX_NONE);
	return 0;
}

/*
 * In ops.dispatch: prev's slice ran out while it holds a lock. Refill it
 * once and keep it running. Returns true if it did.
 */
static __always_inline bool keep_lock_holder(struct task_struct *prev, struct cpu_ctx *cc)
{
	/* Before ops.stopping: the run flags are still prev's (see futex_event). */
	if (!prev || !cc || (pol_flags & POL_CFG_NO_FUTEX_BOOST) ||
	    !(prev->scx.flags & SCX_TASK_QUEUED) ||
	    !(READ_ONCE(cc->run_flags) & POL_RUN_LOCK_HOLDER) || cc->lock_refilled)
		return false;
	cc->lock_refilled = 1;
	lavd_set_slice(prev, READ_ONCE(sys.slice_ns));
	cc->tot_lock_boost++;
	return true;
}
