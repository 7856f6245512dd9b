/* SPDX-License-Identifier: GPL-2.0 */
/*
 * main.c - scx_lavd: load the LAVD BPF scheduler, attach it, report, unload.
 *
 * open skeleton -> topology and options into rodata -> load (verifier) ->
 * attach struct_ops (the kernel switches tasks to us) -> wait for a signal,
 * the run time, or the kernel disabling us -> report exit info -> restart if
 * the kernel asked for it (CPU hotplug), else exit.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "../common/intf.h"
#include "../policy/pol.h"
#include "lavd.skel.h"
#include "cpu_order.h"
#include "opts.h"
#include "power.h"
#include "prog_cost.h"
#include "topo.h"

#define SCX_SYSFS		"/sys/kernel/sched_ext"
#define CPU_SYSFS		"/sys/devices/system/cpu"
#define EM_DEBUGFS		"/sys/kernel/debug/energy_model"
#define PPD_STATE		"/var/lib/power-profiles-daemon/state.ini"
#define SCX_OPS_KEEP_BUILTIN_IDLE	(1ULL << 0)
#define SCX_OPS_ENQ_LAST	(1ULL << 1)
#define SCX_OPS_SWITCH_PARTIAL	(1ULL << 3)
#define SCX_ECODE_ACT_RESTART	(1ULL << 48)
#define SCX_EXIT_UNREG_KERN	66
#define SCX_EXIT_SYSRQ		67
#define SCX_EXIT_ERROR		1024
#define MAX_RESTARTS		16

static volatile sig_atomic_t exiting;
static bool verbose;
static enum opts_log log_level = OPTS_LOG_INFO;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose && log_level < OPTS_LOG_DEBUG)
		return 0;
	if (level == LIBBPF_INFO && log_level < OPTS_LOG_INFO)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* Refuse early, with a reason a user can act on. Returns 0 if we can go ahead. */
static int check_system(void)
{
	char state[64], ops[256];

	if (geteuid() != 0) {
		fprintf(stderr, "scx_lavd: must run as root (loading a BPF scheduler needs CAP_SYS_ADMIN)\n");
		return -1;
	}
	if (access(SCX_SYSFS, F_OK)) {
		fprintf(stderr, "scx_lavd: this kernel has no sched_ext (%s missing): "
			"a kernel with CONFIG_SCHED_CLASS_EXT=y is needed (6.13 or later)\n",
			SCX_SYSFS);
		return -1;
	}
	if (read_sysfs(SCX_SYSFS "/state", state, sizeof(state))) {
		fprintf(stderr, "scx_lavd: cannot read %s/state: %s\n", SCX_SYSFS, strerror(errno));
		return -1;
	}
	if (strcmp(state, "disabled")) {
		if (read_sysfs(SCX_SYSFS "/root/ops", ops, sizeof(ops)))
			snprintf(ops, sizeof(ops), "unknown");
		fprintf(stderr, "scx_lavd: another sched_ext scheduler is active (state '%s', ops '%s'): "
			"stop it first\n", state, ops);
		return -1;
	}
	return 0;
}

/* Does the kernel's BTF have struct `st` with a member `member`? */
static bool btf_has_member(const struct btf *btf, const char *st, const char *member)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id = btf__find_by_name_kind(btf, st, BTF_KIND_STRUCT);

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (name && !strcmp(name, member))
			return true;
	}
	return false;
}

/*
 * Futex tracking: probes on the kernel's futex functions (fexit on the
 * waits, fentry on the wakes: lock.bpf.c) when its BTF has them (only
 * futex calls pay), else the system-call tracepoints (every system call
 * pays while they are attached: lock.bpf.c).
 */
struct futex_probe {
	struct bpf_program *prog;
	const char *func;	/* kernel function of a probe; NULL: a tracepoint */
	bool essential;		/* without it the probes see no lock: use the tracepoints */
	struct bpf_link *link;
};

/*
 * LAVD_FUTEX_TRACEPOINTS, for tests of the fallbacks: "1" chooses the
 * tracepoints before loading (as a kernel whose BTF lacks the functions
 * does); "fallback" loads the probes and then treats the essential ones as
 * failing to attach.
 */
static bool futex_forced(const char *how)
{
	const char *force = getenv("LAVD_FUTEX_TRACEPOINTS");

	return force && !strcmp(force, how);
}

static bool btf_has_func(const struct btf *btf, const char *func)
{
	return btf && btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) >= 0;
}

