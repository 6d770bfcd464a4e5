/*
 * dsm.h: the coherence layer's interface (prefix dsm_): the state its files
 * share and what the layers above use.
 *
 * The layers above (migrate/, profiler/, omp_rt/) include this header and
 * no other of dsm/, but for home migration's rehome.h: the others
 * (page_state.h, proto.h, diff.h, image.h) are the layer's own, and a
 * change to them concerns dsm/ alone.  This header brings two with it that
 * are part of the interface: config.h (the OMPDSM_* settings) and stats.h
 * (the counters, which home migration bumps too, and the report's hooks).
 * tests/unit/layers.sh checks the rule, and that every layer includes only
 * those below it: util/ <- net/ <- dsm/ <- migrate/, profiler/ <- omp_rt/.
 *
 * Memory is a set of segments (the shared region now; the executable's data
 * later), each backed by a memfd mapped twice: the application view, whose
 * per-page protection drives the protocol, and the runtime view, always
 * read-write, through which pages are installed, diffs applied and requests
 * served.  Pages are numbered globally across segments.
 *
 * Per page, every node keeps a state (INVALID/RO/RW), flags, a home hint
 * and, while it writes a page it is not home of, a twin.  The arrays are
 * sparse anonymous mappings: untouched pages cost nothing.  Only the
 * transitions of page_state.c change them (page_state.h); other files
 * read them.
 *
 * Locking: each page belongs to a stripe (mutex + condition).  Stripe locks
 * are leaves: nothing is sent and nothing waited for while one is held.  A
 * page whose fetch or flush is under way is marked BUSY; other threads that
 * fault on it sleep on the stripe's condition until it is settled.
 */
#ifndef DSM_DSM_H
#define DSM_DSM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "stats.h"

struct dsm_buf;     /* util/buf.h */

enum dsm_state { PG_INVALID = 0, PG_RO = 1, PG_RW = 2 };

enum dsm_flag {
    PF_BUSY = 1 << 0,     /* a fetch or flush of the page is under way */
    PF_SHARER = 1 << 1,   /* not at the home: we are (or are about to be) in the
                             home's sharer bitmap */
    PF_REL = 1 << 2,      /* in the list of pages written since the last release */
    PF_BAR = 1 << 3,      /* in the list of pages written since the last barrier */
    PF_HRW = 1 << 4,      /* at the home: writable with nobody else holding a copy */
    PF_CNT = 1 << 5,      /* in the list of pages faulted on in this migrate region */
    PF_HOT = 1 << 6,      /* not at the home: kept writable across releases, its twin
                             refreshed at each (flush.c) */
    PF_HELD = 1 << 7,     /* not at the home: this node fetched the page before (a hint
                             for read-ahead, fault.c; SHARER may be cleared since) */
    PF_AHEAD = 1 << 8,    /* not at the home: made writable by write-ahead ahead of a
                             write that may not come (fault.c); in the release list
                             only: announced if its diff is not empty (flush.c) */
    PF_AHEAD_COUNTED = 1 << 9, /* ... and counted for migration already (a sweep's) */
    PF_LAG = 1 << 10,     /* INVALID, still readable: a copy an idle node's barrier
                             dropped (dsm_idle_begin), in the list `lagging` */
    PF_HOT_LISTED = 1 << 11, /* in flush.c's list of hot pages, which forgets a page
                                that stopped being hot at its next release only */
};

#define DSM_MAX_SEGS 4
#define DSM_STRIPES 256

struct dsm_seg {
    uintptr_t base;       /* application view */
    char *rt;             /* runtime view */
    size_t size;
    uint64_t first_page;
    uint64_t npages;
    int memfd;
    int net_id;           /* the runtime view, exposed for one-sided gets */
};

/* A growable list of page numbers, deduplicated by a page flag. */
struct dsm_plist {
    uint64_t *pages;
    size_t n, cap;
};

struct dsm_stripe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

