# lavd-sim: the discrete-event simulator (docs/sim.md).
#
#   make $(O)/lavd-sim   build it (links src/policy/ unchanged)
#   make test-sim        tests/sim/run.sh: determinism, invariants, goldens, sanity
#   make bench-sim       events/s on the 128-CPU server topology (a benchmark)
#
# Uses O, CC and POLICY_HDRS from the top Makefile.

O           ?= build
CC          ?= gcc
POLICY_HDRS ?= $(wildcard src/policy/*.h)

SIM_SRCS   := sim/main.c sim/engine.c sim/sched_lavd.c sim/sched_simple.c sim/sched_eevdf.c \
              sim/topo.c sim/workload.c sim/metrics.c
SIM_CFLAGS := -O2 -g -Wall -Wextra -Werror -std=c11 -D_GNU_SOURCE -Isrc
# libjansson-dev ships a static archive: link it in, the binary needs no .so.
SIM_LIBS   := -Wl,-Bstatic -ljansson -Wl,-Bdynamic -lm

.PHONY: test-sim bench-sim

$(O)/lavd-sim: $(SIM_SRCS) sim/sim.h $(POLICY_HDRS)
	@mkdir -p $(O)
	$(CC) $(SIM_CFLAGS) -o $@ $(SIM_SRCS) $(SIM_LIBS)

$(O)/lavd-sim-debug: $(SIM_SRCS) sim/sim.h $(POLICY_HDRS)
	@mkdir -p $(O)
	$(CC) $(SIM_CFLAGS) -DSIM_DEBUG -O1 -o $@ $(SIM_SRCS) $(SIM_LIBS)

test-sim: $(O)/lavd-sim $(O)/lavd-sim-debug
	@tests/sim/run.sh $(O)/lavd-sim $(O)/lavd-sim-debug

bench-sim: $(O)/lavd-sim
	@for w in server server+batch; do for s in lavd eevdf; do \
		$(O)/lavd-sim --topo server --workload $$w --sched $$s --seed 1 \
			--duration-ms 5000 --bench --quiet || exit 1; \
	done; done
