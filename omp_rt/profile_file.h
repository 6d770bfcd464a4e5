/*
 * profile_file.h: the saved profile of OMPDSM_PROFILE=FILE, as data and as
 * text (profile_file.c).  The profiled schedule (profiled.c) fills it at
 * exit and starts its groups of loops from it in the next run.
 */
#ifndef OMP_RT_PROFILE_FILE_H
#define OMP_RT_PROFILE_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One loop of a group: its first index, its iterations, how many times it
 * ran, and each node's time per iteration in ns (0: not measured). */
struct saved_loop {
    uint64_t where;             /* its call site, from the executable's start */
    int64_t start;
    uint64_t len, execs;
    double *cost;               /* [nodes of the group] */
};

/* One group of loops (a site of profiled.c) of one team size: its rows
 * base, base + incr, ... (n of them), its block boundaries at exit as the
 * program's indices (bounds[1..team-1]), and its loops. */
struct saved_site {
    int team;
    int64_t base, incr;
    uint64_t n;
    int64_t *bounds;            /* [team + 1]; 0 and team unused */
    unsigned nloops;
    struct saved_loop *loops;
};

struct saved_profile {
    char program[80];           /* the executable's build id, in hex */
    int nodes;
    size_t nsites;
    struct saved_site *sites;   /* in the order the program met them */
};

/* Parses a profile; false (with a reason in why) if it is not one. */
bool profile_parse(const char *text, size_t len, struct saved_profile *p, char *why, size_t whylen);
void profile_write(FILE *f, const struct saved_profile *p);
void profile_free(struct saved_profile *p);

#endif