struct dsm {
    int node, nodes;
    size_t page_size;
    unsigned page_shift;
    struct dsm_seg segs[DSM_MAX_SEGS];
    int nsegs;
    uint64_t npages;
    uint8_t *state;
    uint16_t *flags;
    uint16_t *home;               /* home node + 1; 0 while unknown */
    void **twin;
    struct dsm_stripe stripes[DSM_STRIPES];
    pthread_mutex_t lists_mu;     /* guards the lists below */
    /* Held by an acquire outside a barrier from taking its list of pages
     * (notices, suspects) until it has dropped them: another thread of the
     * node that finds the list empty then knows the copies are gone. */
    pthread_mutex_t acquire_mu;
    struct dsm_plist rel, bar;
    struct dsm_plist home_rw;     /* home pages writable without notices (PF_HRW) */
    struct dsm_plist fresh;       /* installed before we were a sharer: to register */
    struct dsm_plist suspect;     /* registered at the last release: to drop */
    struct dsm_plist lagging;     /* dropped while idle, still readable (PF_LAG) */
    /* Faults per page since the last home migration (migrate/ reads and
     * resets them), and the list of the pages counted (PF_CNT). */
    uint32_t *reads, *writes;
    struct dsm_plist counted;
    uint64_t remote_writes;       /* write faults on pages homed elsewhere, since then */
    /* The sharer bitmap of the pages this node is home of: word 0 counts
     * registrations, then one bit per page.  Other nodes set bits with
     * one-sided atomics (flush.c); the bits are never cleared. */
    uint64_t *sharers;
    int sharers_id;
    uint64_t sharers_seen;        /* word 0 when home_rw was last checked */
    /* Pinned pages [pinned_first, pinned_end): the stack node 0 runs main()
     * and the runtime on.  Their home never write-protects them (its own
     * runtime writes them while holding DSM locks); it finds its writes by
     * comparing them with a snapshot, kept in twin[], at each release. */
    uint64_t pinned_first, pinned_end;
    /* While this node holds locks, every page a release publishes is also
     * logged here: a lock's release must announce everything written since
     * that lock was acquired, even what an inner lock's release already
     * flushed (lock.c). */
    int locks_held;
    struct dsm_plist lock_log;
    uint64_t epoch;               /* barriers completed */
    /* The program's threads that may write shared pages at once on this
     * node (OMPDSM_THREADS_PER_NODE): above 1, no page stays writable
     * across a release (hot pages are diffed unprotected) and an acquire
     * flushes again what another thread wrote meanwhile. */
    int app_threads;
    uintptr_t alloc_next;         /* bump pointer of ompdsm_alloc */
    uintptr_t alloc_end;          /* where the shared heap's arenas begin */
};

extern struct dsm dsm;

/* Every mutex of the runtime above the transport is taken through these
 * (the transport counts its own lock's depth, net.c).  A checking build
 * counts, per thread, those held: the fault path must start with none
 * (dsm/PROTOCOL.md, "Contexts"). */
#ifdef OMPDSM_CHECKING
extern __thread int dsm_mutexes_held;
#endif
static inline void dsm_lock(pthread_mutex_t *m)
{
    pthread_mutex_lock(m);
#ifdef OMPDSM_CHECKING
    dsm_mutexes_held++;
#endif
}
/* Takes the mutex only if it is free; says whether it did. */
static inline bool dsm_trylock(pthread_mutex_t *m)
{
    if (pthread_mutex_trylock(m))
        return false;
#ifdef OMPDSM_CHECKING
    dsm_mutexes_held++;
#endif
    return true;
}
static inline void dsm_unlock(pthread_mutex_t *m)
{
#ifdef OMPDSM_CHECKING
    dsm_mutexes_held--;
#endif
    pthread_mutex_unlock(m);
}

/* Flags are changed under different locks (a stripe's, the lists' mutex) and
 * by the progress thread, so every change is an atomic read-modify-write. */
