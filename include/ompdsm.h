/*
 * ompdsm.h: the public C interface of the ompdsm distributed shared memory.
 *
 * OpenMP programs need none of this: libompdsm runs them unmodified.  This
 * header is for programs (and tests) that use the DSM directly in SPMD style,
 * every node running main(), and for the few extensions an OpenMP program may
 * want to call explicitly.
 *
 * Memory returned by ompdsm_alloc() lies in the shared region, at the same
 * address on every node.  Consistency is release consistency: writes become
 * visible to another node after a barrier, or after the writer releases a
 * lock that the reader then acquires.
 */
#ifndef OMPDSM_H
#define OMPDSM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* Joins the job (launched by ompdsm-run or mpirun).  A program started
 * without a launcher runs as a job of one node.  Collective. */
void ompdsm_init(int *argc, char ***argv);
/* Leaves the job: a final barrier, statistics if OMPDSM_STATS is set. */
void ompdsm_finalize(void);

int ompdsm_node(void);          /* this node's number, 0 .. nodes-1 */
int ompdsm_nodes(void);         /* number of nodes in the job */

/* Collective: every node calls it with the same size, in the same order, and
 * receives the same page-aligned shared address (zero-filled).  Homes of the
 * pages follow OMPDSM_HOME.  Exhausting the region is a fatal error. */
void *ompdsm_alloc(size_t size);

/* Full barrier with release/acquire semantics on all shared memory. */
void ompdsm_barrier(void);

/* Flush (OpenMP's): publishes this node's writes to every node and drops the
 * copies of pages other nodes published, without a barrier.  A node that
 * spins on a flag another node sets and flushes sees it within a flush or
 * two; reading a copy between flushes costs nothing. */
void ompdsm_flush(void);

/* Distributed mutual exclusion, FIFO-fair.  A lock is named by any 64-bit
 * value; the same value names the same lock on every node, and never one of
 * the locks of critical sections, omp locks or ordered loops.  Acquiring
 * makes visible the writes of earlier holders; releasing publishes ours. */
void ompdsm_lock(uint64_t lock_id);
void ompdsm_unlock(uint64_t lock_id);

/* Counters of this node since ompdsm_init. */
typedef struct ompdsm_stats {
    uint64_t read_faults, write_faults;
    uint64_t pages_fetched, pages_served;
    uint64_t diffs_sent, diff_bytes_sent, diff_bytes_applied;
    uint64_t barriers, locks;
    double barrier_wait_s, lock_wait_s; /* barrier_wait_s: only under OMPDSM_STATS=1 */
    uint64_t migrations;                /* home migration points */
    uint64_t pages_migrated_in, pages_migrated_out;
    double migrate_s;                   /* time spent in them */
    uint64_t flushes;                   /* flushes (omp flush, fences) between barriers */
    double flush_s;                     /* time spent in them */
    uint64_t notices_sent, notices_applied; /* write notices pushed between barriers */
} ompdsm_stats_t;
void ompdsm_get_stats(ompdsm_stats_t *out);

/* Home migration, collective: a barrier at which every page whose faults
 * since the previous migration came mostly from another node moves its home
 * there (reads + 2 x writes; a page its home wrote moves only to a node that
 * outweighs the home by 40 %).  Every node calls it at the same point; in
 * an OpenMP program, every thread of the team, in a parallel region.
 * OMPDSM_MIGRATE triggers the same step at the barriers that end parallel
 * regions and worksharing loops. */
void ompdsm_barrier_migrate_home(void);

/* The node that is home of the shared page holding addr now, or -1 if addr
 * is not shared memory. */
int ompdsm_home_of(const void *addr);

/* Size in bytes of a DSM page (OMPDSM_PAGE_SIZE). */
size_t ompdsm_page_size(void);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
