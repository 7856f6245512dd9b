// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-lines - where each loaded BPF program's source lines sit in its JIT
 * image: one line per line-info record, "ADDR PROG FILE:LINE SOURCE",
 * ADDR in hex as /proc/kallsyms prints it. With tools/vm/sample-pc's
 * samples of the guest's instruction pointers, this attributes the time
 * spent in a scheduler's callbacks to the lines of C that cost it (the
 * kernel keeps the BTF line info and the JIT's address for each record).
 *
 *   bpf-lines [NAME_PREFIX]    programs whose name starts with it (all if none)
 *
 * Root only (it opens programs by id). Exit 1 if no program matched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

static int dump_prog(int fd, const char *prefix)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), nl, nj, i;
	struct bpf_line_info *li = NULL;
	__u64 *jl = NULL;
	struct btf *btf = NULL;
	int ret = 0;

	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		return 0;
	if (prefix && strncmp(info.name, prefix, strlen(prefix)))
		return 0;
	nl = info.nr_line_info;
	nj = info.nr_jited_line_info;
	if (!nl || nl != nj || !info.btf_id ||
	    info.line_info_rec_size != sizeof(*li) || info.jited_line_info_rec_size != sizeof(*jl))
		return 0;
	li = calloc(nl, sizeof(*li));
	jl = calloc(nj, sizeof(*jl));
	if (!li || !jl)
		goto out;
	memset(&info, 0, sizeof(info));
	info.nr_line_info = nl;
	info.line_info_rec_size = sizeof(*li);
	info.line_info = (unsigned long)li;
	info.nr_jited_line_info = nj;
	info.jited_line_info_rec_size = sizeof(*jl);
	info.jited_line_info = (unsigned long)jl;
	len = sizeof(info);
	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		goto out;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		goto out;
	for (i = 0; i < nl; i++) {
		const char *file = btf__name_by_offset(btf, li[i].file_name_off);
		const char *src = btf__name_by_offset(btf, li[i].line_off);
		const char *base = file ? strrchr(file, '/') : NULL;

		printf("%llx %s %s:%u %s\n", (unsigned long long)jl[i], info.name,
		       base ? base + 1 : (file ? file : "?"), BPF_LINE_INFO_LINE_NUM(li[i].line_col),
		       src ? src : "");
	}
	ret = 1;
out:
	btf__free(btf);
	free(li);
	free(jl);
	return ret;
}

int main(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : NULL;
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		n += dump_prog(fd, prefix);
		close(fd);
	}
	if (!n) {
		fprintf(stderr, "bpf-lines: no program with line info%s%s\n",
			prefix ? " named " : "", prefix ? prefix : "");
		return 1;
	}
	return 0;
}
