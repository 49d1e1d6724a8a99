/* ss_expect.c - parse a case's expect block and judge a target's runs against it. */
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_expect.h"
#include "ss_version.h"

static int known_signature(const char *s) {
    if (!strcmp(s, "any")) return 1;
    for (int v = SS_MISMATCH; v <= SS_FLAKY; v++)
        if (v != SS_TARGET_UNAVAILABLE && !strcmp(s, ss_verdict_name((ss_verdict)v))) return 1;
    return 0;
}

static int add(ss_expect *x, const char *field, const char *name, ss_expect_kind kind,
               const char *sig, const char *range, ss_error *err) {
    const ss_target *t = ss_target_find(name);
    if (!t) return ss_fail(err, field, "unknown target \"%.60s\" (ssfuzz targets lists them)", name);
    /* A version range needs an engine that reports its version (torch's). */
    if (range && !t->engine->version) {
        char sub[160];
        snprintf(sub, sizeof sub, "%.100s.torch", field);
        return ss_fail(err, sub, "a torch version range applies to torch:* targets only");
    }
    for (size_t i = 0; i < x->n; i++)
        if (x->e[i].target == t) return ss_fail(err, field, "target \"%s\" named twice", name);
    if (x->n == SS_EXPECT_MAX) return ss_fail(err, field, "at most %d targets", SS_EXPECT_MAX);
    ss_expect_entry *e = &x->e[x->n++];
    e->target = t;
    e->kind = kind;
    snprintf(e->signature, sizeof e->signature, "%s", sig ? sig : "");
    snprintf(e->torch_range, sizeof e->torch_range, "%s", range ? range : "");
    return 0;
}

static int parse_agree(const cJSON *a, ss_expect *x, ss_error *err) {
    if (cJSON_IsString(a) && !strcmp(a->valuestring, "*")) return 0;
    if (!cJSON_IsArray(a))
        return ss_fail(err, "expect.agree", "must be \"*\" or an array of target names");
    int i = 0;
    for (const cJSON *it = a->child; it; it = it->next, i++) {
        char field[48];
        snprintf(field, sizeof field, "expect.agree[%d]", i);
        if (!cJSON_IsString(it)) return ss_fail(err, field, "must be a target name or \"*\"");
        if (!strcmp(it->valuestring, "*")) continue;
        SS_TRY(add(x, field, it->valuestring, SS_EXPECT_AGREE, NULL, NULL, err));
    }
    return 0;
}

#define SIGNATURES "a failure signature (mismatch, guard-band write, rejected-by-target-only, " \
                   "accepted-invalid, crash, timeout, refused, raised, error, nan-payload, flaky, any)"

/* "target": "signature", or "target": {"signature": S, "torch": RANGE}. */
static int parse_fail_entry(ss_expect *x, const char *field, const cJSON *f, ss_error *err) {
    if (cJSON_IsString(f)) {
        if (!known_signature(f->valuestring)) return ss_fail(err, field, "must be " SIGNATURES);
        return add(x, field, f->string, SS_EXPECT_FAIL, f->valuestring, NULL, err);
    }
    if (!cJSON_IsObject(f))
        return ss_fail(err, field, "must be %s, or {\"signature\": ..., \"torch\": RANGE}", SIGNATURES);
    const cJSON *sig = NULL, *range = NULL;
    for (const cJSON *it = f->child; it; it = it->next) {
        char sub[160];
        snprintf(sub, sizeof sub, "%.100s.%.40s", field, it->string);
        if (!strcmp(it->string, "signature") && !sig) sig = it;
        else if (!strcmp(it->string, "torch") && !range) range = it;
        else return ss_fail(err, sub, "unknown or repeated field (signature, torch)");
    }
    char sub[160], why[256];
    snprintf(sub, sizeof sub, "%.100s.signature", field);
    if (!cJSON_IsString(sig) || !known_signature(sig->valuestring)) return ss_fail(err, sub, "must be " SIGNATURES);
    snprintf(sub, sizeof sub, "%.100s.torch", field);
    if (range && (!cJSON_IsString(range) || strlen(range->valuestring) >= sizeof x->e[0].torch_range ||
                  ss_version_range_check(range->valuestring, why, sizeof why)))
        return ss_fail(err, sub, "%s", cJSON_IsString(range) && strlen(range->valuestring) < 64 ? why
                                          : "must be a version range of at most 63 characters");
    return add(x, field, f->string, SS_EXPECT_FAIL, sig->valuestring, range ? range->valuestring : NULL, err);
}

