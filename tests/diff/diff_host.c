/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diff_host.c - differential test: the policy core compiled by gcc versus
 * the same code compiled to BPF and run in the kernel (BPF_PROG_TEST_RUN of
 * a syscall program, which needs no sched_ext).
 *
 *   diff_host OBJ [--cases N] [--seed S] [--expect-mismatch]
 *
 * Prints one line per operation and "N passed, N failed". With
 * --expect-mismatch the object is the deliberately broken build and the
 * test passes only if mismatches are found.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "diff_ops.h"

static const char *op_names[NR_DIFF_OPS] = {
	"log2x", "mul_sat", "ewma", "ewma_asym", "freq", "lat_cri", "wake", "task_cycle",
	"greedy", "deadline", "clock", "slice_target", "thr", "sys_update", "task_slice",
	"stealee", "invr", "norm", "ctx_boost", "task_init", "preempt", "futex", "turbulence", "warmth", "plan",
	"power", "perf",
	"cbw_quota", "cbw_period",
};

static u64 rng = 0x9e3779b97f4a7c15ULL;

static u64 next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A value that is often at an edge, often realistic, sometimes anything. */
static u64 val(void)
{
	static const u64 edges[] = {
		0, 1, 2, 3, 7, 8, 9, 63, 64, 100, 1023, 1024, 1025, 4577, 10000, 100000,
		500000, 1000000, 5000000, 1000000000ULL, 0xffffffffULL, 0x100000000ULL,
		(1ULL << 63) - 1, 1ULL << 63, ~0ULL - 1, ~0ULL,
	};
	u64 r = next();

	switch (r % 4) {
	case 0:
		return edges[(r >> 8) % (sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return (r >> 8) % 2048;
	case 2:
		return (r >> 8) % (10ULL * 1000000000ULL);
	default:
		return next() >> (r >> 8) % 64;
	}
}

static void fill_task(struct pol_task_stat *t)
{
	t->avg_runtime_ns = val();
	t->acc_runtime_ns = val();
	t->wait_freq = val();
	t->wake_freq = val();
	t->run_freq = val();
	t->last_runnable_ns = val();
	t->last_quiescent_ns = val();
	t->last_running_ns = val();
	t->svc_wgt_ns = val();
	t->lat_cri = val();
	t->lat_cri_waker = val();
	t->lat_cri_wakee = val();
	t->ran_before = next() & 1;
}

static void fill_case(struct diff_ctx *c, u32 op)
{
	memset(c, 0, sizeof(*c));
	c->op = op;
	for (int i = 0; i < 8; i++)
		c->in[i] = val();
	fill_task(&c->t1);
	fill_task(&c->t2);
	/* A configuration the loader would accept (min <= max), or not. */
	c->cfg.slice_min_ns = val();
	c->cfg.slice_max_ns = (next() & 3) ? c->cfg.slice_min_ns + val() % 100000000 : val();
	c->cfg.preempt_shift = val();
	c->cfg.flags = next();
	c->sys.slice_ns = val();
	c->sys.avg_lat_cri = val();
	c->sys.max_lat_cri = val();
	c->sys.thr_lat_cri = val();
	c->sys.avg_svc_wgt_ns = val();
	c->sys.nr_queued = val();
	c->sys.nr_active = val();
	c->sys.avg_util = val();
	c->sys.nr_intervals = val();
	c->smp.interval_ns = val();
	c->smp.busy_ns = val();
	c->smp.nr_sched = val();
	c->smp.sum_lat_cri = val();
	c->smp.max_lat_cri = val();
	c->smp.sum_svc_wgt_ns = val();
	c->smp.nr_queued = val();
	c->smp.nr_active = val();
	c->smp.nr_cpus = val();
	for (int i = 0; i < DIFF_NR_DOMS; i++) {
		c->doms[i].queued_wgt = val();
		c->doms[i].nr_queued = next() & 1 ? val() : 0;
		c->doms[i].nr_cpus = val();
		c->doms[i].run_wgt = val();
		/* the plan needs every queue busy: make that common */
		if (op == OP_PLAN && (next() & 7))
			c->doms[i].nr_queued |= 1;
	}
	for (int i = 0; i < POL_CC_MAX_CPUS; i++)
		c->caps.cap[i] = (next() & 3) ? 1 + next() % 1024 : val();
	for (int i = 0; i < POL_PCO_MAX; i++)
		c->bounds[i] = (i ? c->bounds[i - 1] : 0) + ((next() & 7) ? val() % 8192 : val());
	c->cbw.nquota = val();
	c->cbw.nquota_ub = next() & 1 ? val() : POL_CBW_INF;
	c->cbw.nburst = val();
	c->cbw.budget = (s64)val();
	c->cbw.nr_periods = val();
	c->cbw.nr_throttled = val();
	c->cbw.throttled = next() & 1;
	for (int i = 0; i < POL_CBW_CHAIN_MAX; i++) {
		c->ch1.id[i] = val();
		c->ch2.id[i] = val();
	}
	c->ch1.n = next() & 1 ? val() : next() % (POL_CBW_CHAIN_MAX + 1);
	c->ch2.n = val();
	if (op == OP_PLAN) {
		c->in[0] %= 9;
		c->in[1] %= 9;
	}
	if (op == OP_STEALEE)
		c->in[0] %= DIFF_NR_DOMS + 1; /* table holds DIFF_NR_DOMS entries */
}

int main(int argc, char **argv)
{
	int cases = 1000, expect_mismatch = 0, fd, passed = 0, failed = 0;
	unsigned long long total = 0, mismatches = 0;
	struct bpf_object *obj;
	struct bpf_program *prog;
	const char *path = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cases") && i + 1 < argc)
			cases = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			rng = strtoull(argv[++i], NULL, 0) | 1;
		else if (!strcmp(argv[i], "--expect-mismatch"))
			expect_mismatch = 1;
		else
			path = argv[i];
	}
	if (!path || cases <= 0) {
		fprintf(stderr, "usage: diff_host OBJ [--cases N] [--seed S] [--expect-mismatch]\n");
		return 2;
	}
	obj = bpf_object__open_file(path, NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "diff: cannot load %s: %s\n", path, strerror(errno));
		printf("FAIL diff/load\n0 passed, 1 failed\n");
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, "diff_run");
	fd = prog ? bpf_program__fd(prog) : -1;
	if (fd < 0) {
		printf("FAIL diff/load (no diff_run program)\n0 passed, 1 failed\n");
		return 1;
	}

	for (u32 op = 0; op < NR_DIFF_OPS; op++) {
		int bad = 0;

		for (int i = 0; i < cases; i++) {
			struct diff_ctx in, host, kern;
			LIBBPF_OPTS(bpf_test_run_opts, opts);
			int err;

			fill_case(&in, op);
			host = in;
			kern = in;
			diff_exec(&host);
			/* Only ctx_in: the kernel copies the result back into it. */
			opts.ctx_in = &kern;
			opts.ctx_size_in = sizeof(kern);
			err = bpf_prog_test_run_opts(fd, &opts);
			total++;
			if (err || opts.retval) {
				fprintf(stderr, "diff: %s: test run failed: %s\n", op_names[op],
					strerror(errno));
				bad++;
				break;
			}
			if (memcmp(&host, &kern, sizeof(host))) {
				if (bad < 3 && !expect_mismatch) {
					fprintf(stderr, "diff: %s case %d differs: in[0..3]=%llu %llu %llu %llu "
						"host out0=%llu bpf out0=%llu\n", op_names[op], i,
						(unsigned long long)in.in[0], (unsigned long long)in.in[1],
						(unsigned long long)in.in[2], (unsigned long long)in.in[3],
						(unsigned long long)host.out[0], (unsigned long long)kern.out[0]);
				}
				bad++;
			}
		}
		mismatches += bad;
		if (expect_mismatch)
			continue;
		printf("%s diff/%s (%d cases)\n", bad ? "FAIL" : "PASS", op_names[op], cases);
		if (bad)
			failed++;
		else
			passed++;
	}
	if (expect_mismatch) {
		/* The broken build must be caught. */
		printf("%s diff/injected_mismatch_detected (%llu of %llu cases differ)\n",
		       mismatches ? "PASS" : "FAIL", mismatches, total);
		mismatches ? passed++ : failed++;
	} else {
		fprintf(stderr, "diff: %llu cases compared, %llu mismatches\n", total, mismatches);
	}
	bpf_object__close(obj);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
