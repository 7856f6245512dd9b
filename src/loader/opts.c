/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opts.c - option parsing in one place.
 *
 * Names and defaults follow upstream scx_lavd, so scripts written for it
 * run unchanged. Options of upstream's whose mechanism is not built here yet
 * are accepted, validated and reported as ignored, never silently.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "opts.h"
#include "../common/intf.h"
#include "../policy/pol.h"

enum {
	OPT_SLICE_MAX = 256, OPT_SLICE_MIN, OPT_PREEMPT_SHIFT, OPT_STATS, OPT_PARTIAL,
	OPT_NO_SLICE_BOOST, OPT_NO_PREEMPTION, OPT_NO_WAKE_SYNC, OPT_NO_FUTEX_BOOST,
	OPT_RUN_SECS, OPT_MONITOR, OPT_PREEMPT_KICK, OPT_WARM_CPU, OPT_ENABLE_CPU_BW, OPT_PINNED_SLICE,
	OPT_AUTOPILOT, OPT_AUTOPOWER, OPT_PERFORMANCE, OPT_BALANCED, OPT_POWERSAVE,
	OPT_NO_CORE_COMPACTION, OPT_NO_USE_EM, OPT_NO_FREQ_SCALING, OPT_CPU_PREF_ORDER, OPT_VIRT_LLC,
	OPT_MIG_DELTA_PCT, OPT_LOG_LEVEL,
	/* accepted for compatibility, not implemented yet */
	OPT_IGN_FLAG, OPT_IGN_PCT,
};

