/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prog_cost.h - what each BPF program of a loaded object cost: calls and
 * average ns, from the kernel's BPF run-time statistics (on while the caller
 * holds the fd of bpf_enable_stats(BPF_STATS_RUN_TIME)). Under QEMU -icount
 * time is instructions, so this is a scheduler's own share of a benchmark.
 * Shared by scx_lavd -v and the reference scheduler scx_floor -v, so the two
 * print the same figures the same way.
 */
#ifndef __LAVD_PROG_COST_H
#define __LAVD_PROG_COST_H

#include <stdio.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static inline void print_prog_costs(struct bpf_object *obj, const char *who)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_prog_get_info_by_fd(fd, &info, &len) || !info.run_cnt)
			continue;
		printf("%s: cost: %-24s calls=%llu avg_ns=%llu\n", who, bpf_program__name(prog),
		       (unsigned long long)info.run_cnt,
		       (unsigned long long)(info.run_time_ns / info.run_cnt));
	}
}

#endif /* __LAVD_PROG_COST_H */
