/* tests/fuzz/fuzz_replay.c: replays fuzz inputs (files, or every file of a directory) through
 * the reader's fuzz contract (fuzz_mtx.h) in any build; one line per input, exit 1 if any
 * input broke the contract or could not be read. Without arguments: the regression corpus
 * tests/data/fuzz, then tests/data/good, tests/data/bad and tests/data/bad_vec. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_mtx.h"

/* How many inputs ran and how many of them failed. */
typedef struct replay_tally {
    int inputs, failed;
} replay_tally;

/* Reads the whole file at path into a malloc'd buffer (*data, *size); 0 or an errno. */
static int replay_slurp(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno;
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    int err = buf ? 0 : ENOMEM;
    while (!err) {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                err = ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            err = ferror(f) ? EIO : 0;
            break;
        }
    }
    fclose(f);
    if (err) {
        free(buf);
        return err;
    }
    *data = buf;
    *size = len;
    return 0;
}

/* Runs one input file through the contract and prints its line; counts it in t. */
static void replay_file(const char *path, replay_tally *t)
{
    uint8_t *data = NULL;
    size_t size = 0;
    t->inputs++;
    int err = replay_slurp(path, &data, &size);
    if (err) {
        printf("FAIL  %s: cannot read: %s\n", path, strerror(err));
        t->failed++;
        return;
    }
    spx_status st;
    char msg[FUZZ_MSG_LEN];
    int broken = fuzz_mtx_one(data, size, &st, msg, sizeof msg);
    free(data);
    if (broken) {
        printf("FAIL  %s (%zu bytes): contract broken: %s\n", path, size, msg);
        t->failed++;
        return;
    }
    printf("ok    %s (%zu bytes): %s%s%s\n", path, size, spx_status_str(st), msg[0] ? ": " : "",
           msg);
}

/* qsort order of C strings (byte order, so every machine replays in the same order). */
static int replay_name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 1 for directory entries that are not inputs: dotfiles and the corpus README.md. */
static int replay_skip_name(const char *name)
{
    return name[0] == '.' || strcmp(name, "README.md") == 0;
}

/* Frees the n names of a listing and the array. */
static void replay_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Lists the input names directly in dir, sorted, into *names (*n of them); 0, or -1 when
 * dir cannot be read or memory runs out (nothing returned). */
static int replay_list(const char *dir, char ***names, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **v = NULL;
    size_t len = 0, cap = 0;
    int bad = 0;
    struct dirent *e;
    while (!bad && (e = readdir(d)) != NULL) {
        if (replay_skip_name(e->d_name))
            continue;
        if (len == cap) {
            char **nv = realloc(v, (cap ? cap * 2 : 64) * sizeof *nv);
            if (!nv) {
                bad = 1;
                break;
            }
            v = nv;
            cap = cap ? cap * 2 : 64;
        }
        v[len] = strdup(e->d_name);
        bad = !v[len];
        len += !bad;
    }
    closedir(d);
    if (bad) {
        replay_free_names(v, len);
        return -1;
    }
    if (len)
        qsort(v, len, sizeof *v, replay_name_cmp);
    *names = v;
    *n = len;
    return 0;
}

/* Replays every regular file directly in dir, in name order; 0, or -1 if dir is unreadable. */
static int replay_dir(const char *dir, replay_tally *t)
{
    char **names = NULL;
    size_t n = 0;
    if (replay_list(dir, &names, &n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        struct stat sb;
        if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path) {
            printf("FAIL  %s/%s: path too long\n", dir, names[i]);
            t->failed++;
        } else if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
            replay_file(path, t);
        }
    }
    replay_free_names(names, n);
    return 0;
}

/* Replays path: a directory's files, or the file itself; counts a missing path as failed. */
static void replay_path(const char *path, replay_tally *t)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (replay_dir(path, t) != 0) {
            printf("FAIL  %s: cannot list the directory\n", path);
            t->failed++;
        }
        return;
    }
    replay_file(path, t);
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = {SPX_TEST_DATA "/fuzz", SPX_TEST_DATA "/good",
                                           SPX_TEST_DATA "/bad", SPX_TEST_DATA "/bad_vec"};
    replay_tally t = {0, 0};
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            replay_path(argv[i], &t);
    } else {
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
            replay_path(defaults[i], &t);
    }
    if (t.inputs == 0) {
        printf("FAIL  no inputs found\n");
        t.failed++;
    }
    printf("fuzz_replay: %d inputs, %d failed\n", t.inputs, t.failed);
    return t.failed ? 1 : 0;
}
