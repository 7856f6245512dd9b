# Test tiers. `make test` runs them all through tests/run-tiers, which
# prints every PASS/FAIL line and ends with "N passed, N failed".
#
#   test-unit   T0  policy core on the host under ASan/UBSan; loader units; the
#                   light-load benchmark's trace analysis (tests/bench/test_cpusused.sh);
#                   make bench's report arithmetic, lavd-pingpong and tools/vm/sample-pc's report
#                   (tests/bench/test_report.sh); which guest kernel panics the VM tier
#                   boots again (tests/vm/test_panic.sh)
#   test-fuzz   T0  policy core under libFuzzer+ASan/UBSan: seeds replay, recorded
#                   crashes, LAVD_FUZZ_SECS (60) of fuzzing, and a build with an
#                   injected bug that must be caught within 30 s (tests/fuzz/)
#   test-diff   T2  host build == BPF build of the policy (BPF_PROG_TEST_RUN)
#   test-sim    T3  simulator: determinism, invariants, golden traces (sim/sim.mk)
#   test-bpf    T1  the scheduler object passes the verifier (VM, 7.3 and 7.2)
#   test-vm     T4  load tests in the VM on 7.3 and 7.2
#
#   fuzz            not a tier: the same fuzzer for LAVD_FUZZ_LONG_SECS (600)

DIFF_CASES ?= 600
TEST_CFLAGS := -O1 -g -Wall -Wextra -Werror -std=gnu11 -Isrc -Itests $(SAN_FLAGS)
DIFF_BPF_CFLAGS := $(BPF_CFLAGS) -Itests/diff

$(O)/test_policy: tests/unit/test_policy.c tests/harness.h $(POLICY_HDRS) | $(O)
	$(CC) $(TEST_CFLAGS) -o $@ $<

$(O)/test_cbw: tests/unit/test_cbw.c tests/harness.h $(POLICY_HDRS) | $(O)
	$(CC) $(TEST_CFLAGS) -o $@ $<

$(O)/test_topo: tests/unit/test_topo.c src/loader/topo.c src/loader/topo.h tests/harness.h tests/unit/fakefs.h | $(O)
	$(CC) $(TEST_CFLAGS) -o $@ tests/unit/test_topo.c src/loader/topo.c

$(O)/test_power: tests/unit/test_power.c src/loader/power.c src/loader/power.h src/loader/topo.c \
		 src/policy/pol_power.h tests/harness.h tests/unit/fakefs.h | $(O)
	$(CC) $(TEST_CFLAGS) -o $@ tests/unit/test_power.c src/loader/power.c src/loader/topo.c

$(O)/test_cpu_order: tests/unit/test_cpu_order.c src/loader/cpu_order.c src/loader/cpu_order.h \
		     src/loader/topo.c src/loader/topo.h tests/harness.h tests/unit/fakefs.h | $(O)
	$(CC) $(TEST_CFLAGS) -o $@ tests/unit/test_cpu_order.c src/loader/cpu_order.c src/loader/topo.c

$(O)/test_opts: tests/unit/test_opts.c src/loader/opts.c src/loader/opts.h tests/harness.h | $(O)
	$(CC) $(TEST_CFLAGS) -o $@ tests/unit/test_opts.c src/loader/opts.c

$(O)/diff.bpf.o: tests/diff/diff.bpf.c tests/diff/diff_ops.h $(POLICY_HDRS) $(O)/vmlinux.h
	$(CLANG) $(DIFF_BPF_CFLAGS) -c $< -o $@

$(O)/diff_bug.bpf.o: tests/diff/diff.bpf.c tests/diff/diff_ops.h $(POLICY_HDRS) $(O)/vmlinux.h
	$(CLANG) $(DIFF_BPF_CFLAGS) -DDIFF_INJECT_MISMATCH -c $< -o $@

