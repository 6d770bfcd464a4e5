/*
 * placement.c: the machines and CPUs the nodes run on, and how many OpenMP
 * threads each node runs.
 *
 * At start-up every node tells the others its machine (the kernel's boot
 * id, which nodes in different namespaces of one machine share) and the
 * CPUs it may run on (its affinity mask).  Every node works the same
 * answers out of the same figures:
 *
 *   threads per node
 *       OMPDSM_THREADS_PER_NODE if set (ompdsm-run --threads-per-node sets
 *       it).  Else, if OMP_NUM_THREADS is set, its first level spread over
 *       the nodes, rounded up: the team then has the size asked for, as
 *       with libgomp.  Else the CPUs each node may run on, as libgomp runs
 *       a thread per CPU of its mask: under mpirun or srun the CPUs bound
 *       to the rank, with ompdsm-run --bind-to core the node's share.  Nodes
 *       of one machine whose masks overlap (ompdsm-run without binding,
 *       mpirun --bind-to none) split the CPUs they have in common: n nodes
 *       that may all run on the same c CPUs run c / n threads each.  A
 *       team's split assumes the same count on every node, so the smallest
 *       node's count is everyone's.
 *   CPUs shared
 *       whether the nodes of some machine run more threads, all together,
 *       than there are CPUs in their masks: the profiled schedule judges
 *       its changes differently then (profiled.c).
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../net/boot.h"
#include "../util/xalloc.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct place {
    char machine[64];
    cpu_set_t cpus;
};

static bool shared;

/* This node's machine and CPUs. */
static void where_am_i(struct place *p)
{
    memset(p, 0, sizeof *p);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f || !fgets(p->machine, sizeof p->machine, f)) {
        strcpy(p->machine, "host:");
        if (gethostname(p->machine + 5, sizeof p->machine - 6))
            strcpy(p->machine, "?");
    }
    if (f)
        fclose(f);
    p->machine[strcspn(p->machine, "\n")] = '\0';
    if (sched_getaffinity(0, sizeof p->cpus, &p->cpus)) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < n && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &p->cpus);
    }
}

static bool same_machine(const struct place *a, const struct place *b)
{
    return strcmp(a->machine, b->machine) == 0;
}

/* The threads node i may run: its CPUs, divided among the nodes of its
 * machine that may run on some of them too (itself included). */
static int cpus_of(const struct place *all, int nodes, int i)
{
    int sharing = 0;
    for (int j = 0; j < nodes; j++) {
        cpu_set_t both;
        CPU_AND(&both, &all[i].cpus, &all[j].cpus);
        sharing += same_machine(&all[i], &all[j]) && CPU_COUNT(&both) > 0;
    }
    int n = CPU_COUNT(&all[i].cpus) / (sharing ? sharing : 1);
    return n < 1 ? 1 : n > OMP_RT_NODE_THREADS_MAX ? OMP_RT_NODE_THREADS_MAX : n;
}

/* Whether the nodes of some machine run more threads than their CPUs. */
static bool oversubscribed(const struct place *all, int nodes, int threads)
{
    for (int i = 0; i < nodes; i++) {
        cpu_set_t cpus;
        CPU_ZERO(&cpus);
        long running = 0;
        for (int j = 0; j < nodes; j++) {
            if (!same_machine(&all[i], &all[j]))
                continue;
            CPU_OR(&cpus, &cpus, &all[j].cpus);
            running += threads;
        }
        if (running > CPU_COUNT(&cpus))
            return true;
    }
    return false;
}

void omp_placement_init(void)
{
    struct place mine, *all = &mine;
    where_am_i(&mine);
    if (omp_rt.nodes > 1)
        all = boot_allgather(BOOT_TAG_PLACEMENT, &mine, sizeof mine, NULL);
    if (omp_rt.threads == 0 && omp_icv.nthreads > 0) {
        long per = (omp_icv.nthreads + omp_rt.nodes - 1) / omp_rt.nodes;
        omp_rt.threads = per > OMP_RT_NODE_THREADS_MAX ? OMP_RT_NODE_THREADS_MAX : (int)per;
    }
    if (omp_rt.threads == 0) {
        int n = cpus_of(all, omp_rt.nodes, 0);
        for (int i = 1; i < omp_rt.nodes; i++) {
            int m = cpus_of(all, omp_rt.nodes, i);
            n = m < n ? m : n;
        }
        omp_rt.threads = n;
    }
    dsm.app_threads = omp_rt.threads;
    shared = oversubscribed(all, omp_rt.nodes, omp_rt.threads);
    if (all != &mine)
        free(all);
}

bool omp_placement_cpus_shared(void)
{
    return shared;
}