static inline bool dsm_flag(uint64_t page, uint16_t f)
{
    return __atomic_load_n(&dsm.flags[page], __ATOMIC_RELAXED) & f;
}
static inline void dsm_flag_set(uint64_t page, uint16_t f)
{
    __atomic_fetch_or(&dsm.flags[page], f, __ATOMIC_RELAXED);
}
static inline void dsm_flag_clear(uint64_t page, uint16_t f)
{
    __atomic_fetch_and(&dsm.flags[page], (uint16_t)~f, __ATOMIC_RELAXED);
}

/* segment.c */
/* Before dsm_segments_init: share the executable's data [start, end). */
void dsm_set_globals(uintptr_t start, uintptr_t end);
void dsm_segments_init(void);
int64_t dsm_page_of(uintptr_t addr);
/* Whether any byte of [p, p + len) is shared; not for NULL or len 0.  The
 * bytes are not read (a read() buffer is not written yet). */
bool dsm_range_shared(const void *p, size_t len) __attribute__((access(none, 1)));
/* In a child process the program forked: each segment mapped again,
 * privately (copy on write), readable and writable, with this node's
 * copies as they are (main()'s stack copied from stack_in_use up, at
 * once); from then on no memory is shared. */
void dsm_segments_privatize(uintptr_t stack_in_use);
struct dsm_seg *dsm_seg_of(uint64_t page);
char *dsm_app(uint64_t page);
char *dsm_rt(uint64_t page);
void dsm_protect(uint64_t first, uint64_t n, enum dsm_state st);
void dsm_protect_list(const uint64_t *sorted, size_t n, enum dsm_state st);
/* The runtime view of pages [first, first + n) of one segment, backed and
 * mapped in one call where it does not map them yet (the memory a fetch
 * from another host, a diff or a migration is about to write): page by
 * page, as the runtime first writes them, the kernel takes a fault for
 * each (11-19 us a page on this machine's VMs against 5-10 us in one call,
 * when they were measured).  Best effort.  A fetch from a home of this host
 * does without (fault.c says why). */
void dsm_populate(uint64_t first, uint64_t n);
/* The same for a list of pages, a call per run of consecutive ones. */
void dsm_populate_pages(const uint64_t *pages, size_t n);

/* page.c */
void dsm_pages_init(void);
/* A zeroed table of elem bytes per page, given memory only where touched. */
void *dsm_page_table(size_t elem);
struct dsm_stripe *dsm_stripe(uint64_t page);
void dsm_note_written(uint64_t page);      /* stripe lock held */
/* A page whose writes a release has just published without its fault
 * (a hot page, flush.c): only the next barrier's notices still need it. */
void dsm_note_announced(uint64_t page);
/* A page made writable ahead of a write that may not come (write-ahead):
 * in the release list only, flagged PF_AHEAD (and PF_AHEAD_COUNTED if
 * `counted`); the release announces it if its diff is not empty (stripe
 * lock held). */
void dsm_note_ahead(uint64_t page, bool counted);
/* The page's writes of the last interval were published without a diff
 * (a pinned page at its home): out of the release list's count. */
void dsm_rel_done(uint64_t page);
/* Takes the list of pages written since the last barrier (empty `out`). */
void dsm_bar_take(struct dsm_plist *out);
/* Takes the list of pages counted in this migrate region (empty `out`). */
void dsm_counted_take(struct dsm_plist *out);
void dsm_count_fault(uint64_t page, bool write);
void dsm_count_remote_write(uint64_t page, int home);
void dsm_plist_add(struct dsm_plist *l, uint64_t page);
/* A page-sized buffer for a twin, and its return (twin.c): kept for the
 * next twin, never given back to the system. */
