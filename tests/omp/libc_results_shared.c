/*
 * libc_results_shared.c: memory that C library functions allocate for the
 * program is shared like the program's own malloc: every thread of a
 * parallel region reads, through the master's pointers, what the master's
 * calls of strdup, strndup, asprintf, getline, getdelim, realpath(path,
 * NULL), canonicalize_file_name, getcwd(NULL, 0) and get_current_dir_name
 * returned.  (Under ompdsm the threads are nodes; a private result would be
 * read on another node at the same address in that node's own memory.)
 *
 * Each thread reads the master's results, then makes the same calls itself
 * and compares; the output counts, per function, the threads that read
 * something else.  getline also grows a buffer the program allocated.
 */
#define _GNU_SOURCE     /* asprintf, canonicalize_file_name, get_current_dir_name */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NFUNC = 10 };

static const char *const names[NFUNC] = {
    "strdup", "strndup", "asprintf", "getline (new buffer)", "getline (grown buffer)", "getdelim",
    "realpath(path, NULL)", "canonicalize_file_name", "getcwd(NULL, 0)", "get_current_dir_name",
};

static const char text[] = "first line\n"
                           "a second line, much longer than the buffer it is read into at first;"
                           " the C library has to grow that buffer\n"
                           "third:field;\n";

/* The results of one thread's calls, in the order of names[]. */
static void make(char *r[NFUNC])
{
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    size_t n = 0, small = 8;
    r[0] = strdup("a string from strdup");
    r[1] = strndup("a string from strndup, cut here: the rest is not copied", 31);
    if (asprintf(&r[2], "%s %d %.3f", "asprintf", 42, 2.5) < 0)
        r[2] = NULL;
    r[3] = NULL;
    if (getline(&r[3], &n, f) < 0)
        r[3] = NULL;
    r[4] = malloc(small);
    if (getline(&r[4], &small, f) < 0)
        r[4] = NULL;
    r[5] = NULL;
    n = 0;
    if (getdelim(&r[5], &n, ':', f) < 0)
        r[5] = NULL;
    r[6] = realpath(".", NULL);
    r[7] = canonicalize_file_name("/");
    r[8] = getcwd(NULL, 0);
    r[9] = get_current_dir_name();
    fclose(f);
}

static char *master[NFUNC];

int main(void)
{
    int differ[NFUNC] = { 0 };
    make(master);
    for (int i = 0; i < NFUNC; i++)
        if (!master[i])
            printf("%s: the master's call failed\n", names[i]);
#pragma omp parallel
    {
        /* Read the master's results before making any: a private result
         * read on another node must not meet, at the same address, the
         * same text made there by the node's own call. */
        char seen[NFUNC][256], *mine[NFUNC];
        for (int i = 0; i < NFUNC; i++)
            snprintf(seen[i], sizeof seen[i], "%s", master[i] ? master[i] : "(null)");
        make(mine);
        for (int i = 0; i < NFUNC; i++) {
            if (!mine[i] || strcmp(mine[i], seen[i]) != 0) {
#pragma omp atomic
                differ[i]++;
            }
            free(mine[i]);
        }
    }
    for (int i = 0; i < NFUNC; i++) {
        printf("%s: threads that read other data: %d\n", names[i], differ[i]);
        free(master[i]);
    }
    return 0;
}
