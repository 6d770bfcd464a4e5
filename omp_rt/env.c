/*
 * env.c: the OMP_* environment variables, parsed in one place, with the
 * same syntax as libgomp (GCC 12): a value is refused exactly where libgomp
 * says "Invalid value for environment variable X".  libgomp then warns and
 * ignores the value; ompdsm stops with a fatal error naming the variable,
 * as for its own variables: a job of many nodes that silently runs with
 * other settings than asked for costs more than one that does not start.
 *
 * Each node runs OMPDSM_THREADS_PER_NODE OpenMP threads (unset, the
 * CPUs it may run on or OMP_NUM_THREADS decide: placement.c):
 * OMP_NUM_THREADS=k gives teams of k threads split over the nodes
 * (parallel.c), which start more threads where k asks for more than they
 * run.  OMP_WAIT_POLICY sets how long a waiting thread polls
 * (dsm/config.c).  OMP_ALLOCATOR is the
 * default allocator (allocators.c), OMP_AFFINITY_FORMAT the default format
 * of omp_display_affinity (affinity.c); OMP_NUM_TEAMS and
 * OMP_TEAMS_THREAD_LIMIT size the teams construct's leagues (teams.c) and
 * OMP_DEFAULT_DEVICE is omp_get_default_device's answer (target.c);
 * OMP_STACKSIZE sizes the stacks of the threads the runtime starts
 * (pool.c).  The variables that choose placement or devices
 * (OMP_PROC_BIND, OMP_PLACES, OMP_TARGET_OFFLOAD, OMP_MAX_TASK_PRIORITY)
 * are checked for syntax and otherwise have no effect: say so, rather
 * than ignore them silently, under OMP_DISPLAY_ENV=verbose.
 */
#include "omp_rt.h"

size_t omp_get_affinity_format(char *buf, size_t size);     /* affinity.c */

#include "../dsm/dsm.h"
#include "../util/env.h"
#include "../util/log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct omp_icv omp_icv;

/* dsm_parse_long, and blanks after the number too, as libgomp allows. */
static bool parse_long(const char *s, long min, long max, long *out, const char **end)
{
    if (!dsm_parse_long(s, min, max, out, end))
        return false;
    while (isspace((unsigned char)**end))
        (*end)++;
    return true;
}

static void load_num_threads(void)
{
    const char *v = dsm_env("OMP_NUM_THREADS"), *end;
    long n;
    omp_icv.nthreads = 0;
    if (!v)
        return;
    /* A list "4,2" sets the first level, then the nested ones (nest.c). */
    if (!parse_long(v, 1, 1L << 20, &n, &end) || (*end && *end != ','))
        dsm_fatal("OMP_NUM_THREADS='%s' is not a positive integer (or a list of them)", v);
    for (int level = 0; *end == ','; level++) {
        long inner;
        if (!parse_long(end + 1, 1, 1L << 20, &inner, &end) || (*end && *end != ','))
            dsm_fatal("OMP_NUM_THREADS='%s' is not a positive integer (or a list of them)", v);
        if (level < OMP_NTHREADS_LEVELS)
            omp_icv.nthreads_list[level] = (int)inner;
    }
    omp_icv.nthreads = (int)n;
}

/* OMPDSM_THREADS_PER_NODE: the OpenMP threads each node runs; 0 unset
 * (placement.c then decides). */
static void load_threads_per_node(void)
{
    const char *v = dsm_env("OMPDSM_THREADS_PER_NODE"), *end;
    long n = 0;
    if (v && (!parse_long(v, 1, OMP_RT_NODE_THREADS_MAX, &n, &end) || *end))
        dsm_fatal("OMPDSM_THREADS_PER_NODE='%s' is not a number of threads from 1 to %d", v,
                  OMP_RT_NODE_THREADS_MAX);
    omp_rt.threads = (int)n;
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
        /* libgomp takes a chunk of 0 as the default, and ignores one after auto. */
        if (*rest != ',' || !parse_long(rest + 1, 0, 1L << 40, chunk, &end) || *end)
            return false;
        if (*kind == OMP_SCHED_AUTO || (*chunk == 0 && *kind != OMP_SCHED_STATIC))
            *chunk = *kind == OMP_SCHED_AUTO ? 0 : 1;
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
    const char *v = dsm_env("OMP_SCHEDULE");
    omp_icv.sched = OMP_SCHED_DYNAMIC;
    omp_icv.chunk = 1;
    if (!v || parse_profiled(v))
        return;
    if (!omp_parse_schedule(v, &omp_icv.sched, &omp_icv.chunk, &omp_icv.monotonic))
        dsm_fatal("OMP_SCHEDULE='%s' is not [monotonic:|nonmonotonic:]static|dynamic|guided|auto[,chunk] "
                  "or profiled[,options]", v);
}

