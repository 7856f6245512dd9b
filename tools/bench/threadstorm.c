/* SPDX-License-Identifier: GPL-2.0 */
/*
 * threadstorm - start N threads at once, have each one run, sleep and yield a
 * few times, and join them all. A scheduler that loses a task, or starves one
 * past the timeout, makes this fail.
 *
 *   threadstorm [--threads N] [--rounds R] [--timeout-s S]
 *
 * Output: "threadstorm started=.. joined=.. secs=.." and exit 0 only when
 * every started thread was joined within the timeout; exit 1 otherwise,
 * 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STACK_BYTES (64 * 1024)	/* small stacks: 10,000 threads fit in a small VM */

static int nr_threads = 10000, rounds = 5, timeout_s = 120;
static _Atomic int finished;
/* Held for writing while threads are created: all of them then wake at once. */
static pthread_rwlock_t gate = PTHREAD_RWLOCK_INITIALIZER;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	volatile unsigned long spin = 0;
	struct timespec nap = { 0, 200 * 1000 };	/* 200 us */

	(void)arg;
	pthread_rwlock_rdlock(&gate);
	pthread_rwlock_unlock(&gate);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 20000; i++)
			spin += i;
		nanosleep(&nap, NULL);
		sched_yield();
	}
	atomic_fetch_add(&finished, 1);
	return NULL;
}

static void on_alarm(int sig)
{
	char msg[96];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "threadstorm: timeout, %d of %d threads finished\n",
		     atomic_load(&finished), nr_threads);
	if (n > 0)
		(void)!write(2, msg, (size_t)n);
	_exit(1);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t *tids;
	int started = 0, joined = 0;
	double t0;

	for (int i = 1; i < argc; i++) {
		int *dst = NULL, lo = 1, hi = 0;

		if (!strcmp(argv[i], "--threads"))
			dst = &nr_threads, hi = 100000;
		else if (!strcmp(argv[i], "--rounds"))
			dst = &rounds, hi = 1000;
		else if (!strcmp(argv[i], "--timeout-s"))
			dst = &timeout_s, hi = 3600;
		if (!dst || i + 1 >= argc || parse_int(argv[i + 1], lo, hi, dst)) {
			fprintf(stderr, "usage: threadstorm [--threads 1-100000] [--rounds 1-1000] "
				"[--timeout-s 1-3600]\n");
			return 2;
		}
		i++;
	}
	tids = calloc((size_t)nr_threads, sizeof(*tids));
	if (!tids) {
		perror("threadstorm: calloc");
		return 1;
	}
	signal(SIGALRM, on_alarm);
	alarm((unsigned)timeout_s);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_BYTES);
	t0 = now_s();
	pthread_rwlock_wrlock(&gate);
	for (; started < nr_threads; started++) {
		int err = pthread_create(&tids[started], &attr, worker, NULL);

		if (err) {
			fprintf(stderr, "threadstorm: pthread_create #%d: %s\n", started, strerror(err));
			break;
		}
	}
	pthread_rwlock_unlock(&gate);
	for (int i = 0; i < started; i++)
		if (!pthread_join(tids[i], NULL))
			joined++;
	printf("threadstorm started=%d joined=%d finished=%d secs=%.2f\n", started, joined,
	       atomic_load(&finished), now_s() - t0);
	return started == nr_threads && joined == started && atomic_load(&finished) == started ? 0 : 1;
}