$(O)/diff_host: tests/diff/diff_host.c tests/diff/diff_ops.h $(POLICY_HDRS) | $(O)
	$(CC) -O2 -g -Wall -Wextra -Werror -std=gnu11 -Isrc -Itests/diff -o $@ $< -lbpf -lelf -lz

# libFuzzer harness of the policy core. The selftest build has a bug injected
# in a local copy of pol_slice_target; it skips the inputs of bugs already
# recorded in tests/fuzz/crashes/ so that they cannot hide the injected one.
LAVD_FUZZ_SECS      ?= 60
LAVD_FUZZ_LONG_SECS ?= 600
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
               -Isrc -Itests -Wall -Wextra -Werror -std=gnu11

$(O)/fuzz_policy: tests/fuzz/fuzz_policy.c $(POLICY_HDRS) | $(O)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $<

$(O)/fuzz_policy_selftest: tests/fuzz/fuzz_policy.c $(POLICY_HDRS) | $(O)
	$(CLANG) $(FUZZ_CFLAGS) -DFUZZ_SELFTEST -DFUZZ_SKIP_KNOWN_BUGS -o $@ $<

.PHONY: test-fuzz fuzz
test-fuzz: $(O)/fuzz_policy $(O)/fuzz_policy_selftest
	@rc=0; \
	 O=$(O) tests/fuzz/run.sh $(O)/fuzz_policy $(LAVD_FUZZ_SECS) || rc=1; \
	 O=$(O) tests/fuzz/run.sh $(O)/fuzz_policy_selftest 30 --expect-crash P_SLICE_TARGET || rc=1; \
	 exit $$rc

fuzz: $(O)/fuzz_policy
	@O=$(O) tests/fuzz/run.sh $(O)/fuzz_policy $(LAVD_FUZZ_LONG_SECS)

.PHONY: test-build
test-build: all $(O)/test_policy $(O)/test_cbw $(O)/test_topo $(O)/test_cpu_order $(O)/test_opts \
	    $(O)/test_power $(O)/fuzz_policy $(O)/diff.bpf.o $(O)/diff_bug.bpf.o $(O)/diff_host \
	    $(O)/lavd-sim $(O)/lavd-sim-debug

test-unit: $(O)/test_policy $(O)/test_cbw $(O)/test_topo $(O)/test_cpu_order $(O)/test_opts \
	   $(O)/test_power $(O)/scx_lavd $(O)/vm-bin/cpusused $(O)/vm-bin/lavd-pingpong
	@$(O)/test_policy && $(O)/test_cbw && $(O)/test_topo && $(O)/test_cpu_order && \
	 $(O)/test_opts && $(O)/test_power && tests/loader/test_cli.sh $(O)/scx_lavd && \
	 tests/bench/test_cpusused.sh $(O)/vm-bin/cpusused && \
	 tests/bench/test_report.sh $(O)/vm-bin/lavd-pingpong && \
	 tests/vm/test_panic.sh

test-diff: $(O)/diff.bpf.o $(O)/diff_bug.bpf.o $(O)/diff_host
	@$(O)/diff_host $(O)/diff.bpf.o --cases $(DIFF_CASES) && \
	 $(O)/diff_host $(O)/diff_bug.bpf.o --cases 200 --expect-mismatch

test-bpf: all
	@tests/vm/tier-bpf.sh

test-vm: all
	@tests/vm/tier-vm.sh

# The full reliability suite (about 20 min per kernel); test-vm runs a subset.
.PHONY: stress
stress: all
	@tests/vm/tier-stress.sh

# Simulator vs VM on the same rt-app files (tests/calib/*.json): runs the VM
# (about 15 min), writes docs/calibration.md. LAVD_CALIB_VM=0: sim side only.
.PHONY: calib
calib: all $(O)/lavd-sim
	@tests/calib/run.sh

# Everything, with set-up first: what CI runs.
test: setup
	@$(MAKE) --no-print-directory test-build
	@tests/run-tiers $(O)/results unit:test-unit fuzz:test-fuzz diff:test-diff sim:test-sim bpf:test-bpf vm:test-vm