/* True if v is word, with blanks around it allowed, in any case. */
static bool is_one_of(const char *v, const char *const *words)
{
    for (; *words; words++)
        if (dsm_is_word(v, *words))
            return true;
    return false;
}

static bool parse_bool(const char *name, bool dflt)
{
    const char *v = dsm_env(name);
    if (!v)
        return dflt;
    if (dsm_is_word(v, "true"))
        return true;
    if (dsm_is_word(v, "false"))
        return false;
    dsm_fatal("%s='%s' is not TRUE or FALSE", name, v);
}

static long parse_int(const char *name, long dflt, long min, long max)
{
    const char *v = dsm_env(name), *end;
    long n;
    if (!v)
        return dflt;
    if (!parse_long(v, min, max, &n, &end) || *end)
        dsm_fatal("%s='%s' is not an integer in %ld..%ld", name, v, min, max);
    return n;
}

/* An unsigned count: libgomp accepts any that fits in an unsigned long;
 * larger than max means max. */
static long parse_count(const char *name, long dflt, long min, long max)
{
    const char *v = dsm_env(name);
    if (!v)
        return dflt;
    const char *s = v + strspn(v, " \t");
    char *end = (char *)s;
    errno = 0;
    unsigned long x = isdigit((unsigned char)*s) ? strtoul(s, &end, 10) : 0;
    if (end == s || errno || end[strspn(end, " \t")] || x < (unsigned long)min)
        dsm_fatal("%s='%s' is not an integer of at least %ld", name, v, min);
    return x < (unsigned long)max ? (long)x : max;
}

/* OMP_STACKSIZE: a number, then B, K, M or G (default K), blanks allowed;
 * the bytes in *bytes. */
static bool stack_size(const char *v, size_t *bytes)
{
    char *end;
    v += strspn(v, " \t");
    if (!isdigit((unsigned char)*v))
        return false;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    end += strspn(end, " \t");
    unsigned shift = 10;
    switch (tolower((unsigned char)*end)) {
    case 'b': shift = 0; end++; break;
    case 'k': end++; break;
    case 'm': shift = 20; end++; break;
    case 'g': shift = 30; end++; break;
    }
    end += strspn(end, " \t");
    *bytes = (size_t)(x << shift);
    return !errno && !*end && (x << shift) >> shift == x;
}

/* OMP_PROC_BIND: TRUE, FALSE, or a list of primary/master/close/spread. */
static bool proc_bind(const char *v)
{
    static const char *const kinds[] = { "primary", "master", "close", "spread", NULL };
    if (dsm_is_word(v, "true") || dsm_is_word(v, "false"))
        return true;
    char buf[256];
    if (strlen(v) >= sizeof buf)
        return false;
    strcpy(buf, v);
    char *save, *item = strtok_r(buf, ",", &save);
    if (!item || v[strlen(v) - 1] == ',' || strstr(v, ",,"))
        return false;
    for (; item; item = strtok_r(NULL, ",", &save))
        if (!is_one_of(item, kinds))
            return false;
    return true;
}

/* OMP_PLACES, syntax only (which CPUs exist does not matter here):
 * an abstract name with an optional "(count)", or a list of places
 * "{res[:len[:stride]],...}[:len[:stride]]", each possibly "!"-negated. */
static const char *skip_blanks(const char *s)
{
    return s + strspn(s, " \t");
}

static const char *number(const char *s, bool sign)
{
    s = skip_blanks(s);
    if (sign && *s == '-')
        s++;
    if (!isdigit((unsigned char)*s))
        return NULL;
    while (isdigit((unsigned char)*s))
        s++;
    return skip_blanks(s);
}

/* [:len[:stride]] after a number or a place; NULL if malformed. */
static const char *len_stride(const char *s)
{
    if (*s != ':')
        return s;
    if (!(s = number(s + 1, false)))
        return NULL;
    return *s == ':' ? number(s + 1, true) : s;
}

static const char *one_place(const char *s)
{
    s = skip_blanks(s);
    if (*s == '!')
        s = skip_blanks(s + 1);
    if (*s != '{')
        return NULL;
    do {
        if (!(s = number(s + 1, false)) || !(s = len_stride(s)))
            return NULL;
    } while (*s == ',');
    if (*s != '}')
        return NULL;
    return len_stride(skip_blanks(s + 1));
}

