/* ss_torch_proto.h - the frames between the harness and its PyTorch worker
 * (harness/engines/ss_torch_worker.py), encoded and checked without any I/O.
 *
 * Every frame: a 16-byte little-endian header {u32 magic "SSTW", u16 version,
 * u16 type, u64 payload length} and the payload. Handshake: harness HELLO
 * (empty), worker ACK (capabilities, "key=value\n" lines) or ERROR (text).
 * A PROBE (payload "cpu" or "cuda") asks whether torch.compile really
 * compiles there: PROGRESS frames, then ACK (empty: it does; else why not).
 * Then per case: harness RUN (ss_tp_run_head + storage bytes), worker zero
 * or more PROGRESS (u32: 1 a compile is likely starting, 0 it ended) and one
 * RESULT {u32 status, u32 message length, message, final storage bytes when
 * the status is OK}. Any other frame, or a length that does not add up, is a
 * protocol error: the harness kills the worker and says why.
 *
 * A program case (docs/programs.md) sets SS_TP_F_PROGRAM in the head's flags
 * and puts, between the head and the storage bytes, {u32 source length, the
 * Python source of `def program(x, src)`, u32 returned values the program
 * names, zeros to a multiple of 16 bytes}. Its OK RESULT carries after the storage bytes {u32 returned
 * values, then per value: u32 shares (bit 0 x's storage, bit 1 src's),
 * dtype name (16 bytes, NUL-padded), u32 ndim, i64 sizes[ndim], u64 byte
 * length, the bytes (contiguous, little-endian, in the value's dtype)}.
 *
 * A BATCH {u32 count K (1..SS_TP_MAX_BATCH), u32 0} is followed by K RUN
 * frames of one compiled target; the worker runs them as one compiled
 * function (each case on its own storages) and answers K RESULT frames in
 * order, each exactly as for that RUN alone. A RESULT with the REPLACE bit
 * ends the batch: the worker exits and the rest go unanswered (the harness
 * runs them alone in a fresh worker).
 *
 * A Python kernel's case (--py-kernel, docs/plugins.md) sets SS_TP_F_PYKERNEL
 * and puts after the head {u32 guard bytes G, u32 path length, u32 kernel
 * name length, u32 0, the module's path, the kernel's name, zeros to a
 * multiple of 16 bytes}; each storage then travels (both ways) with its
 * guard bands: G bytes, the storage, G bytes. A PROBE "pykernel\0PATH\0
 * KERNEL\0DEVICE" asks whether that kernel can run: ACK "ok" (then perhaps
 * " triton=VERSION"), else why not. */
#ifndef SS_TORCH_PROTO_H
#define SS_TORCH_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include "ss_case.h"
#include "ss_plan.h"
#include "ss_program.h"

#define SS_TP_MAGIC 0x57545353u   /* "SSTW" */
#define SS_TP_VERSION 1
#define SS_TP_HEADER_SIZE 16
#define SS_TP_MAX_MESSAGE 4096
#define SS_TP_MAX_PAYLOAD ((uint64_t)1 << 44)
#define SS_TP_F_PROGRAM 8u           /* RUN head flag: a program case */
#define SS_TP_MAX_SOURCE 65536       /* a program's Python source */
#define SS_TP_F_PYKERNEL 16u         /* RUN head flag: a Python kernel's case */
#define SS_TP_MAX_PATH 4096          /* a Python kernel's module path */
#define SS_TP_MAX_KERNEL 64          /* a Python kernel's name */
/* Returned values' part of a program RESULT: 8 values of at most 2^24
 * elements of 16 bytes would be 2 GiB; nothing a program here returns comes
 * near 256 MiB. */
#define SS_TP_MAX_RETURNS_BYTES ((uint64_t)256 << 20)

enum { SS_TP_HELLO = 1, SS_TP_ACK, SS_TP_ERROR, SS_TP_RUN, SS_TP_RESULT, SS_TP_PROGRESS, SS_TP_PROBE,
       SS_TP_BATCH };
/* The most RUN frames one BATCH announces. */
#define SS_TP_MAX_BATCH 128
/* RESULT statuses (pinned: the worker uses the same numbers). EXCEPTION:
 * PyTorch raised something that is neither its overlap refusal nor a
 * compile-only failure. REPLACE is or-ed in when the worker ends after this
 * result (a CUDA error may be sticky; an internal error): start a fresh one. */