/*
 * Sets autoload; returns true if the kernel-function probes were chosen. The
 * tracepoint programs are loaded either way (small, a fraction of a second
 * of verifier time): they are the fallback when an essential probe loads
 * but cannot attach (futex_attach).
 */
static bool futex_choose(struct futex_probe *fp, int n, bool off)
{
	struct btf *btf = off ? NULL : btf__load_vmlinux_btf();
	bool probes = btf && !futex_forced("1");

	/* One BTF lookup per probe: a probe whose function is missing cannot load. */
	for (int i = 0; i < n; i++) {
		bool load = !off && (!fp[i].func || btf_has_func(btf, fp[i].func));

		bpf_program__set_autoload(fp[i].prog, load);
		if (fp[i].func && fp[i].essential && !load)
			probes = false;
	}
	/* Without an essential probe (or told to) the tracepoints serve alone. */
	for (int i = 0; i < n && !probes; i++)
		if (fp[i].func)
			bpf_program__set_autoload(fp[i].prog, false);
	btf__free(btf);
	return probes;
}

/*
 * Detaches what futex_attach attached. The links would outlive the
 * skeleton: after a restart the old run's probes kept running on every
 * futex call until the loader exited.
 */
static void futex_detach(struct futex_probe *fp, int n)
{
	for (int i = 0; i < n; i++) {
		bpf_link__destroy(fp[i].link);
		fp[i].link = NULL;
	}
}

/*
 * Attaches the loaded programs of one set (kernel-function probes or tracepoints).
 * Returns how many attached; *essential_failed tells whether a probe the
 * set cannot do without did not, and then the set is detached again.
 */
static int futex_attach(struct futex_probe *fp, int n, bool probes, int *loaded,
			bool *essential_failed)
{
	int attached = 0;

	*loaded = 0;
	*essential_failed = false;
	for (int i = 0; i < n; i++) {
		if (!fp[i].func != !probes || !bpf_program__autoload(fp[i].prog))
			continue;
		(*loaded)++;
		if (fp[i].essential && futex_forced("fallback")) {
			fp[i].link = NULL;
			errno = ECANCELED;	/* the test's pretended failure */
		} else {
			fp[i].link = bpf_program__attach(fp[i].prog);
		}
		if (fp[i].link) {
			attached++;
			continue;
		}
		fprintf(stderr, "scx_lavd: note: %s not attached (%s): that futex call is not tracked\n",
			bpf_program__name(fp[i].prog), strerror(errno));
		if (fp[i].essential)
			*essential_failed = true;
	}
	if (*essential_failed) {
		futex_detach(fp, n);
		attached = 0;
	}
	return attached;
}

/*
 * cgroup bandwidth needs ops.cgroup_set_bandwidth and the bw_* fields of
 * the cgroup init arguments (6.17+). Returns NULL if the kernel has them,
 * else why not.
 */
static const char *cpu_bw_unsupported(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const char *why = NULL;

	if (!btf)
		return "cannot read the kernel's BTF";
	if (!btf_has_member(btf, "sched_ext_ops", "cgroup_set_bandwidth"))
		why = "sched_ext has no ops.cgroup_set_bandwidth (kernel 6.17 or later needed)";
	else if (!btf_has_member(btf, "scx_cgroup_init_args", "bw_quota_us"))
		why = "sched_ext passes no cpu.max to ops.cgroup_init (kernel 6.17 or later needed)";
	btf__free(btf);
	return why;
}

/*
 * Without --enable-cpu-bw (or a kernel for it) the cgroup callbacks are not
 * registered at all: the kernel then neither calls them nor, for a kernel
 * that lacks some, refuses the program.
 */
static void drop_cgroup_ops(struct lavd *skel)
{
	skel->struct_ops.lavd_ops->cgroup_init = NULL;
	skel->struct_ops.lavd_ops->cgroup_exit = NULL;
	skel->struct_ops.lavd_ops->cgroup_move = NULL;
	skel->struct_ops.lavd_ops->cgroup_set_bandwidth = NULL;
	bpf_program__set_autoload(skel->progs.lavd_cgroup_init, false);
	bpf_program__set_autoload(skel->progs.lavd_cgroup_exit, false);
	bpf_program__set_autoload(skel->progs.lavd_cgroup_move, false);
	bpf_program__set_autoload(skel->progs.lavd_cgroup_set_bandwidth, false);
	/* nor the memory of a cgroup table nobody fills */
	bpf_map__set_max_entries(skel->maps.cbw_cgrps, 1);
}

