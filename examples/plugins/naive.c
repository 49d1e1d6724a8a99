/* naive.c - an example ssfuzz plugin: the in-place slice_scatter a user writes first (no overlap check).
 *
 * Build:  cc -O2 -fPIC -shared -I PATH/TO/ssfuzz/harness naive.c -o naive.so
 * Fuzz:   ssfuzz fuzz --plugin ./naive.so --target naive:copy --time 10
 * It copies src into the slice element by element, reading src while it
 * writes input: when src aliases the slice, later reads see earlier writes. */
#include <stdio.h>
#include <string.h>
#include "ssfuzz_plugin.h"

/* PyTorch's slice bounds: absent means 0/size, negatives add size, clamp to [0, size]. */
static int64_t bound(int present, int64_t v, int64_t dflt, int64_t size) {
    if (!present) return dflt;
    if (v < 0) v += size;
    return v < 0 ? 0 : v > size ? size : v;
}

static int copy(const ssfuzz_case *c, char *message, size_t message_len) {
    const ssfuzz_view *in = &c->input, *src = &c->src;
    const int dim = (int)(c->dim < 0 ? c->dim + in->ndim : c->dim);
    if (dim < 0 || dim >= in->ndim || c->step < 1) {
        snprintf(message, message_len, "bad dim or step");
        return SSFUZZ_REFUSED;
    }
    const int64_t start = bound(c->has_start, c->start, 0, in->sizes[dim]);
    int64_t numel = 1;
    for (int d = 0; d < src->ndim; d++) numel *= src->sizes[d];
    unsigned char *dst_base = c->input_storage;
    const unsigned char *src_base = c->src_storage;
    for (int64_t i = 0; i < numel; i++) {
        /* i's multi-index in src (row-major), and where it lands in input */
        int64_t rest = i, so = src->offset, dof = in->offset;
        for (int d = src->ndim - 1; d >= 0; d--) {
            const int64_t k = rest % src->sizes[d];
            rest /= src->sizes[d];
            so += k * src->strides[d];
            dof += (d == dim ? start + k * c->step : k) * in->strides[d];
        }
        memcpy(dst_base + dof * c->elem_size, src_base + so * c->elem_size, c->elem_size);
    }
    return SSFUZZ_OK;
}

static const ssfuzz_kernel kernels[] = {{"copy", SSFUZZ_MEMORY_HOST, copy}};

SSFUZZ_PLUGIN_EXPORT const ssfuzz_plugin *ssfuzz_plugin_v1(void) {
    static const ssfuzz_plugin plugin = {sizeof(ssfuzz_plugin), SSFUZZ_PLUGIN_ABI_VERSION, "naive",
                                         kernels, 1, NULL, NULL};
    return &plugin;
}
