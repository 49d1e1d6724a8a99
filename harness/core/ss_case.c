/* ss_case.c - lifetime of an ss_case: init, free, deep copy. */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_case.h"
#include "ss_program.h"

void ss_case_init(ss_case *c) {
    memset(c, 0, sizeof *c);
    c->dtype = SS_FLOAT32;
    c->op.elem_size = ss_dtype_size(SS_FLOAT32);
    c->op.step = 1;
}

void ss_case_free(ss_case *c) {
    if (!c) return;
    free(c->values_input);
    free(c->values_src);
    cJSON_Delete(c->meta);
    cJSON_Delete(c->expect);
    ss_program_free(c->program);
    ss_case_init(c);
}

/* numel is bounded by SS_MAX_NUMEL (2^40) wherever a case is built, so
 * numel * 16 cannot overflow; a corrupt negative count copies nothing. */
static int copy_bytes(uint8_t **dst, const uint8_t *src, int64_t numel, size_t elem) {
    *dst = NULL;
    if (!src) return 0;
    const size_t n = numel > 0 ? (size_t)numel * elem : 0;
    *dst = malloc(n ? n : 1);
    if (!*dst) return -1;
    memcpy(*dst, src, n);
    return 0;
}

int ss_case_copy(ss_case *dst, const ss_case *src) {
    ss_case tmp = *src;
    tmp.values_input = tmp.values_src = NULL;
    tmp.meta = tmp.expect = NULL;
    tmp.program = NULL;
    const size_t elem = ss_dtype_size(src->dtype);
    if (copy_bytes(&tmp.values_input, src->values_input, src->op.input_storage_numel, elem) ||
        copy_bytes(&tmp.values_src, src->values_src, src->op.src_storage_numel, elem) ||
        (src->meta && !(tmp.meta = cJSON_Duplicate(src->meta, 1))) ||
        (src->expect && !(tmp.expect = cJSON_Duplicate(src->expect, 1))) ||
        (src->program && !(tmp.program = ss_program_copy(src->program)))) {
        ss_case_free(&tmp);
        return -1;
    }
    *dst = tmp;
    return 0;
}