static void fill_rodata(struct lavd *skel, const struct topo *t, const struct opts *o)
{
	struct lavd__rodata *ro = skel->rodata;
	u32 flags = 0;

	ro->nr_cpu_ids_cfg = t->nr_cpu_ids;
	ro->nr_cpus_onln = t->nr_online;
	ro->nr_llcs = t->nr_llcs;
	ro->smt_on = t->smt;
	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		ro->cpu_known[cpu] = t->online[cpu];
		ro->cpu_llc[cpu] = t->llc[cpu] >= 0 ? t->llc[cpu] : 0;
	}
	ro->slice_min_ns = o->slice_min_us * POL_NSEC_PER_USEC;
	ro->slice_max_ns = o->slice_max_us * POL_NSEC_PER_USEC;
	ro->preempt_shift = o->preempt_shift;
	if (o->no_slice_boost)
		flags |= POL_CFG_NO_SLICE_BOOST;
	if (o->no_preemption)
		flags |= POL_CFG_NO_PREEMPTION;
	if (o->no_wake_sync)
		flags |= POL_CFG_NO_WAKE_SYNC;
	if (o->no_futex_boost)
		flags |= POL_CFG_NO_FUTEX_BOOST;
	ro->pol_flags = flags;
	ro->verbose = o->verbose;
	ro->preempt_kick = o->preempt_kick;
	ro->warm_cpu_ns = o->warm_cpu_us * POL_NSEC_PER_USEC;
	ro->pinned_slice_ns = o->pinned_slice_us * POL_NSEC_PER_USEC;
	ro->mig_delta_pct = o->mig_delta_pct;
	ro->enable_cpu_bw = o->enable_cpu_bw;
	ro->cbw_loader_tgid = getpid();		/* never throttled */
}

_Static_assert(LAVD_PCO_MAX == POL_PCO_MAX, "the loader's and the policy's table sizes differ");

static u32 fixed_mode(const struct opts *o)
{
	switch (o->power) {
	case OPTS_PM_PERFORMANCE: return POL_PM_PERFORMANCE;
	case OPTS_PM_BALANCED: return POL_PM_BALANCED;
	case OPTS_PM_POWERSAVE: return POL_PM_POWERSAVE;
	default: return POL_PM_NR;	/* the autopilot, or --autopower through pm_request */
	}
}

/*
 * Capacities, CPU types and the PCO tables (cpu_order.c) into the BPF
 * object, with the autopilot's bounds. Every table row lists every online
 * CPU (primaries first), which the BPF walk relies on.
 */
static void fill_power(struct lavd *skel, const struct topo *t, const struct cpu_order *co,
		       const struct opts *o)
{
	struct lavd__rodata *ro = skel->rodata;
	struct lavd__bss *bss = skel->bss;
	struct pol_pm_bounds b;
	u32 min_cap = POL_SCALE;
	u64 total = 0;

	for (int cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		if (!t->online[cpu])
			continue;
		ro->cap_of_cpu[cpu] = co->cap[cpu];
		ro->big_cpu[cpu] = co->big[cpu];
		min_cap = min_cap < co->cap[cpu] ? min_cap : co->cap[cpu];
		total += co->cap[cpu];
	}
	ro->big_little = co->big_little;
	ro->pm_fixed = fixed_mode(o);
	ro->no_core_compaction = o->no_core_compaction;
	ro->no_freq_scaling = o->no_freq_scaling;
	ro->pco_nr_states = co->nr_states;
	for (int i = 0; i < LAVD_PCO_MAX; i++) {
		int row = i < co->nr_states ? i : co->nr_states - 1;

		bss->pco_bounds[i] = co->bound[row];
		for (int pos = 0; pos < co->nr_cpus; pos++) {
			int cpu = co->table[row][pos];

			bss->pco_cpus[i][pos] = cpu;
			bss->pco_caps[i].cap[pos] = co->cap[cpu];
		}
	}
	b = co->has_em ? pol_pm_bounds_em(co->bound, co->nr_states) :
			 pol_pm_bounds_noem(min_cap, total, t->smt);
	ro->pm_low_cap = b.low;
	ro->pm_high_cap = b.high;
}

static const char *mode_name(unsigned long long m)
{
	static const char *const names[] = { "performance", "balanced", "powersave" };

	return m < 3 ? names[m] : "-";
}