static const struct option long_opts[] = {
	{ "slice-max-us",	required_argument, 0, OPT_SLICE_MAX },
	{ "slice-min-us",	required_argument, 0, OPT_SLICE_MIN },
	{ "preempt-shift",	required_argument, 0, OPT_PREEMPT_SHIFT },
	{ "stats",		required_argument, 0, OPT_STATS },
	{ "partial",		no_argument,	   0, OPT_PARTIAL },
	{ "no-slice-boost",	no_argument,	   0, OPT_NO_SLICE_BOOST },
	{ "no-preemption",	no_argument,	   0, OPT_NO_PREEMPTION },
	{ "no-wake-sync",	no_argument,	   0, OPT_NO_WAKE_SYNC },
	{ "no-futex-boost",	no_argument,	   0, OPT_NO_FUTEX_BOOST },
	{ "run-secs",		required_argument, 0, OPT_RUN_SECS },
	{ "preempt-kick",	no_argument,	   0, OPT_PREEMPT_KICK },
	{ "monitor",		required_argument, 0, OPT_MONITOR },
	{ "verbose",		no_argument,	   0, 'v' },
	{ "version",		no_argument,	   0, 'V' },
	{ "help",		no_argument,	   0, 'h' },
	{ "autopilot",		no_argument,	   0, OPT_AUTOPILOT },
	{ "autopower",		no_argument,	   0, OPT_AUTOPOWER },
	{ "performance",	no_argument,	   0, OPT_PERFORMANCE },
	{ "balanced",		no_argument,	   0, OPT_BALANCED },
	{ "powersave",		no_argument,	   0, OPT_POWERSAVE },
	{ "no-core-compaction",	no_argument,	   0, OPT_NO_CORE_COMPACTION },
	{ "no-use-em",		no_argument,	   0, OPT_NO_USE_EM },
	{ "no-freq-scaling",	no_argument,	   0, OPT_NO_FREQ_SCALING },
	{ "cpu-pref-order",	required_argument, 0, OPT_CPU_PREF_ORDER },
	{ "virt-llc",		optional_argument, 0, OPT_VIRT_LLC },
	{ "mig-delta-pct",	required_argument, 0, OPT_MIG_DELTA_PCT },
	{ "log-level",		required_argument, 0, OPT_LOG_LEVEL },
	/* upstream options for mechanisms not built yet */
	{ "no-fast-lb",		no_argument,	   0, OPT_IGN_FLAG },
	{ "per-cpu-dsq",	no_argument,	   0, OPT_IGN_FLAG },
	{ "enable-cpu-bw",	no_argument,	   0, OPT_ENABLE_CPU_BW },
	{ "pinned-slice-us",	required_argument, 0, OPT_PINNED_SLICE },
	{ "warm-cpu-us",	required_argument, 0, OPT_WARM_CPU },
	{ "lat-load-target-pct", required_argument, 0, OPT_IGN_PCT },
	{ "lb-low-util-pct",	required_argument, 0, OPT_IGN_PCT },
	{ "lb-local-dsq-util-pct", required_argument, 0, OPT_IGN_PCT },
	{ 0, 0, 0, 0 }
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [OPTIONS]\n"
"LAVD: Latency-criticality Aware Virtual Deadline scheduler for sched_ext.\n"
"\n"
"  --slice-max-us US      maximum time slice (default 5000)\n"
"  --slice-min-us US      minimum time slice (default 500)\n"
"  --preempt-shift N      preemption threshold: max - (max - avg) >> N, 0..10 (default 6)\n"
"  --stats SECS           print statistics every SECS seconds\n"
"  --monitor SECS         do not load a scheduler: print the statistics of the\n"
"                         scx_lavd already running every SECS seconds\n"
"  --partial              schedule only tasks with policy SCHED_EXT\n"
"  --no-slice-boost       never give long runners more than the system slice\n"
"  --no-preemption        never shorten a running task's slice for a waking one\n"
"  --no-wake-sync         ignore the sync-wakeup hint\n"
"  --no-futex-boost       do not treat futex lock holders specially\n"
"  --pinned-slice-us US   while a task pinned to a CPU waits for it, what runs\n"
"                         there gets at most US (and the system slice), no\n"
"                         boost; 0: off (default 5000)\n"
"  --warm-cpu-us US       let a non-critical task wait up to US (2x when its\n"
"                         cache is hot) for its busy previous CPU (default 0: off)\n"
"  --enable-cpu-bw        enforce the cgroups' cpu.max (and cpu.max.burst) on\n"
"                         average: overspending a period is paid back in the\n"
"                         next (needs a 6.17+ kernel with CONFIG_EXT_GROUP_SCHED)\n"
"  --preempt-kick         preempt with an IPI (SCX_KICK_PREEMPT) instead of\n"
"                         shortening the victim's slice (for comparison)\n"
"  --virt-llc[=MIN-MAX]   split each LLC into virtual LLCs of MIN to MAX cores\n"
"                         (default 2-8), each with its own queue\n"
"  --mig-delta-pct PCT    balance LLCs only when one is more than PCT %% off\n"
"                         its fair share of the load, 0..100 (default 0: 1/16);\n"
"                         unlike upstream, a CPU whose queue runs dry still\n"
"                         pulls from other LLCs\n"
"  --run-secs N           unload after N seconds (for tests and demos)\n"
"\n"
"Power (at most one of the first five; default --autopilot):\n"
"  --autopilot            pick the power mode from the load every 10 ms\n"
"  --autopower            follow the system's power profile (cpufreq\n"
"                         energy_performance_preference or governor)\n"
"  --performance          use every CPU (no core compaction)\n"
"  --balanced             compact work onto the CPUs the load needs\n"
"  --powersave            compact along the power-saving CPU order\n"
"  --no-core-compaction   use every CPU whatever the mode\n"
"  --no-use-em            ignore the kernel's energy model\n"
"  --no-freq-scaling      always ask cpufreq for the maximum performance\n"
"  --cpu-pref-order LIST  accepted like upstream, which ignores it too (it\n"
"                         only implies --no-use-em)\n"
"  --log-level LEVEL      error, warn, info (default), debug or trace: which\n"
"                         libbpf messages are shown (debug and trace: all)\n"
"  -v, --verbose          more output (libbpf messages, exit dumps, the BPF\n"
"                         programs' run time)\n"
"  -V, --version          print the version and exit\n"
"  -h, --help             this help\n"
"\n"
"Accepted for compatibility with upstream scx_lavd but not implemented yet\n"
"(a note is printed): --no-fast-lb --per-cpu-dsq\n"
"--lat-load-target-pct --lb-low-util-pct\n"
"--lb-local-dsq-util-pct\n",
		prog);
}

/*
 * --virt-llc[=MIN-MAX]: cores per virtual LLC, 2-8 when bare (upstream's
 * default). Like upstream, a value needs the '=' form.
 */
