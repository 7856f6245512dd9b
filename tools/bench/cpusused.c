/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpusused - how many CPUs a load keeps awake, averaged over 10 ms windows:
 * a CPU counts in a window if anything ran on it during the window (it could
 * not stay in a deep idle state through it). Busy time alone cannot show
 * core compaction: the same work on fewer CPUs is the same busy time.
 *
 *   cpusused SECS            trace: the kernel's sched_switch events for SECS
 *                            seconds, read afterwards (default)
 *   cpusused --sample SECS   sample /proc/schedstat every 10 ms
 *   cpusused --parse TRACE   analyze a saved trace (tests, offline reading)
 *
 * The sampling mode wakes a CPU itself in every window, so it reads at least
 * 1.00 under any scheduler and squeezes every ratio towards 1. The trace
 * mode sleeps through the run (the kernel records the switches in its ring
 * buffers, nobody reads them until the end) and leaves its own process out,
 * so an idle machine reads about 0. It also averages over ten placements of
 * the window grid, 1 ms apart: a 30 Hz load's frames start at three phases
 * of a 10 ms grid, and whether one of them straddles a window boundary (one
 * frame in three counted twice) depended on where the run began: 0.39 or
 * 0.47 in runs of the same load.
 *
 * Output: "cpusused cpus_used=.. windows=.. cpus=.. switches=..", exit 0;
 * 2 on bad arguments, 1 if tracefs or /proc/schedstat cannot be used or
 * the trace lost events.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 1024
#define WINDOW_NS 10000000ULL
#define NR_PHASES 10		/* grid placements, WINDOW_NS / NR_PHASES apart */

/* Run time (ns) per CPU, field 7 of the "cpuN" lines; returns the CPU count or -1. */
static int read_run(unsigned long long *run)
{
	char line[512];
	FILE *f = fopen("/proc/schedstat", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < MAX_CPUS) {
		unsigned long long v[7];
		int cpu;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6]) != 8)
			continue;
		run[n++] = v[6];
	}
	fclose(f);
	return n;
}

static int sample(long secs)
{
	static unsigned long long a[MAX_CPUS], b[MAX_CPUS];
	struct timespec tick = { 0, WINDOW_NS };
	unsigned long long used = 0, samples = 0;
	int n = read_run(a);

	if (n <= 0) {
		fprintf(stderr, "cpusused: cannot read /proc/schedstat\n");
		return 1;
	}
	for (long i = 0; i < secs * 100; i++) {
		nanosleep(&tick, NULL);
		if (read_run(b) != n)
			continue;	/* a CPU went on- or offline: skip the window */
		for (int c = 0; c < n; c++) {
			used += b[c] != a[c];
			a[c] = b[c];
		}
		samples++;
	}
	printf("cpusused cpus_used=%.3f windows=%llu cpus=%d mode=sample\n",
	       samples ? (double)used / (double)samples : 0.0, samples, n);
	return 0;
}

static const char *tracefs;

