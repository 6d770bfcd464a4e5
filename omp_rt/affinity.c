/*
 * affinity.c: the place and affinity routines.
 *
 * ompdsm binds no thread to a place (OMP_PLACES and OMP_PROC_BIND have no
 * effect): there are no places, as with libgomp when none are set.  The
 * affinity format (OMP_AFFINITY_FORMAT, omp_set_affinity_format) describes
 * the calling thread as libgomp does: fields %[0][.][width]type, where type
 * is one letter or a name in braces:
 *   t team_num, T num_teams, L nesting_level, n thread_num, N num_threads,
 *   a ancestor_tnum, H host, P process_id, i native_thread_id,
 *   A thread_affinity (the CPUs the thread may run on, as 0-3,6).
 * The process is the calling thread's node's.  With OMP_DISPLAY_AFFINITY
 * true, each thread shows it in that format as it joins a team, the first
 * time and when its place in the team changes.  A width pads on the right,
 * or on the left with "." (with zeros with "0.").  The format the program
 * sets is an ICV, which the next region takes to every node (parallel.c),
 * of up to 255 characters.
 */
#include "omp_rt.h"

#include "../util/env.h"
#include "../util/log.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

int omp_get_level(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_ancestor_thread_num(int level);
int omp_get_team_num(void);
int omp_get_num_teams(void);

API int omp_get_place_num(void) { return -1; }
API int omp_get_place_num_procs(int place) { (void)place; return 0; }
API void omp_get_place_proc_ids(int place, int *ids) { (void)place; (void)ids; }
API int omp_get_partition_num_places(void) { return 0; }
API void omp_get_partition_place_nums(int *places) { (void)places; }

/* affinity-format-var: set by the program, else OMP_AFFINITY_FORMAT. */
static const char *format_var(void)
{
    if (omp_icv.affinity_format_set)
        return omp_icv.affinity_format;
    const char *v = dsm_env("OMP_AFFINITY_FORMAT");
    return v ? v : "level %L thread %i affinity %A";
}

/* Copies s into buf (size bytes, always terminated if size > 0); returns
 * strlen(s). */
static size_t copy_out(char *buf, size_t size, const char *s)
{
    size_t n = strlen(s);
    if (size) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(buf, s, k);
        buf[k] = '\0';
    }
    return n;
}

API void omp_set_affinity_format(const char *format)
{
    size_t cap = sizeof omp_icv.affinity_format;
    if (!format)
        format = "";
    if (strlen(format) >= cap)
        dsm_warn("omp_set_affinity_format: the format is cut to its first %zu characters", cap - 1);
    snprintf(omp_icv.affinity_format, cap, "%s", format);
    omp_icv.affinity_format_set = true;
}

API size_t omp_get_affinity_format(char *buf, size_t size)
{
    return copy_out(buf, size, format_var());
}

/* A growing string. */
struct text {
    char *p;
    size_t n, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        if (!t->p)
            dsm_fatal("out of memory for an affinity report");
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
}

static void putf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct text *t, const char *fmt, ...)
{
    char s[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s, sizeof s, fmt, ap);
    va_end(ap);
    put(t, s, n < 0 ? 0 : (size_t)n < sizeof s ? (size_t)n : sizeof s - 1);
}

/* The CPUs the calling thread may run on, as ranges. */
static void cpus(struct text *t)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set)) {
        put(t, "", 0);
        return;
    }
    bool first = true;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
            e++;
        putf(t, e > c ? "%s%d-%d" : "%s%d", first ? "" : ",", c, e);
        first = false;
        c = e;
    }
}

static const struct {
    char letter;
    const char *name;
} fields[] = {
    { 't', "team_num" },     { 'T', "num_teams" },   { 'L', "nesting_level" }, { 'n', "thread_num" },
    { 'N', "num_threads" },  { 'a', "ancestor_tnum" }, { 'H', "host" },        { 'P', "process_id" },
    { 'i', "native_thread_id" }, { 'A', "thread_affinity" },
};

/* The field at *f (after the flags and width), which it passes. */
static char field(const char **f)
{
    if (**f != '{')
        return *(*f)++;
    const char *end = strchr(*f, '}');
    size_t len = end ? (size_t)(end - *f - 1) : 0;
    for (size_t i = 0; end && i < sizeof fields / sizeof *fields; i++)
        if (strlen(fields[i].name) == len && !strncmp(*f + 1, fields[i].name, len)) {
            *f = end + 1;
            return fields[i].letter;
        }
    dsm_fatal("unsupported field %.*s in affinity format", end ? (int)(end - *f + 1) : (int)strlen(*f), *f);
}

static void value(struct text *t, char type)
{
    int level = omp_get_level();
    switch (type) {
    case 't': putf(t, "%d", omp_get_team_num()); break;
    case 'T': putf(t, "%d", omp_get_num_teams()); break;
    case 'L': putf(t, "%d", level); break;
    case 'n': putf(t, "%d", omp_get_thread_num()); break;
    case 'N': putf(t, "%d", omp_get_num_threads()); break;
    case 'a': putf(t, "%d", omp_get_ancestor_thread_num(level - 1)); break;
    case 'H': {
        char host[256] = "";
        gethostname(host, sizeof host - 1);
        putf(t, "%s", host);
        break;
    }
    case 'P': putf(t, "%d", (int)getpid()); break;
    case 'i': putf(t, "0x%lx", (unsigned long)pthread_self()); break;
    case 'A': cpus(t); break;
    default: dsm_fatal("unsupported type %c in affinity format", type);
    }
}

/* The report of the calling thread in `format` (NULL or empty: the
 * affinity-format-var); the caller frees it. */
static struct text report(const char *format)
{
    const char *f = format && *format ? format : format_var();
    struct text t = { 0 };
    put(&t, "", 0);
    while (*f) {
        const char *pct = strchr(f, '%');
        if (!pct) {
            put(&t, f, strlen(f));
            break;
        }
        put(&t, f, (size_t)(pct - f));
        f = pct + 1;
        if (*f == '%') {
            put(&t, "%", 1);
            f++;
            continue;
        }
        bool zeros = *f == '0', right = false;
        f += zeros;
        if (*f == '.') {
            right = true;
            f++;
        }
        int width = 0;
        while (*f >= '0' && *f <= '9')
            width = width * 10 + (*f++ - '0');
        char type = field(&f);
        struct text v = { 0 };
        put(&v, "", 0);
        value(&v, type);
        size_t pad = (size_t)width > v.n ? (size_t)width - v.n : 0;
        char fill = zeros && right ? '0' : ' ';
        for (size_t i = 0; right && i < pad; i++)
            put(&t, &fill, 1);
        put(&t, v.p, v.n);
        for (size_t i = 0; !right && i < pad; i++)
            put(&t, " ", 1);
        free(v.p);
    }
    return t;
}

API size_t omp_capture_affinity(char *buf, size_t size, const char *format)
{
    struct text t = report(format);
    size_t n = copy_out(buf, size, t.p);
    free(t.p);
    return n;
}

API void omp_display_affinity(const char *format)
{
    struct text t = report(format);
    fprintf(stderr, "%s\n", t.p);
    free(t.p);
}

/* Each thread reports the first time it is in a team, and again when its
 * place in one changes (its number or the team's size: there are no
 * places to change). */
void omp_affinity_team_joined(void)
{
    static __thread int shown_num = -1, shown_size = -1;
    if (!omp_icv.display_affinity || (shown_num == omp_thr.num && shown_size == omp_thr.size))
        return;
    shown_num = omp_thr.num;
    shown_size = omp_thr.size;
    omp_display_affinity(NULL);
}