static int parse_virt_llc(const char *s, struct opts *o)
{
	unsigned long a, b;
	char *end;

	o->virt_llc_min = 2;
	o->virt_llc_max = 8;
	if (!s)
		return 0;
	if (*s < '0' || *s > '9')
		goto bad;
	a = strtoul(s, &end, 10);
	if (*end != '-' || end[1] < '0' || end[1] > '9')
		goto bad;
	b = strtoul(end + 1, &end, 10);
	if (*end || a < 1 || a > b || b > LAVD_MAX_CPUS)
		goto bad;
	o->virt_llc_min = a;
	o->virt_llc_max = b;
	return 0;
bad:
	fprintf(stderr, "scx_lavd: --virt-llc: '%s' is not MIN-MAX cores per virtual LLC "
		"(1 <= MIN <= MAX <= %d, e.g. --virt-llc=2-8)\n", s, LAVD_MAX_CPUS);
	return -1;
}

/* Strict unsigned parse: digits only, within [lo, hi]. */
static int parse_u64(const char *name, const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || !*s || *s == '-' || *s == '+') {
		fprintf(stderr, "scx_lavd: --%s: '%s' is not a non-negative integer\n", name,
			s ? s : "");
		return -1;
	}
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end) {
		fprintf(stderr, "scx_lavd: --%s: '%s' is not a non-negative integer\n", name, s);
		return -1;
	}
	if (x < lo || x > hi) {
		fprintf(stderr, "scx_lavd: --%s: %llu is out of range [%llu, %llu]\n", name, x,
			(unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	*v = x;
	return 0;
}

int opts_parse(struct opts *o, int argc, char **argv)
{
	const char *prog = argv[0] ? argv[0] : "scx_lavd";
	bool pinned_given = false;
	int idx, c;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->slice_max_us = 5000;
	o->slice_min_us = 500;
	o->pinned_slice_us = POL_PINNED_SLICE_NS_DFL / POL_NSEC_PER_USEC;
	o->preempt_shift = 6;
	o->log_level = OPTS_LOG_INFO;
	optind = 1;
	opterr = 0;

	while ((c = getopt_long(argc, argv, ":vVh", long_opts, &idx)) != -1) {
		const char *name = c >= 256 ? long_opts[idx].name : "";

		switch (c) {
		case OPT_SLICE_MAX:
			/* 1 s upper bound: beyond it the watchdog (30 s) is only 30 slices away. */
			if (parse_u64(name, optarg, 1, 1000000, &o->slice_max_us))
				return -1;
			break;
		case OPT_SLICE_MIN:
			if (parse_u64(name, optarg, 1, 1000000, &o->slice_min_us))
				return -1;
			break;
		case OPT_PREEMPT_SHIFT:
			if (parse_u64(name, optarg, 0, 10, &v))
				return -1;
			o->preempt_shift = v;
			break;
		case OPT_STATS:
		case OPT_MONITOR: {
			double *secs = c == OPT_STATS ? &o->stats_secs : &o->monitor_secs;
			char *end;

			errno = 0;
			*secs = strtod(optarg, &end);
			if (errno || *end || !(*secs > 0) || *secs > 86400) {
				fprintf(stderr, "scx_lavd: --%s: '%s' is not a number of seconds in (0, 86400]\n",
					name, optarg);
				return -1;
			}
			break;
		}
		case OPT_RUN_SECS:
			if (parse_u64(name, optarg, 1, 86400 * 365, &v))
				return -1;
			o->run_secs = v;
			break;
		case OPT_PARTIAL: o->partial = true; break;
		case OPT_NO_SLICE_BOOST: o->no_slice_boost = true; break;
		case OPT_NO_PREEMPTION: o->no_preemption = true; break;
		case OPT_NO_WAKE_SYNC: o->no_wake_sync = true; break;
		case OPT_NO_FUTEX_BOOST: o->no_futex_boost = true; break;
		case OPT_PREEMPT_KICK: o->preempt_kick = true; break;
		case OPT_ENABLE_CPU_BW: o->enable_cpu_bw = true; break;
		case OPT_WARM_CPU:
			if (parse_u64(name, optarg, 0, 100000, &o->warm_cpu_us))
				return -1;
			break;
		case OPT_PINNED_SLICE:
			if (parse_u64(name, optarg, 0, 1000000, &v))
				return -1;
			o->pinned_slice_us = v;
			pinned_given = true;
			break;
		case OPT_AUTOPILOT:
		case OPT_AUTOPOWER:
		case OPT_PERFORMANCE:
		case OPT_BALANCED:
		case OPT_POWERSAVE: {
			enum opts_power pm = OPTS_PM_AUTOPILOT + (c - OPT_AUTOPILOT);

			if (o->power_given && o->power != pm) {
				fprintf(stderr, "scx_lavd: --%s conflicts with an earlier power mode option: "
					"give one of --autopilot --autopower --performance --balanced --powersave\n",
					name);
				return -1;
			}
			o->power = pm;
			o->power_given = true;
			break;
		}
		case OPT_NO_CORE_COMPACTION: o->no_core_compaction = true; break;
		case OPT_NO_USE_EM: o->no_use_em = true; break;
		case OPT_NO_FREQ_SCALING: o->no_freq_scaling = true; break;
		case OPT_CPU_PREF_ORDER: {
			/* Validated as a CPU list ("0-3,8"), like upstream documents it. */
			const char *q = optarg;

			if (!*q || strspn(q, "0123456789,-") != strlen(q) || *q == ',' || *q == '-') {
				fprintf(stderr, "scx_lavd: --cpu-pref-order: '%s' is not a CPU list (e.g. 0-3,8)\n",
					optarg);
				return -1;
			}
			fprintf(stderr, "scx_lavd: note: --cpu-pref-order only implies --no-use-em "
				"(upstream ignores the list too)\n");
			o->no_use_em = true;
			break;
		}
		case OPT_MIG_DELTA_PCT:
			if (parse_u64(name, optarg, 0, 100, &v))
				return -1;
			o->mig_delta_pct = v;
			break;
		case OPT_LOG_LEVEL: {
			static const char *const levels[] = { "error", "warn", "info", "debug", "trace" };
			int l;

			for (l = 0; l < 5 && strcasecmp(optarg, levels[l]); l++)
				;
			if (l == 5) {
				fprintf(stderr, "scx_lavd: --log-level: '%s' is not one of error, warn, "
					"info, debug, trace\n", optarg);
				return -1;
			}
			o->log_level = l;
			break;
		}
		case OPT_VIRT_LLC:
			if (parse_virt_llc(optarg, o))
				return -1;
			break;
		case 'v': o->verbose = true; break;
		case 'V':
			printf("scx_lavd %s (C)\n", LAVD_VERSION);
			return 1;
		case 'h':
			usage(stdout, prog);
			return 1;
		case OPT_IGN_FLAG:
			fprintf(stderr, "scx_lavd: note: --%s is not implemented yet; ignored\n", name);
			break;
		case OPT_IGN_PCT:
			if (parse_u64(name, optarg, 0, 200, &v))
				return -1;
			fprintf(stderr, "scx_lavd: note: --%s is not implemented yet; ignored\n", name);
			break;
		case ':':
			fprintf(stderr, "scx_lavd: option '%s' needs a value (see --help)\n",
				argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "scx_lavd: unknown option '%s' (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "scx_lavd: unexpected argument '%s' (see --help)\n", argv[optind]);
		return -1;
	}
	if (o->no_core_compaction && o->power_given &&
	    (o->power == OPTS_PM_BALANCED || o->power == OPTS_PM_POWERSAVE)) {
		/* Upstream lets the mode silently undo the option (observation O4). */
		fprintf(stderr, "scx_lavd: --no-core-compaction conflicts with --%s, which compacts\n",
			o->power == OPTS_PM_BALANCED ? "balanced" : "powersave");
		return -1;
	}
	if (o->preempt_kick && o->no_preemption) {
		fprintf(stderr, "scx_lavd: --preempt-kick needs preemption (drop --no-preemption)\n");
		return -1;
	}
	if (pinned_given && o->pinned_slice_us &&
	    (o->pinned_slice_us < o->slice_min_us || o->pinned_slice_us > o->slice_max_us)) {
		fprintf(stderr, "scx_lavd: --pinned-slice-us (%llu) must be 0 (off) or within "
			"--slice-min-us and --slice-max-us (%llu-%llu)\n", o->pinned_slice_us,
			(unsigned long long)o->slice_min_us, (unsigned long long)o->slice_max_us);
		return -1;
	}
	if (o->slice_min_us > o->slice_max_us) {
		/* Upstream accepts this and clamps inconsistently (observation O20). */
		fprintf(stderr, "scx_lavd: --slice-min-us (%llu) must not exceed --slice-max-us (%llu)\n",
			(unsigned long long)o->slice_min_us, (unsigned long long)o->slice_max_us);
		return -1;
	}
	return 0;
}
