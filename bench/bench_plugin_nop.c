/* bench_plugin_nop.c - a plugin whose kernel does nothing: bench_plugin.sh times the bare cost of a plugin call with it. */
#include "ssfuzz_plugin.h"

static int nop(const ssfuzz_case *c, char *message, size_t message_len) {
    (void)c;
    (void)message;
    (void)message_len;
    return SSFUZZ_OK;
}

static const ssfuzz_kernel kernels[] = {{"nop", SSFUZZ_MEMORY_HOST, nop}};

SSFUZZ_PLUGIN_EXPORT const ssfuzz_plugin *ssfuzz_plugin_v1(void) {
    static const ssfuzz_plugin plugin = {sizeof(ssfuzz_plugin), SSFUZZ_PLUGIN_ABI_VERSION, "bench-nop",
                                         kernels, 1, NULL, NULL};
    return &plugin;
}
