/* ss_torch_proto.c - encode and check the torch worker's frames (no I/O here). */
#include <stdio.h>
#include <string.h>
#include "ss_torch_proto.h"

static void put_u16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get_u64(const uint8_t *p) {
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

void ss_tp_header_encode(uint8_t out[SS_TP_HEADER_SIZE], unsigned type, uint64_t length) {
    put_u32(out, SS_TP_MAGIC);
    put_u16(out + 4, SS_TP_VERSION);
    put_u16(out + 6, type);
    put_u64(out + 8, length);
}

int ss_tp_header_decode(const uint8_t in[SS_TP_HEADER_SIZE], ss_tp_header *h, char *why, size_t n) {
    const uint32_t magic = get_u32(in);
    const unsigned version = (unsigned)in[4] | (unsigned)in[5] << 8;
    h->type = (unsigned)in[6] | (unsigned)in[7] << 8;
    h->length = get_u64(in + 8);
    if (magic != SS_TP_MAGIC) {
        snprintf(why, n, "bad frame magic 0x%08x (want 0x%08x): the worker printed to its frame "
                 "pipe, or is not ssfuzz's torch worker", magic, SS_TP_MAGIC);
        return -1;
    }
    if (version != SS_TP_VERSION) {
        snprintf(why, n, "worker speaks protocol version %u, this ssfuzz version %u", version, SS_TP_VERSION);
        return -1;
    }
    if (h->type < SS_TP_HELLO || h->type > SS_TP_PROGRESS) {
        snprintf(why, n, "unknown frame type %u", h->type);
        return -1;
    }
    if (h->length > SS_TP_MAX_PAYLOAD) {
        snprintf(why, n, "frame of %llu bytes, above the cap of 2^44", (unsigned long long)h->length);
        return -1;
    }
    return 0;
}

size_t ss_tp_run_head_size(const ss_op *op) {
    return SS_TP_RUN_FIXED + 16 + 16 * (size_t)op->input.ndim + 16 + 16 * (size_t)op->src.ndim;
}

int ss_tp_run_check(const ss_op *op, ss_dtype dt, char *why, size_t n) {
    if (ss_tp_run_head_size(op) > SS_TP_RUN_HEAD_MAX) {
        snprintf(why, n, "view rank beyond %d", SS_MAX_NDIM);
        return -1;
    }
    if (ss_dtype_size(dt) != op->elem_size) {
        snprintf(why, n, "dtype %s does not match the element size %zu", ss_dtype_name(dt), op->elem_size);
        return -1;
    }
    return 0;
}

static int put_name(uint8_t *p, size_t width, const char *s) {
    const size_t len = strlen(s);
    if (len >= width) return -1;
    memset(p, 0, width);
    memcpy(p, s, len);
    return 0;
}

static uint8_t *put_view(uint8_t *p, const ss_view *v) {
    put_u64(p, (uint64_t)v->offset);
    put_u32(p + 8, (uint32_t)v->ndim);
    put_u32(p + 12, 0);
    p += 16;
    for (int d = 0; d < v->ndim; d++, p += 8) put_u64(p, (uint64_t)v->sizes[d]);
    for (int d = 0; d < v->ndim; d++, p += 8) put_u64(p, (uint64_t)v->strides[d]);
    return p;
}

int ss_tp_run_head_encode(uint8_t *out, const char *mode, const char *spelling, const char *form,
                          const char *dtype, const ss_op *op) {
    if (put_name(out, 24, mode) || put_name(out + 24, 24, spelling) || put_name(out + 48, 24, form) ||
        put_name(out + 72, 16, dtype))
        return -1;
    put_u32(out + 88, (uint32_t)op->elem_size);
    put_u32(out + 92, (uint32_t)((op->src_aliased ? 1 : 0) | (op->has_start ? 2 : 0) | (op->has_end ? 4 : 0)));
    const int64_t fields[6] = {op->dim, op->start, op->end, op->step, op->input_storage_numel,
                               op->src_aliased ? op->input_storage_numel : op->src_storage_numel};
    for (int i = 0; i < 6; i++) put_u64(out + 96 + 8 * i, (uint64_t)fields[i]);
    put_view(put_view(out + SS_TP_RUN_FIXED, &op->input), &op->src);
    return 0;
}

/* Padded to 16 bytes: the storage bytes after it stay as aligned as the
 * head leaves them (PyTorch's kernels may assume a complex128 is aligned). */
size_t ss_tp_run_program_size(size_t source_len) { return (8 + source_len + 15) & ~(size_t)15; }

int ss_tp_run_program_encode(uint8_t *head, uint8_t *out, const char *source, size_t source_len,
                             uint32_t nret) {
    if (source_len > SS_TP_MAX_SOURCE) return -1;
    put_u32(head + 92, get_u32(head + 92) | SS_TP_F_PROGRAM);
    put_u32(out, (uint32_t)source_len);
    memcpy(out + 4, source, source_len);
    put_u32(out + 4 + source_len, nret);
    memset(out + 8 + source_len, 0, ss_tp_run_program_size(source_len) - 8 - source_len);
    return 0;
}

size_t ss_tp_run_pykernel_size(size_t path_len, size_t kernel_len) {
    return (16 + path_len + kernel_len + 15) & ~(size_t)15;
}

int ss_tp_run_pykernel_encode(uint8_t *head, uint8_t *out, const char *path, const char *kernel, uint32_t guard) {
    const size_t np = strlen(path), nk = strlen(kernel);
    if (np > SS_TP_MAX_PATH || nk > SS_TP_MAX_KERNEL || guard % 16) return -1;
    put_u32(head + 92, get_u32(head + 92) | SS_TP_F_PYKERNEL);
    put_u32(out, guard);
    put_u32(out + 4, (uint32_t)np);
    put_u32(out + 8, (uint32_t)nk);
    put_u32(out + 12, 0);
    memcpy(out + 16, path, np);
    memcpy(out + 16 + np, kernel, nk);
    memset(out + 16 + np + nk, 0, ss_tp_run_pykernel_size(np, nk) - 16 - np - nk);
    return 0;
}

static int decode(const uint8_t in[8], uint64_t payload_len, uint64_t storage_bytes, int program,
                  ss_tp_result *r, char *why, size_t n) {
    const uint32_t word = get_u32(in);
    r->status = word & ~SS_TP_REPLACE;
    r->replace = (word & SS_TP_REPLACE) != 0;
    r->message_len = get_u32(in + 4);
    if (r->status > SS_TP_EXCEPTION || (r->replace && r->status == SS_TP_OK)) {
        snprintf(why, n, "RESULT with unknown status %#x", word);
        return -1;
    }
    if (r->message_len > SS_TP_MAX_MESSAGE || payload_len < 8 || r->message_len > payload_len - 8) {
        snprintf(why, n, "RESULT message of %u bytes does not fit its %llu-byte frame (cap %d)",
                 r->message_len, (unsigned long long)payload_len, SS_TP_MAX_MESSAGE);
        return -1;
    }
    const uint64_t want = 8 + (uint64_t)r->message_len + (r->status == SS_TP_OK ? storage_bytes : 0);
    r->returns_len = 0;
    if (program && r->status == SS_TP_OK) {
        /* want cannot wrap: storage_bytes is a storage this process holds */
        if (payload_len < want + 4 || payload_len - want > SS_TP_MAX_RETURNS_BYTES) {
            snprintf(why, n, "RESULT frame of %llu bytes: %llu before the returned values, which take "
                     "4 to %llu bytes", (unsigned long long)payload_len, (unsigned long long)want,
                     (unsigned long long)SS_TP_MAX_RETURNS_BYTES);
            return -1;
        }
        r->returns_len = payload_len - want;
        return 0;
    }
    if (payload_len != want) {
        snprintf(why, n, "RESULT frame of %llu bytes, expected %llu (status %u, %llu storage bytes)",
                 (unsigned long long)payload_len, (unsigned long long)want, r->status,
                 (unsigned long long)storage_bytes);
        return -1;
    }
    return 0;
}

int ss_tp_result_decode(const uint8_t in[8], uint64_t payload_len, uint64_t storage_bytes,
                        ss_tp_result *r, char *why, size_t n) {
    return decode(in, payload_len, storage_bytes, 0, r, why, n);
}

int ss_tp_result_decode_program(const uint8_t in[8], uint64_t payload_len, uint64_t storage_bytes,
                                ss_tp_result *r, char *why, size_t n) {
    return decode(in, payload_len, storage_bytes, 1, r, why, n);
}

/* Takes k bytes at *at of [p, p + len): NULL when fewer are left. */
static const uint8_t *take_bytes(const uint8_t *p, uint64_t len, uint64_t *at, uint64_t k) {
    if (k > len - *at) return NULL;
    const uint8_t *q = p + *at;
    *at += k;
    return q;
}

int ss_tp_returns_decode(const uint8_t *p, uint64_t len, ss_prog_actual *out, char *why, size_t n) {
    uint64_t at = 0;
    const uint8_t *q = take_bytes(p, len, &at, 4);
    out->nret = 0;
    if (!q) { snprintf(why, n, "returned values: %llu bytes, no count", (unsigned long long)len); return -1; }
    const uint32_t nret = get_u32(q);
    if (nret > SS_PROG_MAX_RETURNS) {
        snprintf(why, n, "returned values: %u, above the %d a program may return", nret, SS_PROG_MAX_RETURNS);
        return -1;
    }
    for (uint32_t i = 0; i < nret; i++) {
        ss_prog_actual_value *v = &out->ret[i];
        memset(v, 0, sizeof *v);
        char dtype[17];
        if (!(q = take_bytes(p, len, &at, 24))) {
            snprintf(why, n, "returned value %u: its head runs past the frame", i);
            return -1;
        }
        v->shares = (int)get_u32(q);
        memcpy(dtype, q + 4, 16);
        dtype[16] = 0;
        const uint32_t ndim = get_u32(q + 20);
        if (v->shares & ~3) { snprintf(why, n, "returned value %u: shares %#x has unknown bits", i, v->shares); return -1; }
        if (memchr(q + 4, 0, 16) == NULL || ss_dtype_from_name(dtype, &v->dtype)) {
            snprintf(why, n, "returned value %u: dtype is not one of ssfuzz's", i);
            return -1;
        }
        if (ndim > SS_MAX_NDIM) {
            snprintf(why, n, "returned value %u: ndim %u above %d", i, ndim, SS_MAX_NDIM);
            return -1;
        }
        v->ndim = (int)ndim;
        if (!(q = take_bytes(p, len, &at, 8 * (uint64_t)ndim + 8))) {
            snprintf(why, n, "returned value %u: its sizes run past the frame", i);
            return -1;
        }
        /* numel within 2^40 and elements of 16 bytes at most: no product overflows */
        uint64_t numel = 1;
        for (uint32_t d = 0; d < ndim; d++) {
            const uint64_t sz = get_u64(q + 8 * d);
            if (sz > ((uint64_t)1 << 40) || (numel && sz > (((uint64_t)1 << 40) / numel))) {
                snprintf(why, n, "returned value %u: size[%u] = %lld out of range", i, d, (long long)sz);
                return -1;
            }
            v->sizes[d] = (int64_t)sz;
            numel *= sz;
        }
        const uint64_t nbytes = get_u64(q + 8 * ndim);
        if (nbytes != numel * ss_dtype_size(v->dtype)) {
            snprintf(why, n, "returned value %u: %llu bytes for %llu elements of %s", i,
                     (unsigned long long)nbytes, (unsigned long long)numel, dtype);
            return -1;
        }
        if (!(v->bytes = take_bytes(p, len, &at, nbytes))) {
            snprintf(why, n, "returned value %u: its %llu bytes run past the frame", i, (unsigned long long)nbytes);
            return -1;
        }
        v->nbytes = (size_t)nbytes;
    }
    if (at != len) {
        snprintf(why, n, "returned values end %llu bytes before the frame does", (unsigned long long)(len - at));
        return -1;
    }
    out->nret = (int)nret;
    return 0;
}

/* Copies the value of `key` into dst when the line is "key=value". */
static void take(const char *line, size_t len, const char *key, char *dst, size_t cap, int *seen) {
    const size_t k = strlen(key);
    if (len <= k || memcmp(line, key, k) || line[k] != '=') return;
    size_t v = len - k - 1;
    if (v >= cap) v = cap - 1;
    memcpy(dst, line + k + 1, v);
    dst[v] = 0;
    for (size_t i = 0; i < v; i++)
        if ((unsigned char)dst[i] < 0x20) dst[i] = ' ';
    if (seen) *seen = 1;
}

int ss_tp_caps_parse(const char *text, size_t len, ss_tp_caps *caps, char *why, size_t n) {
    memset(caps, 0, sizeof *caps);
    int have_torch = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        const char *line = text + i;
        const size_t l = j - i;
        take(line, l, "torch", caps->torch, sizeof caps->torch, &have_torch);
        take(line, l, "python", caps->python, sizeof caps->python, NULL);
        take(line, l, "compile", caps->compile, sizeof caps->compile, NULL);
        take(line, l, "cpu_compile", caps->cpu_compile, sizeof caps->cpu_compile, NULL);
        take(line, l, "cuda", caps->cuda, sizeof caps->cuda, NULL);
        take(line, l, "cuda_compile", caps->cuda_compile, sizeof caps->cuda_compile, NULL);
        i = j + 1;
    }
    if (!have_torch || !caps->torch[0]) {
        snprintf(why, n, "worker's ACK does not name its torch version");
        return -1;
    }
    return 0;
}
