/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF side of the differential test: diff_exec() as a syscall program. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "diff_ops.h"

char _license[] SEC("license") = "GPL";

/*
 * The context cannot be indexed with a variable offset, the policy does
 * (stealee table), so work on a global copy.
 */
struct diff_ctx g;
_Static_assert(sizeof(struct diff_ctx) % 8 == 0, "copied in u64 words");

SEC("syscall")
int diff_run(struct diff_ctx *ctx)
{
	u64 *src = (u64 *)ctx, *dst = (u64 *)&g;
	int i;

	/* Unrolled: context accesses must have constant offsets. */
#pragma unroll
	for (i = 0; i < (int)(sizeof(g) / 8); i++)
		dst[i] = src[i];
	diff_exec(&g);
#pragma unroll
	for (i = 0; i < (int)(sizeof(g) / 8); i++)
		src[i] = dst[i];
	return 0;
}
