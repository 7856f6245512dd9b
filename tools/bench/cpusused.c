/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpusused - how many CPUs a load keeps awake: every 10 ms, read each CPU's
 * run time from /proc/schedstat and count the CPUs on which anything ran
 * since the last sample (a CPU that ran something in a window could not
 * stay in a deep idle state through it). Prints the average over the run.
 * Busy time alone cannot show core compaction: the same work on fewer CPUs
 * is the same busy time.
 *
 *   cpusused SECS
 *
 * Output: "cpusused cpus_used=.. samples=.. cpus=..", exit 0; 2 on bad
 * arguments, 1 if /proc/schedstat cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CPUS 1024

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

int main(int argc, char **argv)
{
	static unsigned long long a[MAX_CPUS], b[MAX_CPUS];
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	unsigned long long used = 0, samples = 0;
	char *end;
	long secs;
	int n;

	if (argc != 2 || (secs = strtol(argv[1], &end, 10)) <= 0 || *end || secs > 3600) {
		fprintf(stderr, "usage: cpusused SECS (1..3600)\n");
		return 2;
	}
	n = read_run(a);
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
	printf("cpusused cpus_used=%.3f samples=%llu cpus=%d\n",
	       samples ? (double)used / (double)samples : 0.0, samples, n);
	return 0;
}
