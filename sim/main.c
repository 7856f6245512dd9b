/* SPDX-License-Identifier: GPL-2.0 */
/*
 * main.c - lavd-sim command line.
 *
 *   lavd-sim --topo NAME|FILE --workload NAME|FILE --sched lavd|eevdf|fifo|vtime
 *            --seed N --duration-ms T [--json FILE] [--csv DIR] [--plot DIR]
 *            [--trace FILE] [--check] [--bench] [--lavd-opt LIST]
 */
#include <getopt.h>
#include <time.h>
#include "sim.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lavd-sim --topo NAME|FILE --workload NAME|FILE --sched lavd|eevdf|fifo|vtime\n"
		"                --seed N --duration-ms T [--json FILE] [--csv DIR] [--plot DIR]\n"
		"                [--trace FILE] [--check] [--bench] [--quiet] [--fault-at N]\n"
		"  topologies: deck desktop server hybrid, or a .json file\n"
		"  workloads:  game server batch compile light irq game+compile server+batch\n"
		"              (any '+' combination), or a .json file (rt-app subset)\n"
		"  --check     verify the invariants on every event (exit 3 on a violation)\n"
		"  --bench     print events/s to stderr\n"
		"  --fault-at N  corrupt CPU time accounting after event N (tests --check)\n"
		"  --lavd-opt LIST  comma-separated, with --sched lavd: no-preempt, no-lock-boost,\n"
		"                no-inherit, preempt-kick, no-turbulence, no-warmth, count-balance,\n"
		"                no-plan (pull only when the own LLC queue is empty),\n"
		"                no-compaction, performance, balanced, powersave (power mode;\n"
		"                default the autopilot, as the loader),\n"
		"                warm-cpu-us=US (0..100000, default 0 = off, as the loader)\n");
}

#define LAVD_OPT_NAMES "no-preempt, no-lock-boost, no-inherit, preempt-kick, no-turbulence, " \
		       "no-warmth, count-balance, no-plan, no-compaction, performance, balanced, " \
		       "powersave, warm-cpu-us=US"

/* warm-cpu-us=US as the loader takes it: digits only, 0..100000. */
static int parse_warm(const char *p, size_t n, u64 *us)
{
	static const char k[] = "warm-cpu-us=";
	size_t kl = sizeof(k) - 1, i;
	u64 v = 0;

	if (n <= kl || strncmp(p, k, kl) || n - kl > 6)
		return -1;
	for (i = kl; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (u64)(p[i] - '0');
	}
	if (v > 100000)
		return -1;
	*us = v;
	return 0;
}

