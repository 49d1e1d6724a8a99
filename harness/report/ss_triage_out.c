/* ss_triage_out.c - verdict.json, JUnit and SARIF for a night's triaged findings; the night's exit code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_escape.h"
#include "ss_files.h"
#include "ss_gen.h"
#include "ss_regress_out.h"
#include "ss_triage_out.h"

void ss_night_read_summary(const char *dir, ss_night *n) {
    char path[4200], *text;
    size_t len;
    ss_error err;
    n->alias_kinds_total = SS_ALIAS_KIND_COUNT;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    if (ss_read_file(path, (size_t)64 << 20, &text, &len, &err)) return;
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "cases")) && cJSON_IsNumber(v)) n->cases = v->valuedouble;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "seconds")) && cJSON_IsNumber(v)) n->seconds = v->valuedouble;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "cases_per_second")) && cJSON_IsNumber(v))
        n->cases_per_second = v->valuedouble;
    const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "aliasing"), "kinds");
    size_t o = 0;
    cJSON_ArrayForEach(v, kinds) {
        if (!cJSON_IsNumber(v) || v->valuedouble <= 0) continue;
        n->alias_kinds++;
        o += (size_t)snprintf(n->aliasing + o, o < sizeof n->aliasing ? sizeof n->aliasing - o : 0, "%s%s",
                              o ? "," : "", v->string);
    }
    cJSON_Delete(root);
}

void ss_night_verdict(ss_night *n, const ss_triage *t) {
    const int broken = n->regress_rc > 1 || n->fuzz_rc > 1;
    if (t->count[SS_TRIAGE_NEW] || t->count[SS_TRIAGE_REGRESSED] || n->regress_rc == 1) {
        n->exit_code = 1;
        n->verdict = "new finding or regression";
    } else if (broken) {
        n->exit_code = 2;
        n->verdict = "tool error";
    } else {
        n->exit_code = 0;
        n->verdict = t->count[SS_TRIAGE_KNOWN] ? "known findings only" : "clean";
    }
}

void ss_triage_item_stem(const ss_triage_item *it, char *out, size_t n) {
    const char *p = it->reproducer[0] ? it->reproducer : it->found;
    const char *base = strrchr(p, '/');
    snprintf(out, n, "%s", base ? base + 1 : p);
    const size_t len = strlen(out);
    if (len > 5 && !strcmp(out + len - 5, ".json")) out[len - 5] = 0;
}

static cJSON *item_json(const ss_triage_item *it) {
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddStringToObject(o, "signature", it->signature) &&
             cJSON_AddStringToObject(o, "fingerprint", it->signature) &&
             cJSON_AddStringToObject(o, "kind", it->kind) && cJSON_AddStringToObject(o, "target", it->target) &&
             cJSON_AddStringToObject(o, "schedule", it->schedule) &&
             cJSON_AddStringToObject(o, "reproducer", it->reproducer) &&
             cJSON_AddStringToObject(o, "found", it->found) &&
             cJSON_AddNumberToObject(o, "reproducers_tonight", (double)it->reproducers_tonight) &&
             cJSON_AddStringToObject(o, "first_seen", it->first_seen) &&
             cJSON_AddStringToObject(o, "upstream", it->upstream) &&
             cJSON_AddStringToObject(o, "detail", it->detail) &&
             cJSON_AddStringToObject(o, "explain", it->explain);
    if (!ok) { cJSON_Delete(o); return NULL; }
    return o;
}

int ss_triage_write_verdict(const char *path, const ss_night *n, const ss_triage *t, ss_error *err) {
    cJSON *root = cJSON_CreateObject(), *fz, *cnt;
    int ok = root && cJSON_AddStringToObject(root, "format", "ssfuzz-verdict") &&
             cJSON_AddNumberToObject(root, "version", 1) && cJSON_AddStringToObject(root, "date", n->date) &&
             cJSON_AddStringToObject(root, "commit", n->commit) && cJSON_AddStringToObject(root, "torch", n->torch) &&
             cJSON_AddNumberToObject(root, "exit", n->exit_code) &&
             cJSON_AddStringToObject(root, "verdict", n->verdict ? n->verdict : "") &&
             cJSON_AddNumberToObject(cJSON_AddObjectToObject(root, "regress"), "exit", n->regress_rc) &&
             (fz = cJSON_AddObjectToObject(root, "fuzz")) && cJSON_AddNumberToObject(fz, "exit", n->fuzz_rc) &&
             cJSON_AddNumberToObject(fz, "cases", n->cases) && cJSON_AddNumberToObject(fz, "seconds", n->seconds) &&
             cJSON_AddNumberToObject(fz, "cases_per_second", n->cases_per_second) &&
             cJSON_AddStringToObject(fz, "aliasing_kinds", n->aliasing) &&
             (cnt = cJSON_AddObjectToObject(root, "counts"));
    for (int c = 0; ok && c < SS_TRIAGE_CLASS_COUNT; c++)
        ok = cJSON_AddNumberToObject(cnt, ss_triage_class_name((ss_triage_class)c), (double)t->count[c]) != NULL;
    for (int c = 0; ok && c < SS_TRIAGE_CLASS_COUNT; c++) {
        cJSON *arr = cJSON_AddArrayToObject(root, ss_triage_class_name((ss_triage_class)c));
        ok = arr != NULL;
        for (size_t i = 0; ok && i < t->n; i++) {
            if (t->it[i].cls != (ss_triage_class)c) continue;
            cJSON *o = item_json(&t->it[i]);
            ok = o && cJSON_AddItemToArray(arr, o);
        }
    }
    if (!ok) { cJSON_Delete(root); return ss_fail(err, path, "out of memory"); }
    return ss_write_json_atomic(path, root, 1, err);
}

static int junit_emit(FILE *f, const void *user) {
    const ss_triage *t = user;
    const size_t failing = t->count[SS_TRIAGE_NEW] + t->count[SS_TRIAGE_KNOWN] + t->count[SS_TRIAGE_REGRESSED];
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ssfuzz findings\" tests=\"%zu\" "
               "failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n  <testsuite name=\"ssfuzz findings\" tests=\"%zu\" "
               "failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
            t->n, failing, t->count[SS_TRIAGE_UNCHECKED], t->n, failing, t->count[SS_TRIAGE_UNCHECKED]);
    for (size_t i = 0; i < t->n; i++) {
        const ss_triage_item *it = &t->it[i];
        fputs("    <testcase classname=\"ssfuzz.findings.", f);
        ss_xml_escape(f, it->target);
        fputs("\" name=\"", f);
        ss_xml_escape(f, it->kind);
        if (it->schedule[0]) { fputs(" [", f); ss_xml_escape(f, it->schedule); fputc(']', f); }
        fputs("\" time=\"0\"", f);
        if (it->cls == SS_TRIAGE_FIXED || it->cls == SS_TRIAGE_CLOSED) { fputs("/>\n", f); continue; }
        if (it->cls == SS_TRIAGE_UNCHECKED) {
            fputs(">\n      <skipped message=\"", f);
            ss_xml_escape(f, it->detail);
            fputs("\"/>\n    </testcase>\n", f);
            continue;
        }
        fprintf(f, ">\n      <failure type=\"%s\" message=\"", ss_triage_class_name(it->cls));
        fprintf(f, "%s finding: ", ss_triage_class_name(it->cls));
        ss_xml_escape(f, it->signature);
        if (it->first_seen[0]) { fputs(" (known since ", f); ss_xml_escape(f, it->first_seen); fputc(')', f); }
        fputs("\">signature: ", f);
        ss_xml_escape(f, it->signature);
        fprintf(f, "\nledger: %s", ss_triage_class_name(it->cls));
        fputs("\nreproducer: ", f);
        ss_xml_escape(f, it->reproducer);
        if (it->upstream[0]) { fputs("\nupstream: ", f); ss_xml_escape(f, it->upstream); }
        if (it->detail[0]) { fputs("\n", f); ss_xml_escape(f, it->detail); }
        fputs("\nreplay: ssfuzz replay --target ", f);
        ss_xml_escape_word(f, it->target);
        if (it->schedule[0]) { fputs(" --schedule ", f); ss_xml_escape_word(f, it->schedule); }
        fputc(' ', f);
        ss_xml_escape_word(f, it->reproducer);
        fputs("</failure>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return 0;
}

int ss_triage_write_junit(const char *path, const ss_triage *t, ss_error *err) {
    return ss_write_atomic_with(path, junit_emit, t, err);
}

static int rule_index(const cJSON *run, const char *id) {
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "tool"), "driver"),
                              "rules")) {
        const char *rid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "id"));
        if (rid && !strcmp(rid, id)) return i;
        i++;
    }
    return -1;
}

static cJSON *sarif_result(const cJSON *run, const ss_triage_item *it) {
    char clean[1200], msg[1400];
    cJSON *r = cJSON_CreateObject();
    if (!r) return NULL;
    ss_text_sanitize(it->kind, clean, sizeof clean);
    cJSON_AddStringToObject(r, "ruleId", clean);
    const int idx = rule_index(run, it->kind);
    if (idx >= 0) cJSON_AddNumberToObject(r, "ruleIndex", idx);
    cJSON_AddStringToObject(r, "kind", "fail");
    cJSON_AddStringToObject(r, "level", "error");
    snprintf(msg, sizeof msg, "[%s%s%s] %s on %s%s%s%s: fuzz finding, reproducer %.400s%s%.300s",
             ss_triage_class_name(it->cls), it->first_seen[0] ? " since " : "", it->first_seen, it->kind,
             it->target, it->schedule[0] ? " (" : "", it->schedule, it->schedule[0] ? ")" : "", it->reproducer,
             it->upstream[0] ? "; upstream " : "", it->upstream);
    ss_text_sanitize(msg, clean, sizeof clean);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "message"), "text", clean);
    ss_sarif_add_location(r, it->reproducer);
    ss_text_sanitize(it->signature, clean, sizeof clean);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "partialFingerprints"), "ssfuzzFinding/v1", clean);
    cJSON_AddStringToObject(r, "baselineState", it->cls == SS_TRIAGE_KNOWN ? "unchanged" : "new");
    cJSON *p = cJSON_AddObjectToObject(r, "properties");
    cJSON_AddStringToObject(p, "ledger", ss_triage_class_name(it->cls));
    ss_text_sanitize(it->target, clean, sizeof clean);
    cJSON_AddStringToObject(p, "target", clean);
    if (it->schedule[0]) cJSON_AddStringToObject(p, "schedule", it->schedule);
    if (it->first_seen[0]) cJSON_AddStringToObject(p, "firstSeen", it->first_seen);
    if (it->upstream[0]) { ss_text_sanitize(it->upstream, clean, sizeof clean); cJSON_AddStringToObject(p, "upstream", clean); }
    cJSON_AddNumberToObject(p, "reproducersTonight", (double)it->reproducers_tonight);
    return r;
}

int ss_triage_write_sarif(const char *path, const char *base, const ss_triage *t, ss_error *err) {
    cJSON *root;
    if (base) {
        char *text;
        size_t len;
        SS_TRY(ss_read_file(base, (size_t)256 << 20, &text, &len, err));
        root = cJSON_ParseWithLength(text, len);
        free(text);
        if (!root) return ss_fail(err, base, "not valid JSON");
    } else if (!(root = ss_sarif_document(NULL))) {
        return ss_fail(err, path, "out of memory");
    }
    cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "runs"), 0);
    cJSON *results = cJSON_GetObjectItemCaseSensitive(run, "results");
    if (!cJSON_IsArray(results)) { cJSON_Delete(root); return ss_fail(err, base ? base : path, "no runs[0].results"); }
    for (size_t i = 0; i < t->n; i++) {
        const ss_triage_item *it = &t->it[i];
        if (it->cls != SS_TRIAGE_NEW && it->cls != SS_TRIAGE_KNOWN && it->cls != SS_TRIAGE_REGRESSED) continue;
        cJSON *r = sarif_result(run, it);
        if (!r || !cJSON_AddItemToArray(results, r)) { cJSON_Delete(r); cJSON_Delete(root); return ss_fail(err, path, "out of memory"); }
    }
    return ss_write_json_atomic(path, root, 1, err);
}