int ss_expect_parse(const cJSON *block, ss_expect *x, ss_error *err) {
    memset(x, 0, sizeof *x);
    if (!block) return 0;
    if (!cJSON_IsObject(block)) return ss_fail(err, "expect", "must be an object");
    for (const cJSON *it = block->child; it; it = it->next) {
        if (!strcmp(it->string, "agree")) {
            SS_TRY(parse_agree(it, x, err));
        } else if (!strcmp(it->string, "reject")) {
            if (!cJSON_IsBool(it)) return ss_fail(err, "expect.reject", "must be true or false");
            x->reject = cJSON_IsTrue(it);
        } else if (!strcmp(it->string, "fail")) {
            if (!cJSON_IsObject(it))
                return ss_fail(err, "expect.fail", "must map target names to failure signatures");
            for (const cJSON *f = it->child; f; f = f->next) {
                char field[128];
                snprintf(field, sizeof field, "expect.fail.%.100s", f->string);
                SS_TRY(parse_fail_entry(x, field, f, err));
            }
        } else {
            char field[128];
            snprintf(field, sizeof field, "expect.%.100s", it->string);
            return ss_fail(err, field, "unknown field (agree, fail, reject)");
        }
    }
    return 0;
}

ss_expect_kind ss_expect_of(const ss_expect *x, const ss_target *t, const char **signature) {
    for (size_t i = 0; i < x->n; i++)
        if (x->e[i].target == t) {
            if (signature) *signature = x->e[i].signature;
            if (x->e[i].kind == SS_EXPECT_FAIL && x->e[i].torch_range[0]) {
                /* the range was checked when parsed: -1 means the version is malformed */
                const char *version = t->engine->version ? t->engine->version(NULL) : NULL;
                const int in = version ? ss_version_in_range(version, x->e[i].torch_range) : -1;
                if (in < 0) return SS_EXPECT_UNJUDGED;
                if (in == 0) return SS_EXPECT_AGREE;
            }
            return x->e[i].kind;
        }
    return t->mutant ? SS_EXPECT_SKIP : SS_EXPECT_AGREE;
}

void ss_expect_unjudged_why(const ss_expect *x, const ss_target *t, char *buf, size_t n) {
    buf[0] = 0;
    for (size_t i = 0; i < x->n; i++) {
        if (x->e[i].target != t || !x->e[i].torch_range[0]) continue;
        const char *why = NULL;
        const char *version = t->engine->version ? t->engine->version(&why) : NULL;
        char rule[256];
        ss_version v;
        if (!version) snprintf(rule, sizeof rule, "version unknown (%s)", why ? why : "not reported");
        else if (ss_version_parse(version, &v, rule, sizeof rule)) { /* rule says why */ }
        else snprintf(rule, sizeof rule, "%s", version);
        snprintf(buf, n, "running torch: %s; whether %s is expected (only in torch \"%s\") cannot be judged",
                 rule, x->e[i].signature, x->e[i].torch_range);
    }
}

int ss_expect_names(const ss_expect *x, const ss_target *t) {
    for (size_t i = 0; i < x->n; i++)
        if (x->e[i].target == t) return 1;
    return 0;
}

void ss_expect_range_note(const ss_expect *x, const ss_target *t, char *buf, size_t n) {
    buf[0] = 0;
    for (size_t i = 0; i < x->n; i++) {
        if (x->e[i].target != t || !x->e[i].torch_range[0]) continue;
        const char *version = t->engine->version ? t->engine->version(NULL) : NULL;
        snprintf(buf, n, " (torch %s; %s expected only in %s, agreement outside it)",
                 version ? version : "?", x->e[i].signature, x->e[i].torch_range);
    }
}

