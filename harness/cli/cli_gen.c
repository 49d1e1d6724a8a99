/* cli_gen.c - `ssfuzz gen --seed S --index I`: write case I of campaign seed S exactly as `fuzz` generates it. */
#include <stdio.h>
#include <stdlib.h>
#include <cjson/cJSON.h>
#include "cli_opts.h"
#include "ss_cli.h"
#include "ss_gen_opts.h"
#include "ss_plan_build.h"
#include "ss_replay.h"

static const char about[] =
    "Writes case I of the campaign with seed S, unminimized, exactly as `ssfuzz fuzz`\n"
    "generates it with the same generation options (they change which case (S, I) is).\n"
    "meta records the seed, the index, the aliasing kind and the command that\n"
    "regenerates it. A case beyond the byte budget (which the campaign skips) is\n"
    "still written, with a note on stderr.";

/* meta: what regenerates the case, as decimal strings (exact beyond 2^53). */
static int set_meta(ss_case *c, const ss_gen_config *cfg, uint64_t seed, uint64_t index,
                    ss_alias_kind kind) {
    char opts[256], cmd[400], num[32];
    ss_gen_opts_format(cfg, opts, sizeof opts);
    snprintf(cmd, sizeof cmd, "ssfuzz gen --seed %llu --index %llu%s", (unsigned long long)seed,
             (unsigned long long)index, opts);
    cJSON *m = cJSON_CreateObject();
    int ok = m && cJSON_AddStringToObject(m, "found_by", cmd);
    snprintf(num, sizeof num, "%llu", (unsigned long long)seed);
    ok = ok && cJSON_AddStringToObject(m, "campaign_seed", num);
    snprintf(num, sizeof num, "%llu", (unsigned long long)index);
    ok = ok && cJSON_AddStringToObject(m, "case_index", num) &&
         cJSON_AddStringToObject(m, "alias_kind", ss_alias_kind_name(kind)) &&
         cJSON_AddBoolToObject(m, "minimized", 0);
    if (!ok) { cJSON_Delete(m); return -1; }
    c->meta = m;
    return 0;
}

int ss_cmd_gen(int argc, char **argv) {
    uint64_t seed = 0, index = 0;
    const char *out = NULL;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    ss_error err;
    cli_opt opts[] = {
        CLI_OPT_UINT(0, "seed", "S", &seed, 0, UINT64_MAX, "campaign seed (required)"),
        CLI_OPT_UINT(0, "index", "I", &index, 0, UINT64_MAX, "case index within the campaign, from 0 (required)"),
        CLI_OPT_STR('o', "out", "FILE", &out, "write here (atomically) instead of stdout"),
        CLI_GEN_OPTS(&cfg),
        CLI_OPT_END};
    const cli_cmd cmd = {"gen", "--seed S --index I [-o FILE] [generation options]", about,
                         "exit: 0 written, 2 usage or the file cannot be written\n", opts, "", 0, 0};
    const int pr = cli_parse(&cmd, &argc, argv);
    if (pr >= 0) return pr;
    if (!cli_seen(opts, "seed") || !cli_seen(opts, "index")) {
        fprintf(stderr, "ssfuzz gen: need --seed S and --index I and nothing else (ssfuzz gen --help)\n");
        return SS_EXIT_USAGE;
    }
    ss_case cs;
    ss_case_init(&cs);
    ss_alias_kind kind;
    if (ss_gen_case(&cfg, seed, index, &cs, &kind) || set_meta(&cs, &cfg, seed, index, kind)) {
        fprintf(stderr, "ssfuzz gen: out of memory\n");
        ss_case_free(&cs);
        return SS_EXIT_TARGET;
    }
    ss_plan plan;
    if (ss_plan_build_limited(&cs.op, cfg.max_bytes, &plan, &err))
        fprintf(stderr, "ssfuzz gen: note: the campaign skips this case (%s: %s)\n", err.field, err.msg);
    int rc = SS_EXIT_OK;
    if (out) {
        if (ss_case_save_atomic(out, &cs, &err)) {
            fprintf(stderr, "ssfuzz gen: %s: %s\n", err.field, err.msg);
            rc = SS_EXIT_USAGE;
        }
    } else {
        char *text = ss_case_to_json(&cs);
        if (text) puts(text);
        else { fprintf(stderr, "ssfuzz gen: out of memory\n"); rc = SS_EXIT_TARGET; }
        free(text);
    }
    ss_case_free(&cs);
    return rc;
}
