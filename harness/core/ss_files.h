/* ss_files.h - file helpers: case discovery, bounded reads, atomic writes. */
#ifndef SS_FILES_H
#define SS_FILES_H

#include <stddef.h>
#include <stdio.h>
#include "ss_error.h"

typedef struct ss_pathlist {
    char **paths;
    size_t count, cap;
} ss_pathlist;

/* Add `path` if it is a file, or every *.json under it (recursively, sorted,
 * skipping campaign summaries: summary.json, summary-shard-*.json) if it is a directory. -1 with err when it does not exist or cannot be read. */
int ss_collect_cases(const char *path, ss_pathlist *out, ss_error *err);
void ss_pathlist_free(ss_pathlist *l);

/* Read a whole file of at most max bytes, NUL-terminated (malloc'ed *data). */
int ss_read_file(const char *path, size_t max, char **data, size_t *len, ss_error *err);

/* Writes all n bytes to fd (retrying short writes and EINTR); 0, or -1 with
 * errno set (EIO when the descriptor takes nothing). */
int ss_write_full(int fd, const void *buf, size_t n);

/* Write atomically: a temp file in the same directory, fsync, rename over
 * path. On failure nothing is left behind and path is untouched. */
int ss_write_atomic(const char *path, const void *data, size_t len, ss_error *err);

/* A JSON document (cJSON_Print's indented form) written with ss_write_atomic,
 * ending in a newline when `newline`. Takes root and deletes it; a NULL root
 * (a build that ran out of memory) is -1 "out of memory", nothing written. */
struct cJSON;
int ss_write_json_atomic(const char *path, struct cJSON *root, int newline, ss_error *err);

/* A document built in memory, then written with ss_write_atomic: emit writes
 * the whole text to f (from user, its data) and returns 0, or nonzero to give
 * up. Nothing is written when emit gives up or the stream failed (out of
 * memory); then -1 with err. */
int ss_write_atomic_with(const char *path, int (*emit)(FILE *f, const void *user), const void *user,
                         ss_error *err);

/* The mode new files get: 0666 less the process umask (as open(2) would
 * give; mkstemp's 0600 is widened to it before the rename). */
#include <sys/types.h>
mode_t ss_file_mode(void);

/* Before a long run: 0 when a file can be written at path (its directory exists
 * and is writable, and path is not a directory), else -1 with err saying why. */
int ss_check_writable_path(const char *path, ss_error *err);

/* Create dir (and parents) if missing and prove it writable with a probe file. */
int ss_ensure_writable_dir(const char *dir, ss_error *err);

#endif
