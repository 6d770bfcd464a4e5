/*
 * profile_file.c: the text of a saved profile (OMPDSM_PROFILE=FILE).
 *
 * Plain text, one record a line, so that a user can read what the last run
 * measured and diff two runs:
 *
 *     ompdsm-profile 1
 *     program BUILD-ID
 *     nodes N
 *     site TEAM BASE INCR N
 *     bounds B1 ... B(TEAM-1)
 *     loop WHERE START LEN EXECS COST0 ... COST(TEAM-1)
 *     ...
 *
 * A site line opens a group of loops; its bounds and loop lines follow it.
 * Boundaries and starts are the program's loop indices; WHERE is the
 * loop's call site as an offset in the executable; costs are ns per
 * iteration on each node (0: not measured).  Parsing is strict: a profile
 * that does not read back exactly is not used at all.
 */
#include "profile_file.h"

#include "../util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { FORMAT = 1, MOST_NODES = 65536 };

static bool int_of(const char *tok, int64_t *v)
{
    char *e;
    errno = 0;
    long long x = tok ? strtoll(tok, &e, 10) : 0;
    if (!tok || errno || *e)
        return false;
    *v = x;
    return true;
}

static bool uint_of(const char *tok, uint64_t *v)
{
    int64_t x;
    if (!int_of(tok, &x) || x < 0)
        return false;
    *v = (uint64_t)x;
    return true;
}

static bool cost_of(const char *tok, double *v)
{
    char *e;
    errno = 0;
    *v = tok ? strtod(tok, &e) : 0;
    return tok && !errno && !*e && *v >= 0;
}

/* The line's words after the first, in order (strtok_r state in *save). */
static const char *word(char **save)
{
    return strtok_r(NULL, " \t", save);
}

static bool site_line(struct saved_profile *p, char **save)
{
    int64_t team;
    struct saved_site s = { 0 };
    if (!int_of(word(save), &team) || team < 1 || team > p->nodes || !int_of(word(save), &s.base) ||
        !int_of(word(save), &s.incr) || !s.incr || !uint_of(word(save), &s.n) || word(save))
        return false;
    s.team = (int)team;
    s.bounds = xcalloc((size_t)team + 1, sizeof *s.bounds);
    s.bounds[team] = s.base + (int64_t)s.n * s.incr;
    s.bounds[0] = s.base;
    for (int i = 1; i < team; i++)
        s.bounds[i] = s.base;
    p->sites = xrealloc(p->sites, (p->nsites + 1) * sizeof *p->sites);
    p->sites[p->nsites++] = s;
    return true;
}

static bool bounds_line(struct saved_profile *p, char **save)
{
    if (!p->nsites)
        return false;
    struct saved_site *s = &p->sites[p->nsites - 1];
    for (int i = 1; i < s->team; i++)
        if (!int_of(word(save), &s->bounds[i]))
            return false;
    return !word(save);
}

static bool loop_line(struct saved_profile *p, char **save)
{
    if (!p->nsites)
        return false;
    struct saved_site *s = &p->sites[p->nsites - 1];
    struct saved_loop l = { 0 };
    if (!uint_of(word(save), &l.where) || !int_of(word(save), &l.start) || !uint_of(word(save), &l.len) ||
        !uint_of(word(save), &l.execs))
        return false;
    l.cost = xcalloc((size_t)s->team, sizeof *l.cost);
    s->loops = xrealloc(s->loops, (s->nloops + 1) * sizeof *s->loops);
    s->loops[s->nloops++] = l;
    for (int i = 0; i < s->team; i++)
        if (!cost_of(word(save), &l.cost[i]))
            return false;
    return !word(save);
}

/* One line; false if it is not what the format allows there. */
static bool line(struct saved_profile *p, char *text, unsigned no)
{
    char *save;
    const char *key = strtok_r(text, " \t", &save);
    int64_t v;
    if (!key)
        return true;
    if (no == 1)
        return !strcmp(key, "ompdsm-profile") && int_of(word(&save), &v) && v == FORMAT && !word(&save);
    if (!strcmp(key, "program")) {
        const char *id = word(&save);
        if (!id || strlen(id) >= sizeof p->program || word(&save))
            return false;
        strcpy(p->program, id);
        return true;
    }
    if (!strcmp(key, "nodes"))
        return int_of(word(&save), &v) && v >= 1 && v <= MOST_NODES && !word(&save) && (p->nodes = (int)v, true);
    if (!p->nodes)
        return false;
    if (!strcmp(key, "site"))
        return site_line(p, &save);
    if (!strcmp(key, "bounds"))
        return bounds_line(p, &save);
    if (!strcmp(key, "loop"))
        return loop_line(p, &save);
    return false;
}

bool profile_parse(const char *text, size_t len, struct saved_profile *p, char *why, size_t whylen)
{
    memset(p, 0, sizeof *p);
    char *copy = xmalloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = 0;
    unsigned no = 0;
    bool ok = true;
    for (char *save, *l = strtok_r(copy, "\n", &save); l && ok; l = strtok_r(NULL, "\n", &save)) {
        if (!(ok = line(p, l, ++no)))
            snprintf(why, whylen, "line %u is not a line of an ompdsm profile", no);
    }
    if (ok && (!no || !p->program[0] || !p->nodes)) {
        snprintf(why, whylen, "not an ompdsm profile (no header)");
        ok = false;
    }
    free(copy);
    if (!ok)
        profile_free(p);
    return ok;
}

void profile_write(FILE *f, const struct saved_profile *p)
{
    fprintf(f, "ompdsm-profile %d\nprogram %s\nnodes %d\n", FORMAT, p->program, p->nodes);
    for (size_t k = 0; k < p->nsites; k++) {
        const struct saved_site *s = &p->sites[k];
        fprintf(f, "site %d %lld %lld %llu\nbounds", s->team, (long long)s->base, (long long)s->incr,
                (unsigned long long)s->n);
        for (int i = 1; i < s->team; i++)
            fprintf(f, " %lld", (long long)s->bounds[i]);
        fputc('\n', f);
        for (unsigned l = 0; l < s->nloops; l++) {
            const struct saved_loop *lp = &s->loops[l];
            fprintf(f, "loop %llu %lld %llu %llu", (unsigned long long)lp->where, (long long)lp->start,
                    (unsigned long long)lp->len, (unsigned long long)lp->execs);
            for (int i = 0; i < s->team; i++)
                fprintf(f, " %.6g", lp->cost[i]);
            fputc('\n', f);
        }
    }
}

void profile_free(struct saved_profile *p)
{
    for (size_t k = 0; k < p->nsites; k++) {
        for (unsigned l = 0; l < p->sites[k].nloops; l++)
            free(p->sites[k].loops[l].cost);
        free(p->sites[k].loops);
        free(p->sites[k].bounds);
    }
    free(p->sites);
    memset(p, 0, sizeof *p);
}