/* --autopower: what the system asks for now, into pm_request (POL_PM_NR: the autopilot). */
static void follow_power_profile(struct lavd *skel, int *last)
{
	const char *src;
	int m = power_profile_mode(PPD_STATE, CPU_SYSFS, &src);

	if (m != *last)
		printf("scx_lavd: power profile: %s (from %s)%s\n", m >= 0 ? mode_name(m) : "unknown",
		       src, m >= 0 ? "" : ": the autopilot decides");
	*last = m;
	skel->data->pm_request = m >= 0 ? (u32)m : POL_PM_NR;
}

static void print_stats_header(void)
{
	printf("%8s %9s %7s %7s %7s %7s %6s %6s %8s %9s %9s %5s %7s %7s %-11s\n", "SEQ", "SCHED",
	       "LAT-CR%", "SLICEus", "AVG-LC", "THR-LC", "UTIL%", "QUEUED", "XLLC", "PREEMPT",
	       "MAXWAITus", "TURB", "TASKS", "ACT-CPU", "POWER");
}

/* One line of statistics: s now, against prev (updated to s). */
static void print_stats_row(const struct lavd_stats *now, struct lavd_stats *prev)
{
	struct lavd_stats s = *now;
	unsigned long long ds = s.nr_sched - prev->nr_sched;
	unsigned long long dl = s.nr_sched_lat_cri - prev->nr_sched_lat_cri;

	printf("%8llu %9llu %7.1f %7llu %7llu %7llu %6.1f %6llu %8llu %9llu %9llu %5llu %7llu %7llu %-11s\n",
	       s.seq, ds, ds ? 100.0 * dl / ds : 0.0, s.slice_ns / 1000, s.avg_lat_cri,
	       s.thr_lat_cri, 100.0 * s.avg_util / 1024, s.nr_queued,
	       s.nr_xllc_steal - prev->nr_xllc_steal, s.nr_preempt - prev->nr_preempt,
	       s.cur_max_wait_ns / 1000, s.nr_turbulent, s.nr_tasks, s.nr_active,
	       mode_name(s.power_mode));
	fflush(stdout);
	*prev = s;
}

static void print_stats(struct lavd *skel, struct lavd_stats *prev)
{
	struct lavd_stats s = skel->bss->stats;

	skel->bss->stats.cur_max_wait_ns = 0;
	print_stats_row(&s, prev);
}

/*
 * --monitor: the statistics of an scx_lavd that is already running, read
 * from its .bss map (found by name and size: the map also holds static
 * variables after the skeleton's struct, so it is at least that large).
 * Read-only: the running loader keeps resetting the
 * interval maximum, so MAXWAITus is the longest wait since its last
 * --stats line, or since it started. Ends when the scheduler does.
 */
static int find_lavd_bss(__u32 *value_size)
{
	__u32 id = 0, best_id = 0;
	int best = -1;

	while (!bpf_map_get_next_id(id, &id)) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_map_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, "lavd.bss") &&
		    info.value_size >= sizeof(struct lavd__bss) && id > best_id) {
			if (best >= 0)
				close(best);
			best = fd;
			best_id = id;
			*value_size = info.value_size;
			continue;
		}
		close(fd);
	}
	return best;
}

static int monitor(double secs)
{
	struct lavd__bss *bss;
	struct lavd_stats prev;
	__u32 size = 0;
	char state[64];
	int fd, key = 0;

	fd = find_lavd_bss(&size);
	if (fd < 0) {
		fprintf(stderr, "scx_lavd: --monitor: no running scx_lavd found%s\n",
			errno == EPERM ? " (reading BPF maps needs root)" : "");
		return 1;
	}
	bss = calloc(1, size);
	if (!bss || bpf_map_lookup_elem(fd, &key, bss)) {
		fprintf(stderr, "scx_lavd: --monitor: cannot read the running scx_lavd's statistics: %s\n",
			strerror(errno));
		free(bss);
		close(fd);
		return 1;
	}
	prev = bss->stats;
	print_stats_header();
	while (!exiting) {
		usleep((useconds_t)(secs * 1e6));
		if (exiting)
			break;
		if (read_sysfs(SCX_SYSFS "/state", state, sizeof(state)) || strcmp(state, "enabled") ||
		    bpf_map_lookup_elem(fd, &key, bss) || bss->uei.kind) {
			printf("scx_lavd: monitor: the scheduler is gone\n");
			break;
		}
		print_stats_row(&bss->stats, &prev);
	}
	close(fd);
	free(bss);
	return 0;
}

