/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wakechain - a game-like frame pipeline: a timer thread starts a frame every
 * 1/fps seconds, and N stage threads hand it on with futex wake-ups, each
 * burning work_us of CPU. Reports frame completion time (start of frame to
 * end of the last stage) percentiles and deadline misses (frame not done
 * before the next one starts).
 *
 *   wakechain [--fps N] [--stages N] [--work-us US] [--secs S] [--name TAG]
 *
 * Output: one line "wakechain TAG frames=.. p50_us=.. p99_us=.. max_us=..
 * misses=.. miss_pct=.." (stable keys, for scripts).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_STAGES 16
#define MAX_FRAMES 100000

static int fps = 60, nr_stages = 4, work_us = 1500, secs = 10;
static const char *tag = "run";
static _Atomic uint32_t seq[MAX_STAGES + 1];	/* frame number reached by each stage */
static uint64_t frame_start_ns[MAX_FRAMES];
static uint64_t frame_lat_ns[MAX_FRAMES];
static uint8_t frame_late[MAX_FRAMES];	/* still in flight when the next frame started */
static _Atomic int stop;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
	struct timespec to = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };

	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, &to, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Burn CPU for us microseconds of wall time (what a game stage does). */
static void burn(int us)
{
	uint64_t end = now_ns() + (uint64_t)us * 1000;
	volatile uint64_t x = 0;

	while (now_ns() < end)
		for (int i = 0; i < 200; i++)
			x += i;
}

static void *stage(void *arg)
{
	int s = (int)(intptr_t)arg;
	uint32_t done = 0;

	while (!atomic_load(&stop)) {
		uint32_t in = atomic_load(&seq[s]);

		if (in == done) {
			futex_wait(&seq[s], in);
			continue;
		}
		done = in;
		burn(work_us);
		if (s == nr_stages - 1 && in > 0 && in <= MAX_FRAMES)
			frame_lat_ns[in - 1] = now_ns() - frame_start_ns[in - 1];
		atomic_store(&seq[s + 1], in);
		futex_wake(&seq[s + 1]);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_STAGES];
	uint64_t period_ns, next;
	struct timespec ts;
	int frames, n = 0, misses = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v) {
			fprintf(stderr, "wakechain: %s needs a value\n", a);
			return 2;
		}
		if (!strcmp(a, "--fps"))
			fps = atoi(v);
		else if (!strcmp(a, "--stages"))
			nr_stages = atoi(v);
		else if (!strcmp(a, "--work-us"))
			work_us = atoi(v);
		else if (!strcmp(a, "--secs"))
			secs = atoi(v);
		else if (!strcmp(a, "--name"))
			tag = v;
		else {
			fprintf(stderr, "wakechain: unknown option %s\n", a);
			return 2;
		}
		i++;
	}
	if (fps <= 0 || fps > 1000 || nr_stages <= 0 || nr_stages > MAX_STAGES || work_us < 0 ||
	    secs <= 0 || (long)fps * secs > MAX_FRAMES) {
		fprintf(stderr, "wakechain: bad parameters\n");
		return 2;
	}
	period_ns = 1000000000ULL / fps;
	frames = fps * secs;
	for (int s = 0; s < nr_stages; s++)
		pthread_create(&th[s], NULL, stage, (void *)(intptr_t)s);

	next = now_ns() + period_ns;
	for (int f = 1; f <= frames; f++) {
		ts.tv_sec = next / 1000000000ULL;
		ts.tv_nsec = next % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		frame_start_ns[f - 1] = now_ns();
		/* a frame still in flight when the next starts is a miss */
		if (f > 1 && atomic_load(&seq[nr_stages]) < (uint32_t)(f - 1))
			frame_late[f - 2] = 1;
		atomic_store(&seq[0], f);
		futex_wake(&seq[0]);
		next += period_ns;
	}
	/* let the last frame finish */
	for (int i = 0; i < 100 && atomic_load(&seq[nr_stages]) < (uint32_t)frames; i++)
		usleep(10000);
	atomic_store(&stop, 1);
	for (int s = 0; s <= nr_stages; s++) {
		atomic_fetch_add(&seq[s], 0);
		futex_wake(&seq[s]);
	}
	for (int s = 0; s < nr_stages; s++)
		pthread_join(th[s], NULL);

	/*
	 * Each frame counts once, late or never done (a stage that falls
	 * behind skips to the newest frame). Until 2026-12-05 a skipped frame
	 * was counted both ways, and EEVDF's misses under overload read up to
	 * a few points high.
	 */
	for (int f = 0; f < frames; f++) {
		if (frame_late[f] || !frame_lat_ns[f])
			misses++;
		if (frame_lat_ns[f])
			frame_lat_ns[n++] = frame_lat_ns[f];
	}
	qsort(frame_lat_ns, n, sizeof(frame_lat_ns[0]), cmp_u64);
	printf("wakechain %s frames=%d done=%d p50_us=%llu p99_us=%llu max_us=%llu misses=%d miss_pct=%.2f\n",
	       tag, frames, n, n ? (unsigned long long)frame_lat_ns[n / 2] / 1000 : 0,
	       n ? (unsigned long long)frame_lat_ns[(n * 99) / 100] / 1000 : 0,
	       n ? (unsigned long long)frame_lat_ns[n - 1] / 1000 : 0, misses,
	       100.0 * misses / frames);
	return 0;
}
