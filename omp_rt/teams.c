/*
 * teams.c: the teams construct on the host, and the team queries.
 *
 * As libgomp does without an offload device, the teams of a league run one
 * after the other on the thread that meets the construct: a host `teams`
 * (GOMP_teams_reg) calls the body once per team, and a `teams` inside a
 * target region (GOMP_teams4) is a loop that GCC's code runs while this
 * says there is a next team.  GCC computes a `distribute` loop's blocks
 * from omp_get_team_num and omp_get_num_teams, and each team's `parallel`
 * is an ordinary region with a team of threads on every node: the league's
 * state goes with the region to the nodes (parallel.c), so the team queries
 * answer there too.  A teams construct's thread_limit bounds its parallel
 * regions' teams while it runs, as libgomp's thread-limit ICV does.
 */
#include "omp_rt.h"
#include "gomp_abi.h"

#include <limits.h>

#define API __attribute__((visibility("default")))

/* Teams met when no number was asked for (libgomp's count). */
enum { DEFAULT_TEAMS = 3 };

/* A thread limit of a teams construct, as the ICV keeps it. */
static long limit_of(unsigned thread_limit)
{
    return thread_limit > INT_MAX ? LONG_MAX : (long)thread_limit;
}

/* Sets the thread limit where it may change: the master outside any
 * region, whose ICVs the next region carries to every node.  Inside a
 * region the node's ICVs are its threads' in common, and a region there
 * has a team of one anyway. */
static void set_thread_limit(long limit)
{
    if (omp_thr.level == 0)
        omp_icv.thread_limit = limit;
}

void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit, unsigned flags)
{
    OMP_RT_ENTRY;
    (void)flags;
    long outer_limit = omp_icv.thread_limit;
    if (thread_limit == 0 && omp_icv.teams_thread_limit > 0)
        thread_limit = (unsigned)omp_icv.teams_thread_limit;
    if (thread_limit)
        set_thread_limit(limit_of(thread_limit));
    if (num_teams == 0)
        num_teams = omp_icv.num_teams > 0 ? (unsigned)omp_icv.num_teams : DEFAULT_TEAMS;
    omp_thr.teams = (int)num_teams;
    for (omp_thr.team_num = 0; omp_thr.team_num < omp_thr.teams; omp_thr.team_num++)
        omp_rt_call_user(fn, data);
    omp_thr.teams = 0;
    omp_thr.team_num = 0;
    set_thread_limit(outer_limit);
}

/* teams in a target region: first is true at the first call; true while
 * there is a team to run.  The league has the lower bound's teams (at least
 * one), as libgomp's host fallback. */
bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit, bool first)
{
    (void)num_teams_high;
    if (first) {
        if (thread_limit)
            set_thread_limit(limit_of(thread_limit));
        omp_thr.teams = num_teams_low ? (int)num_teams_low : 1;
        omp_thr.team_num = 0;
        return true;
    }
    if (omp_thr.team_num + 1 >= omp_thr.teams)
        return false;
    omp_thr.team_num++;
    return true;
}

/* The interface of GCC before 12 for teams in a target region: one team. */
void GOMP_teams(unsigned num_teams, unsigned thread_limit)
{
    (void)num_teams;
    if (thread_limit)
        set_thread_limit(limit_of(thread_limit));
}

API int omp_get_num_teams(void) { return omp_thr.teams > 0 ? omp_thr.teams : 1; }
API int omp_get_team_num(void) { return omp_thr.team_num; }
