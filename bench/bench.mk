# bench/bench.mk - benchmarks: `make bench` (differential loop vs a PyTorch loop, PASS/FAIL at 30x; large copies vs memcpy, the transposed ones PASS/FAIL at 0.30x; a plugin call vs a built-in target, the default campaign under the old and the new size mix), `make bench-mutants` (detection power under both mixes), `make bench-gpu` (cuda:reinplace on a GPU).
#
# Knobs: BENCH_CASES (C loop cases), BENCH_PLUGIN_CASES and BENCH_ROUNDS (bench-plugin), BENCH_PEER_CASES (PyTorch loop cases),
# BENCH_COPY_MIB and BENCH_COPY_REPS (bench_copy storage size, repetitions), BENCH_MUTANT_TIME (seconds per
# mutant campaign), BENCH_SURVIVE_TIME (correct-target campaign; 0 skips it), BENCH_CAMPAIGN_CASES
# (bench-campaign cases per mix), BENCH_BEFORE_ARGS (the old size mix, default --large-per-mille 3),
# TORCH_PYTHON (interpreter with torch).

BENCH_DIR          := $(BUILD)/bench
BENCH_BIN          := $(BENCH_DIR)/bench_loop $(BENCH_DIR)/bench_copy
BENCH_CASES        ?= 300000
BENCH_PEER_CASES   ?= 50000
BENCH_CAMPAIGN_CASES ?= 50000
BENCH_BASELINE_SSFUZZ ?=
BENCH_BASELINE_REV ?= c240531
BENCH_COPY_MIB     ?= 256
BENCH_COPY_REPS    ?= 5
BENCH_MUTANT_TIME  ?= 10
BENCH_SURVIVE_TIME ?= 60
TORCH_PYTHON       ?= /usr/bin/python3

.PHONY: bench bench-loop bench-copy bench-plugin bench-campaign
$(BENCH_DIR)/%: bench/%.c bench/bench_layouts.h bench/bench_transposed.h $(BUILD)/libssfuzz.a
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(SS_CFLAGS)) $(CFLAGS) $(LDFLAGS) $(SS_LDFLAGS) -o $@ $< $(BUILD)/libssfuzz.a $(LDLIBS)

bench: bench-loop bench-copy bench-plugin bench-campaign

bench-loop: $(BENCH_DIR)/bench_loop
	@BENCH_DIR=$(BENCH_DIR) BENCH_CASES=$(BENCH_CASES) BENCH_PEER_CASES=$(BENCH_PEER_CASES) \
	    TORCH_PYTHON=$(TORCH_PYTHON) bash bench/bench_loop.sh

bench-copy: $(BENCH_DIR)/bench_copy
	$(BENCH_DIR)/bench_copy --mib $(BENCH_COPY_MIB) --reps $(BENCH_COPY_REPS)

$(BENCH_DIR)/bench_plugin_nop.so: bench/bench_plugin_nop.c include/ssfuzz_plugin.h
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) $< -o $@

bench-plugin: $(BENCH_DIR)/bench_loop $(BUILD)/plugins/naive.so $(BENCH_DIR)/bench_plugin_nop.so
	@BENCH_DIR=$(BENCH_DIR) BENCH_PLUGIN=$(BUILD)/plugins/naive.so bash bench/bench_plugin.sh

bench-campaign: $(BUILD)/ssfuzz
	@SSFUZZ=$(BUILD)/ssfuzz BENCH_CAMPAIGN_CASES=$(BENCH_CAMPAIGN_CASES) BENCH_BASELINE_SSFUZZ=$(BENCH_BASELINE_SSFUZZ) \
	    BENCH_BASELINE_REV=$(BENCH_BASELINE_REV) \
	    bash bench/bench_campaign.sh

bench-mutants: $(BUILD)/ssfuzz
	@SSFUZZ=$(BUILD)/ssfuzz BENCH_MUTANT_TIME=$(BENCH_MUTANT_TIME) \
	    BENCH_SURVIVE_TIME=$(BENCH_SURVIVE_TIME) bash bench/bench_mutants.sh

# bench-gpu: cuda:reinplace on a GPU (bench/bench_gpu.c): large copies beside
# cudaMemcpy, device-resident; small cases batched vs one launch per case.
# Without a device it prints "bench_gpu: skipped: <why>" and exits 3.
# Knobs: BENCH_GPU_MIB (0 skips the large copies), BENCH_GPU_CASES (0 skips the small cases).
BENCH_GPU_MIB   ?= 256
BENCH_GPU_CASES ?= 10000
.PHONY: bench-gpu
ifneq ($(NVCC),)
BENCH_GPU_DEV := $(BENCH_DIR)/bench_gpu_dev.o
$(BENCH_GPU_DEV): bench/bench_gpu_dev.cu bench/bench_gpu.h kernels/ss_cuda.cu kernels/ss_cuda_common.cuh \
                  kernels/ss_kernel_body.h kernels/ss_kernel_params.h | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(CUDA_ARCH) $(addprefix -I,$(LAYERS)) -Ibench -c $< -o $@
else
BENCH_GPU_DEV := $(BENCH_DIR)/bench_gpu_stub.o
$(BENCH_GPU_DEV): bench/bench_gpu_stub.c bench/bench_gpu.h | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(SS_CFLAGS)) -Ibench $(CFLAGS) -c $< -o $@
endif

$(BENCH_DIR)/bench_gpu: bench/bench_gpu.c bench/bench_gpu.h bench/bench_layouts.h $(BENCH_GPU_DEV) $(BUILD)/libssfuzz.a
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(SS_CFLAGS)) -Ibench $(CFLAGS) $(LDFLAGS) $(SS_LDFLAGS) -o $@ $< $(BENCH_GPU_DEV) \
	    $(BUILD)/libssfuzz.a $(LDLIBS)

bench-gpu: $(BENCH_DIR)/bench_gpu
	$(BENCH_DIR)/bench_gpu --mib $(BENCH_GPU_MIB) --cases $(BENCH_GPU_CASES)
