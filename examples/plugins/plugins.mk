# plugins.mk - `make plugins`: the example kernel plugins into build/plugins/ (the CUDA one when nvcc exists).
PLUGIN_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -fPIC -shared -Iinclude
PLUGINS       := $(BUILD)/plugins/naive.so $(if $(NVCC),$(BUILD)/plugins/naive_cuda.so)

.PHONY: plugins
plugins: $(PLUGINS)

$(BUILD)/plugins/%.so: examples/plugins/%.c include/ssfuzz_plugin.h
	@mkdir -p $(dir $@)
	$(call say,PLUGIN,$@)
	$(Q)$(CC) $(PLUGIN_CFLAGS) $< -o $@

$(BUILD)/plugins/%.so: examples/plugins/%.cu include/ssfuzz_plugin.h
	@mkdir -p $(dir $@)
	$(call say,PLUGIN,$@)
	$(Q)$(NVCC) -O2 -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC,-Wall,-Wextra -shared -Iinclude $< -o $@