void *dsm_twin_alloc(void);
void dsm_twin_free(void *twin);
void dsm_plist_take(struct dsm_plist *from, struct dsm_plist *to);
bool dsm_plist_empty(const struct dsm_plist *l);     /* a hint: no mutex needed */
void dsm_plist_sort(struct dsm_plist *l);
void dsm_plist_sort_unique(struct dsm_plist *l);     /* sorted, each page once */
bool dsm_plist_has(const struct dsm_plist *sorted, uint64_t page);
void dsm_plist_free(struct dsm_plist *l);

/* home.c */
int dsm_home_of(uint64_t page);            /* may ask the base; no stripe lock held */
int dsm_home_known(uint64_t page);         /* the home if known without a message, else -1 */
void dsm_home_record_alloc(uint64_t first, uint64_t n, int fixed_home);
void dsm_home_register(void);

/* fault.c */
void dsm_fault_install(void);
void dsm_fault_thread_init(void);       /* each application thread */
void dsm_fault_remove(void);
/* sig_user.c: the program's SIGSEGV disposition while the DSM's handler is
 * installed (taken with what was there before, given back at the end;
 * dsm_sig_deliver: the one a signal outside shared memory goes to, reset
 * to the default as the kernel would if the program asked SA_RESETHAND);
 * the C library's sigaction, bypassing the program's view. */
struct sigaction;
void dsm_sig_take(const struct sigaction *before);
void dsm_sig_give_back(struct sigaction *now);
void dsm_sig_deliver(struct sigaction *out);
int dsm_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
void dsm_fault(uint64_t page, bool write);

/* flush.c: publishes this node's writes at the homes; returns, sorted, the
 * pages written since the previous release.  `barrier`: the release of a
 * barrier, whose notices every node applies (pages written here at their
 * home are unshared, dsm_ps_home_unshare; on one host its diffs may be
 * still on their way when it returns, dsm_wait_applied). */
void dsm_release(struct dsm_plist *written, bool barrier);
/* The node runs up to n program threads from now on (dsm.app_threads); the
 * first time it runs more than one, its hot pages cool.  Right after a
 * release, with no application thread running. */
void dsm_set_app_threads(int n);
/* Waits until the homes have applied every diff batch that barriers'
 * releases posted (a barrier, before its acquire, and before a node runs
 * other nodes' tasks in it). */
void dsm_wait_applied(void);
/* Sends op with a batch_hdr + batches[n] to every node n with counts[n]
 * entries, and waits until each has answered net_send_done(cookie) once
 * it has applied them (home migration's OP_MIG_COUNTS; OP_DIFF's batch
 * header is the same, diff_out.c). */
struct batch_hdr { uint64_t cookie; uint64_t count; };
void dsm_send_batches(uint8_t op, const struct dsm_buf *batches, const uint64_t *counts);
void dsm_flush_register(void);

/* barrier.c */
void dsm_barrier(void);
/* Between dsm_barrier_quiet(true) and dsm_barrier_quiet(false) this node's
 * barriers publish nothing: its release is left out.  For the runtime's
 * own steps that pass several barriers after one that published
 * everything, with no shared write of this node in between (a home
 * migration): such a release would find nothing to diff, yet compares
 * every hot page with its twin (about 6 ms for NAS FT's 16,000 at each
 * barrier on this machine). */
void dsm_barrier_quiet(bool on);
/* A barrier whose release carries node 0's payload to every node; returns
 * a malloc'd copy (NULL if empty) and its length (other nodes' payloads are
 * ignored). */
void *dsm_barrier_bcast(const void *payload, size_t len, size_t *out_len);
/* A barrier whose release carries every node's payload, concatenated in
 * the order the nodes arrived, to every node (an allgather). */
void *dsm_barrier_gather(const void *payload, size_t len, size_t *out_len);
/* A barrier that adds up a number from every node and returns the sum at
 * every node: it costs what dsm_barrier does (the number rides in the
 * barrier's header). */
uint64_t dsm_barrier_sum(uint64_t mine);
/* Data an upper layer attaches to every barrier: provide() is called at
 * each arrival (a malloc'd buffer or NULL), consume() at each release with
 * every node's data concatenated, the same on every node. */