static int tr_write(const char *file, const char *val, int flags)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	fd = open(path, O_WRONLY | flags);
	if (fd < 0) {
		fprintf(stderr, "cpusused: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	if (!ok)
		fprintf(stderr, "cpusused: writing '%s' to %s: %s\n", val, path, strerror(errno));
	close(fd);
	return ok ? 0 : -1;
}

/* One CPU's state while the trace is read. */
struct cpu_trace {
	int pid;			/* running now; -1: not seen yet */
	unsigned long long since_ns;	/* when it started running */
};

static unsigned long long t0_ns, t1_ns;
static unsigned long nr_windows;	/* whole windows in the span, per phase */
static unsigned char *awake;		/* [(phase * nr_windows + window) * ncpus + cpu] */
static int ncpus;

/*
 * Marks the windows [from_ns, to_ns] overlaps on cpu, for each grid phase.
 * Phase ph's windows start at t0 + ph * WINDOW_NS / NR_PHASES; the first
 * nr_windows of each fit in the span.
 */
static void mark(int cpu, unsigned long long from_ns, unsigned long long to_ns)
{
	if (from_ns < t0_ns)
		from_ns = t0_ns;
	if (to_ns > t1_ns)
		to_ns = t1_ns;
	if (from_ns > to_ns || cpu >= ncpus)
		return;
	for (unsigned long ph = 0; ph < NR_PHASES; ph++) {
		unsigned long long g0 = t0_ns + ph * (WINDOW_NS / NR_PHASES);
		unsigned long w0, w1;

		if (to_ns < g0)
			continue;
		w0 = from_ns < g0 ? 0 : (from_ns - g0) / WINDOW_NS;
		w1 = (to_ns - g0) / WINDOW_NS;
		for (unsigned long w = w0; w <= w1 && w < nr_windows; w++)
			awake[(ph * nr_windows + w) * ncpus + cpu] = 1;
	}
}

/* "<comm>-<pid> [cpu] flags   secs.usecs: event: ..." -> cpu, time; 0 if not one. */
static int parse_head(const char *line, const char *event, int *cpu, unsigned long long *t_ns)
{
	const char *ev = strstr(line, event), *br = strstr(line, "] ");
	const char *p;
	double secs;

	if (!ev || !br || br > ev)
		return 0;
	p = br;
	while (p > line && *p != '[')
		p--;
	*cpu = atoi(p + 1);
	/* the time stamp is the token right before the event name */
	p = ev - 2;	/* the ':' after the time stamp */
	while (p > br && p[-1] != ' ')
		p--;
	secs = strtod(p, NULL);
	*t_ns = (unsigned long long)(secs * 1e9 + 0.5);
	return 1;
}

static int field_int(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? atoi(p + strlen(key)) : -1;
}

/* The pid in a line's "<comm>-<pid> [cpu]" head; -1 if none. */
static int head_pid(const char *line)
{
	const char *p = strstr(line, " [");

	if (!p)
		return -1;
	while (p > line && p[-1] == ' ')
		p--;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p > line && p[-1] == '-' ? atoi(p) : -1;
}

/*
 * Reads a trace with our start and end marks and sched_switch events and
 * prints the average. The process that wrote the start mark (the
 * measurement) does not count as running.
 */
static int analyze(const char *path)
{
	static struct cpu_trace cpu[MAX_CPUS];
	unsigned long long switches = 0, used = 0;
	int self = -1, lost = 0;
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "cpusused: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* first pass: the marks give the span and the window count */
	while (fgets(line, sizeof(line), f)) {
		unsigned long long t, in_buf, written;
		const char *e = strstr(line, "entries-in-buffer/entries-written:");
		int c;

		if (e && sscanf(e, "entries-in-buffer/entries-written: %llu/%llu", &in_buf,
				&written) == 2 && in_buf != written)
			lost = 1;
		/* the trace's CPU count, "#P:4" (a saved trace is read on another machine) */
		if (e && (e = strstr(e, "#P:")) && atoi(e + 3) > 0 && atoi(e + 3) <= MAX_CPUS)
			ncpus = atoi(e + 3);
		if (!parse_head(line, "tracing_mark_write:", &c, &t))
			continue;
		if (strstr(line, "cpusused start")) {
			t0_ns = t;
			self = head_pid(line);
		} else if (strstr(line, "cpusused end")) {
			t1_ns = t;
		}
	}
	if (lost || !t0_ns || t1_ns <= t0_ns) {
		fprintf(stderr, "cpusused: the trace %s\n",
			lost ? "lost events (ring buffer too small)" : "has no start and end marks");
		fclose(f);
		return 1;
	}
	if ((t1_ns - t0_ns) / WINDOW_NS < 2) {
		fprintf(stderr, "cpusused: the trace spans under two windows\n");
		fclose(f);
		return 1;
	}
	/* the last phase's grid starts 0.9 windows late: one window fewer */
	nr_windows = (t1_ns - t0_ns) / WINDOW_NS - 1;
	awake = calloc(NR_PHASES * nr_windows * ncpus, 1);
	if (!awake) {
		fclose(f);
		return 1;
	}
	for (int c = 0; c < ncpus; c++)
		cpu[c].pid = -1;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long t;
		int c, prev, next;

		if (!parse_head(line, "sched_switch:", &c, &t) || c < 0 || c >= ncpus)
			continue;
		prev = field_int(line, " prev_pid=");
		next = field_int(line, " next_pid=");
		if (prev < 0 || next < 0)
			continue;
		/*
		 * Before the CPU's first switch it ran prev since the start (or
		 * longer). A CPU without any switch in the span counts as idle: at
		 * light load nothing runs for seconds without one.
		 */
		if (cpu[c].pid < 0)
			cpu[c] = (struct cpu_trace){ prev, t0_ns };
		if (cpu[c].pid != 0 && cpu[c].pid != self)
			mark(c, cpu[c].since_ns, t);
		cpu[c] = (struct cpu_trace){ next, t };
		switches++;
	}
	fclose(f);
	for (int c = 0; c < ncpus; c++)
		if (cpu[c].pid > 0 && cpu[c].pid != self)
			mark(c, cpu[c].since_ns, t1_ns);
	for (unsigned long i = 0; i < NR_PHASES * nr_windows * ncpus; i++)
		used += awake[i];
	printf("cpusused cpus_used=%.3f windows=%lu cpus=%d switches=%llu mode=trace\n",
	       (double)used / (double)(NR_PHASES * nr_windows), nr_windows, ncpus, switches);
	free(awake);
	return 0;
}

/* Records SECS seconds of sched_switch events in the kernel's buffers, then analyzes them. */
static int trace(long secs)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct timespec run = { secs, 0 };
	char path[256];

	for (unsigned i = 0; i < sizeof(roots) / sizeof(roots[0]) && !tracefs; i++) {
		snprintf(path, sizeof(path), "%s/trace_marker", roots[i]);
		if (!access(path, W_OK))
			tracefs = roots[i];
	}
	if (!tracefs) {
		fprintf(stderr, "cpusused: no writable tracefs\n");
		return 1;
	}
	if (tr_write("tracing_on", "0", 0) || tr_write("trace", "", O_TRUNC) ||
	    tr_write("buffer_size_kb", "4096", 0) ||
	    tr_write("events/sched/sched_switch/enable", "1", 0) || tr_write("tracing_on", "1", 0) ||
	    tr_write("trace_marker", "cpusused start", 0))
		return 1;
	nanosleep(&run, NULL);
	if (tr_write("trace_marker", "cpusused end", 0) || tr_write("tracing_on", "0", 0) ||
	    tr_write("events/sched/sched_switch/enable", "0", 0))
		return 1;
	snprintf(path, sizeof(path), "%s/trace", tracefs);
	return analyze(path);
}

int main(int argc, char **argv)
{
	int opt = argc == 3 && (!strcmp(argv[1], "--sample") || !strcmp(argv[1], "--parse"));
	char *end;
	long secs = 0;

	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus <= 0 || ncpus > MAX_CPUS) {
		fprintf(stderr, "cpusused: %d CPUs\n", ncpus);
		return 1;
	}
	if (opt && !strcmp(argv[1], "--parse"))
		return analyze(argv[2]);
	if (argc != 2 + opt || (secs = strtol(argv[1 + opt], &end, 10)) <= 0 || *end ||
	    secs > 3600) {
		fprintf(stderr, "usage: cpusused [--sample] SECS (1..3600) | cpusused --parse TRACE\n");
		return 2;
	}
	return opt ? sample(secs) : trace(secs);
}