static const char *via_name(unsigned int via)
{
	static const char *const names[LAVD_VIA_NR] = {
		[LAVD_VIA_NONE] = "none",	[LAVD_VIA_DIRECT] = "direct",
		[LAVD_VIA_IDLE] = "idle",	[LAVD_VIA_PINNED] = "pinned",
		[LAVD_VIA_WARM] = "warm",	[LAVD_VIA_LLC] = "llc",
		[LAVD_VIA_CBW] = "cpu.max",
	};

	return via < LAVD_VIA_NR ? names[via] : "?";
}

/*
 * Tasks our own counters say are queued (the LLC load the balancer and core
 * compaction read), while still attached: at the end of a run on an idle
 * machine this is a handful at most. A task that left a queue without being
 * uncounted would stay in it for good (tests/vm/stress.sh checks it after
 * affinity, nice and policy churn).
 */
static unsigned long long queued_counted(const struct lavd *skel)
{
	unsigned long long n = 0;

	for (u32 i = 0; i < skel->rodata->nr_llcs && i < LAVD_MAX_LLCS; i++)
		n += skel->bss->llc_doms[i].nr_queued;
	return n;
}

/*
 * live: the statistics read while the scheduler was still attached. The
 * cgroup gauges come from it: unloading exits every cgroup first.
 * queued_left and affn_left were read then too (queued_counted).
 */
static void print_summary(struct lavd *skel, const struct lavd_stats *live,
			  unsigned long long queued_left, unsigned long long affn_left)
{
	struct lavd_stats s = skel->bss->stats;
	struct lavd_wait_rec *w = &s.max_wait;

	printf("scx_lavd: summary: rounds=%llu sched=%llu lat_critical=%llu direct=%llu sync_local=%llu "
	       "local_picks=%llu xllc_steal=%llu plan_steal=%llu preempt=%llu preempt_ipi=%llu irq_wakeups=%llu "
	       "softirq_wakeups=%llu irq_by=%s revoke=%llu lock_acquire=%llu lock_boost=%llu "
	       "turbulent_placements=%llu warm_waits=%llu max_wait_us=%llu slice_us=%llu avg_lat_cri=%llu "
	       "max_lat_cri=%llu max_wait_task=%.16s/%llu max_round_gap_us=%llu tick_us=%llu "
	       "queued_left=%llu affn_left=%llu\n",
	       s.seq, s.nr_sched, s.nr_sched_lat_cri, s.nr_direct, s.nr_sync_local,
	       s.nr_local_pick, s.nr_xllc_steal, s.nr_plan_steal,
	       s.nr_preempt, s.nr_preempt_ipi, s.nr_irq_wake, s.nr_softirq_wake,
	       s.irq_by_count ? "preempt_count" : "idle_signature",
	       s.nr_revoke, s.nr_lock_acquire, s.nr_lock_boost, s.nr_turb_place, s.nr_warm_wait,
	       w->wait_ns / 1000, s.slice_ns / 1000, s.avg_lat_cri, s.max_lat_cri,
	       w->pid ? w->comm : "-", w->pid, s.max_round_gap_ns / 1000,
	       (unsigned long long)pol_tick_period(skel->bss->tick_state) / 1000,
	       queued_left, affn_left);
	printf("scx_lavd: power: mode=%s active_cpus=%llu overflow_cpus=%llu pco_state=%llu "
	       "use_cap=%llu req_cap=%llu mode_ms=%llu/%llu/%llu mode_switches=%llu sched_big=%llu "
	       "sched_perf_cri=%llu thr_perf_cri=%llu cpuperf_sets=%llu\n",
	       mode_name(s.power_mode), s.nr_active, s.nr_overflow, s.pco_state, s.use_cap,
	       s.req_cap, s.mode_ms[0], s.mode_ms[1], s.mode_ms[2], s.nr_mode_switch, s.nr_sched_big,
	       s.nr_sched_perf_cri, s.thr_perf_cri, s.nr_cpuperf_set);
	/* What explains the longest wait: where it waited, how its deadline stood. */
	if (w->pid)
		printf("scx_lavd: max_wait: via=%s enqueues=%u deadline_ahead_us=%lld "
		       "behind_at_run_us=%lld lat_cri=%u weight=%u queue_at_enqueue=%u queue_at_run=%u ran_meanwhile=%llu\n",
		       via_name(w->via), w->nr_enq, w->ahead_ns / 1000, w->behind_ns / 1000,
		       w->lat_cri, w->weight, w->depth_enq, w->depth_run, w->ran_ahead);
	if (skel->rodata->enable_cpu_bw)
		printf("scx_lavd: cpu_bw: throttle_events=%llu throttled_cgroups=%llu set_aside=%llu "
		       "released=%llu cgroups=%llu untracked=%llu max_charge_us=%llu max_overrun_us=%llu\n",
		       s.nr_cbw_throttle, live->nr_cbw_throttled, s.nr_cbw_set_aside,
		       s.nr_cbw_released, live->nr_cbw_cgroups, s.nr_cbw_untracked,
		       s.cbw_max_charge_ns / 1000, s.cbw_max_overrun_ns / 1000);
	fflush(stdout);
}

