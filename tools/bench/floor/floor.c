// SPDX-License-Identifier: GPL-2.0
/*
 * scx_floor - loads floor.bpf.c, the minimal reference scheduler for
 * benchmarks (see there), until SIGINT or SIGTERM.
 *
 *   scx_floor fifo|vtime [-v]
 *
 * -v prints what each callback cost at exit (calls, average ns), from the
 * kernel's BPF run-time statistics, like scx_lavd -v, so the two can be
 * compared per switch in the same boot.
 *
 * Exit: 0 after a signal, 1 if it failed to load or the kernel ejected it
 * (the kernel's reason is printed), 2 on bad usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

typedef __u32 u32;
typedef __u64 u64;
#include "floor.skel.h"
#include "loader/prog_cost.h"

static volatile sig_atomic_t stop_req;

static void on_signal(int sig)
{
	(void)sig;
	stop_req = 1;
}

int main(int argc, char **argv)
{
	const struct timespec poll = { 0, 100 * 1000 * 1000 };
	struct bpf_link *link;
	struct floor *skel;
	int vtime, verbose, stats_fd = -1, rc = 0;

	verbose = argc == 3 && !strcmp(argv[2], "-v");
	if ((argc != 2 && !verbose) || (strcmp(argv[1], "fifo") && strcmp(argv[1], "vtime"))) {
		fprintf(stderr, "usage: scx_floor fifo|vtime [-v]\n");
		return 2;
	}
	if (verbose) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0)
			fprintf(stderr, "scx_floor: no BPF run-time statistics: %s\n",
				strerror(-stats_fd));
	}
	vtime = !strcmp(argv[1], "vtime");
	skel = floor__open();
	if (!skel) {
		fprintf(stderr, "scx_floor: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->floor_vtime = vtime;
	if (floor__load(skel)) {
		fprintf(stderr, "scx_floor: the kernel refused the BPF program (no sched_ext?)\n");
		floor__destroy(skel);
		return 1;
	}
	link = bpf_map__attach_struct_ops(skel->maps.floor_ops);
	if (!link) {
		fprintf(stderr, "scx_floor: cannot attach: %s\n", strerror(errno));
		floor__destroy(skel);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop_req && !skel->bss->exit_kind)
		nanosleep(&poll, NULL);
	if (!stop_req) {
		fprintf(stderr, "scx_floor: ejected by the kernel: %s\n", skel->bss->exit_reason);
		rc = 1;
	}
	bpf_link__destroy(link);
	if (verbose)
		print_prog_costs(skel->obj, "scx_floor");
	floor__destroy(skel);
	if (stats_fd >= 0)
		close(stats_fd);
	return rc;
}
