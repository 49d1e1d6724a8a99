# fuzz/fuzz.mk - libFuzzer targets (`make libfuzzer`) and their corpus replay without libFuzzer (`make fuzz-regress`).
#
# OSS-Fuzz / ClusterFuzzLite conventions: CC, CFLAGS, CXX, LIB_FUZZING_ENGINE and
# OUT from the environment are used as given. Without them: clang, ASan+UBSan,
# -fsanitize=fuzzer, binaries in build-fuzz/. CPU only (kernels/cuda_stub.c
# stands in for the CUDA target), as CUDA's runtime and ASan do not mix.
# The CLI subcommands (harness/cli_*.c) stay out: the targets never call them.
#
# cJSON is compiled from the pinned copy in third_party/cjson/ (Debian's 1.7.15 source,
# see its README) with the same compiler and flags as everything else, and linked
# statically: the parser fuzz_json exercises gets sanitizers and coverage, and the
# binaries need nothing beyond libc, libm, libstdc++ and libgcc on the runner.
# With the OSS-Fuzz variables set the image provides the tools: no deps step runs.

FUZZ_TARGETS  := fuzz_case fuzz_json
FUZZ_SET_BY   := environment command line
FUZZ_CC       := $(if $(filter $(FUZZ_SET_BY),$(origin CC)),$(CC),clang)
FUZZ_LD       := $(if $(filter $(FUZZ_SET_BY),$(origin CXX)),$(CXX),$(FUZZ_CC))
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS   := $(if $(filter $(FUZZ_SET_BY),$(origin CFLAGS)),$(CFLAGS),\
                   -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link)
LIB_FUZZING_ENGINE ?= -fsanitize=fuzzer
FUZZ_OUT      := $(if $(OUT),$(OUT),build-fuzz)
# Objects per compiler and flags, so an OSS-Fuzz-style build never reuses
# objects compiled for another configuration.
FUZZ_WORK     := build-fuzz/obj/$(firstword $(shell echo '$(FUZZ_CC) $(FUZZ_CFLAGS)' | cksum))
# The sanitizers must reach the link too (OSS-Fuzz's CFLAGS carry them).
FUZZ_LDFLAGS  := $(FUZZ_CFLAGS) $(LIB_FUZZING_ENGINE)

FUZZ_LIB_SRC  := $(sort $(filter-out harness/main.c harness/cli_%.c,$(wildcard harness/*.c)) \
                   $(wildcard reference/*.c) $(wildcard kernels/*.c))
CJSON_PIN     := 1.7.15
CJSON_DIR     := third_party/cjson
FUZZ_LIB_OBJ  := $(FUZZ_LIB_SRC:%.c=$(FUZZ_WORK)/%.o) $(FUZZ_WORK)/$(CJSON_DIR)/cjson/cJSON.o
FUZZ_INC      := -Ifuzz -I$(CJSON_DIR)
FUZZ_LDLIBS   := -lm
FUZZ_DEPS     := $(if $(filter $(FUZZ_SET_BY),$(origin CC)),,$(DEPS_FUZZ))

.PHONY: libfuzzer fuzz-regress
.SECONDARY: $(FUZZ_TARGETS:%=$(FUZZ_WORK)/fuzz/%.o) $(FUZZ_WORK)/libssfuzz-fuzz.a
libfuzzer: $(FUZZ_TARGETS:%=$(FUZZ_OUT)/%) $(FUZZ_OUT)/fuzz_json.dict \
           $(patsubst fuzz/%,$(FUZZ_OUT)/%,$(wildcard fuzz/*.options))

$(FUZZ_WORK)/%.o: %.c | $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(SS_CFLAGS) $(FUZZ_INC) $(FUZZ_CFLAGS) -c $< -o $@

# Third-party code: the build's compiler and flags, not the project's warnings.
$(FUZZ_WORK)/$(CJSON_DIR)/cjson/cJSON.o: $(CJSON_DIR)/cjson/cJSON.c $(CJSON_DIR)/cjson/cJSON.h | $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c99 $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_WORK)/libssfuzz-fuzz.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_OUT)/%: $(FUZZ_WORK)/fuzz/%.o $(FUZZ_WORK)/libssfuzz-fuzz.a
	@mkdir -p $(dir $@)
	$(FUZZ_LD) $(FUZZ_LDFLAGS) -o $@ $^ $(FUZZ_LDLIBS)

$(FUZZ_OUT)/%.dict: fuzz/%.dict
	@mkdir -p $(dir $@)
	cp $< $@
$(FUZZ_OUT)/%.options: fuzz/%.options
	@mkdir -p $(dir $@)
	cp $< $@

# Replay without libFuzzer: the same entry points under a plain main, built
# with the project's compiler and library; every seed must pass.
FUZZ_REGRESS_BIN := $(FUZZ_TARGETS:%=$(BUILD)/fuzz-regress/%)

$(BUILD)/fuzz-regress/%: fuzz/%.c fuzz/regression_driver.c fuzz/fuzz_helpers.h $(BUILD)/libssfuzz.a
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(SS_CFLAGS)) -Ifuzz $(CFLAGS) $(LDFLAGS) -o $@ $< fuzz/regression_driver.c $(BUILD)/libssfuzz.a $(LDLIBS)

fuzz-regress: $(FUZZ_REGRESS_BIN)
	@set -e; for t in $(FUZZ_TARGETS); do \
	    $(BUILD)/fuzz-regress/$$t fuzz/corpus/$$t; done

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_TARGETS:%=$(FUZZ_WORK)/fuzz/%.d)
