/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LAVD: Latency-criticality Aware Virtual Deadline scheduling, for sched_ext.
 *
 * The idea. Interactive work (a game frame, an audio buffer, a compositor)
 * is a chain of tasks that wake one another. A task in such a chain is woken
 * often, wakes others often and runs briefly; a batch job does none of that.
 * LAVD measures those three rates per task and turns them into a latency
 * criticality (src/policy/pol_task.h). Each runnable task gets a virtual
 * deadline: a logical clock plus its expected runtime *divided* by its
 * criticality, so a task ten times as critical is due ten times sooner
 * (src/policy/pol_deadline.h). CPUs run the earliest deadline first.
 * Fairness comes from a penalty on tasks that received more service than
 * their peers, and from time slices: a 10 ms latency budget shared among the
 * waiting tasks (src/policy/pol_sys.h).
 *
 * The layout. The arithmetic and every decision that does not need the
 * kernel live in src/policy/, pure C tested on the host and proven to compute
 * the same under BPF. This file and the ones it includes are the glue:
 *   task.bpf.c      task life cycle, statistics, deadlines and slices
 *   idle.bpf.c      idle CPU selection
 *   preempt.bpf.c   preempting the least critical CPU for a waking task
 *   lock.bpf.c      futex lock holders
 *   dsq.bpf.c       select_cpu, enqueue, dispatch: one queue per LLC
 *   sys_stat.bpf.c  the 10 ms statistics timer
 *   power.bpf.c     core compaction, power modes, big/little, cpufreq
 *   cgroup_bw.bpf.c cgroup CPU bandwidth (cpu.max), with --enable-cpu-bw
 * It is a single translation unit because bpftool cannot link objects that
 * repeat kfunc declarations.
 */
#include "lavd.bpf.h"
/*
 * power first: idle uses it; idle before cgroup_bw, which uses it; task and
 * dsq call both.
 */
#include "power.bpf.c"
#include "idle.bpf.c"
#include "cgroup_bw.bpf.c"
#include "task.bpf.c"
#include "preempt.bpf.c"
#include "lock.bpf.c"
#include "dsq.bpf.c"
#include "sys_stat.bpf.c"

char _license[] SEC("license") = "GPL";

s32 BPF_STRUCT_OPS_SLEEPABLE(lavd_init)
{
	struct pol_cfg cfg = lavd_cfg();
	s32 cpu, llc, err;

	pol_sys_init(&sys, &cfg, nr_cpus_onln);
	nr_cpu_ids_kern = scx_bpf_nr_cpu_ids();

	bpf_for(llc, 0, LAVD_MAX_LLCS) {
		struct llc_mask_val *v;
		u32 key = llc;

		if (llc >= nr_llcs)
			break;
		err = scx_bpf_create_dsq(LLC_DSQ(llc), -1);
		if (err) {
			scx_bpf_error("failed to create DSQ %d (%d)", llc, err);
			return err;
		}
		v = bpf_map_lookup_elem(&llc_masks, &key);
		if (!v || install_cpumask(&v->mask)) {
			scx_bpf_error("no memory for LLC mask");
			return -12;
		}
	}

	{
		struct llc_mask_val *v;
		u32 key = 0;

		v = bpf_map_lookup_elem(&steady_mask_map, &key);
		if (!v || install_cpumask(&v->mask)) {
			scx_bpf_error("no memory for the steady mask");
			return -12;
		}
	}

	bpf_for(cpu, 0, LAVD_MAX_CPUS) {
		struct bpf_cpumask *lm, *sm;
		struct cpu_mask_val *v;
		u32 key = cpu;

		if (cpu >= nr_cpu_ids_cfg)
			break;
		v = bpf_map_lookup_elem(&cpu_masks, &key);
		if (!v || install_cpumask(&v->tmp) || install_cpumask(&v->tmp2)) {
			scx_bpf_error("no memory for CPU mask");
			return -12;
		}

		if (!cpu_is_known(cpu))
			continue;
		llc = cpu_to_llc(cpu);
		bpf_rcu_read_lock();
		lm = llc_mask(llc);
		if (lm)
			bpf_cpumask_set_cpu(cpu, lm);
		sm = steady_mask();
		if (sm)
			bpf_cpumask_set_cpu(cpu, sm);
		bpf_rcu_read_unlock();
		if (llc_dom(llc))
			llc_dom(llc)->nr_cpus++;
	}

	err = pw_init();
	if (err)
		return err;
	return start_stat_timer();
}

void BPF_STRUCT_OPS(lavd_exit, struct scx_exit_info *ei)
{
	s64 kind = ei->kind;

	LAVD_EXIT_RECORD(uei, uei_dump, ei);
	/* After uei is written: the loader reads it when woken. */
	bpf_ringbuf_output(&exit_rb, &kind, sizeof(kind), 0);
}

SEC(".struct_ops.link")
struct sched_ext_ops lavd_ops = {
	.select_cpu	= (void *)lavd_select_cpu,
	.enqueue	= (void *)lavd_enqueue,
	.update_idle	= (void *)lavd_update_idle,
	.dispatch	= (void *)lavd_dispatch,
	.runnable	= (void *)lavd_runnable,
	.running	= (void *)lavd_running,
	.tick		= (void *)lavd_tick,
	.stopping	= (void *)lavd_stopping,
	.init_task	= (void *)lavd_init_task,
	.exit_task	= (void *)lavd_exit_task,
	.enable		= (void *)lavd_enable,
	.disable	= (void *)lavd_disable,
	/* cleared by the loader unless --enable-cpu-bw */
	.cgroup_init	= (void *)lavd_cgroup_init,
	.cgroup_exit	= (void *)lavd_cgroup_exit,
	.cgroup_move	= (void *)lavd_cgroup_move,
	.cgroup_set_bandwidth = (void *)lavd_cgroup_set_bandwidth,
	.init		= (void *)lavd_init,
	.exit		= (void *)lavd_exit,
	.timeout_ms	= 30000,
	.name		= "lavd",
};
