/* regression_driver.c - replays files and directories through LLVMFuzzerTestOneInput without libFuzzer, so CI runs fuzz/corpus/. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz_helpers.h"

/* Largest input replayed; libFuzzer's own default -max_len is far below. */
#define DRIVER_MAX_INPUT ((size_t)64 << 20)

static int run_file(const char *path, size_t *count) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "%s: %s\n", path, strerror(errno)); return -1; }
    uint8_t *buf = malloc(DRIVER_MAX_INPUT);
    if (!buf) { fclose(f); fprintf(stderr, "out of memory\n"); return -1; }
    const size_t n = fread(buf, 1, DRIVER_MAX_INPUT, f);
    const int err = ferror(f);
    fclose(f);
    if (err) { free(buf); fprintf(stderr, "%s: read error\n", path); return -1; }
    /* An exact-size copy, so ASan catches a read past the input's end. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) { free(buf); return -1; }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    (*count)++;
    return 0;
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, so a failing run names the same input first every time. */
static int run_path(const char *path, size_t *count) {
    struct stat st;
    if (stat(path, &st) != 0) { fprintf(stderr, "%s: %s\n", path, strerror(errno)); return -1; }
    if (!S_ISDIR(st.st_mode)) return run_file(path, count);
    DIR *d = opendir(path);
    if (!d) { fprintf(stderr, "%s: %s\n", path, strerror(errno)); return -1; }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) { rc = -1; break; }
            names = grown;
        }
        const size_t len = strlen(path) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) { rc = -1; break; }
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (names) qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && run_path(names[i], count) != 0) rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

/* Optional, as in libFuzzer: a target that needs set-up defines it. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...  (replays each input through the fuzz target)\n", argv[0]);
        return 2;
    }
    size_t count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++)
        if (run_path(argv[i], &count) != 0) rc = 1;
    fprintf(stderr, "%s: %zu inputs replayed%s\n", argv[0], count, rc ? ", with errors" : "");
    return rc;
}