/* ops.exit's record: uei says the rest; the poll's return ends the wait. */
static int on_exit_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * --virt-llc: cut the LLCs into virtual ones (topo_split_llcs), by core
 * type, which the first CPU order gave; then build the orders again, which
 * group CPUs by LLC. On an error t and co are freed.
 */
static int split_llcs(struct topo *t, struct cpu_order *co, const struct opts *o)
{
	int nr_real = t->nr_llcs;
	char err[256];

	if (topo_split_llcs(t, co->big, o->virt_llc_min, o->virt_llc_max, err, sizeof(err)) ||
	    cpu_order_build(co, t, CPU_SYSFS, EM_DEBUGFS, !o->no_use_em, err, sizeof(err))) {
		fprintf(stderr, "scx_lavd: --virt-llc: %s\n", err);
		free(co);
		free(t);
		return -1;
	}
	printf("scx_lavd: --virt-llc=%d-%d: %d LLC%s split into %d virtual LLC%s\n",
	       o->virt_llc_min, o->virt_llc_max, nr_real, nr_real > 1 ? "s" : "", t->nr_llcs,
	       t->nr_llcs > 1 ? "s" : "");
	return 0;
}

/*
 * One load-attach-run cycle. Returns 0 on a clean exit, 1 on a scheduler
 * error, 2 on a set-up failure; *restart is set when the kernel asks for one.
 */