/* --lavd-opt a,b,c -> SIM_LAVD_* bits; -1 on an unknown or empty item. */
static int parse_lavd_opt(const char *arg, u32 *out, u64 *warm_us)
{
	static const struct { const char *name; u32 bit; } opts[] = {
		{ "no-preempt", SIM_LAVD_NO_PREEMPT },
		{ "no-lock-boost", SIM_LAVD_NO_LOCK_BOOST },
		{ "no-inherit", SIM_LAVD_NO_INHERIT },
		{ "preempt-kick", SIM_LAVD_PREEMPT_KICK },
		{ "no-turbulence", SIM_LAVD_NO_TURBULENCE },
		{ "no-warmth", SIM_LAVD_NO_WARMTH },
		{ "count-balance", SIM_LAVD_COUNT_BALANCE },
		{ "no-plan", SIM_LAVD_NO_PLAN },
		{ "no-compaction", SIM_LAVD_NO_COMPACTION },
		{ "performance", SIM_LAVD_PERFORMANCE },
		{ "balanced", SIM_LAVD_BALANCED },
		{ "powersave", SIM_LAVD_POWERSAVE },
	};
	const char *p = arg;

	*out = 0;
	*warm_us = 0;
	for (;;) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
			if (strlen(opts[i].name) == n && !strncmp(p, opts[i].name, n))
				break;
		if (i == sizeof(opts) / sizeof(opts[0])) {
			if (!parse_warm(p, n, warm_us))
				goto next;
			fprintf(stderr, "lavd-sim: unknown --lavd-opt item '%.*s' (" LAVD_OPT_NAMES
				")\n", (int)n, p);
			return -1;
		}
		*out |= opts[i].bit;
next:
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static int parse_u64(const char *s, u64 *v)
{
	char *end;
	unsigned long long x;

	if (!s || !*s || *s == '-')
		return -1;
	x = strtoull(s, &end, 10);
	if (*end)
		return -1;
	*v = x;
	return 0;
}

static const struct sched_class *find_sched(const char *n)
{
	if (!strcmp(n, "lavd"))
		return &sched_lavd;
	if (!strcmp(n, "eevdf"))
		return &sched_eevdf;
	if (!strcmp(n, "fifo"))
		return &sched_fifo;
	if (!strcmp(n, "vtime"))
		return &sched_vtime;
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "topo", required_argument, 0, 't' },
		{ "workload", required_argument, 0, 'w' },
		{ "sched", required_argument, 0, 's' },
		{ "seed", required_argument, 0, 'S' },
		{ "duration-ms", required_argument, 0, 'd' },
		{ "json", required_argument, 0, 'j' },
		{ "csv", required_argument, 0, 'c' },
		{ "plot", required_argument, 0, 'p' },
		{ "trace", required_argument, 0, 'T' },
		{ "check", no_argument, 0, 'C' },
		{ "bench", no_argument, 0, 'B' },
		{ "quiet", no_argument, 0, 'q' },
		{ "fault-at", required_argument, 0, 'F' },
		{ "lavd-opt", required_argument, 0, 'L' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	static struct sim_topo topo;
	static struct sim_workload wl;
	static struct sim sim;
	struct sim_opts o = { .seed = 1, .duration_ms = 0 };
	const struct sched_class *cls;
	int c, bench = 0, quiet = 0, rc = 0, have_seed = 0;
	u32 lavd_opts = 0;
	u64 warm_us = 0;
	struct timespec t0, t1;
	char err[256];

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't': o.topo = optarg; break;
		case 'w': o.workload = optarg; break;
		case 's': o.sched = optarg; break;
		case 'S':
			if (parse_u64(optarg, &o.seed)) {
				fprintf(stderr, "lavd-sim: --seed needs a non-negative integer, got '%s'\n", optarg);
				return 2;
			}
			have_seed = 1;
			break;
		case 'd':
			if (parse_u64(optarg, &o.duration_ms) || !o.duration_ms ||
			    o.duration_ms > 3600 * 1000ULL) {
				fprintf(stderr, "lavd-sim: --duration-ms needs 1..3600000, got '%s'\n", optarg);
				return 2;
			}
			break;
		case 'j': o.json = optarg; break;
		case 'c': o.csv = optarg; break;
		case 'p': o.plot = optarg; break;
		case 'T': o.trace = optarg; break;
		case 'C': o.check = 1; break;
		case 'B': bench = 1; break;
		case 'q': quiet = 1; break;
		case 'F':
			if (parse_u64(optarg, &o.fault_at)) {
				fprintf(stderr, "lavd-sim: --fault-at needs an event number\n");
				return 2;
			}
			break;
		case 'L':
			if (parse_lavd_opt(optarg, &lavd_opts, &warm_us))
				return 2;
			/* as the loader: one power mode; no-compaction only without a compacting one */
			if (__builtin_popcount(lavd_opts & (SIM_LAVD_PERFORMANCE | SIM_LAVD_BALANCED |
							    SIM_LAVD_POWERSAVE)) > 1 ||
			    ((lavd_opts & SIM_LAVD_NO_COMPACTION) &&
			     (lavd_opts & (SIM_LAVD_BALANCED | SIM_LAVD_POWERSAVE)))) {
				fprintf(stderr, "lavd-sim: --lavd-opt: conflicting power modes in '%s'\n",
					optarg);
				return 2;
			}
			o.lavd_opt = optarg;
			break;
		case 'h': usage(stdout); return 0;
		default:
			if (optopt)
				fprintf(stderr, "lavd-sim: option '%s' needs an argument\n", argv[optind - 1]);
			else
				fprintf(stderr, "lavd-sim: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "lavd-sim: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!o.topo || !o.workload || !o.sched || !o.duration_ms || !have_seed) {
		fprintf(stderr, "lavd-sim: --topo, --workload, --sched, --seed and --duration-ms are required\n");
		usage(stderr);
		return 2;
	}
	if (!(cls = find_sched(o.sched))) {
		fprintf(stderr, "lavd-sim: unknown scheduler '%s' (lavd, eevdf, fifo, vtime)\n", o.sched);
		return 2;
	}
	if (o.lavd_opt && cls != &sched_lavd) {
		fprintf(stderr, "lavd-sim: --lavd-opt needs --sched lavd\n");
		return 2;
	}
#ifdef SIM_DEBUG
	o.check = 1;
#endif
	if (topo_load(&topo, o.topo, err, sizeof(err))) {
		fprintf(stderr, "lavd-sim: %s\n", err);
		return 2;
	}
	if (workload_load(&wl, o.workload, &topo, err, sizeof(err))) {
		fprintf(stderr, "lavd-sim: %s\n", err);
		return 2;
	}
	sim_init(&sim, &topo, &wl, cls, o.seed, o.duration_ms * SIM_NSEC_PER_MSEC);
	sim.check = o.check;
	sim.lavd_opts = lavd_opts;
	sim.lavd_warm_cpu_us = warm_us;
	sim.fault_at = o.fault_at;
	if (o.trace && !(sim.trace = fopen(o.trace, "w"))) {
		fprintf(stderr, "lavd-sim: cannot write %s\n", o.trace);
		return 2;
	}
	report_set_opts(&o);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sim_run(&sim);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (sim.trace)
		fclose(sim.trace);
	if (bench) {
		double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		fprintf(stderr, "bench: %s/%s/%s %llu events in %.3f s: %.2f M events/s\n",
			o.topo, o.workload, o.sched, (unsigned long long)sim.st.nr_events, sec,
			(double)sim.st.nr_events / sec / 1e6);
	}
	if (!quiet)
		report_table(&sim, stdout);
	if (o.json && report_json(&sim, &o, o.json))
		rc = 1;
	if (o.csv && report_csv(&sim, o.csv))
		rc = 1;
	if (o.plot && report_plot(&sim, o.plot))
		rc = 1;
	sim_free(&sim);
	return rc;
}
