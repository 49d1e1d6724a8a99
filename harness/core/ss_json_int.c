/* ss_json_int.c - the case format's integers written exactly (raw JSON numbers,
 * never through a double), for the case writer and the program writer alike. */
#include <inttypes.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "ss_case.h"

cJSON *ss_json_add_int64(cJSON *obj, const char *key, int64_t v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return cJSON_AddRawToObject(obj, key, buf);
}

cJSON *ss_json_int64_array(const int64_t *v, int n) {
    cJSON *arr = cJSON_CreateArray();
    char buf[32];
    for (int i = 0; arr && i < n; i++) {
        snprintf(buf, sizeof buf, "%" PRId64, v[i]);
        cJSON *e = cJSON_CreateRaw(buf);
        if (!e) { cJSON_Delete(arr); return NULL; }
        cJSON_AddItemToArray(arr, e);
    }
    return arr;
}