/* "under lockstep" for scheduled runs, "" otherwise. */
static const char *where(const ss_replay_run *r, char *buf, size_t n) {
    if (r->schedule) snprintf(buf, n, " under %s", r->schedule);
    else buf[0] = 0;
    return buf;
}

static void describe(const ss_plan *plan, const ss_replay_run *r, char *out, size_t n) {
    if (r->res.verdict == SS_MISMATCH || r->res.verdict == SS_GUARD_WRITE)
        ss_diff_format(plan, &r->res.diff, out, n);
    else if (r->res.verdict == SS_ACCEPTED_INVALID)
        snprintf(out, n, "ran a case whose input view has internal overlap");
    else
        snprintf(out, n, "%s", r->res.why[0] ? r->res.why : "no reason given");
}

void ss_expect_judge(ss_expect_kind kind, const char *signature, const ss_plan *plan,
                     const ss_replay_run *runs, size_t n, ss_expect_outcome *out) {
    memset(out, 0, sizeof *out);
    const ss_replay_run *bad = NULL, *match = NULL;
    size_t n_bad = 0;
    for (size_t i = 0; i < n; i++) {
        const ss_verdict v = runs[i].res.verdict;
        out->seconds += runs[i].seconds;
        /* NaN bits alone are not a wrong value (--nan-payload-is-finding makes
         * them a mismatch before this point), except where asked for by name. */
        if (v == SS_AGREE || (v == SS_NAN_PAYLOAD && strcmp(signature ? signature : "", "nan-payload"))) continue;
        n_bad++;
        if (!bad) bad = &runs[i];
        if (!match && kind == SS_EXPECT_FAIL &&
            (!strcmp(signature, "any") || !strcmp(signature, ss_verdict_name(v))))
            match = &runs[i];
    }
    char w[48], detail[640];
    if (kind == SS_EXPECT_UNJUDGED) {   /* callers report ss_expect_unjudged_why instead of judging */
        snprintf(out->signature, sizeof out->signature, "unjudged");
        snprintf(out->message, sizeof out->message, "the running version cannot be placed in the torch range");
        return;
    }
    if (kind == SS_EXPECT_AGREE) {
        out->held = bad == NULL;
        out->shown = bad;
        snprintf(out->signature, sizeof out->signature, "%s",
                 bad ? ss_verdict_name(bad->res.verdict) : "agree");
        if (!bad) {
            snprintf(out->message, sizeof out->message, "agrees (%zu run%s)", n, n == 1 ? "" : "s");
            return;
        }
        describe(plan, bad, detail, sizeof detail);
        snprintf(out->message, sizeof out->message, "expected agreement, got %s%s (%zu of %zu runs): %s",
                 ss_verdict_name(bad->res.verdict), where(bad, w, sizeof w), n_bad, n, detail);
        return;
    }
    out->held = match != NULL;
    out->shown = match ? match : bad;
    if (match) {
        describe(plan, match, detail, sizeof detail);
        snprintf(out->signature, sizeof out->signature, "%s", ss_verdict_name(match->res.verdict));
        snprintf(out->message, sizeof out->message, "fails as expected: %s%s: %s",
                 ss_verdict_name(match->res.verdict), where(match, w, sizeof w), detail);
    } else if (bad) {
        describe(plan, bad, detail, sizeof detail);
        snprintf(out->signature, sizeof out->signature, "%s", ss_verdict_name(bad->res.verdict));
        snprintf(out->message, sizeof out->message, "expected %s under at least one schedule, got %s%s: %s",
                 signature, ss_verdict_name(bad->res.verdict), where(bad, w, sizeof w), detail);
    } else {
        snprintf(out->signature, sizeof out->signature, "missed-expected-failure");
        snprintf(out->message, sizeof out->message,
                 "expected %s under at least one schedule, but all %zu run%s agreed with the reference",
                 signature, n, n == 1 ? "" : "s");
    }
}
