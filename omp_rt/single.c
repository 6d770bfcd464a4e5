/*
 * single.c: the single construct.
 *
 * Any one thread may execute a single region; ompdsm always picks thread 0
 * (node 0), which needs no message at all.  For copyprivate this matters
 * twice: node 0's private variables live on its shared stack, so the other
 * nodes can copy from them through the DSM, and the address of the
 * structure describing them reaches the other nodes with a barrier's
 * release, and the other threads of each node from its first thread
 * (omp_pool_value).  GCC follows the copy with a barrier, so node 0
 * cannot leave the region (and its stack frame) before every thread has
 * copied.
 */
#include "gomp_abi.h"
#include "omp_rt.h"

#include "../dsm/dsm.h"

#include <stdlib.h>
#include <string.h>

bool GOMP_single_start(void)
{
    OMP_RT_ENTRY;
    return omp_rt_thread_num() == 0;
}

/* A node's first thread, other than node 0's: the address from node 0. */
static void receive(void *arg)
{
    (void)arg;
    size_t len;
    void *msg = dsm_barrier_bcast(NULL, 0, &len), *data = NULL;
    if (msg && len == sizeof data)
        memcpy(&data, msg, sizeof data);
    free(msg);
    omp_tls_mirror_apply();
    omp_pool_value = data;
}

/* Thread 0: the address, to its node's threads and the other nodes. */
static void send(void *arg)
{
    omp_pool_value = *(void **)arg;
    omp_tls_mirror_publish();
    if (omp_rt.team_nodes > 1)
        free(dsm_barrier_bcast(arg, sizeof(void *), NULL));
}

void *GOMP_single_copy_start(void)
{
    OMP_RT_ENTRY;
    if (omp_rt_thread_num() == 0 || omp_rt_team_size() == 1)
        return NULL;
    if (omp_thr.nest)
        return omp_nest_share(NULL, false);
    omp_pool_barrier(omp_rt.node == 0 ? NULL : receive, NULL);
    return omp_pool_value;
}

void GOMP_single_copy_end(void *data)
{
    OMP_RT_ENTRY;
    if (omp_thr.nest)
        omp_nest_share(data, true);
    else if (omp_rt_team_size() > 1)
        omp_pool_barrier(send, &data);
}

void *omp_rt_team_value(void *(*make)(void *arg), void *arg)
{
    if (omp_rt_thread_num() != 0)
        return GOMP_single_copy_start();
    void *v = make(arg);
    GOMP_single_copy_end(v);
    return v;
}
