/* ss_shard.c - shard I of N: parsing --shard, Slurm's array variables, the shard's summary and resume point. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_files.h"
#include "ss_shard.h"

#define SUMMARY_MAX_BYTES ((size_t)64 << 20)

/* A plain decimal number (digits only, at most 19 of them: below 10^19 < 2^64). */
static int decimal(const char *s, size_t len, uint64_t *out) {
    if (len == 0 || len > 19) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

int ss_shard_parse(const char *text, ss_shard *s, ss_error *err) {
    const char *slash = strchr(text, '/');
    uint64_t i, n;
    if (!slash || decimal(text, (size_t)(slash - text), &i) || decimal(slash + 1, strlen(slash + 1), &n))
        return ss_fail(err, "--shard", "must be I/N, two decimal numbers (got '%.40s')", text);
    if (n < 1 || n > SS_SHARD_MAX_COUNT)
        return ss_fail(err, "--shard", "N must be in [1, %u] (got %llu)", SS_SHARD_MAX_COUNT, (unsigned long long)n);
    if (i >= n)
        return ss_fail(err, "--shard", "I must be below N: shards are numbered 0..N-1 (got %llu/%llu)",
                       (unsigned long long)i, (unsigned long long)n);
    *s = (ss_shard){i, n, "--shard"};
    return 0;
}

/* An array variable: 1 set and decimal, 0 unset, -1 with err. */
static int env_number(const char *name, uint64_t *v, ss_error *err) {
    const char *t = getenv(name);
    if (!t) return 0;
    if (decimal(t, strlen(t), v)) return ss_fail(err, name, "must be a decimal number (got '%.40s')", t);
    return 1;
}

int ss_shard_from_env(ss_shard *s, ss_error *err) {
    uint64_t id, count, min = 0, step = 1;
    int r = env_number("SLURM_ARRAY_TASK_ID", &id, err);
    if (r <= 0) return r;
    if (env_number("SLURM_ARRAY_TASK_MIN", &min, err) < 0 || env_number("SLURM_ARRAY_TASK_STEP", &step, err) < 0)
        return -1;
    if ((r = env_number("SLURM_ARRAY_TASK_COUNT", &count, err)) < 0) return -1;
    if (r == 0) return ss_fail(err, "SLURM_ARRAY_TASK_COUNT", "unset beside SLURM_ARRAY_TASK_ID: give --shard I/N");
    if (step == 0) step = 1;
    /* --array=0-15:4 numbers tasks 0, 4, 8, 12: shards 0..3. A list such as 1,5,9
     * has no step that reaches every task: its ids are not a shard numbering. */
    if (id < min || (id - min) % step || (id - min) / step >= count || count > SS_SHARD_MAX_COUNT)
        return ss_fail(err, "SLURM_ARRAY_TASK_ID",
                       "task %llu is not one of %llu tasks from %llu by %llu: submit --array=A-B[:STEP], "
                       "or give --shard I/N", (unsigned long long)id, (unsigned long long)count,
                       (unsigned long long)min, (unsigned long long)step);
    *s = (ss_shard){(id - min) / step, count, "SLURM_ARRAY_TASK_ID"};
    return 1;
}

void ss_shard_summary_name(uint64_t index, char *out, size_t n) {
    snprintf(out, n, "summary-shard-%llu.json", (unsigned long long)index);
}

/* The decimal string at key, or 0 when it is missing or not one. */
static int str_u64(const cJSON *o, const char *key, uint64_t *v) {
    const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    return t && decimal(t, strlen(t), v) == 0;
}

int ss_shard_resume_point(const char *dir, uint64_t seed, const ss_shard *s, uint64_t *next, ss_error *err) {
    char name[64], path[4200], shard[48] = "";
    if (s->count) {
        ss_shard_summary_name(s->index, name, sizeof name);
        snprintf(shard, sizeof shard, "%llu/%llu", (unsigned long long)s->index, (unsigned long long)s->count);
    } else {
        snprintf(name, sizeof name, "summary.json");
    }
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) return ss_fail(err, dir, "path too long");
    *next = 0;
    if (access(path, F_OK) != 0) return 0;
    char *text;
    size_t len;
    ss_error rd;
    if (ss_read_file(path, SUMMARY_MAX_BYTES, &text, &len, &rd)) return ss_fail(err, path, "%s", rd.msg);
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "campaigns"), *c;
    if (!cJSON_IsArray(runs)) {
        cJSON_Delete(root);
        return ss_fail(err, path, "not a summary with a campaigns array: cannot tell where to resume");
    }
    cJSON_ArrayForEach(c, runs) {
        uint64_t sd, nc;
        const char *sh = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "shard"));
        if (!str_u64(c, "seed", &sd) || sd != seed || !str_u64(c, "next_case", &nc)) continue;
        if (strcmp(sh ? sh : "", shard)) continue;
        if (nc > *next) *next = nc;
    }
    cJSON_Delete(root);
    return 0;
}
