/* cli_gen.c - `ssfuzz gen --seed S --index I`: write case I of campaign seed S exactly as `fuzz` generates it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <cjson/cJSON.h>
#include "ss_cli.h"
#include "ss_gen_opts.h"
#include "ss_plan_build.h"
#include "ss_replay.h"

static void usage(FILE *f) {
    fprintf(f,
        "usage: ssfuzz gen --seed S --index I [-o FILE] [--max-ndim N] [--max-numel N]\n"
        "                  [--max-bytes N] [--large-per-mille N] [--no-swarm]\n\n"
        "Writes case I of the campaign with seed S, unminimized, exactly as `ssfuzz fuzz`\n"
        "generates it with the same generation options (they change which case (S, I) is).\n"
        "meta records the seed, the index, the aliasing kind and the command that\n"
        "regenerates it. A case beyond the byte budget (which the campaign skips) is\n"
        "still written, with a note on stderr.\n\n"
        "      --seed S       campaign seed (required)\n"
        "      --index I      case index within the campaign, from 0 (required)\n"
        "  -o, --out FILE     write here (atomically) instead of stdout\n"
        "      --max-ndim N   largest rank generated (default 6)\n"
        "      --max-numel N  largest storage numel (default 4194304)\n"
        "      --max-bytes N  byte budget of a case's storages (default 1 GiB)\n"
        "      --no-swarm     every generator feature on in every epoch\n\n"
        "exit: 0 written, 2 usage or the file cannot be written\n");
}

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
    int have_seed = 0, have_index = 0;
    const char *out = NULL;
    size_t max_bytes = 0;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    ss_error err;
    enum { O_SEED = 256, O_INDEX };
    static const struct option opts[] = {
        {"seed", required_argument, 0, O_SEED}, {"index", required_argument, 0, O_INDEX},
        {"out", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, SS_GEN_LONG_OPTIONS,
        {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case O_SEED: if (ss_parse_u64("--seed", optarg, &seed, &err)) goto bad; have_seed = 1; break;
        case O_INDEX: if (ss_parse_u64("--index", optarg, &index, &err)) goto bad; have_index = 1; break;
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return SS_EXIT_OK;
        case ':': fprintf(stderr, "ssfuzz gen: %s needs a value (ssfuzz gen --help)\n", argv[optind - 1]); return SS_EXIT_USAGE;
        case '?': fprintf(stderr, "ssfuzz gen: unknown option '%s' (ssfuzz gen --help)\n", argv[optind - 1]); return SS_EXIT_USAGE;
        default:
            if (ss_gen_opts_apply("gen", c, optarg, &cfg, &max_bytes) != 1) return SS_EXIT_USAGE;
        }
    }
    if (optind < argc || !have_seed || !have_index) {
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
    if (ss_plan_build_limited(&cs.op, max_bytes, &plan, &err))
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
bad:
    fprintf(stderr, "ssfuzz gen: %s: %s\n", err.field, err.msg);
    return SS_EXIT_USAGE;
}