static bool places(const char *v)
{
    static const char *const names[] = { "threads", "cores", "sockets", "ll_caches", "numa_domains", NULL };
    const char *s = skip_blanks(v);
    for (const char *const *n = names; *n; n++) {
        size_t len = strlen(*n);
        if (strncasecmp(s, *n, len))
            continue;
        s = skip_blanks(s + len);
        if (*s == '(' && (s = number(s + 1, false)) && *s == ')')
            s = skip_blanks(s + 1);
        return s && *s == '\0';
    }
    do {
        if (!(s = one_place(s == skip_blanks(v) ? s : s + 1)))
            return false;
    } while (*s == ',');
    return *s == '\0';
}

/* OMP_WAIT_POLICY says how long a waiting thread polls before it sleeps
 * (dsm/config.c reads it, unless OMPDSM_SPIN_US is set). */
static void check_wait_policy(void)
{
    static const char *const wait[] = { "active", "passive", NULL };
    const char *v = dsm_env("OMP_WAIT_POLICY");
    if (v && !is_one_of(v, wait))
        dsm_fatal("OMP_WAIT_POLICY='%s' is not ACTIVE or PASSIVE", v);
}

/* Variables that have no effect on ompdsm: checked as libgomp checks them. */
static void check_ignored(void)
{
    static const char *const offload[] = { "default", "mandatory", "disabled", NULL };
    static const char *const allocators[] = {
        "omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc", "omp_high_bw_mem_alloc",
        "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc", "omp_pteam_mem_alloc", "omp_thread_mem_alloc", NULL,
    };
    const char *v;
    if ((v = dsm_env("OMP_PROC_BIND")) && !proc_bind(v))
        dsm_fatal("OMP_PROC_BIND='%s' is not TRUE, FALSE or a list of primary/master/close/spread", v);
    if ((v = dsm_env("OMP_PLACES")) && !places(v))
        dsm_fatal("OMP_PLACES='%s' is not threads, cores, sockets, ll_caches or numa_domains (with an optional "
                  "(count)), or a list of places such as {0,1},{2,3} or {0:4}:2:4", v);
    if ((v = dsm_env("OMP_STACKSIZE")) && !stack_size(v, &omp_rt.stack_size))
        dsm_fatal("OMP_STACKSIZE='%s' is not a size (a number with B, K, M or G; examples: 512K, 8M)", v);
    if ((v = dsm_env("OMP_TARGET_OFFLOAD")) && !is_one_of(v, offload))
        dsm_fatal("OMP_TARGET_OFFLOAD='%s' is not DEFAULT, MANDATORY or DISABLED", v);
    if ((v = dsm_env("OMP_ALLOCATOR")) && !is_one_of(v, allocators))
        dsm_fatal("OMP_ALLOCATOR='%s' is not a predefined allocator (omp_default_mem_alloc ...)", v);
    omp_icv.default_device = (int)parse_int("OMP_DEFAULT_DEVICE", 0, 0, INT_MAX);
    parse_int("OMP_MAX_TASK_PRIORITY", 0, 0, INT_MAX);
    omp_icv.num_teams = (int)parse_int("OMP_NUM_TEAMS", 0, 1, INT_MAX);
    omp_icv.teams_thread_limit = (int)parse_int("OMP_TEAMS_THREAD_LIMIT", 0, 1, INT_MAX);
    omp_icv.display_affinity = parse_bool("OMP_DISPLAY_AFFINITY", false);
}