void dsm_barrier_extra(void *(*provide)(size_t *len), void (*consume)(const void *data, size_t len));
void dsm_barrier_register(void);
/* While a node waits for a barrier's release and wanted() says so, it
 * calls work() again and again (true: it did something; false: nothing to
 * do now, it sleeps until news).  Work that writes shared pages must then
 * call dsm_barrier_update() before anything it did lets another node
 * arrive: the pages join the barrier's notices. */
void dsm_barrier_work(bool (*wanted)(void), bool (*work)(void));
void dsm_barrier_update(void);
/* A node idle between barriers (an OpenMP node other than 0 from a
 * region's end to the next command).  From dsm_idle_begin() until
 * dsm_idle_end(), its threads run no application code but in a barrier's
 * wait (work, above), and the acquires of its barriers leave the read-only
 * copies they drop readable (PF_LAG).  The node's next barrier protects
 * them as it arrives (in coalesced ranges, as the acquire would have), but
 * the page holding `keep`, which dsm_idle_end() protects if it is still
 * dropped then, before the application runs again.  A copy of that page
 * installed again meanwhile (dsm_install_copy: the page of a region's
 * data, which node 0 writes at every region) so costs no protection
 * change: removing read access costs a TLB shoot-down (45 us on this
 * project's test machines when the other CPU is busy).  The node's barriers
 * after its first one there publish nothing (dsm_barrier_quiet): it wrote
 * nothing since, and a task it runs in a barrier's wait publishes its own
 * writes. */
void dsm_idle_begin(const void *keep);
void dsm_idle_end(void);
/* The barrier's epoch + 1 while this node has arrived at it and waits for
 * its release, else 0: another thread of the node may then do the same
 * work (and call dsm_barrier_update) for that barrier. */
uint64_t dsm_barrier_arrived(void);
/* Barriers among nodes 0 .. k-1 only (an OpenMP team smaller than the
 * job); every node of the group sets it at the same point, k = nodes ends
 * it.  The other nodes are idle: they wait in dsm_barrier_idle_wait() until
 * node 0 calls dsm_barrier_wake_idle(), which hands them the write notices
 * of the group's barriers and the epoch, with `why` and data for the layer
 * above (the OpenMP layer says what the idle nodes are to do next); it
 * wakes the nodes outside the current group, so it comes before the group
 * changes. */
void dsm_barrier_group(int k);
int dsm_barrier_group_size(void);
void dsm_barrier_wake_idle(uint32_t why, const void *data, size_t len);
uint32_t dsm_barrier_idle_wait(void **data, size_t *len);

/* lock.c.  A lock is named by a space and a key: each user of the lock
 * manager names its locks in a space of its own, so that the keys of
 * different users never name the same lock, whatever their values. */
enum dsm_lock_space {
    DSM_LOCK_PROGRAM,   /* ompdsm_lock(): any 64-bit value the program chooses */
    DSM_LOCK_OMP,       /* omp_*_lock (omp_rt/lock.c): the lock variable's address */
    DSM_LOCK_CRITICAL,  /* critical: the name pointer's address, 0 for the unnamed one */
    DSM_LOCK_ATOMIC,    /* GOMP_atomic_start/end: the one key 0 */
    DSM_LOCK_ORDERED,   /* ordered (omp_rt/loop.c): the region and the loop's sequence */
};
void dsm_lock_acquire(enum dsm_lock_space space, uint64_t key);
bool dsm_lock_try(enum dsm_lock_space space, uint64_t key);      /* false if held elsewhere */
void dsm_lock_release(enum dsm_lock_space space, uint64_t key);
/* node_lock.c: the same names among the threads of this node. */
void dsm_node_lock(uint32_t space, uint64_t key);
bool dsm_node_trylock(uint32_t space, uint64_t key);
void dsm_node_unlock(uint32_t space, uint64_t key);
/* Waits until the managers have taken every release this node sent: a
 * barrier does before it arrives, so that a lock released before a
 * barrier is free after it at every node. */