static int run_once(const struct opts *o, bool *restart)
{
	struct bpf_link *link = NULL;
	struct ring_buffer *exit_rb;
	struct lavd_stats prev = {};
	unsigned long long queued_left, affn_left;
	struct cpu_order *co = NULL;
	struct lavd *skel;
	struct topo *t;
	char err[256], seq[32];
	double start, next_stats, next_profile;
	int ret = 2, profile = -2, stats_fd = -1;

	*restart = false;
	t = calloc(1, sizeof(*t));
	if (!t) {
		fprintf(stderr, "scx_lavd: out of memory\n");
		return 2;
	}
	if (topo_read(t, CPU_SYSFS, err, sizeof(err))) {
		fprintf(stderr, "scx_lavd: topology: %s\n", err);
		free(t);
		return 2;
	}
	co = calloc(1, sizeof(*co));
	if (!co) {
		fprintf(stderr, "scx_lavd: out of memory\n");
		free(t);
		return 2;
	}
	if (cpu_order_build(co, t, CPU_SYSFS, EM_DEBUGFS, !o->no_use_em, err, sizeof(err))) {
		fprintf(stderr, "scx_lavd: CPU order: %s\n", err);
		free(co);
		free(t);
		return 2;
	}
	if (o->virt_llc_min && split_llcs(t, co, o))
		return 2;
	if (co->warning[0])
		fprintf(stderr, "scx_lavd: note: %s\n", co->warning);
	if (o->verbose)
		cpu_order_print(co, stdout);

	skel = lavd__open();
	if (!skel) {
		fprintf(stderr, "scx_lavd: cannot open the BPF object: %s\n", strerror(errno));
		free(co);
		free(t);
		return 2;
	}
	fill_rodata(skel, t, o);
	fill_power(skel, t, co, o);
	/* ops.update_idle (turbulence) would turn the kernel's idle tracking off without this. */
	skel->struct_ops.lavd_ops->flags = SCX_OPS_KEEP_BUILTIN_IDLE |
					   (o->partial ? SCX_OPS_SWITCH_PARTIAL : 0);
	/*
	 * cpu.max: a throttled task alone on its CPU must come back through
	 * enqueue when its slice ends (main checks the kernel before this).
	 */
	if (o->enable_cpu_bw)
		skel->struct_ops.lavd_ops->flags |= SCX_OPS_ENQ_LAST;
	else
		drop_cgroup_ops(skel);
	skel->struct_ops.lavd_ops->exit_dump_len = LAVD_EXIT_DUMP_LEN;
	/* A hotplug between reading the topology and attaching makes the kernel refuse us. */
	if (!read_sysfs(SCX_SYSFS "/hotplug_seq", seq, sizeof(seq)))
		skel->struct_ops.lavd_ops->hotplug_seq = strtoull(seq, NULL, 10);

	/* Futex tracking: optional programs, loaded unless --no-futex-boost. */
	struct futex_probe futex_progs[] = {
		{ .prog = skel->progs.lavd_fx_wait, .func = "__futex_wait", .essential = true },
		{ .prog = skel->progs.lavd_fx_wake, .func = "futex_wake", .essential = true },
		{ .prog = skel->progs.lavd_fx_wait_multiple, .func = "futex_wait_multiple", .essential = false },
		{ .prog = skel->progs.lavd_fx_wait_requeue_pi, .func = "futex_wait_requeue_pi", .essential = false },
		{ .prog = skel->progs.lavd_fx_lock_pi, .func = "futex_lock_pi", .essential = false },
		{ .prog = skel->progs.lavd_fx_wake_op, .func = "futex_wake_op", .essential = false },
		{ .prog = skel->progs.lavd_fx_requeue, .func = "futex_requeue", .essential = false },
		{ .prog = skel->progs.lavd_fx_unlock_pi, .func = "futex_unlock_pi", .essential = false },
		{ .prog = skel->progs.lavd_futex_enter, .func = NULL, .essential = false },
		{ .prog = skel->progs.lavd_futex_exit, .func = NULL, .essential = false },
		{ .prog = skel->progs.lavd_futex_wait_exit, .func = NULL, .essential = false },
		{ .prog = skel->progs.lavd_futex_waitv_exit, .func = NULL, .essential = false },
		{ .prog = skel->progs.lavd_futex_wake_exit, .func = NULL, .essential = false },
	};
	const int nr_futex = sizeof(futex_progs) / sizeof(futex_progs[0]);
	bool use_probes = futex_choose(futex_progs, nr_futex, o->no_futex_boost);

	if (lavd__load(skel)) {
		fprintf(stderr, "scx_lavd: the kernel refused the BPF program (run with -v for the verifier log)\n");
		goto out;
	}
	if (!o->no_futex_boost) {
		bool failed;
		int loaded;
		int attached = futex_attach(futex_progs, nr_futex, use_probes, &loaded, &failed);

		if (use_probes && failed) {
			fprintf(stderr, "scx_lavd: note: an essential futex probe did not attach: using the system-call tracepoints\n");
			use_probes = false;
			attached = futex_attach(futex_progs, nr_futex, false, &loaded, &failed);
		}
		if (!attached)
			fprintf(stderr, "scx_lavd: note: no futex probe attached: lock holders are not protected\n");
		else
			fprintf(stderr, "scx_lavd: futex tracking: %d of %d %s\n", attached, loaded,
				use_probes ? "kernel-function probes" : "system-call tracepoints");
	}
	link = bpf_map__attach_struct_ops(skel->maps.lavd_ops);
	if (!link) {
		int e = errno;

		fprintf(stderr, "scx_lavd: cannot attach the scheduler: %s%s\n", strerror(e),
			e == EBUSY || e == EEXIST ? " (another sched_ext scheduler is loaded)" : "");
		futex_detach(futex_progs, nr_futex);
		goto out;
	}
	printf("scx_lavd %s: scheduling %d CPUs in %d LLC%s (%d possible, SMT %s), slice %llu-%llu us%s\n",
	       LAVD_VERSION, t->nr_online, t->nr_llcs, t->nr_llcs > 1 ? "s" : "", t->nr_cpu_ids,
	       t->smt ? "on" : "off", (unsigned long long)o->slice_min_us,
	       (unsigned long long)o->slice_max_us, o->enable_cpu_bw ? ", cpu.max enforced" : "");
	fflush(stdout);

	printf("scx_lavd: power: %s, capacities from %s%s, %d PCO state%s%s%s\n",
	       o->power == OPTS_PM_AUTOPOWER ? "following the system profile" :
	       fixed_mode(o) < POL_PM_NR ? mode_name(fixed_mode(o)) : "autopilot",
	       co->cap_source, co->big_little ? " (big/little)" : "", co->nr_states,
	       co->nr_states > 1 ? "s" : "", co->has_em ? " from the energy model" : "",
	       o->no_core_compaction ? ", core compaction off" : "");
	if (o->verbose) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0)
			fprintf(stderr, "scx_lavd: note: no BPF run-time statistics: %s\n", strerror(errno));
	}
	start = now_secs();
	next_stats = start + o->stats_secs;
	next_profile = start;
	if (o->stats_secs > 0)
		print_stats_header();
	/*
	 * Sleep until the next thing to do, at most a second, or until ops.exit
	 * writes its record (exit_rb). Without the ring buffer, look every
	 * 100 ms as before.
	 */
	exit_rb = ring_buffer__new(bpf_map__fd(skel->maps.exit_rb), on_exit_record, NULL, NULL);
	if (!exit_rb)
		fprintf(stderr, "scx_lavd: note: no exit ring buffer (%s): polling every 100 ms\n",
			strerror(errno));
	while (!exiting && !skel->bss->uei.kind) {
		double now = now_secs(), next = now + 1.0;

		if (o->run_secs && now - start >= o->run_secs)
			break;
		if (o->power == OPTS_PM_AUTOPOWER) {
			if (now >= next_profile) {
				follow_power_profile(skel, &profile);
				next_profile = now + 1.0;
			}
			next = next_profile < next ? next_profile : next;
		}
		if (o->stats_secs > 0) {
			if (now >= next_stats) {
				print_stats(skel, &prev);
				next_stats += o->stats_secs;
			}
			next = next_stats < next ? next_stats : next;
		}
		if (o->run_secs && start + o->run_secs < next)
			next = start + o->run_secs;
		if (exit_rb)
			ring_buffer__poll(exit_rb, next > now ? (int)((next - now) * 1000.0) + 1 : 0);
		else
			usleep(100 * 1000);
	}
	ring_buffer__free(exit_rb);

	prev = skel->bss->stats;
	queued_left = queued_counted(skel);
	affn_left = skel->bss->nr_queued_affn;
	bpf_link__destroy(link);
	link = NULL;
	futex_detach(futex_progs, nr_futex);
	print_summary(skel, &prev, queued_left, affn_left);
	if (stats_fd >= 0) {
		print_prog_costs(skel->obj, "scx_lavd");
		close(stats_fd);
	}
	if (skel->bss->uei.kind) {
		struct lavd_exit_info *ei = &skel->bss->uei;

		if (ei->kind >= SCX_EXIT_ERROR && skel->bss->uei_dump[0]) {
			skel->bss->uei_dump[LAVD_EXIT_DUMP_LEN - 1] = 0;
			fprintf(stderr, "scx_lavd: exit dump:\n%s\n", skel->bss->uei_dump);
		}
		printf("scx_lavd: EXIT: kind=%d %s%s%s%s\n", ei->kind, ei->reason,
		       ei->msg[0] ? " (" : "", ei->msg, ei->msg[0] ? ")" : "");
		*restart = (unsigned long long)ei->exit_code & SCX_ECODE_ACT_RESTART;
		ret = ei->kind >= SCX_EXIT_ERROR ? 1 : 0;
	} else {
		printf("scx_lavd: EXIT: unregistered from user space (%s)\n",
		       exiting ? "signal" : "run time over");
		ret = 0;
	}
	fflush(stdout);
