// naive_cuda.cu - an example ssfuzz plugin: the in-place slice_scatter CUDA kernel a user writes first.
//
// Build:  nvcc -O2 -Xcompiler -fPIC -shared -I PATH/TO/ssfuzz/harness naive_cuda.cu -o naive_cuda.so
// Fuzz:   ssfuzz fuzz --plugin ./naive_cuda.so --target naive_cuda:copy --time 10
// One thread per element, no overlap check: when src aliases the slice, a
// thread may read an element another thread already wrote (large tensors).
// ssfuzz gives device pointers, then synchronizes, checks errors and copies back.
#include <stdio.h>
#include "ssfuzz_plugin.h"

struct views { ssfuzz_view in, src; int dim; int64_t start, step, numel, elem; };

__global__ void copy_kernel(const views v, unsigned char *dst, const unsigned char *src) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < v.numel; i += stride) {
        int64_t rest = i, so = v.src.offset, dof = v.in.offset;
        for (int d = v.src.ndim - 1; d >= 0; d--) {
            const int64_t k = rest % v.src.sizes[d];
            rest /= v.src.sizes[d];
            so += k * v.src.strides[d];
            dof += (d == v.dim ? v.start + k * v.step : k) * v.in.strides[d];
        }
        for (int64_t b = 0; b < v.elem; b++) dst[dof * v.elem + b] = src[so * v.elem + b];
    }
}

static int64_t bound(int present, int64_t x, int64_t dflt, int64_t size) {
    if (!present) return dflt;
    if (x < 0) x += size;
    return x < 0 ? 0 : x > size ? size : x;
}

static int copy(const ssfuzz_case *c, char *message, size_t message_len) {
    views v;
    v.in = c->input;
    v.src = c->src;
    v.dim = (int)(c->dim < 0 ? c->dim + c->input.ndim : c->dim);
    if (v.dim < 0 || v.dim >= c->input.ndim || c->step < 1) {
        snprintf(message, message_len, "bad dim or step");
        return SSFUZZ_REFUSED;
    }
    v.start = bound(c->has_start, c->start, 0, c->input.sizes[v.dim]);
    v.step = c->step;
    v.elem = (int64_t)c->elem_size;
    v.numel = 1;
    for (int d = 0; d < c->src.ndim; d++) v.numel *= c->src.sizes[d];
    if (v.numel == 0) return SSFUZZ_OK;
    const int64_t blocks = (v.numel + 255) / 256;
    copy_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256>>>(
        v, (unsigned char *)c->input_storage, (const unsigned char *)c->src_storage);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(message, message_len, "launch: %s", cudaGetErrorString(e));
        return SSFUZZ_ERROR;
    }
    return SSFUZZ_OK;
}

static const ssfuzz_kernel kernels[] = {{"copy", SSFUZZ_MEMORY_CUDA, copy}};

extern "C" SSFUZZ_PLUGIN_EXPORT const ssfuzz_plugin *ssfuzz_plugin_v1(void) {
    static const ssfuzz_plugin plugin = {sizeof(ssfuzz_plugin), SSFUZZ_PLUGIN_ABI_VERSION, "naive_cuda",
                                         kernels, 1, NULL, NULL};
    return &plugin;
}