void dsm_lock_settle(void);
void dsm_lock_register(void);

/* atomic.c: an atomic operation on a shared address, run at the page's
 * home; returns the previous value (for CAS: the value found, which equals
 * v1 when the swap to v2 happened). */
enum dsm_atomic_op {
    DSM_AT_LOAD, DSM_AT_STORE, DSM_AT_XCHG, DSM_AT_CAS,
    DSM_AT_ADD, DSM_AT_SUB, DSM_AT_AND, DSM_AT_OR, DSM_AT_XOR, DSM_AT_NAND,
};
uint64_t dsm_atomic(uintptr_t addr, enum dsm_atomic_op op, int size, uint64_t v1, uint64_t v2);
void dsm_atomic_register(void);
/* The value a read-modify-write operation (ADD .. NAND) leaves where it
 * found `old`; for STORE and XCHG, v. */
uint64_t dsm_atomic_apply(enum dsm_atomic_op op, uint64_t old, uint64_t v);
/* The same operation on a private address, with a CPU atomic. */
uint64_t dsm_atomic_local(volatile void *p, enum dsm_atomic_op op, int size, uint64_t v1, uint64_t v2);

/* init.c: collective allocation in the shared region; home -1 follows the
 * policy, otherwise every page of the block is homed at that node. */
void *dsm_alloc(size_t size, int home);

/* image.c: the executable's build id (or file hash), in hex: what names
 * the program in files one run leaves for the next. */
const char *dsm_program_id(void);

/* flush.c: whether this node published writes to the page (not its home)
 * at one of its last 16 releases. */
bool dsm_wrote_lately(uint64_t page);
/* fault.c: `bytes`, the contents of the page holding addr as node `from`,
 * its home, sent them with a barrier, become this node's copy, read-only,
 * as a fetch would make it, if the node holds none; false if it holds one
 * or `from` is not the page's home. */
bool dsm_install_copy(const void *addr, int from, const void *bytes);
/* fault.c: the contents of the page holding addr if this node is its home
 * and holds it (not INVALID), for dsm_install_copy at the others; NULL
 * otherwise. */
const void *dsm_home_page_bytes(const void *addr);
/* flush.c: drops the copies registered at the last release (see there). */
void dsm_drop_suspects(void);
/* At a barrier's end, after its acquire: write-protects the home pages
 * held writable while nobody shared them that a node has registered for
 * since this node's release, without announcing them (flush.c). */
void dsm_quiet_catch(void);
/* flush.c: before this node runs another node's task while it waits in a
 * barrier: the home pages its release there unshared count as shared
 * again, so that its next release announces them. */
void dsm_share_unshared(void);

static inline bool dsm_pinned(uint64_t page)
{
    return page - dsm.pinned_first < dsm.pinned_end - dsm.pinned_first;
}
/* init.c: like dsm_alloc, homed at node 0 and pinned (one block only). */
void *dsm_alloc_pinned(size_t size);

/* flush.c: the floor of the program's frames on the pinned stack.  While
 * the runtime runs on that stack, the program's frames lie at and above
 * the floor, the runtime's own below it: those change at every call and
 * no other node reads them, so a release compares with their twins only
 * the pinned bytes at and above the floor.  NULL (the program's own code
 * runs): every pinned byte counts.  The OpenMP layer sets it at its entry
 * points (omp_rt/entry.c). */
const void *dsm_stack_floor(void);
void dsm_set_stack_floor(const void *floor);