void omp_env_display(bool verbose)
{
    fprintf(stderr, "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n");
    fprintf(stderr, "  _OPENMP = '201511'\n");
    fprintf(stderr, "  OMP_DYNAMIC = '%s'\n", omp_icv.dynamic ? "TRUE" : "FALSE");
    fprintf(stderr, "  OMP_NESTED = '%s'\n", omp_icv.max_active_levels > 1 ? "TRUE" : "FALSE");
    fprintf(stderr, "  OMP_NUM_THREADS = '%ld", omp_rt_nthreads());
    for (int level = 0; level < OMP_NTHREADS_LEVELS && omp_icv.nthreads_list[level]; level++)
        fprintf(stderr, ",%d", omp_icv.nthreads_list[level]);
    fprintf(stderr, "'\n");
    if (omp_icv.sched == OMP_SCHED_PROFILED) {
        fprintf(stderr, "  OMP_SCHEDULE = 'profiled,warmup=%u,alpha=%g,hold=%u,min=%lu'\n", omp_profiled.warmup,
                omp_profiled.alpha, omp_profiled.hold, (unsigned long)omp_profiled.min);
    } else {
        fprintf(stderr, "  OMP_SCHEDULE = '%s", omp_sched_name(omp_icv.sched));
        if (omp_icv.chunk > 1 || omp_icv.sched == OMP_SCHED_STATIC)
            fprintf(stderr, ",%ld", omp_icv.chunk);
        fprintf(stderr, "'\n");
    }
    fprintf(stderr, "  OMP_PROC_BIND = 'FALSE'\n  OMP_PLACES = ''\n  OMP_STACKSIZE = '%zu'\n", omp_rt.stack_size);
    const char *wait = dsm_env("OMP_WAIT_POLICY");
    fprintf(stderr, "  OMP_WAIT_POLICY = '%s'\n", wait && dsm_is_word(wait, "active") ? "ACTIVE" : "PASSIVE");
    fprintf(stderr, "  OMP_THREAD_LIMIT = '%ld'\n", omp_icv.thread_limit);
    fprintf(stderr, "  OMP_MAX_ACTIVE_LEVELS = '%ld'\n", omp_icv.max_active_levels);
    fprintf(stderr, "  OMP_NUM_TEAMS = '%d'\n  OMP_TEAMS_THREAD_LIMIT = '%d'\n", omp_icv.num_teams,
            omp_icv.teams_thread_limit);
    fprintf(stderr, "  OMP_CANCELLATION = '%s'\n  OMP_DEFAULT_DEVICE = '%d'\n", omp_icv.cancellation ? "TRUE" : "FALSE",
            omp_icv.default_device);
    fprintf(stderr, "  OMP_MAX_TASK_PRIORITY = '0'\n");
    char format[256];
    omp_get_affinity_format(format, sizeof format);
    fprintf(stderr, "  OMP_DISPLAY_AFFINITY = '%s'\n  OMP_AFFINITY_FORMAT = '%s'\n",
            omp_icv.display_affinity ? "TRUE" : "FALSE", format);
    const char *alloc = dsm_env("OMP_ALLOCATOR");
    fprintf(stderr, "  OMP_ALLOCATOR = '%s'\n", alloc ? alloc : "omp_default_mem_alloc");
    static const char *const offload[] = { "DEFAULT", "MANDATORY", "DISABLED" };
    const char *v = dsm_env("OMP_TARGET_OFFLOAD");
    size_t k = 0;
    while (v && k < 2 && !dsm_is_word(v, offload[k]))
        k++;
    fprintf(stderr, "  OMP_TARGET_OFFLOAD = '%s'\n", offload[k]);
    fprintf(stderr, "  [ompdsm] nodes = '%d'\n  [ompdsm] OMPDSM_THREADS_PER_NODE = '%d'\n", omp_rt.nodes,
            omp_rt.threads);
    if (verbose) {
        fprintf(stderr, "  [ompdsm] OMP_PROC_BIND, OMP_PLACES, OMP_TARGET_OFFLOAD, "
                        "OMP_MAX_TASK_PRIORITY have no effect\n");
    }
    fprintf(stderr, "OPENMP DISPLAY ENVIRONMENT END\n");
}

void omp_env_load(void)
{
    load_threads_per_node();
    load_num_threads();
    omp_placement_init();
    load_schedule();
    omp_profiled.file = dsm_env("OMPDSM_PROFILE");
    omp_icv.dynamic = parse_bool("OMP_DYNAMIC", false);
    /* Unset, OMP_MAX_ACTIVE_LEVELS follows OMP_NESTED, or else a list of
     * thread counts, as in libgomp: any level where so asked. */
    bool nested = parse_bool("OMP_NESTED", omp_icv.nthreads_list[0] > 0);
    omp_icv.max_active_levels = parse_count("OMP_MAX_ACTIVE_LEVELS", nested ? OMP_ACTIVE_LEVELS_MAX : 1, 0,
                                            OMP_ACTIVE_LEVELS_MAX);
    omp_icv.thread_limit = parse_count("OMP_THREAD_LIMIT", 4294967295L, 1, 4294967295L);
    check_wait_policy();
    check_ignored();
    omp_icv.cancellation = parse_bool("OMP_CANCELLATION", false);
    const char *v = dsm_env("OMP_DISPLAY_ENV");
    static const char *const display_kinds[] = { "true", "false", "verbose", NULL };
    if (v && !is_one_of(v, display_kinds))
        dsm_fatal("OMP_DISPLAY_ENV='%s' is not TRUE, FALSE or VERBOSE", v);
    if (v && !dsm_is_word(v, "false") && omp_rt.node == 0)
        omp_env_display(dsm_is_word(v, "verbose"));
}
