/*
 * proc_state.c: node 0's working directory and environment at the other
 * nodes.
 *
 * A node is a process of its own, with its own working directory and
 * environment.  A program that enters a directory in main() and opens
 * files by relative names in a parallel region, or sets a variable that
 * code it calls in a region reads (setenv("OUTPUT_DIR", ...)), found at
 * another node the directory and environment that node started with, and
 * its threads opened other files or read other values, without an error
 * (a chdir() at 2 nodes: 1 thread of 2 found its input).
 *
 * So node 0 notes the changes its program makes (chdir, fchdir, setenv,
 * unsetenv, putenv, clearenv called from the program's code), and as a
 * region starts publishes them in shared memory: the new working
 * directory and the values the changed variables have then.  The other
 * nodes make the same changes as the region reaches them, before any of
 * their threads runs it.  Changes another node's threads make stay that
 * node's, and a program that writes `environ` itself is not seen.
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

enum { STATE_MAX = 256 * 1024 };

/* What node 0 published at its last change: entries of one letter and a
 * NUL-terminated string: 'X' (the environment cleared), 'C' and a
 * directory, 'S' and name=value, 'U' and a name; in the order to apply. */
struct published {
    uint64_t gen, len;
    char data[STATE_MAX];
};

static struct {
    pthread_mutex_t mu;
    struct published *shared;           /* home node 0 */
    bool cwd, cleared;                  /* node 0: changed since the last region */
    char **names;                       /* node 0: variables set or unset since then */
    size_t n, cap;
    uint64_t gen;                       /* node 0: published; the others: applied */
    bool full_told;
} ps = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Whether a change is node 0's program's, made once the runtime runs. */
static bool noted(const void *caller)
{
    return ps.shared && omp_rt.node == 0 && omp_heap_for_program(caller);
}

static char *copy_of(const char *s, size_t len)
{
    char *c = xmalloc(len + 1);
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

static void note_name(const char *name, size_t len)
{
    pthread_mutex_lock(&ps.mu);
    size_t i = 0;
    while (i < ps.n && (strncmp(ps.names[i], name, len) || ps.names[i][len]))
        i++;
    if (i == ps.n) {
        ps.names = xgrow(ps.names, &ps.cap, ps.n + 1, sizeof *ps.names);
        ps.names[ps.n++] = copy_of(name, len);
    }
    pthread_mutex_unlock(&ps.mu);
}

API int setenv(const char *name, const char *value, int overwrite)
{
    REAL(setenv);
    int rc = real_setenv(name, value, overwrite);
    if (rc == 0 && noted(__builtin_return_address(0)))
        note_name(name, strlen(name));
    return rc;
}

API int unsetenv(const char *name)
{
    REAL(unsetenv);
    int rc = real_unsetenv(name);
    if (rc == 0 && noted(__builtin_return_address(0)))
        note_name(name, strlen(name));
    return rc;
}

API int putenv(char *string)
{
    REAL(putenv);
    int rc = real_putenv(string);
    if (rc == 0 && noted(__builtin_return_address(0)))
        note_name(string, strcspn(string, "="));
    return rc;
}

API int clearenv(void)
{
    REAL(clearenv);
    int rc = real_clearenv();
    if (rc == 0 && noted(__builtin_return_address(0))) {
        pthread_mutex_lock(&ps.mu);
        ps.cleared = true;
        for (size_t i = 0; i < ps.n; i++)
            free(ps.names[i]);
        ps.n = 0;
        pthread_mutex_unlock(&ps.mu);
    }
    return rc;
}

API int chdir(const char *path)
{
    REAL(chdir);
    int rc = real_chdir(path);
    if (rc == 0 && noted(__builtin_return_address(0)))
        ps.cwd = true;
    return rc;
}

API int fchdir(int fd)
{
    REAL(fchdir);
    int rc = real_fchdir(fd);
    if (rc == 0 && noted(__builtin_return_address(0)))
        ps.cwd = true;
    return rc;
}

void omp_proc_state_init(void)
{
    ps.shared = dsm_alloc(sizeof *ps.shared, 0);
}

/* Appends an entry; false if it does not fit. */
static bool put(size_t *len, char kind, const char *a, const char *b)
{
    size_t la = strlen(a), lb = b ? strlen(b) + 1 : 0;
    if (*len + 2 + la + lb > STATE_MAX)
        return false;
    char *d = ps.shared->data + *len;
    d[0] = kind;
    memcpy(d + 1, a, la);
    if (b) {
        d[1 + la] = '=';
        memcpy(d + 2 + la, b, lb - 1);
    }
    d[1 + la + lb] = '\0';
    *len += 2 + la + lb;
    return true;
}

void omp_proc_state_publish(void)
{
    if (!ps.shared || omp_rt.node != 0)
        return;
    pthread_mutex_lock(&ps.mu);
    if (!ps.cwd && !ps.cleared && ps.n == 0) {
        pthread_mutex_unlock(&ps.mu);
        return;
    }
    size_t len = 0;
    bool fits = !ps.cleared || put(&len, 'X', "", NULL);
    char dir[PATH_MAX];
    if (ps.cwd && getcwd(dir, sizeof dir))
        fits = put(&len, 'C', dir, NULL) && fits;
    for (size_t i = 0; i < ps.n; i++) {
        const char *v = getenv(ps.names[i]);
        fits = (v ? put(&len, 'S', ps.names[i], v) : put(&len, 'U', ps.names[i], NULL)) && fits;
        free(ps.names[i]);
    }
    if (!fits && !ps.full_told)
        dsm_warn("the program changed more of its environment between two parallel regions than ompdsm "
                 "passes on (%d KiB): other nodes keep part of theirs", STATE_MAX >> 10);
    ps.full_told |= !fits;
    ps.shared->len = len;
    ps.shared->gen = ++ps.gen;
    ps.cwd = ps.cleared = false;
    ps.n = 0;
    pthread_mutex_unlock(&ps.mu);
}

void omp_proc_state_apply(void)
{
    if (!ps.shared || omp_rt.node == 0 || ps.shared->gen == ps.gen)
        return;
    REAL(clearenv);
    REAL(chdir);
    REAL(setenv);
    REAL(unsetenv);
    ps.gen = ps.shared->gen;
    const char *d = ps.shared->data, *end = d + ps.shared->len;
    while (d < end) {
        const char *s = d + 1;
        size_t n = strlen(s);
        if (*d == 'X') {
            real_clearenv();
        } else if (*d == 'C') {
            if (real_chdir(s))
                dsm_warn("cannot enter node 0's working directory %s: %s", s, strerror(errno));
        } else if (*d == 'S') {
            size_t eq = strcspn(s, "=");
            char *name = copy_of(s, eq);
            real_setenv(name, s + eq + 1, 1);
            free(name);
        } else if (*d == 'U') {
            real_unsetenv(s);
        }
        d = s + n + 1;
    }
}