/* notice.c: write notices between barriers.  dsm_flush() is OpenMP's
 * flush: publish this node's writes, make every node queue their notices,
 * drop the copies other nodes' notices name.  dsm_release_push() is a
 * release whose pages are pushed to every node (waiting for them to be
 * queued, or not); dsm_notice_apply() is the acquire of the queued notices
 * (and of the pages a lock's grant names, if any: `granted`, k of them);
 * dsm_notice_prune() drops those a barrier made stale (after it).
 * dsm_flush_no_wait() is a flush that never sleeps for news, as dsm_flush()
 * does when called again and again with nothing new (an atomic's flush:
 * the atomic itself reads the home's value). */
void dsm_flush(void);
void dsm_flush_no_wait(void);
size_t dsm_release_push(bool wait);     /* returns the number of pages published */
/* Holds off every release of this node, if none runs now (a message
 * handler, which must not wait): says whether it did; then
 * dsm_release_resume().  No release reads a hot page's twin meanwhile. */
bool dsm_release_try_hold(void);
void dsm_release_resume(void);
void dsm_notice_push(const uint64_t *pages, size_t n, bool wait);
size_t dsm_notice_apply(const uint64_t *granted, size_t k);  /* returns the number of notices applied */
void dsm_notice_prune(void);
void dsm_notice_register(void);
/* News: something another node did changed this node's memory or inbox,
 * or an upper layer has something to tell its waiting threads.  A thread
 * reads dsm_news() before it checks what it waits for, then sleeps with
 * dsm_news_wait() until the count moves (true) or timeout_us pass. */
void dsm_notice_news(void);
/* Rings a node's news word if a thread sleeps on it: for news that the
 * waiter checks itself (dsm_news_wait_or's ready), which it does again once
 * asleep.  Another node's word only when the nodes share a host segment
 * (host_seg.h). */
void dsm_ring_sleeper(int node);
/* dsm_ring_sleeper for every node below `nodes` but this one. */
void dsm_ring_other_sleepers(int nodes);
/* Like dsm_news_wait, for news another node of the host writes into the
 * host segment: while it polls, it also stops when ready() holds (the
 * awaited word itself, watched before the news word is rung), and it
 * progresses the transport less often. */
bool dsm_news_wait_or(uint32_t seen, unsigned timeout_us, bool (*ready)(void));
/* At start-up, once the host segment is set up or not. */
void dsm_news_init(void);
uint32_t dsm_news(void);
bool dsm_news_wait(uint32_t seen, unsigned timeout_us);

/* Drops copies outside a barrier (a lock's grant, notices, suspect
 * copies), as dsm_invalidate() does (page_state.h); a page this node also wrote since its last release is published first
 * (and its notice pushed), so that none of its writes is lost. */
void dsm_drop_copies(const uint64_t *pages, size_t n);
/* The same for the pages a lock's grant names, except that the copies
 * dsm_refresh_copies() refreshes are kept.  The pages must be distinct;
 * they are reordered. */
void dsm_acquire_copies(uint64_t *pages, size_t n);
/* At a barrier's acquire or a lock's grant, before dsm_invalidate(): the hot
 * copies and the read-only copies read again and again among the announced
 * pages (writers: as dsm_invalidate's, or NULL) are refreshed from their
 * homes and keep their state (refresh.c); the others are kept, in order,
 * in pages and writers.  Returns how many those are. */
size_t dsm_refresh_copies(uint64_t *pages, int32_t *writers, size_t n);
/* At start-up. */
void dsm_refresh_init(void);
/* This node fetched the page again (it held it before): if soon after a
 * barrier dropped it, the next barriers that announce writes to it refresh
 * the copy instead (refresh.c).  The caller owns the page (BUSY). */
void dsm_refresh_fetched(uint64_t page);
/* A hot copy's diff was taken with this node's writes in it (flush.c): it
 * starts a new stretch of barriers without them (refresh.c). */
void dsm_refresh_hot_written(uint64_t page);
/* Another node wrote the page lately (a diff came at its home, or a hot
 * copy was refreshed elsewhere): it stays hot longer (flush.c). */
void dsm_note_written_elsewhere(uint64_t page);

#endif
