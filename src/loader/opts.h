/* SPDX-License-Identifier: GPL-2.0 */
/* opts.h - command-line options, compatible with upstream scx_lavd's names. */
#ifndef __LAVD_OPTS_H
#define __LAVD_OPTS_H

#include <stdbool.h>
#include <stdint.h>

struct opts {
	uint64_t slice_max_us;
	uint64_t slice_min_us;
	uint32_t preempt_shift;
	double stats_secs;		/* 0: no periodic stats */
	unsigned long long pinned_slice_us;	/* 0: off */
	double monitor_secs;		/* >0: only watch a running scx_lavd (--monitor) */
	bool verbose;
	enum opts_log { OPTS_LOG_ERROR, OPTS_LOG_WARN, OPTS_LOG_INFO, OPTS_LOG_DEBUG,
		OPTS_LOG_TRACE } log_level;	/* --log-level (default info) */
	bool partial;
	bool no_slice_boost;
	bool no_preemption;
	bool no_wake_sync;
	bool no_futex_boost;
	bool preempt_kick;
	bool enable_cpu_bw;		/* --enable-cpu-bw: enforce cgroups' cpu.max */
	uint64_t warm_cpu_us;		/* --warm-cpu-us, 0 = off */		/* ours: preempt with an IPI instead of a shorter slice */
	uint32_t mig_delta_pct;		/* --mig-delta-pct: 0 = the default band */
	int virt_llc_min, virt_llc_max;	/* --virt-llc: cores per virtual LLC; 0: off */
	int run_secs;			/* --run-secs (ours, for tests): exit after N s */
	/* power: which mode, and how it is chosen */
	enum opts_power {
		OPTS_PM_AUTOPILOT,	/* from the load, every 10 ms (default) */
		OPTS_PM_AUTOPOWER,	/* follow the system's power profile */
		OPTS_PM_PERFORMANCE,
		OPTS_PM_BALANCED,
		OPTS_PM_POWERSAVE,
	} power;
	bool power_given;		/* one of the five flags was given */
	bool no_core_compaction;
	bool no_use_em;
	bool no_freq_scaling;
};

/*
 * Parse argv. Returns 0 to run, 1 if the program should exit successfully
 * (--help, --version), -1 on a bad option (message printed, exit code 2).
 */
int opts_parse(struct opts *o, int argc, char **argv);

#endif /* __LAVD_OPTS_H */
