/*
 * init.c: the public C interface (include/ompdsm.h): joining and leaving
 * the job, shared allocation, and the synchronisation entry points.
 *
 * Start-up order matters: the configuration first (a bad variable must stop
 * the node before anything is mapped), then the bootstrap (which names this
 * node), the shared region and page tables, UCX and its handlers, the
 * progress thread, and the SIGSEGV handler last, once everything a fault
 * needs exists.  A bootstrap round at the end makes sure every node is
 * ready to serve requests before any returns from ompdsm_init().
 */
#include "boot.h"
#include "dsm.h"
#include "log.h"
#include "net.h"
#include "stats.h"

#include "ompdsm.h"

#include <stdlib.h>

struct dsm dsm;

static bool initialised;

static void boot_barrier(uint32_t tag)
{
    if (dsm.nodes > 1)
        free(boot_allgather(tag, NULL, 0, NULL));
}

void ompdsm_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (initialised)
        return;
    dsm_config_load();
    if (boot_init(&dsm.node, &dsm.nodes) < 0) {
        dsm.node = 0;
        dsm.nodes = 1;
    }
    dsm_log_node = dsm.node;
    dsm_segments_init();
    dsm_pages_init();
    if (dsm.nsegs > 1)   /* the program's globals: homed at node 0, which runs main() */
        dsm_home_record_alloc(dsm.segs[0].first_page, dsm.segs[0].npages, 0);
    net_init(dsm.node, dsm.nodes);
    dsm_fetch_register();
    dsm_home_register();
    dsm_flush_register();
    dsm_barrier_register();
    dsm_lock_register();
    dsm_atomic_register();
    net_start();
    dsm_fault_install();
    boot_barrier(2);
    initialised = true;
}

void ompdsm_finalize(void)
{
    if (!initialised)
        return;
    dsm_barrier();
    /* Code that runs after this (exit handlers, destructors) may still use
     * the program's globals; node 0 is their home and has every write. */
    if (dsm.nsegs > 1 && dsm.node == 0)
        dsm_protect(dsm.segs[0].first_page, dsm.segs[0].npages, PG_RW);
    if (dsm_cfg.stats)
        dsm_stats_report();
    /* After this round no node sends anything: it is safe to tear down. */
    boot_barrier(4);
    dsm_fault_remove();
    net_finalize();
    boot_finalize();
    initialised = false;
}

int ompdsm_node(void)
{
    return dsm.node;
}

int ompdsm_nodes(void)
{
    return dsm.nodes;
}

size_t ompdsm_page_size(void)
{
    return dsm.page_size;
}

void *dsm_alloc(size_t size, int home)
{
    uintptr_t end = dsm.alloc_end;
    size_t rounded = (size + dsm.page_size - 1) & ~(dsm.page_size - 1);
    if (size == 0)
        dsm_fatal("ompdsm_alloc(0): the size must be positive");
    if (rounded < size || rounded > end - dsm.alloc_next)
        dsm_fatal("shared memory exhausted: cannot allocate %zu bytes (%zu of %zu bytes in use); "
                  "raise OMPDSM_REGION_SIZE",
                  size, (size_t)(dsm.alloc_next - dsm_cfg.region_base), (size_t)(end - dsm_cfg.region_base));
    void *p = (void *)dsm.alloc_next;
    dsm_home_record_alloc((uint64_t)dsm_page_of(dsm.alloc_next), rounded >> dsm.page_shift, home);
    dsm.alloc_next += rounded;
    return p;
}

void *ompdsm_alloc(size_t size)
{
    return dsm_alloc(size, -1);
}

void ompdsm_barrier(void)
{
    dsm_barrier();
}

void ompdsm_lock(uint64_t lock_id)
{
    dsm_lock_acquire(lock_id);
}

void ompdsm_unlock(uint64_t lock_id)
{
    dsm_lock_release(lock_id);
}
