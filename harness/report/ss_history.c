/* ss_history.c - the nightly history file (JSON Lines): append tonight, read the last nights. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_files.h"
#include "ss_history.h"

int ss_history_append(const char *path, const ss_night *n, const ss_triage *t, ss_error *err) {
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddStringToObject(o, "date", n->date) && cJSON_AddStringToObject(o, "commit", n->commit) &&
             cJSON_AddStringToObject(o, "torch", n->torch) && cJSON_AddNumberToObject(o, "cases", n->cases) &&
             cJSON_AddNumberToObject(o, "seconds", n->seconds) &&
             cJSON_AddNumberToObject(o, "cases_per_second", n->cases_per_second) &&
             cJSON_AddNumberToObject(o, "unique_findings", (double)(t->count[SS_TRIAGE_NEW] + t->count[SS_TRIAGE_KNOWN] +
                                                                    t->count[SS_TRIAGE_REGRESSED]));
    for (int c = 0; ok && c < SS_TRIAGE_CLASS_COUNT; c++)
        if (c != SS_TRIAGE_CLOSED)
            ok = cJSON_AddNumberToObject(o, ss_triage_class_name((ss_triage_class)c), (double)t->count[c]) != NULL;
    ok = ok && cJSON_AddStringToObject(o, "aliasing_kinds", n->aliasing) &&
         cJSON_AddNumberToObject(o, "aliasing_kinds_covered", n->alias_kinds) &&
         cJSON_AddNumberToObject(o, "aliasing_kinds_total", n->alias_kinds_total) &&
         cJSON_AddNumberToObject(o, "exit", n->exit_code) &&
         cJSON_AddStringToObject(o, "verdict", n->verdict ? n->verdict : "");
    char *line = ok ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!line) return ss_fail(err, path, "out of memory");
    const size_t len = strlen(line);
    line[len] = '\n';   /* the terminator becomes the newline: one write, one line */
    const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    int rc = 0;
    if (fd < 0 || write(fd, line, len + 1) != (ssize_t)(len + 1)) rc = ss_fail(err, path, "cannot append: %s", strerror(errno));
    if (fd >= 0 && close(fd) && !rc) rc = ss_fail(err, path, "cannot append: %s", strerror(errno));
    free(line);
    return rc;
}

static double num(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void str(const cJSON *o, const char *key, char *dst, size_t n) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    snprintf(dst, n, "%s", s ? s : "");
}

int ss_history_read(const char *path, size_t max, ss_history_row **rows, size_t *n, ss_error *err) {
    *rows = NULL;
    *n = 0;
    if (access(path, F_OK) != 0) return 0;
    char *text;
    size_t len;
    SS_TRY(ss_read_file(path, (size_t)64 << 20, &text, &len, err));
    ss_history_row *r = calloc(max ? max : 1, sizeof *r);
    if (!r) { free(text); return ss_fail(err, path, "out of memory"); }
    size_t count = 0;   /* rows seen; the ring keeps the last `max` */
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        cJSON *o = cJSON_Parse(line);
        if (cJSON_IsObject(o) && max) {
            ss_history_row *row = &r[count++ % max];
            memset(row, 0, sizeof *row);
            str(o, "date", row->date, sizeof row->date);
            str(o, "commit", row->commit, sizeof row->commit);
            row->cases = num(o, "cases");
            row->cases_per_second = num(o, "cases_per_second");
            row->n_new = (long)num(o, "new");
            row->n_known = (long)num(o, "known");
            row->n_fixed = (long)num(o, "fixed");
            row->n_regressed = (long)num(o, "regressed");
            row->alias_kinds = (int)num(o, "aliasing_kinds_covered");
            row->exit_code = (int)num(o, "exit");
        }
        cJSON_Delete(o);
    }
    free(text);
    /* Rotate the ring so the oldest kept row comes first. */
    const size_t kept = count < max ? count : max, start = count < max ? 0 : count % max;
    ss_history_row *out = malloc((kept ? kept : 1) * sizeof *out);
    if (!out) { free(r); return ss_fail(err, path, "out of memory"); }
    for (size_t i = 0; i < kept; i++) out[i] = r[(start + i) % max];
    free(r);
    *rows = out;
    *n = kept;
    return 0;
}
