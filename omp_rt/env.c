/*
 * env.c: the OMP_* environment variables, parsed in one place, with the
 * same syntax as libgomp; a bad value is a fatal error naming the variable.
 *
 * ompdsm runs one OpenMP thread per node: OMP_NUM_THREADS=k gives teams of
 * k threads on nodes 0 .. k-1; more threads than nodes cannot be added (a
 * region that asks for more runs on every node, reported once by
 * parallel.c).  The variables that choose placement or waiting
 * (OMP_PROC_BIND, OMP_PLACES, OMP_WAIT_POLICY, OMP_STACKSIZE) are checked
 * for syntax and otherwise have no effect: say so, rather than ignore them
 * silently, under OMP_DISPLAY_ENV=verbose.
 */
#include "omp_rt.h"

#include "../dsm/config.h"
#include "../dsm/log.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct omp_icv omp_icv;

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return (v && *v) ? v : NULL;
}

static bool parse_long(const char *s, long min, long max, long *out, const char **end)
{
    char *e;
    errno = 0;
    while (isspace((unsigned char)*s))
        s++;
    long v = strtol(s, &e, 10);
    if (errno || e == s || v < min || v > max)
        return false;
    while (isspace((unsigned char)*e))
        e++;
    *out = v;
    *end = e;
    return true;
}

static void load_num_threads(void)
{
    const char *v = env("OMP_NUM_THREADS"), *end;
    long n;
    omp_icv.nthreads = 0;
    if (!v)
        return;
    /* A list "4,2" sets the first level; nested levels run one thread. */
    if (!parse_long(v, 1, 1L << 20, &n, &end) || (*end && *end != ','))
        dsm_fatal("OMP_NUM_THREADS='%s' is not a positive integer (or a list of them)", v);
    while (*end == ',') {
        long inner;
        if (!parse_long(end + 1, 1, 1L << 20, &inner, &end) || (*end && *end != ','))
            dsm_fatal("OMP_NUM_THREADS='%s' is not a positive integer (or a list of them)", v);
    }
    omp_icv.nthreads = (int)n;
}

static const struct {
    const char *name;
    enum omp_sched kind;
} sched_names[] = {
    { "static", OMP_SCHED_STATIC },   { "dynamic", OMP_SCHED_DYNAMIC }, { "guided", OMP_SCHED_GUIDED },
    { "auto", OMP_SCHED_AUTO },
};

bool omp_parse_schedule(const char *v, enum omp_sched *kind, long *chunk, bool *monotonic)
{
    const char *s = v;
    *monotonic = false;
    if (!strncasecmp(s, "monotonic:", 10)) {
        *monotonic = true;
        s += 10;
    } else if (!strncasecmp(s, "nonmonotonic:", 13)) {
        s += 13;
    }
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strcspn(s, ", \t");
    for (size_t i = 0; i < sizeof sched_names / sizeof *sched_names; i++) {
        if (strlen(sched_names[i].name) != len || strncasecmp(s, sched_names[i].name, len))
            continue;
        *kind = sched_names[i].kind;
        const char *rest = s + len, *end;
        while (isspace((unsigned char)*rest))
            rest++;
        *chunk = 0;
        if (!*rest)
            return true;
        if (*rest != ',' || *kind == OMP_SCHED_AUTO || !parse_long(rest + 1, 1, 1L << 40, chunk, &end) || *end)
            return false;
        return true;
    }
    return false;
}

const char *omp_sched_name(enum omp_sched kind)
{
    if (kind == OMP_SCHED_PROFILED)
        return "profiled";
    for (size_t i = 0; i < sizeof sched_names / sizeof *sched_names; i++)
        if (sched_names[i].kind == kind)
            return sched_names[i].name;
    return "?";
}

/* One "key=value" option of the profiled schedule; false if bad. */
static bool profiled_option(const char *o, size_t len)
{
    char buf[64], *end;
    if (len >= sizeof buf)
        return false;
    memcpy(buf, o, len);
    buf[len] = '\0';
    char *eq = strchr(buf, '=');
    if (!eq || eq[1] == '\0' || eq[1] == '-')
        return false;
    *eq = '\0';
    const char *val = eq + 1;
    errno = 0;
    if (!strcasecmp(buf, "alpha")) {
        double a = strtod(val, &end);
        if (errno || *end || !(a >= 0 && a <= 10))
            return false;
        omp_profiled.alpha = a;
        return true;
    }
    unsigned long long x = strtoull(val, &end, 10);
    if (errno || *end || x > 1000000000ULL)
        return false;
    if (!strcasecmp(buf, "warmup"))
        omp_profiled.warmup = (unsigned)x;
    else if (!strcasecmp(buf, "hold") && x >= 1)
        omp_profiled.hold = (unsigned)x;
    else if (!strcasecmp(buf, "min") && x >= 1)
        omp_profiled.min = x;
    else
        return false;
    return true;
}

/* profiled[,warmup=K][,alpha=A][,hold=H][,min=G] */
static bool parse_profiled(const char *v)
{
    if (strncasecmp(v, "profiled", 8) || (v[8] && v[8] != ','))
        return false;
    for (const char *o = v + 8; *o == ',';) {
        o++;
        size_t len = strcspn(o, ",");
        if (!profiled_option(o, len))
            dsm_fatal("OMP_SCHEDULE='%s': bad option '%.*s' (profiled takes warmup=K, alpha=A, hold=H, min=G, "
                      "for example profiled,warmup=1,alpha=0.1,hold=3,min=1)", v, (int)len, o);
        o += len;
    }
    omp_icv.sched = OMP_SCHED_PROFILED;
    omp_icv.chunk = 0;
    return true;
}

