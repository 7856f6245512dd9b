/* SPDX-License-Identifier: GPL-2.0 */
/*
 * threadstorm - start N threads at once, have each one run, sleep and yield a
 * few times, and join them all. A scheduler that loses a task, or starves one
 * past the timeout, makes this fail.
 *
 *   threadstorm [--threads N] [--rounds R] [--spin ITERS] [--timeout-s S]
 *
 * Each round spins ITERS loop iterations (20000 by default), naps 200 us
 * and yields.
 *
 * Output: "threadstorm started=.. joined=.. secs=.. gate_ms=.. mean_wait_ms=..
 * max_wait_ms=.. (sleep|yield)" and exit 0 only when every started thread
 * was joined within the timeout; exit 1 otherwise, 2 on bad arguments.
 *
 * max_wait_ms (mean_wait_ms) is the longest (average) a thread was kept
 * from running as user space sees it, under whichever scheduler runs: from
 * the end of a nap's 200 us (plus the 50 us default timer slack) to the
 * instruction after nanosleep, or across sched_yield. It lets the scheduler's own longest-wait record be
 * put next to what EEVDF does with the same storm. gate_ms, how long the
 * last thread took to pass the opened gate, is not a scheduling wait
 * alone: the readers of a rwlock are woken and take it one after another.
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

static int nr_threads = 10000, rounds = 5, spin_iters = 20000, timeout_s = 120;
static _Atomic int finished;
static _Atomic long long gate_open_ns;	/* when main released the gate */
static _Atomic long long gate_ns;	/* the last thread through the gate, after its opening */
static _Atomic long long max_wait_ns;
static _Atomic int max_wait_kind;	/* index into wait_kinds */
static _Atomic long long sum_wait_ns, nr_waits;	/* for the mean: Little's law's side of it */
static const char *const wait_kinds[] = { "none", "sleep", "yield" };
/* Held for writing while threads are created: all of them then wake at once. */
static pthread_rwlock_t gate = PTHREAD_RWLOCK_INITIALIZER;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Raise *max to v; true if v was the new maximum. */
static int atomic_max(_Atomic long long *max, long long v)
{
	long long cur = atomic_load(max);

	while (v > cur)
		if (atomic_compare_exchange_weak(max, &cur, v))
			return 1;
	return 0;
}

static void note_wait(long long wait_ns, int kind)
{
	if (wait_ns < 0)	/* a nap that ended before its slack ran out */
		wait_ns = 0;
	atomic_fetch_add(&sum_wait_ns, wait_ns);
	atomic_fetch_add(&nr_waits, 1);
	if (atomic_max(&max_wait_ns, wait_ns))
		atomic_store(&max_wait_kind, kind);
}

#define NAP_NS		(200 * 1000LL)
#define SLACK_NS	(50 * 1000LL)	/* the default timer slack */

static void *worker(void *arg)
{
	volatile unsigned long spin = 0;
	struct timespec nap = { 0, NAP_NS };
	long long t;

	(void)arg;
	pthread_rwlock_rdlock(&gate);
	atomic_max(&gate_ns, now_ns() - atomic_load(&gate_open_ns));
	pthread_rwlock_unlock(&gate);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < spin_iters; i++)
			spin += i;
		t = now_ns();
		nanosleep(&nap, NULL);
		note_wait(now_ns() - t - NAP_NS - SLACK_NS, 1);
		t = now_ns();
		sched_yield();
		note_wait(now_ns() - t, 2);
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
	long long t0;

	for (int i = 1; i < argc; i++) {
		int *dst = NULL, lo = 1, hi = 0;

		if (!strcmp(argv[i], "--threads"))
			dst = &nr_threads, hi = 100000;
		else if (!strcmp(argv[i], "--spin"))
			dst = &spin_iters, hi = 100000000;
		else if (!strcmp(argv[i], "--rounds"))
			dst = &rounds, hi = 1000;
		else if (!strcmp(argv[i], "--timeout-s"))
			dst = &timeout_s, hi = 3600;
		if (!dst || i + 1 >= argc || parse_int(argv[i + 1], lo, hi, dst)) {
			fprintf(stderr, "usage: threadstorm [--threads 1-100000] [--rounds 1-1000] [--spin 1-100000000] "
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
	t0 = now_ns();
	pthread_rwlock_wrlock(&gate);
	for (; started < nr_threads; started++) {
		int err = pthread_create(&tids[started], &attr, worker, NULL);

		if (err) {
			fprintf(stderr, "threadstorm: pthread_create #%d: %s\n", started, strerror(err));
			break;
		}
	}
	atomic_store(&gate_open_ns, now_ns());
	pthread_rwlock_unlock(&gate);
	for (int i = 0; i < started; i++)
		if (!pthread_join(tids[i], NULL))
			joined++;
	printf("threadstorm started=%d joined=%d finished=%d secs=%.2f gate_ms=%lld mean_wait_ms=%lld "
	       "max_wait_ms=%lld (%s)\n",
	       started, joined, atomic_load(&finished), (now_ns() - t0) / 1e9, atomic_load(&gate_ns) / 1000000,
	       atomic_load(&nr_waits) ? atomic_load(&sum_wait_ns) / atomic_load(&nr_waits) / 1000000 : 0,
	       atomic_load(&max_wait_ns) / 1000000, wait_kinds[atomic_load(&max_wait_kind)]);
	return started == nr_threads && joined == started && atomic_load(&finished) == started ? 0 : 1;
}
