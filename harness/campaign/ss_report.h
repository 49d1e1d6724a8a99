/* ss_report.h - reproducers (minimized case + meta), their dedup names, and campaign summaries.
 *
 * A finding's signature is its kind (ss_verdict_name, or "crash"/"timeout"
 * for a target that died or hung in the fork server) plus the target, plus the
 * schedule for scheduled (emu) targets. Reproducers are deduplicated by what a
 * person calls one bug: the signature and the minimized case's overlap class
 * (not its dtype or rank). The file name is derived from that key, so another
 * shape of the same bug finds the file already there and is only counted (a
 * hit); with `variants` (fuzz --keep-variants) rank and dtype join the key and
 * each shape gets its own file.
 *
 * Ownership: ss_report_write replaces c->meta (the case owns the new object).
 * An ss_summary owns its entries; free with ss_summary_free. */
#ifndef SS_REPORT_H
#define SS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include "ss_case.h"
#include "ss_error.h"
#include "ss_gen.h"
#include "ss_plan.h"
#include "ss_target.h"

typedef struct ss_finding {
    const char *kind;          /* "mismatch", "guard-band write", "crash", "timeout", ... */
    const ss_target *target;
    const char *schedule;      /* NULL for unscheduled targets */
    uint64_t schedule_seed;    /* the random schedule's seed */
    int has_origin;            /* 1: campaign_seed/case_index say where it came from */
    uint64_t campaign_seed, case_index;
    int64_t numel_before;      /* largest storage numel before minimization */
    int ndim_before;
    int minimized;             /* 0: written as found (crash, timeout, budget) */
    const char *found_by;      /* e.g. "ssfuzz fuzz --seed 42"; NULL: "ssfuzz" */
    const char *detail;        /* one line (first difference, reason); may be NULL */
} ss_finding;

/* The bug's dedup key "kind|target|schedule class|overlap class" (meta.dedup_key;
 * schedule class: ss_schedule_class; a "raised" finding's ends "|raise key",
 * ss_raise_key of f->detail) and the file name
 * "kind-target[-schedule class]-overlap class-HASH8.json", or with `variants`
 * "kind-target[-schedule class]-Nd-dtype-overlap class-HASH8.json" (file-name safe
 * characters). */
void ss_report_key(const ss_case *c, const ss_finding *f, char *key, size_t key_len);
/* What tells one raise from another: the exception's type and the first words
 * of its message (digits as '#', '|' as '/'), and what eager did, from a
 * target's reason ("compiled raises AssertionError: incorrect out shape after
 * ...; eager runs it" gives "AssertionError: incorrect out shape after / eager
 * runs"; "...; eager raises RuntimeError: ..." ends "/ eager RuntimeError:"),
 * cut to n - 1 bytes; "" when why is empty. A
 * "raised" finding's dedup key ends with it (after '|'), and its minimization
 * keeps it: two exceptions are two bugs, not one signature "raised". */
void ss_raise_key(const char *why, char *out, size_t n);
/* A key's room for ss_raise_key: it fits the 160 bytes every dedup key gets. */
enum { SS_RAISE_KEY_LEN = 64 };
/* "|raise key" when kind is "raised" (why: the target's reason, or a finding's
 * detail), else "": what ends a raised finding's dedup key, wherever the key is
 * made (the campaign's, the reproducer's, merge's from a file). */
void ss_raise_suffix(const char *kind, const char *why, char out[SS_RAISE_KEY_LEN + 1]);
void ss_report_name(const ss_case *c, const ss_finding *f, int variants, char *name, size_t name_len);
/* The overlap class of the dedup key: "overlap" (src shares elements with the
 * written slice: same-view, partial), "no-overlap" (separate, disjoint,
 * outside-slice), "internal" (input view with internal overlap), or "invalid"
 * (the case does not plan). ss_overlap_class is the same from a plan's fields. */
const char *ss_report_overlap_class(const ss_case *c);
const char *ss_overlap_class(int internal_overlap, ss_overlap o);

/* Sets c->meta from f (and the tool version). 0, or -1 out of memory. */
int ss_report_set_meta(ss_case *c, const ss_finding *f);