static void load_schedule(void)
{
    const char *v = env("OMP_SCHEDULE");
    omp_icv.sched = OMP_SCHED_DYNAMIC;
    omp_icv.chunk = 1;
    if (!v || parse_profiled(v))
        return;
    bool mono;
    if (!omp_parse_schedule(v, &omp_icv.sched, &omp_icv.chunk, &mono))
        dsm_fatal("OMP_SCHEDULE='%s' is not [monotonic:|nonmonotonic:]static|dynamic|guided|auto[,chunk] "
                  "or profiled[,options]", v);
}

static bool parse_bool(const char *name, bool dflt)
{
    const char *v = env(name);
    if (!v)
        return dflt;
    if (!strcasecmp(v, "true") || !strcmp(v, "1"))
        return true;
    if (!strcasecmp(v, "false") || !strcmp(v, "0"))
        return false;
    dsm_fatal("%s='%s' is not TRUE or FALSE", name, v);
}

static long parse_int(const char *name, long dflt, long min, long max)
{
    const char *v = env(name), *end;
    long n;
    if (!v)
        return dflt;
    if (!parse_long(v, min, max, &n, &end) || *end)
        dsm_fatal("%s='%s' is not an integer in %ld..%ld", name, v, min, max);
    return n;
}

/* Variables that only steer thread placement or spinning: checked, no effect. */
static void check_ignored(void)
{
    const char *v;
    if ((v = env("OMP_WAIT_POLICY")) && strcasecmp(v, "active") && strcasecmp(v, "passive"))
        dsm_fatal("OMP_WAIT_POLICY='%s' is not ACTIVE or PASSIVE", v);
    if ((v = env("OMP_PROC_BIND")) && strcasecmp(v, "true") && strcasecmp(v, "false")
        && strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_, ") != strlen(v))
        dsm_fatal("OMP_PROC_BIND='%s' is not TRUE, FALSE or a list of master/close/spread", v);
    size_t sz;
    if ((v = env("OMP_STACKSIZE")) && !dsm_parse_size(v, &sz))
        dsm_fatal("OMP_STACKSIZE='%s' is not a size (examples: 512K, 8M)", v);
}

static void display(const char *how)
{
    bool verbose = !strcasecmp(how, "verbose");
    fprintf(stderr, "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n");
    fprintf(stderr, "  _OPENMP = '201511'\n");
    fprintf(stderr, "  OMP_DYNAMIC = '%s'\n", omp_icv.dynamic ? "TRUE" : "FALSE");
    fprintf(stderr, "  OMP_NESTED = '%s'\n", omp_icv.nested ? "TRUE" : "FALSE");
    fprintf(stderr, "  OMP_NUM_THREADS = '%d'\n", omp_icv.nthreads > 0 && omp_icv.nthreads < omp_rt.nodes
                                                       ? omp_icv.nthreads : omp_rt.nodes);
    if (omp_icv.sched == OMP_SCHED_PROFILED) {
        fprintf(stderr, "  OMP_SCHEDULE = 'profiled,warmup=%u,alpha=%g,hold=%u,min=%lu'\n", omp_profiled.warmup,
                omp_profiled.alpha, omp_profiled.hold, (unsigned long)omp_profiled.min);
    } else {
        fprintf(stderr, "  OMP_SCHEDULE = '%s", omp_sched_name(omp_icv.sched));
        if (omp_icv.chunk > 1 || omp_icv.sched == OMP_SCHED_STATIC)
            fprintf(stderr, ",%ld", omp_icv.chunk);
        fprintf(stderr, "'\n");
    }
    fprintf(stderr, "  OMP_PROC_BIND = 'FALSE'\n  OMP_PLACES = ''\n  OMP_STACKSIZE = '0'\n");
    fprintf(stderr, "  OMP_WAIT_POLICY = 'PASSIVE'\n");
    fprintf(stderr, "  OMP_THREAD_LIMIT = '%ld'\n", omp_icv.thread_limit);
    fprintf(stderr, "  OMP_MAX_ACTIVE_LEVELS = '%ld'\n", omp_icv.max_active_levels);
    fprintf(stderr, "  OMP_CANCELLATION = 'FALSE'\n  OMP_DEFAULT_DEVICE = '0'\n");
    fprintf(stderr, "  OMP_MAX_TASK_PRIORITY = '0'\n");
    if (verbose) {
        fprintf(stderr, "  [ompdsm] nodes = '%d' (one OpenMP thread per node)\n", omp_rt.nodes);
        fprintf(stderr, "  [ompdsm] OMP_PROC_BIND, OMP_PLACES, OMP_STACKSIZE, OMP_WAIT_POLICY have no effect\n");
    }
    fprintf(stderr, "OPENMP DISPLAY ENVIRONMENT END\n");
}

void omp_env_load(void)
{
    load_num_threads();
    load_schedule();
    omp_icv.dynamic = parse_bool("OMP_DYNAMIC", false);
    omp_icv.nested = parse_bool("OMP_NESTED", false);
    omp_icv.max_active_levels = parse_int("OMP_MAX_ACTIVE_LEVELS", 1, 0, 255);
    omp_icv.thread_limit = parse_int("OMP_THREAD_LIMIT", 4294967295L, 1, 4294967295L);
    check_ignored();
    if (parse_bool("OMP_CANCELLATION", false))
        omp_rt_unsupported("cancellation (OMP_CANCELLATION=true)");
    const char *v = env("OMP_DISPLAY_ENV");
    if (v && strcasecmp(v, "true") && strcasecmp(v, "false") && strcasecmp(v, "verbose"))
        dsm_fatal("OMP_DISPLAY_ENV='%s' is not TRUE, FALSE or VERBOSE", v);
    if (v && strcasecmp(v, "false") && omp_rt.node == 0)
        display(v);
}
