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
 *
 * The sampling mode wakes a CPU itself in every window, so it reads at least
 * 1.00 under any scheduler and squeezes every ratio towards 1. The trace
 * mode sleeps through the run (the kernel records the switches in its ring
 * buffers, nobody reads them until the end) and leaves its own process out,
 * so an idle machine reads about 0.
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
static unsigned long nr_windows;
static unsigned char *awake;		/* [window * ncpus + cpu] */
static int ncpus;

/* Marks the windows [from_ns, to_ns] overlaps on cpu. */
static void mark(int cpu, unsigned long long from_ns, unsigned long long to_ns)
{
	unsigned long w0, w1;

	if (from_ns < t0_ns)
		from_ns = t0_ns;
	if (to_ns > t1_ns)
		to_ns = t1_ns;
	if (from_ns > to_ns || cpu >= ncpus)
		return;
	w0 = (from_ns - t0_ns) / WINDOW_NS;
	w1 = (to_ns - t0_ns) / WINDOW_NS;
	for (unsigned long w = w0; w <= w1 && w < nr_windows; w++)
		awake[w * ncpus + cpu] = 1;
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

static int trace(long secs)
{
	static struct cpu_trace cpu[MAX_CPUS];
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct timespec run = { secs, 0 };
	unsigned long long switches = 0, used = 0;
	int self = getpid(), lost = 0;
	char path[256], line[1024];
	FILE *f;

	for (unsigned i = 0; i < sizeof(roots) / sizeof(roots[0]) && !tracefs; i++) {
		snprintf(path, sizeof(path), "%s/trace_marker", roots[i]);
		if (!access(path, W_OK))
			tracefs = roots[i];
	}
	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (!tracefs || ncpus <= 0 || ncpus > MAX_CPUS) {
		fprintf(stderr, "cpusused: no writable tracefs (or %d CPUs)\n", ncpus);
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
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cpusused: %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* first pass: the markers give the span and the window count */
	while (fgets(line, sizeof(line), f)) {
		unsigned long long t;
		int c;
		unsigned long long in_buf, written;
		const char *e = strstr(line, "entries-in-buffer/entries-written:");

		if (e && sscanf(e, "entries-in-buffer/entries-written: %llu/%llu", &in_buf,
				&written) == 2 && in_buf != written)
			lost = 1;
		if (!parse_head(line, "tracing_mark_write:", &c, &t))
			continue;
		if (strstr(line, "cpusused start"))
			t0_ns = t;
		else if (strstr(line, "cpusused end"))
			t1_ns = t;
	}
	if (lost || !t0_ns || t1_ns <= t0_ns) {
		fprintf(stderr, "cpusused: the trace %s\n",
			lost ? "lost events (ring buffer too small)" : "has no start and end marks");
		fclose(f);
		return 1;
	}
	nr_windows = (t1_ns - t0_ns) / WINDOW_NS;
	awake = calloc(nr_windows * ncpus + 1, 1);
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
		/* Before the CPU's first switch it ran prev since the start (or longer). */
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
	for (unsigned long i = 0; i < nr_windows * ncpus; i++)
		used += awake[i];
	printf("cpusused cpus_used=%.3f windows=%lu cpus=%d switches=%llu mode=trace\n",
	       nr_windows ? (double)used / (double)nr_windows : 0.0, nr_windows, ncpus, switches);
	free(awake);
	return 0;
}

int main(int argc, char **argv)
{
	int sampled = argc == 3 && !strcmp(argv[1], "--sample");
	char *end;
	long secs;

	if (argc != 2 + sampled || (secs = strtol(argv[1 + sampled], &end, 10)) <= 0 || *end ||
	    secs > 3600) {
		fprintf(stderr, "usage: cpusused [--sample] SECS (1..3600)\n");
		return 2;
	}
	return sampled ? sample(secs) : trace(secs);
}
