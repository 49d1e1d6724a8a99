# ssfuzz - differential tester and fuzzer for in-place slice_scatter kernels.
# `make` builds build/ssfuzz; `make fuzz` runs the default campaign; `make test`
# runs every test (normal and ASan+UBSan builds). Dependencies are installed by need
# (scripts/deps.sh GROUP): `make` needs only a C compiler and cJSON; the test, fuzz,
# PyTorch, browser and lint packages come with the targets that use them. Each group's
# check is offline and quick when its packages are present.

BUILD     ?= build
CC        ?= cc
CFLAGS    ?= -O2 -g
# The layers, lowest first: a file includes only from its own layer or one below it
# (tests/cli/test_layers.sh checks every #include and every object's symbols against
# this list; docs/architecture.md says what each layer holds). `make print-layers`.
LAYERS    := include harness/core reference kernels harness/engines harness/campaign harness/report harness/cli
SS_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wvla -MMD -MP $(addprefix -I,$(LAYERS))
LDLIBS    := -lcjson -lm -ldl
SS_LDFLAGS :=

# Offline builds (scripts/gpu-check.sh on a machine without network):
# SS_VENDORED_CJSON=1 compiles third_party/cjson/ instead of linking -lcjson;
# SS_PREFIX=DIR adds headers and libraries unpacked from Debian packages into
# DIR (`dpkg -x`, see scripts/gpu-prepare.sh); SS_OFFLINE=1 makes scripts/deps.sh
# only check and name what is missing, never call apt-get.
ifeq ($(SS_VENDORED_CJSON),1)
SS_CFLAGS += -Ithird_party/cjson
LDLIBS    := -lm -ldl
endif
ifneq ($(SS_PREFIX),)
SS_PREFIX_LIB := $(abspath $(SS_PREFIX))/usr/lib/x86_64-linux-gnu
SS_CFLAGS  += -I$(SS_PREFIX)/usr/include
SS_LDFLAGS += -L$(SS_PREFIX_LIB) -Wl,-rpath,$(SS_PREFIX_LIB)
endif
export SS_VENDORED_CJSON SS_PREFIX SS_OFFLINE

# CUDA: nvcc from PATH or /usr/local/cuda. Without it (or with SS_NO_CUDA=1)
# the cuda:* targets are built as stubs that report why they are unavailable.
NVCC      ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
NVCCFLAGS ?= -O3 -std=c++17 -Xcompiler -Wall,-Wextra --expt-relaxed-constexpr
# Architectures: the device present when nvidia-smi can tell, else a portable set.
# Only a line like "9.0" counts: nvidia-smi prints its errors to stdout ("Failed to ...").
CUDA_ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | grep -E '^[0-9]+\.[0-9]+$$' | tr -d . | sed 's/^/-arch=sm_/')
ifeq ($(CUDA_ARCH),)
CUDA_ARCH := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
endif

ifeq ($(SS_NO_CUDA),1)
NVCC :=
endif

