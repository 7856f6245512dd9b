/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lavd-schbench - a schbench-style benchmark of our own (schbench is not
 * packaged for Debian): message threads hand requests to worker threads
 * over futexes; a worker wakes, "thinks" for a fixed CPU time, and reports.
 * Measures wake-up latency (request posted -> worker running) and request
 * latency (arrival -> done), and requests per second.
 *
 *   lavd-schbench [-m MSG_THREADS] [-t WORKERS_PER_MSG] [--think-us US]
 *                 [--rps N (0 = saturation)] [--secs S] [--name TAG]
 *
 * At a fixed rate, arrivals are spread evenly over the message threads; a
 * request that finds no idle worker waits, and that wait counts in its
 * request latency. Output: one line "schbench TAG key=value ...".
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_MSG 16
#define MAX_WORKERS 64
#define MAX_SAMPLES (1 << 20)

struct worker {
	_Atomic uint32_t req;		/* posted requests */
	_Atomic uint32_t done;		/* finished requests */
	_Atomic uint64_t post_ns;	/* when the current request was posted */
	_Atomic uint64_t arrive_ns;	/* when it arrived (fixed rate: may be earlier) */
	struct msg *m;
	pthread_t th;
} __attribute__((aligned(64)));

struct msg {
	struct worker w[MAX_WORKERS];
	_Atomic uint32_t completions;	/* futex the message thread sleeps on */
	pthread_t th;
};

static int nr_msg = 2, nr_workers = 4, think_us = 200, rps, secs = 10;
static const char *tag = "run";
static struct msg msgs[MAX_MSG];
static _Atomic int stop;
static uint64_t *wake_lat, *req_lat;
static _Atomic uint64_t nr_wake, nr_req;
static _Atomic uint64_t nr_msg_sleep;	/* message threads' waits for completions */

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void fwait(_Atomic uint32_t *a, uint32_t v)
{
	struct timespec to = { 0, 50 * 1000 * 1000 };

	syscall(SYS_futex, a, FUTEX_WAIT_PRIVATE, v, &to, NULL, 0);
}

static void fwake(_Atomic uint32_t *a)
{
	syscall(SYS_futex, a, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * Think for `us` of this thread's CPU time, not of wall time. A wall-clock
 * spin finishes "for free" while its thread is preempted (the clock runs on
 * while another task has the CPU), so it pays a scheduler for cutting
 * requests short with involuntary switches: the opposite of schbench, whose
 * workers do a fixed amount of work, and of the "workers think for a
 * fixed CPU time". Until 2026-12-05 this benchmark spun on the wall clock.
 */
static void burn_us(int us)
{
	uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)us * 1000;
	volatile uint64_t x = 0;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 200; i++)
			x += i;
}

static void record(uint64_t *arr, _Atomic uint64_t *n, uint64_t v)
{
	uint64_t i = atomic_fetch_add(n, 1);

	if (i < MAX_SAMPLES)
		arr[i] = v;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint32_t seen = 0;

	while (!atomic_load(&stop)) {
		uint32_t r = atomic_load(&w->req);

		if (r == seen) {
			fwait(&w->req, r);
			continue;
		}
		seen = r;
		record(wake_lat, &nr_wake, now_ns() - atomic_load(&w->post_ns));
		burn_us(think_us);
		record(req_lat, &nr_req, now_ns() - atomic_load(&w->arrive_ns));
		atomic_store(&w->done, r);
		atomic_fetch_add(&w->m->completions, 1);
		fwake(&w->m->completions);
	}
	return NULL;
}

static void post(struct worker *w, uint64_t arrive)
{
	atomic_store(&w->arrive_ns, arrive);
	atomic_store(&w->post_ns, now_ns());
	atomic_fetch_add(&w->req, 1);
	fwake(&w->req);
}

static void *msg_fn(void *arg)
{
	struct msg *m = arg;
	uint64_t period = rps ? 1000000000ULL * nr_msg / rps : 0;
	uint64_t next = now_ns(), pending = 0;

	while (!atomic_load(&stop)) {
		uint32_t c = atomic_load(&m->completions);
		uint64_t now = now_ns();
		int posted = 0;

		for (int i = 0; i < nr_workers; i++) {
			struct worker *w = &m->w[i];

			if (atomic_load(&w->req) != atomic_load(&w->done))
				continue;
			if (period) {
				if (!pending && now >= next) {
					pending = next;
					next += period;
				}
				if (!pending)
					break;
				post(w, pending);
				pending = 0;
			} else {
				post(w, now);
			}
			posted++;
		}
		if (period && !pending && !posted) {
			/* sleep until the next arrival (or a completion) */
			uint64_t d = next > now ? next - now : 0;
			struct timespec ts = { d / 1000000000ULL, d % 1000000000ULL };

			if (d)
				nanosleep(&ts, NULL);
		} else if (!posted) {
			atomic_fetch_add(&nr_msg_sleep, 1);
			fwait(&m->completions, c);
		}
	}
	return NULL;
}

