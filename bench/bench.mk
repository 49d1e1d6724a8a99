# bench/bench.mk - benchmarks: `make bench` (differential loop vs a PyTorch loop, large copies vs memcpy), `make bench-mutants` (detection power).
#
# Knobs: BENCH_CASES (C loop cases), BENCH_PEER_CASES (PyTorch loop cases),
# BENCH_COPY_MIB and BENCH_COPY_REPS (bench_copy storage size, repetitions), BENCH_MUTANT_TIME (seconds per
# mutant campaign), BENCH_SURVIVE_TIME (correct-target campaign; 0 skips it),
# TORCH_PYTHON (interpreter with torch).

BENCH_DIR          := $(BUILD)/bench
BENCH_BIN          := $(BENCH_DIR)/bench_loop $(BENCH_DIR)/bench_copy
BENCH_CASES        ?= 300000
BENCH_PEER_CASES   ?= 20000
BENCH_COPY_MIB     ?= 256
BENCH_COPY_REPS    ?= 5
BENCH_MUTANT_TIME  ?= 10
BENCH_SURVIVE_TIME ?= 60
TORCH_PYTHON       ?= /usr/bin/python3

.PHONY: bench bench-loop bench-copy
$(BENCH_DIR)/%: bench/%.c $(BUILD)/libssfuzz.a
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(SS_CFLAGS)) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libssfuzz.a $(LDLIBS)

bench: bench-loop bench-copy

bench-loop: $(BENCH_DIR)/bench_loop
	@BENCH_DIR=$(BENCH_DIR) BENCH_CASES=$(BENCH_CASES) BENCH_PEER_CASES=$(BENCH_PEER_CASES) \
	    TORCH_PYTHON=$(TORCH_PYTHON) bash bench/bench_loop.sh

bench-copy: $(BENCH_DIR)/bench_copy
	$(BENCH_DIR)/bench_copy --mib $(BENCH_COPY_MIB) --reps $(BENCH_COPY_REPS)

bench-mutants: $(BUILD)/ssfuzz
	@SSFUZZ=$(BUILD)/ssfuzz BENCH_MUTANT_TIME=$(BENCH_MUTANT_TIME) \
	    BENCH_SURVIVE_TIME=$(BENCH_SURVIVE_TIME) bash bench/bench_mutants.sh
