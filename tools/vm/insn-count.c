/* SPDX-License-Identifier: GPL-2.0 */
/*
 * insn-count - a QEMU TCG plugin that counts the guest instructions executed
 * at each address while the guest's output is between "@@SAMPLE-START TAG"
 * and "@@SAMPLE-STOP TAG" (the markers tools/vm/sample-pc uses).
 *
 * Why: under -icount every guest instruction is 2 ns of virtual time, so an
 * instruction count per function *is* the virtual-time profile the
 * benchmarks' figures come from. sample-pc samples host emulation time
 * instead, in which a division or an atomic weighs more than an add, and a
 * spinning vCPU's share depends on the host.
 *
 *   qemu ... -plugin build/insn-count.so,log=VMLOG,out=DIR
 *
 * VMLOG is the file the VM's output goes to (tools/vm/run's stdout); a
 * thread follows it for the markers. At each STOP, DIR/TAG.insns gets one
 * line per instruction address executed in the window, in sample-pc's
 * format with a weight: "TAG - ADDR - - COUNT" (sample-pc report sums the
 * weights). Counting is per translation block: each of its instructions is
 * credited once per execution of the block, which is exact except for a
 * block left early by an exception (a page fault, say).
 *
 * QEMU ships no header for plugins in Debian; the few entry points used are
 * declared here (the plugin API is a stable C ABI, version 2 and up).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 2;

/* One translation block; the same code translated again is another one. */
struct block {
	struct block *next;
	uint64_t count;		/* executions in the current window */
	uint32_t n;
	uint64_t vaddr[];	/* its instructions' addresses */
};

static struct block *blocks;		/* every block translated, newest first */
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool counting;
static char *log_path, *out_dir;

static void on_exec(unsigned int vcpu, void *ud)
{
	struct block *b = ud;

	(void)vcpu;
	/*
	 * -icount runs every vCPU in one thread; without it the vCPU threads
	 * may race here and lose a few counts, which a profile tolerates.
	 */
	if (atomic_load_explicit(&counting, memory_order_relaxed))
		b->count++;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	(void)id;
	b = calloc(1, sizeof(*b) + n * sizeof(b->vaddr[0]));
	if (!b)
		return;		/* that block goes uncounted */
	b->n = (uint32_t)n;
	for (size_t i = 0; i < n; i++)
		b->vaddr[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
	pthread_mutex_lock(&blocks_lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&blocks_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, b);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Write TAG's counts, one line per address (sorted, merged), and zero them. */
static void dump(const char *tag)
{
	struct { uint64_t vaddr, count; } *recs = NULL;
	size_t nr = 0, cap = 0, i, j;
	char path[4096];
	uint64_t total = 0;
	struct block *b;
	FILE *f;

	pthread_mutex_lock(&blocks_lock);
	for (b = blocks; b; b = b->next) {
		uint64_t c = b->count;

		if (!c)
			continue;
		b->count = 0;
		for (i = 0; i < b->n; i++) {
			if (nr == cap) {
				void *m;

				cap = cap ? 2 * cap : 1 << 16;
				m = realloc(recs, cap * sizeof(*recs));
				if (!m)
					goto out;
				recs = m;
			}
			recs[nr].vaddr = b->vaddr[i];
			recs[nr++].count = c;
		}
	}
out:
	pthread_mutex_unlock(&blocks_lock);
	/* vaddr is the first member: sort the pairs by it. */
	qsort(recs, nr, sizeof(*recs), cmp_u64);
	snprintf(path, sizeof(path), "%s/%s.insns", out_dir, tag);
	f = fopen(path, "w");
	if (!f) {
		qemu_plugin_outs("insn-count: cannot write the counts\n");
		free(recs);
		return;
	}
	for (i = 0; i < nr; i = j) {
		uint64_t c = 0;

		for (j = i; j < nr && recs[j].vaddr == recs[i].vaddr; j++)
			c += recs[j].count;
		total += c;
		fprintf(f, "%s - %016" PRIx64 " - - %" PRIu64 "\n", tag, recs[i].vaddr, c);
	}
	fclose(f);
	free(recs);
	snprintf(path, sizeof(path), "insn-count: %s: %" PRIu64 " instructions\n", tag, total);
	qemu_plugin_outs(path);
}

/* Follow the VM's output for the markers; the file may not exist yet. */
static void *watch(void *arg)
{
	char line[4096], tag[256];
	FILE *f = NULL;

	(void)arg;
	while (!f) {
		f = fopen(log_path, "r");
		if (!f)
			usleep(100 * 1000);
	}
	for (;;) {
		if (!fgets(line, sizeof(line), f)) {
			clearerr(f);
			usleep(20 * 1000);
			continue;
		}
		if (sscanf(line, "@@SAMPLE-START %255s", tag) == 1) {
			atomic_store(&counting, true);
		} else if (sscanf(line, "@@SAMPLE-STOP %255s", tag) == 1) {
			atomic_store(&counting, false);
			dump(tag);
		}
	}
	return NULL;
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	pthread_t th;

	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "log=", 4))
			log_path = argv[i] + 4;
		else if (!strncmp(argv[i], "out=", 4))
			out_dir = argv[i] + 4;
	}
	if (!log_path || !out_dir) {
		qemu_plugin_outs("insn-count: needs log=FILE,out=DIR\n");
		return -1;
	}
	if (pthread_create(&th, NULL, watch, NULL))
		return -1;
	pthread_detach(th);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