/* Touch every page of a sample array (volatile: a zeroing memset after malloc may become calloc). */
static void prefault(uint64_t *arr)
{
	for (size_t i = 0; i < MAX_SAMPLES; i += 4096 / sizeof(uint64_t))
		((volatile uint64_t *)arr)[i] = 0;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(uint64_t *a, uint64_t n, int per_mille)
{
	return n ? a[(n - 1) * per_mille / 1000] / 1000 : 0;
}

int main(int argc, char **argv)
{
	uint64_t nw, nr, t0;

	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];

		if (!strcmp(a, "-m"))
			nr_msg = atoi(v);
		else if (!strcmp(a, "-t"))
			nr_workers = atoi(v);
		else if (!strcmp(a, "--think-us"))
			think_us = atoi(v);
		else if (!strcmp(a, "--rps"))
			rps = atoi(v);
		else if (!strcmp(a, "--secs"))
			secs = atoi(v);
		else if (!strcmp(a, "--name"))
			tag = v;
		else {
			fprintf(stderr, "lavd-schbench: unknown option %s\n", a);
			return 2;
		}
	}
	if (argc % 2 == 0 || nr_msg < 1 || nr_msg > MAX_MSG || nr_workers < 1 ||
	    nr_workers > MAX_WORKERS || think_us < 0 || rps < 0 || secs < 1) {
		fprintf(stderr, "lavd-schbench: bad parameters\n");
		return 2;
	}
	/*
	 * Keep the kernel's memory work out of the measured window: no
	 * transparent huge pages (with them every thread's stack and each
	 * sample array took a 2 MB page cleared on first touch, and khugepaged
	 * collapsed pages in the background: counted with tools/vm/insn-count,
	 * up to 1,000 instructions per request in a run, 1.7 % of it, in
	 * whichever scheduler's run found free huge pages), and the sample
	 * arrays faulted in before the clock starts.
	 */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	wake_lat = malloc(MAX_SAMPLES * sizeof(uint64_t));
	req_lat = malloc(MAX_SAMPLES * sizeof(uint64_t));
	if (!wake_lat || !req_lat)
		return 1;
	prefault(wake_lat);
	prefault(req_lat);
	for (int m = 0; m < nr_msg; m++)
		for (int i = 0; i < nr_workers; i++) {
			msgs[m].w[i].m = &msgs[m];
			pthread_create(&msgs[m].w[i].th, NULL, worker_fn, &msgs[m].w[i]);
		}
	t0 = now_ns();
	for (int m = 0; m < nr_msg; m++)
		pthread_create(&msgs[m].th, NULL, msg_fn, &msgs[m]);
	sleep(secs);
	atomic_store(&stop, 1);
	for (int m = 0; m < nr_msg; m++) {
		fwake(&msgs[m].completions);
		pthread_join(msgs[m].th, NULL);
		for (int i = 0; i < nr_workers; i++) {
			atomic_fetch_add(&msgs[m].w[i].req, 0);
			fwake(&msgs[m].w[i].req);
			pthread_join(msgs[m].w[i].th, NULL);
		}
	}
	nw = nr_wake < MAX_SAMPLES ? nr_wake : MAX_SAMPLES;
	nr = nr_req < MAX_SAMPLES ? nr_req : MAX_SAMPLES;
	qsort(wake_lat, nw, sizeof(uint64_t), cmp);
	qsort(req_lat, nr, sizeof(uint64_t), cmp);
	printf("schbench %s requests=%llu rps=%.1f wake_p50_us=%llu wake_p90_us=%llu wake_p99_us=%llu "
	       "wake_p999_us=%llu req_p50_us=%llu req_p90_us=%llu req_p99_us=%llu req_p999_us=%llu "
	       "msg_sleeps=%llu\n",
	       tag, (unsigned long long)nr_req, nr_req * 1e9 / (now_ns() - t0),
	       (unsigned long long)pct(wake_lat, nw, 500), (unsigned long long)pct(wake_lat, nw, 900),
	       (unsigned long long)pct(wake_lat, nw, 990), (unsigned long long)pct(wake_lat, nw, 999),
	       (unsigned long long)pct(req_lat, nr, 500), (unsigned long long)pct(req_lat, nr, 900),
	       (unsigned long long)pct(req_lat, nr, 990), (unsigned long long)pct(req_lat, nr, 999),
	       (unsigned long long)nr_msg_sleep);
	return 0;
}