out:
	if (link)
		bpf_link__destroy(link);
	lavd__destroy(skel);
	free(co);
	free(t);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o;
	int r, restarts = 0;
	bool restart;

	r = opts_parse(&o, argc, argv);
	if (r > 0)
		return 0;
	if (r < 0)
		return 2;
	verbose = o.verbose;
	log_level = o.log_level;
	libbpf_set_print(libbpf_print);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (o.monitor_secs > 0)
		return monitor(o.monitor_secs);
	if (check_system())
		return 2;
	if (o.enable_cpu_bw) {
		const char *why = cpu_bw_unsupported();

		if (why) {
			fprintf(stderr, "scx_lavd: --enable-cpu-bw is unsupported on this kernel: %s\n",
				why);
			return 2;
		}
	}

	for (;;) {
		r = run_once(&o, &restart);
		if (!restart || exiting)
			break;
		if (++restarts > MAX_RESTARTS) {
			fprintf(stderr, "scx_lavd: restarted %d times, giving up\n", MAX_RESTARTS);
			return 1;
		}
		printf("scx_lavd: the kernel asked for a restart (CPU hotplug?): restarting\n");
		/* The kernel finishes disabling asynchronously: wait for it. */
		for (int i = 0; i < 50; i++) {
			char state[64];

			if (!read_sysfs(SCX_SYSFS "/state", state, sizeof(state)) &&
			    !strcmp(state, "disabled"))
				break;
			usleep(100 * 1000);
		}
	}
	return r;
}
