/*
 * single.c: the single construct.
 *
 * Any one thread may execute a single region; ompdsm always picks thread 0
 * (node 0), which needs no message at all.  For copyprivate this matters
 * twice: node 0's private variables live on its shared stack, so the other
 * nodes can copy from them through the DSM, and the address of the
 * structure describing them reaches the others with a barrier's release.
 * GCC follows the copy with a barrier, so node 0 cannot leave the region
 * (and its stack frame) before every thread has copied.
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

void *GOMP_single_copy_start(void)
{
    OMP_RT_ENTRY;
    if (omp_rt_thread_num() == 0 || omp_rt_team_size() == 1)
        return NULL;
    size_t len;
    void *msg = dsm_barrier_bcast(NULL, 0, &len), *data = NULL;
    if (msg && len == sizeof data)
        memcpy(&data, msg, sizeof data);
    free(msg);
    return data;
}

void GOMP_single_copy_end(void *data)
{
    OMP_RT_ENTRY;
    if (omp_rt_team_size() > 1)
        free(dsm_barrier_bcast(&data, sizeof data, NULL));
}
