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

int ss_tp_result_decode(const uint8_t in[8], uint64_t payload_len, uint64_t storage_bytes,
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
    if (payload_len != want) {
        snprintf(why, n, "RESULT frame of %llu bytes, expected %llu (status %u, %llu storage bytes)",
                 (unsigned long long)payload_len, (unsigned long long)want, r->status,
                 (unsigned long long)storage_bytes);
        return -1;
    }
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
