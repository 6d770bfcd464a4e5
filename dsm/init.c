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
#include "dsm.h"
#include "host_seg.h"
#include "image.h"
#include "page_state.h"
#include "stats.h"
#include "../net/boot.h"
#include "../net/liveness.h"
#include "../net/net.h"
#include "../util/log.h"

#include "ompdsm.h"

#include <malloc.h>
#include <stdlib.h>

struct dsm dsm;

static bool initialised;

/* The runtime views (read by other nodes' gets) and the sharer bitmap
 * (set by their atomics). */
static void expose_memory(void)
{
    for (int i = 0; i < dsm.nsegs; i++) {
        void *rt = dsm.segs[i].rt;
        dsm.segs[i].net_id = net_expose(&rt, dsm.segs[i].size, false, dsm.segs[i].memfd);
    }
    void *bits = NULL;
    dsm.sharers_id = net_expose(&bits, 8 * (1 + (dsm.npages + 63) / 64), true, -1);
    dsm.sharers = bits;
}

static void boot_barrier(enum boot_tag tag)
{
    if (dsm.nodes > 1)
        free(boot_allgather(tag, NULL, 0, NULL));
}

/* The program's globals start as each node's own copy of the executable's
 * data; node 0's is the one that counts.  They are normally identical (same
 * binary, same static initialisers); if any node's differs, it takes node
 * 0's wholesale before anything runs. */
static void sync_globals(void)
{
    if (dsm.nsegs < 2 || dsm.nodes == 1)
        return;
    struct dsm_seg *g = &dsm.segs[0];
    uint64_t mine = dsm_fnv1a(DSM_FNV1A_START, g->rt, g->size);
    uint64_t *all = boot_allgather(BOOT_TAG_GLOBALS, &mine, sizeof mine, NULL);
    uint64_t reference = all[0];
    free(all);
    if (mine == reference || dsm.node == 0)
        return;
    struct net_wait w;
    net_rma_begin(&w);
    net_rma_get(&w, 0, g->net_id, 0, g->rt, g->size);
    net_rma_end(&w);
}

/* The runtime's own memory comes from the C library's malloc (the
 * program's from the shared heap, omp_rt/heap.c), and much of it is freed
 * at every release and barrier: the lists of the pages written and
 * announced, 66,000 of them (516 KiB of page numbers) at a NAS FT
 * transpose.  By default glibc hands the freed top of its heap back to the
 * kernel once it exceeds 128 KiB, and serves a block of 128 KiB or more
 * from a mapping of its own that free() unmaps; setting the first limit
 * also stops glibc from raising the second as it sees such blocks freed.
 * Either way the next interval's blocks are fresh pages that the kernel
 * zeroes and maps a fault at a time.  So the node keeps up to 512 MiB of
 * freed heap, and blocks below 32 MiB come from the heap.  (Twins have a
 * pool of their own, dsm/twin.c.) */
static void keep_freed_memory(void)
{
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

void ompdsm_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (initialised)
        return;
    dsm_config_load();
    keep_freed_memory();
    if (boot_init(&dsm.node, &dsm.nodes) < 0) {
        dsm.node = 0;
        dsm.nodes = 1;
    }
    dsm_log_node = dsm.node;
    dsm_check_image(dsm.nodes);
    dsm_segments_init();
    dsm_pages_init();
    dsm_refresh_init();
    if (dsm.nsegs > 1)   /* the program's globals: homes follow OMPDSM_HOME */
        dsm_home_record_alloc(dsm.segs[0].first_page, dsm.segs[0].npages, -1);
    host_seg_init();
    dsm_news_init();
    net_init(dsm.node, dsm.nodes, &dsm_cfg.net);
    expose_memory();
    dsm_home_register();
    dsm_flush_register();
    dsm_barrier_register();
    dsm_lock_register();
    dsm_atomic_register();
    dsm_notice_register();
    net_liveness_register(dsm.node, dsm.nodes, dsm_cfg.node_timeout);
    net_start();
    sync_globals();
    dsm_fault_install();
    boot_barrier(BOOT_TAG_STARTED);
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
        dsm_ps_exit(dsm.segs[0].first_page, dsm.segs[0].npages);
    if (dsm_cfg.stats)
        dsm_stats_report();
    /* Nothing may be on its way to a node that tears down: heartbeats stop,
     * and the messages sent without a reply (write notices) must have
     * left.  After this round no node sends anything: it is safe to tear
     * down. */
    net_liveness_stop();
    net_flush();
    boot_barrier(BOOT_TAG_STOPPING);
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

int ompdsm_home_of(const void *addr)
{
    int64_t page = dsm_page_of((uintptr_t)addr);
    return page < 0 ? -1 : dsm_home_of((uint64_t)page);
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

/* At their home the pinned pages are writable from the start.  Faulting
 * them in on first touch would be wrong: the runtime runs on them and may
 * reach a stack page it has never touched while it holds a DSM lock that
 * the fault handler takes too (dsm.lists_mu), and wait for ever. */
void *dsm_alloc_pinned(size_t size)
{
    void *p = dsm_alloc(size, 0);
    uint64_t n = (size + dsm.page_size - 1) >> dsm.page_shift;
    dsm.pinned_first = (uint64_t)dsm_page_of((uintptr_t)p);
    dsm.pinned_end = dsm.pinned_first + n;
    if (dsm_home_of(dsm.pinned_first) != dsm.node)
        return p;
    /* dsm_home_of() also caches each page's home, which invalidate.c reads
     * for the pages a node holds. */
    for (uint64_t page = dsm.pinned_first; page < dsm.pinned_end; page++)
        if (dsm_home_of(page) != dsm.node)
            dsm_fatal("internal: pinned page %lu is not homed here", (unsigned long)page);
    dsm_ps_pin(dsm.pinned_first, n);
    return p;
}

void *ompdsm_alloc(size_t size)
{
    return dsm_alloc(size, -1);
}

void ompdsm_flush(void)
{
    dsm_flush();
}

void ompdsm_barrier(void)
{
    dsm_barrier();
}

void ompdsm_lock(uint64_t lock_id)
{
    dsm_lock_acquire(DSM_LOCK_PROGRAM, lock_id);
}

void ompdsm_unlock(uint64_t lock_id)
{
    dsm_lock_release(DSM_LOCK_PROGRAM, lock_id);
}
