/*
 * The saved profile's text (omp_rt/profile_file.c): what it writes reads
 * back the same, and text that is not a profile, or not all of one, is
 * refused with a reason, never half taken.
 */
#include "unit.h"
#include "../../omp_rt/profile_file.h"

#include <stdlib.h>
#include <string.h>

static const char *good =
    "ompdsm-profile 1\n"
    "program 0123abcd\n"
    "nodes 2\n"
    "site 2 0 1 2048\n"
    "bounds 1370\n"
    "loop 5556 1 2046 97 2949.34 5706\n"
    "loop 5318 0 2048 97 2247.72 4304.21\n"
    "site 1 -5 -1 10\n"
    "bounds\n"
    "loop 100 -5 10 3 12.5\n";

/* A profile written to memory and read back. */
static char *written(const struct saved_profile *p, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    profile_write(f, p);
    fclose(f);
    return text;
}

static void round_trip(void)
{
    struct saved_profile p, q;
    char why[128] = "";
    EXPECT(profile_parse(good, strlen(good), &p, why, sizeof why), "a good profile refused: %s", why);
    EXPECT(!strcmp(p.program, "0123abcd") && p.nodes == 2 && p.nsites == 2, "header or sites misread");
    if (p.nsites != 2)
        return;
    const struct saved_site *s = &p.sites[0], *t = &p.sites[1];
    EXPECT(s->team == 2 && s->base == 0 && s->incr == 1 && s->n == 2048 && s->bounds[1] == 1370,
           "site 0 misread: team %d base %lld incr %lld n %llu bound %lld", s->team, (long long)s->base,
           (long long)s->incr, (unsigned long long)s->n, (long long)s->bounds[1]);
    EXPECT(s->nloops == 2 && s->loops[0].where == 5556 && s->loops[0].start == 1 && s->loops[0].len == 2046 &&
               s->loops[0].execs == 97 && s->loops[1].cost[1] > 4304.2 && s->loops[1].cost[1] < 4304.3,
           "loops of site 0 misread");
    EXPECT(t->team == 1 && t->base == -5 && t->incr == -1 && t->nloops == 1 && t->loops[0].start == -5,
           "a downward site misread");
    size_t len;
    char *text = written(&p, &len);
    EXPECT(profile_parse(text, len, &q, why, sizeof why), "what profile_write wrote is refused: %s", why);
    size_t len2;
    char *again = written(&q, &len2);
    EXPECT(len == len2 && !memcmp(text, again, len), "written, read and written again, the text changed");
    free(text);
    free(again);
    profile_free(&p);
    profile_free(&q);
}

/* Each line of `good` broken in turn: the whole profile is refused. */
static void refusals(void)
{
    static const char *bad[] = {
        "",                                             /* empty */
        "ompdsm-profile 2\nprogram x\nnodes 2\n",       /* another format */
        "ompdsm-profile 1\nnodes 2\n",                  /* no program */
        "ompdsm-profile 1\nprogram x\nnodes 0\n",       /* no node */
        "ompdsm-profile 1\nprogram x\nnodes 2\nsite 3 0 1 10\n",            /* a team larger than the job */
        "ompdsm-profile 1\nprogram x\nnodes 2\nsite 2 0 0 10\n",            /* a step of 0 */
        "ompdsm-profile 1\nprogram x\nnodes 2\nbounds 3\n",                 /* bounds before a site */
        "ompdsm-profile 1\nprogram x\nnodes 2\nsite 2 0 1 10\nbounds 3 4\n", /* a bound too many */
        "ompdsm-profile 1\nprogram x\nnodes 2\nsite 2 0 1 10\nloop 1 0 10 3 1.5\n",  /* a cost missing */
        "ompdsm-profile 1\nprogram x\nnodes 2\nsite 2 0 1 10\nloop 1 0 10 3 1.5 -2\n", /* a negative cost */
        "ompdsm-profile 1\nprogram x\nnodes 2\nsite 2 0 1 1x\n",            /* not a number */
        "ompdsm-profile 1\nprogram x\nnodes 2\nwhat 1\n",                   /* an unknown line */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct saved_profile p;
        char why[128] = "";
        bool ok = profile_parse(bad[i], strlen(bad[i]), &p, why, sizeof why);
        EXPECT(!ok, "case %zu taken as a profile", i);
        EXPECT(ok || why[0], "case %zu refused without a reason", i);
        EXPECT(ok || (p.nsites == 0 && p.sites == NULL), "case %zu left sites behind", i);
        if (ok)
            profile_free(&p);
    }
}

int main(void)
{
    round_trip();
    refusals();
    return unit_status();
}