/* Writes the reproducer into dir atomically (temp file, fsync, then a link
 * that never replaces an existing file). Returns 1 written, 0 when a
 * reproducer of this signature and shape class already exists (nothing
 * written), -1 with err on failure. `path` (may be NULL) gets the file path.
 * `variants`: one file per shape (see above). */
int ss_report_write(const char *dir, ss_case *c, const ss_finding *f, int variants, char *path,
                    size_t path_len, ss_error *err);

/* One line: "mismatch on emu:mut-x (forward): 1-D uint8 partial, 3 elements
 * (was 4-D, 812) -> reports/x.json; next: ssfuzz explain reports/x.json -t emu:mut-x
 * --schedule forward". `is_new` 0 adds "(duplicate)" before "; next". */
void ss_report_line(const ss_case *c, const ss_finding *f, const char *path, int is_new,
                    char *out, size_t n);

/* Records in the reproducer at path (atomically) where a finding of t first
 * goes wrong (ss_check_stage): meta.KEY.stage, KEY being t's engine's meta
 * key ("torch"), "dynamo", "aot", "inductor", or "unknown" when stage is
 * NULL; meta.KEY.stage_checks: which sibling target said what. 0, or -1
 * with err. */
int ss_report_set_stage(const char *path, const ss_target *t, const char *stage, const char *checks,
                        ss_error *err);

/* ---- campaign summary -------------------------------------------------- */

typedef struct ss_summary_sig {
    char kind[32], target[64], schedule[16];
    long hits;                 /* every failing run of this signature */
    long reproducers;          /* distinct files written */
    char first_file[512];      /* the first reproducer written (or found existing) */
} ss_summary_sig;

typedef struct ss_summary {
    uint64_t seed;
    uint64_t cases;
    double seconds;
    const char *stopped_by;    /* "time", "cases", "signal" */
    const char *schedule;      /* "all" or one name */
    char targets[1024];        /* comma-separated */
    long skipped;              /* generated cases beyond the budgets or invalid */
    long refused;              /* runs a target refused (its own safety error): not findings */
    long errors;               /* runs where the target raised an error of the case or engine */
    long nan_payload;          /* runs whose storages differed only in NaNs' bits */
    int batch;                 /* the most cases run together (ss_fuzz_group_limit); 1: none */
    uint64_t batches, batched_cases;   /* batched target runs, and the cases they ran */
    char error_example[240], nan_example[240];   /* the first of each, "TARGET: what" */
    long unwritten;            /* findings whose reproducer could not be written */
    long confirmed, unconfirmed;   /* new torch findings whose standalone script did / did not reproduce */
    ss_summary_sig *sigs;
    size_t n, cap;
    char (*bugs)[160];         /* distinct dedup keys (ss_report_key): the unique findings */
    size_t n_bugs, cap_bugs;
    /* Cases per aliasing kind (ss_alias_kind) among the first alias_sampled indices. */
    uint64_t alias_sampled;
    long alias_kinds[16];
    /* Cases finished per size class (ss_size_class) and the worker time they took. */
    uint64_t size_cases[SS_SIZE_CLASS_COUNT];
    double size_seconds[SS_SIZE_CLASS_COUNT];
    /* Where the run was and what it covered (ss_shard.h): shard I of N (count 0:
     * not sharded; its summary is then DIR/summary-shard-I.json), the local
     * cases [first_case, next_case) handed out, and an id unique across hosts. */
    uint64_t shard_index, shard_count, first_case, next_case;
    char campaign_id[128], host[64];
} ss_summary;

/* Counts one hit; `bug` (may be NULL or "": a repeat of a bug already counted)
 * is its dedup key, `file` (may be NULL or "") its reproducer, `is_new` 1 when
 * that file was written by this hit. -1 out of memory. */
int ss_summary_add(ss_summary *s, const char *kind, const char *target, const char *schedule,
                   const char *bug, const char *file, int is_new);
long ss_summary_hits(const ss_summary *s);
/* Distinct bugs among the hits: "N unique findings (M hits)". */
long ss_summary_unique(const ss_summary *s);
void ss_summary_free(ss_summary *s);
/* Adds this campaign to summary.json in dir (atomic; concurrent campaigns merge,
 * see ss_summary_merge.h); a shard's to its own summary-shard-I.json, unlocked. */
int ss_summary_write(const char *dir, const ss_summary *s, ss_error *err);

#endif
