/* ssfuzz_plugin.h - the ABI through which ssfuzz fuzzes your own in-place slice_scatter kernel.
 *
 * Build a shared library that exports ssfuzz_plugin_v1() and load it with
 * `ssfuzz COMMAND --plugin ./libmine.so` (or SSFUZZ_PLUGINS=a.so:b.so); each
 * kernel becomes the target PLUGIN:KERNEL, run only when named (--target).
 * Self-contained; C and C++/CUDA; no ssfuzz header needed.
 *
 * Ownership: ssfuzz allocates and frees every buffer (host memory, or CUDA
 * device memory for SSFUZZ_MEMORY_CUDA kernels) and every struct it passes;
 * pointers given to run() are valid only during that call. The plugin owns
 * its descriptor, which must stay valid until the library is unloaded.
 *
 * The operation: slice_scatter(input, src, dim, start, end, step) written
 * back through input's view, as PyTorch defines it (dim may be negative;
 * absent start/end mean 0/size; negatives add size; both clamp to [0, size]).
 * src may alias input's storage: that is the point of the test. */
#ifndef SSFUZZ_PLUGIN_H
#define SSFUZZ_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SSFUZZ_PLUGIN_ABI_VERSION 1
#define SSFUZZ_PLUGIN_MAX_NDIM 16          /* fixed by the ABI; not overridable */

/* What run() returns. Values are pinned: they never change within ABI 1. */
enum {
    SSFUZZ_OK = 0,       /* the storages hold the result */
    SSFUZZ_REFUSED = 1,  /* the kernel declines the case (say why in message); ssfuzz
                            counts it, and it agrees when the case cannot be run in place */
    SSFUZZ_ERROR = 2     /* the kernel failed; message says how (a finding: "crash") */
};

enum { SSFUZZ_MEMORY_HOST = 0, SSFUZZ_MEMORY_CUDA = 1 };   /* where storages live */

/* A strided view into a storage, in elements (PyTorch's as_strided). */
typedef struct ssfuzz_view {
    int64_t offset;                           /* >= 0 */
    int32_t ndim;                             /* 0..SSFUZZ_PLUGIN_MAX_NDIM */
    int32_t reserved;                         /* 0 */
    int64_t sizes[SSFUZZ_PLUGIN_MAX_NDIM];    /* >= 0 */
    int64_t strides[SSFUZZ_PLUGIN_MAX_NDIM];  /* >= 0 */
} ssfuzz_view;

/* One case, as the fuzzer generated it (raw: the kernel does its own slicing). */
typedef struct ssfuzz_case {
    uint32_t struct_size;        /* sizeof(ssfuzz_case) of the host; newer hosts may append */
    int32_t has_start, has_end;  /* 0: start/end is None */
    int32_t src_aliased;         /* 1: src views input's storage (src_storage == input_storage) */
    const char *dtype;           /* "float32", "bfloat16", "int64", "complex128", ... */
    uint64_t elem_size;          /* bytes per element: 1, 2, 4, 8 or 16 */
    void *input_storage;         /* input_numel elements; guard bands around it are checked */
    int64_t input_numel;
    void *src_storage;           /* src_numel elements */
    int64_t src_numel;
    ssfuzz_view input, src;      /* src.sizes equal the slice's sizes */
    int64_t dim, start, end, step;
} ssfuzz_case;

/* Called by ssfuzz once per run of a case, in a fuzz worker process that is
 * replaced if it crashes or hangs (a crash/timeout finding). Write the result
 * through c->input into c->input_storage; touch nothing but the two storages
 * (a write next to them is a "guard-band write" finding). CUDA kernels: launch
 * on the default stream; ssfuzz synchronizes, checks errors and copies back.
 * Returns a status above; message (message_len bytes) says why for REFUSED/ERROR. */
typedef int (*ssfuzz_run_fn)(const ssfuzz_case *c, char *message, size_t message_len);

typedef struct ssfuzz_kernel {
    const char *name;            /* [A-Za-z0-9_.-]+, unique in the plugin */
    int32_t memory;              /* SSFUZZ_MEMORY_HOST or SSFUZZ_MEMORY_CUDA */
    ssfuzz_run_fn run;
} ssfuzz_kernel;

typedef struct ssfuzz_plugin {
    uint32_t struct_size;        /* sizeof(ssfuzz_plugin): the loader checks it */
    uint32_t abi_version;        /* SSFUZZ_PLUGIN_ABI_VERSION */
    const char *name;            /* the PLUGIN of PLUGIN:KERNEL: [A-Za-z0-9_.-]+ */
    const ssfuzz_kernel *kernels;
    uint32_t n_kernels;
    /* Optional (NULL): init runs once in each process before its first run();
     * nonzero means the plugin cannot run here (its targets report message as
     * unavailable). fini runs when that process ends normally. */
    int (*init)(char *message, size_t message_len);
    void (*fini)(void);
} ssfuzz_plugin;

/* The one symbol a plugin exports; called once, when the library is loaded. */
#define SSFUZZ_PLUGIN_SYMBOL "ssfuzz_plugin_v1"
#if defined(_WIN32)
#define SSFUZZ_PLUGIN_EXPORT __declspec(dllexport)
#else
#define SSFUZZ_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif
SSFUZZ_PLUGIN_EXPORT const ssfuzz_plugin *ssfuzz_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif
