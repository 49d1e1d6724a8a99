/* ss_files.c - file helpers: case discovery, bounded reads, atomic writes. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ss_files.h"
#include "ss_vec.h"

static int push(ss_pathlist *l, const char *p, ss_error *err) {
    if (SS_GROW(l->paths, l->cap, l->count + 1)) return ss_fail(err, p, "out of memory");
    if (!(l->paths[l->count] = strdup(p))) return ss_fail(err, p, "out of memory");
    l->count++;
    return 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* depth bounds recursion on hostile trees (symlink loops are not followed). */
static int walk(const char *dir, ss_pathlist *out, int depth, ss_error *err) {
    if (depth > 32) return ss_fail(err, dir, "directory nesting deeper than 32");
    DIR *d = opendir(dir);
    if (!d) return ss_fail(err, dir, "cannot open directory: %s", strerror(errno));
    const size_t first = out->count;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p) continue;
        struct stat st;
        if (lstat(p, &st)) continue;
        if (S_ISDIR(st.st_mode)) rc = walk(p, out, depth + 1, err);
        /* A campaign's summary.json (a shard's summary-shard-I.json) sits beside its
         * reproducers: not a case. */
        else if (S_ISREG(st.st_mode) && ends_with(p, ".json") && strcmp(e->d_name, "summary.json") &&
                 strncmp(e->d_name, "summary-shard-", 14))
            rc = push(out, p, err);
    }
    closedir(d);
    qsort(out->paths + first, out->count - first, sizeof *out->paths, cmp_str);
    return rc;
}

int ss_collect_cases(const char *path, ss_pathlist *out, ss_error *err) {
    struct stat st;
    if (stat(path, &st)) return ss_fail(err, path, "cannot open: %s", strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        char dir[4096];   /* "corpus/" names its cases "corpus/x.json", not "corpus//x.json" */
        size_t n = strlen(path);
        if (n >= sizeof dir) return ss_fail(err, path, "path too long");
        memcpy(dir, path, n + 1);
        while (n > 1 && dir[n - 1] == '/') dir[--n] = 0;
        size_t before = out->count;
        SS_TRY(walk(dir, out, 0, err));
        if (out->count == before) return ss_fail(err, path, "directory holds no *.json case");
        return 0;
    }
    return push(out, path, err);
}

void ss_pathlist_free(ss_pathlist *l) {
    for (size_t i = 0; i < l->count; i++) free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}

int ss_read_file(const char *path, size_t max, char **data, size_t *len, ss_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return ss_fail(err, "(file)", "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            /* grow geometrically but never past max + 1 (to detect "too big") */
            size_t ncap = cap ? cap * 2 : 4096;
            if (ncap > max + 1) ncap = max + 1;
            char *nb = ncap > cap ? realloc(buf, ncap + 1) : NULL;
            if (!nb) {
                free(buf);
                fclose(f);
                return ncap > cap ? ss_fail(err, "(file)", "out of memory")
                                  : ss_fail(err, "(file)", "larger than the limit of %zu bytes", max);
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n > max) {
            free(buf);
            fclose(f);
            return ss_fail(err, "(file)", "larger than the limit of %zu bytes", max);
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) { free(buf); return ss_fail(err, "(file)", "read error"); }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}

mode_t ss_file_mode(void) {
    /* Linux shows the umask in /proc/self/status; elsewhere it can only be
     * read by setting it (and straight back). Looked up once per process. */
    static mode_t mode = (mode_t)-1;
    if (mode != (mode_t)-1) return mode;
    unsigned m = 0;
    int found = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        while (!found && fgets(line, sizeof line, f)) found = sscanf(line, "Umask: %o", &m) == 1;
        fclose(f);
    }
    if (!found) {
        m = (unsigned)umask(022);
        umask((mode_t)m);
    }
    mode = (mode_t)(0666 & ~m);
    return mode;
}

int ss_write_full(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n > 0) {
        const ssize_t w = write(fd, p, n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int ss_write_atomic(const char *path, const void *data, size_t len, ss_error *err) {
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= sizeof tmp)
        return ss_fail(err, path, "path too long");
    int fd = mkstemp(tmp);
    if (fd < 0) return ss_fail(err, path, "cannot create a temp file: %s", strerror(errno));
    const int short_write = ss_write_full(fd, data, len) != 0;
    int saved = short_write ? errno : 0;
    if (!short_write && fsync(fd)) saved = errno;
    if (close(fd) && !saved) saved = errno;
    if (!saved && fchmodat(AT_FDCWD, tmp, ss_file_mode(), 0)) saved = errno;
    if (!saved && rename(tmp, path)) saved = errno;
    if (saved) {
        unlink(tmp);
        return ss_fail(err, path, "cannot write: %s", strerror(saved ? saved : EIO));
    }
    return 0;
}

int ss_write_json_atomic(const char *path, cJSON *root, int newline, ss_error *err) {
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text) return ss_fail(err, path, "out of memory");
    size_t len = strlen(text);
    if (newline) text[len++] = '\n';   /* cJSON_Print's terminator becomes the final newline */
    const int rc = ss_write_atomic(path, text, len, err);
    free(text);
    return rc;
}

int ss_write_atomic_with(const char *path, int (*emit)(FILE *f, const void *user), const void *user,
                         ss_error *err) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return ss_fail(err, path, "out of memory");
    const int gave_up = emit(f, user) != 0;
    const int bad = ferror(f);
    if (fclose(f) || bad || gave_up) {
        free(buf);
        return ss_fail(err, path, gave_up && !bad ? "cannot build the text" : "out of memory");
    }
    const int rc = ss_write_atomic(path, buf, len, err);
    free(buf);
    return rc;
}

int ss_ensure_writable_dir(const char *dir, ss_error *err) {
    char p[4096];
    if (!dir[0]) return ss_fail(err, "(dir)", "directory name must not be empty");
    if ((size_t)snprintf(p, sizeof p, "%s", dir) >= sizeof p) return ss_fail(err, dir, "path too long");
    for (char *s = p + 1; *s; s++) {   /* mkdir -p */
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(p, 0755) && errno != EEXIST) return ss_fail(err, dir, "cannot create %s: %s", p, strerror(errno));
        *s = '/';
    }
    if (mkdir(p, 0755) && errno != EEXIST) return ss_fail(err, dir, "cannot create: %s", strerror(errno));
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.ssfuzz-probe", dir);
    SS_TRY(ss_write_atomic(probe, "probe\n", 6, err));
    unlink(probe);
    return 0;
}

int ss_check_writable_path(const char *path, ss_error *err) {
    char dir[4096];
    struct stat st;
    if (!*path) return ss_fail(err, path, "empty path");
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return ss_fail(err, path, "is a directory");
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (stat(dir, &st) != 0) return ss_fail(err, path, "directory %s does not exist", dir);
    if (!S_ISDIR(st.st_mode)) return ss_fail(err, path, "%s is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0) return ss_fail(err, path, "directory %s is not writable", dir);
    return 0;
}