enum { SS_TP_OK = 0, SS_TP_REFUSED = 1, SS_TP_RAISED = 2, SS_TP_FAILED = 3, SS_TP_UNSUPPORTED = 4,
       SS_TP_EXCEPTION = 5 };
#define SS_TP_REPLACE 0x100u

typedef struct ss_tp_header {
    unsigned type;
    uint64_t length;
} ss_tp_header;

void ss_tp_header_encode(uint8_t out[SS_TP_HEADER_SIZE], unsigned type, uint64_t length);
/* 0, or -1 with `why` (bad magic, version or type, or a length beyond the cap). */
int ss_tp_header_decode(const uint8_t in[SS_TP_HEADER_SIZE], ss_tp_header *h, char *why, size_t n);

/* The fixed part of a RUN payload: names, op and both views. */
#define SS_TP_RUN_FIXED 144
/* The largest head: both views at SS_MAX_NDIM. */
#define SS_TP_RUN_HEAD_MAX (SS_TP_RUN_FIXED + 2 * (16 + 16 * SS_MAX_NDIM))
size_t ss_tp_run_head_size(const ss_op *op);
/* Whether a RUN head can carry op with dtype dt: 0, or -1 with why (a view
 * rank beyond SS_TP_RUN_HEAD_MAX, which a validated plan never has; an
 * element size that is not the dtype's). */
int ss_tp_run_check(const ss_op *op, ss_dtype dt, char *why, size_t n);
/* Encodes the head into out (ss_tp_run_head_size bytes). Names longer than
 * their fields (24 bytes; dtype 16) are a caller error: -1. */
int ss_tp_run_head_encode(uint8_t *out, const char *mode, const char *spelling, const char *form,
                          const char *dtype, const ss_op *op);

/* The program part of a RUN payload (after the head): its size for a
 * source of len bytes, and its encoding; the head's flags get
 * SS_TP_F_PROGRAM. -1 when the source is longer than SS_TP_MAX_SOURCE. */
size_t ss_tp_run_program_size(size_t source_len);
int ss_tp_run_program_encode(uint8_t *head, uint8_t *out, const char *source, size_t source_len,
                             uint32_t nret);

/* The Python-kernel part of a RUN payload (after the head): its size, and
 * its encoding; the head's flags get SS_TP_F_PYKERNEL. -1 when the path or
 * name is longer than its cap, or guard is not a multiple of 16. */
size_t ss_tp_run_pykernel_size(size_t path_len, size_t kernel_len);
int ss_tp_run_pykernel_encode(uint8_t *head, uint8_t *out, const char *path, const char *kernel, uint32_t guard);

/* The first 8 bytes of a RESULT payload, checked against the payload length
 * and the storage bytes an OK result must carry. */
typedef struct ss_tp_result {
    unsigned status;           /* SS_TP_OK.. without the REPLACE bit */
    int replace;               /* 1: the worker ends after this result */
    uint32_t message_len;
    uint64_t returns_len;      /* program results: bytes of returned values after the storages */
} ss_tp_result;
int ss_tp_result_decode(const uint8_t in[8], uint64_t payload_len, uint64_t storage_bytes,
                        ss_tp_result *r, char *why, size_t n);
/* The same for a program case: an OK result carries returned values after
 * the storages (returns_len: at least 4, at most SS_TP_MAX_RETURNS_BYTES). */
int ss_tp_result_decode_program(const uint8_t in[8], uint64_t payload_len, uint64_t storage_bytes,
                                ss_tp_result *r, char *why, size_t n);

/* The returned values' part of a program RESULT (len bytes at p), checked
 * field by field against len: at most SS_PROG_MAX_RETURNS values, known
 * dtypes, ndim <= SS_MAX_NDIM, sizes >= 0 whose product times the element
 * size is the byte length, nothing left over. Fills out (its bytes point
 * into p: p must outlive it). 0, or -1 with why naming the value and field. */
int ss_tp_returns_decode(const uint8_t *p, uint64_t len, ss_prog_actual *out, char *why, size_t n);

/* ACK capabilities: each value empty when available, else the reason not. */
typedef struct ss_tp_caps {
    char torch[64], python[32];
    char compile[160], cpu_compile[160], cuda[160], cuda_compile[160];
} ss_tp_caps;
/* Parses "key=value\n" lines (unknown keys ignored; `torch` required). */
int ss_tp_caps_parse(const char *text, size_t len, ss_tp_caps *caps, char *why, size_t n);

#endif