# Every layer's C sources but the CLI's; CPU_LIB_SRC keeps kernels/cuda_stub.c (fuzz.mk).
CPU_LIB_SRC := $(sort $(foreach d,$(filter-out include harness/cli,$(LAYERS)),$(wildcard $(d)/*.c)))
LIB_SRC   := $(CPU_LIB_SRC)
CLI_SRC   := $(sort $(wildcard harness/cli/*.c))
ifeq ($(SS_VENDORED_CJSON),1)
LIB_SRC   += third_party/cjson/cjson/cJSON.c
endif
CU_SRC    := $(sort $(wildcard kernels/*.cu harness/engines/*.cu))
ifneq ($(NVCC),)
LIB_SRC   := $(filter-out kernels/cuda_stub.c,$(LIB_SRC))
CU_OBJ    := $(CU_SRC:%.cu=$(BUILD)/%.o)
LDLIBS    += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lpthread -lrt -lstdc++
else
CU_OBJ    :=
endif
# Python built into the binary as C strings (LAYER/NAME.py -> const char NAME_py[]): the torch
# worker, the module it shares with exported scripts, the Python-kernel engine's part of the
# worker (engines), the exported scripts' bodies (report). Each is a real .py file that
# py_compile and pyflakes read (tests/cli/test_python_sources.sh); NAME is unique across the
# layers (check_layers.py).
PY_EMBED  := harness/engines/ss_torch_worker harness/engines/ss_torch_program \
             harness/engines/ss_pykernel_worker \
             harness/report/ss_export_common harness/report/ss_export_write harness/report/ss_export_prog
PY_NAMES  := $(notdir $(PY_EMBED))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(PY_NAMES:%=$(BUILD)/gen/%_py.o)
TEST_SRC  := $(sort $(wildcard tests/test_*.c))
TEST_BIN  := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
DEPS_DIR  ?= build
DEPS_OK   := $(DEPS_DIR)/.deps-build
DEPS_TEST := $(DEPS_DIR)/.deps-test
DEPS_FUZZ := $(DEPS_DIR)/.deps-fuzz

# Quiet by default: one short line per step; `make V=1` shows full commands.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif

.PHONY: print-layers options-doc print-cuda-arch all deps deps-optional test test-unit fuzz regress libfuzzer bench bench-mutants clean nvcc-note torch-env plugins
all: $(BUILD)/ssfuzz

deps: $(DEPS_OK)
$(DEPS_DIR)/.deps-%: scripts/deps.sh
	@bash scripts/deps.sh $*
	@mkdir -p $(dir $@) && touch $@
# What only some tests need (libFuzzer, PyTorch, Chromium, workflow linters, a Slurm): installed
# when possible; a test whose tool is missing skips and says which package it lacks.
deps-optional:
	@bash scripts/deps.sh --optional fuzz torch browser lint slurm

print-layers:
	@echo $(LAYERS)

# docs/options.md: every command's --help, generated from its option table (tests/cli/test_options.sh).
options-doc: $(BUILD)/ssfuzz
	scripts/options-doc.sh $(BUILD)/ssfuzz > docs/options.md

# The architecture flags nvcc gets here (scripts/gpu-check.sh and its test print them).
print-cuda-arch:
	@echo $(CUDA_ARCH)

nvcc-note:
ifeq ($(NVCC),)
	@echo "note: nvcc not found (PATH, /usr/local/cuda) or SS_NO_CUDA=1: cuda:* targets built as unavailable stubs"
endif

$(BUILD)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(SS_CFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cu | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(call say,NVCC,$<)
	$(Q)$(NVCC) $(NVCCFLAGS) $(CUDA_ARCH) $(addprefix -I,$(LAYERS)) -c $< -o $@

# The Python of PY_EMBED, built into the binary as C strings, so build/ssfuzz runs
# from anywhere (and an installed copy needs no data files); vpath finds NAME.py in
# its layer's directory.
vpath %.py $(sort $(dir $(PY_EMBED)))
$(BUILD)/gen/%_py.c: %.py
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q){ echo '/* generated from $< by the Makefile */'; \
	  echo 'const char $*_py[] = {'; \
	  od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0};'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libssfuzz.a: $(LIB_OBJ) $(CU_OBJ)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/%.o)
$(BUILD)/ssfuzz: $(CLI_OBJ) $(LIB_OBJ) $(CU_OBJ) | nvcc-note
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(SS_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libssfuzz.a | $(DEPS_TEST)
	@mkdir -p $(dir $@)
	$(call say,TEST,$@)
	$(Q)$(CC) $(SS_CFLAGS) $(CFLAGS) $(LDFLAGS) $(SS_LDFLAGS) -Itests -o $@ $< $(BUILD)/libssfuzz.a $(LDLIBS) -lcmocka

test-unit: $(BUILD)/ssfuzz $(TEST_BIN)

# The README's test command: unit tests (normal and sanitized), corpus replay,
# hostile inputs, the PyTorch cross-check; ends with "N passed, N failed".
test: $(DEPS_OK) $(DEPS_TEST) deps-optional
	@bash scripts/run-tests.sh

fuzz: $(BUILD)/ssfuzz
	$(BUILD)/ssfuzz fuzz $(FUZZ_ARGS)

regress: $(BUILD)/ssfuzz
	$(BUILD)/ssfuzz regress corpus/ $(REGRESS_ARGS)

# A PyTorch release from PyPI in its own venv, for torch:* campaigns (never
# part of `make` or `make test`): `make torch-env TORCH=2.14.1` prints the
# SSFUZZ_PYTHON= line to use. About 5.5 GB each (CUDA libraries included); the
# script checks for 9.5 GB free first (docs/dependencies.md).
# TORCH defaults to the release CI pins (.ci/run), which `make test` then
# finds under build/torch-*/ and runs torch.compile against for real.
TORCH_PIN := 2.15.0
TORCH ?= $(TORCH_PIN)
TORCH_PY ?= python3
torch-env:
	@bash scripts/torch-env.sh "$(TORCH)" "$(BUILD)/torch-$(TORCH)" "$(TORCH_PY)"

clean:
	rm -rf build build-asan

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
-include fuzz/fuzz.mk
-include bench/bench.mk
-include examples/plugins/plugins.mk
