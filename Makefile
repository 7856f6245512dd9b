# LAVD for sched_ext, in C. See README.md.
#
#   make            build the BPF scheduler and the loader (build/scx_lavd)
#   make run        run it: on this host if it has sched_ext, else in a VM
#   make test       set up, build and run every test tier
#   make setup      install what the build and the VM need (apt, kernels)
#   make bench      LAVD vs EEVDF in the VM, docs/benchmarks.md

O         ?= build
CLANG     ?= clang-19
BPFTOOL   ?= bpftool
CC        ?= gcc
KVER_BTF  ?= 7.3
CACHE     ?= $(HOME)/.cache/lavd

CFLAGS_COMMON := -O2 -g -Wall -Wextra -Werror -std=gnu11 -Isrc -I$(O)
BPF_CFLAGS    := -g -O2 --target=bpf -mcpu=v3 -D__TARGET_ARCH_x86 -fms-extensions \
                 -Wno-microsoft-anon-tag -Wall -Werror -I$(O) -Isrc
SAN_FLAGS     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

POLICY_HDRS := $(wildcard src/policy/*.h)
BPF_SRCS    := $(wildcard src/bpf/*.c src/bpf/*.h) src/common/intf.h $(POLICY_HDRS)
LOADER_SRCS := src/loader/main.c src/loader/opts.c src/loader/topo.c src/loader/power.c \
               src/loader/cpu_order.c
LOADER_HDRS := $(wildcard src/loader/*.h) src/common/intf.h $(POLICY_HDRS)

.PHONY: all setup run test test-unit test-bpf test-diff test-vm test-loader clean
all: $(O)/scx_lavd $(O)/vm-bin/wakechain $(O)/vm-bin/lavd-schbench $(O)/vm-bin/lavd-pingpong $(O)/vm-bin/threadstorm \
     $(O)/vm-bin/cpusused $(O)/vm-bin/scx_floor $(O)/vm-bin/bpf-lines $(O)/insn-count.so

setup:
	@tools/setup.sh

$(O):
	@mkdir -p $(O)

# vmlinux.h from the kernel we build against (CO-RE adapts to the others).
$(O)/vmlinux.h: | $(O)
	@kdir=$$(tools/vm/fetch-kernel $(KVER_BTF)) && \
	$(BPFTOOL) btf dump file $$kdir/vmlinux format c > $@.tmp && mv $@.tmp $@

$(O)/lavd.bpf.o: $(BPF_SRCS) $(O)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c src/bpf/lavd.bpf.c -o $@

# bpftool 7.5 emits "map->link = ..." which libbpf 1.4 does not have.
$(O)/lavd.skel.h: $(O)/lavd.bpf.o
	$(BPFTOOL) gen skeleton $< name lavd | sed '/map->link = /d' > $@.tmp && mv $@.tmp $@

$(O)/scx_lavd: $(LOADER_SRCS) $(LOADER_HDRS) $(O)/lavd.skel.h
	$(CC) $(CFLAGS_COMMON) -static -o $@ $(LOADER_SRCS) -lbpf -lelf -lz -lzstd

# Workload programs copied into the VM (static: the initramfs has no libc).
$(O)/vm-bin/wakechain: tools/bench/wakechain.c
	@mkdir -p $(O)/vm-bin
	$(CC) -O2 -Wall -Wextra -Werror -static -pthread -o $@ $<

$(O)/vm-bin/lavd-pingpong: tools/bench/pingpong.c
	@mkdir -p $(O)/vm-bin
	$(CC) -O2 -Wall -Wextra -Werror -static -o $@ $<

$(O)/vm-bin/lavd-schbench: tools/bench/schbench.c
	@mkdir -p $(O)/vm-bin
	$(CC) -O2 -Wall -Wextra -Werror -static -pthread -o $@ $<

$(O)/vm-bin/cpusused: tools/bench/cpusused.c
	@mkdir -p $(O)/vm-bin
	$(CC) -O2 -Wall -Wextra -Werror -static -o $@ $<

$(O)/vm-bin/threadstorm: tools/bench/threadstorm.c
	@mkdir -p $(O)/vm-bin
	$(CC) -O2 -Wall -Wextra -Werror -static -pthread -o $@ $<

# scx_floor, the minimal reference scheduler of LAVD_BENCH_FLOOR=1 (tests/bench/suite.sh;
# measurement only, tools/bench/floor/floor.bpf.c says why).
$(O)/floor.bpf.o: tools/bench/floor/floor.bpf.c src/bpf/scx.bpf.h $(O)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/floor.skel.h: $(O)/floor.bpf.o
	$(BPFTOOL) gen skeleton $< name floor | sed '/map->link = /d' > $@.tmp && mv $@.tmp $@

$(O)/vm-bin/scx_floor: tools/bench/floor/floor.c src/loader/prog_cost.h $(O)/floor.skel.h
	@mkdir -p $(O)/vm-bin
	$(CC) $(CFLAGS_COMMON) -static -o $@ $< -lbpf -lelf -lz -lzstd

# JIT address -> source line of the loaded BPF programs (profiling with tools/vm/sample-pc).
$(O)/vm-bin/bpf-lines: tools/bench/bpf-lines.c
	@mkdir -p $(O)/vm-bin
	$(CC) $(CFLAGS_COMMON) -static -o $@ $< -lbpf -lelf -lz -lzstd

# A QEMU TCG plugin for the host: guest instructions per address between
# sample markers (tools/vm/README.md, "Exact instruction counts").
$(O)/insn-count.so: tools/vm/insn-count.c | $(O)
	$(CC) -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -o $@ $< -lpthread

# Benchmarks against EEVDF in the VM (not a test: never fails on a slow machine).
.PHONY: bench
bench: all
	@tests/bench/run.sh

include tests/tests.mk
include sim/sim.mk

run: all
	@tools/run-demo

clean:
	rm -rf $(O)
