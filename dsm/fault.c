/*
 * fault.c: the SIGSEGV handler and the page state machine.
 *
 * A fault inside a DSM segment is an access the page's state does not allow;
 * dsm_fault() moves the page to a state that allows it, through the
 * transitions of page_state.c (dsm/PROTOCOL.md has the table): at a node
 * that is not the home, a fetch from the home (read-miss, write-miss: one
 * fault, the x86 error code says it is a write) or a twin (write-upgrade);
 * at the home, RW if no other node may hold a copy (its sharer bit is
 * clear), else RO for a read and RW + noted for a write.
 *
 * Pages written at a non-home node are diffed against their twin at the
 * next release (flush.c).  The home notes its own writes only while others
 * may hold copies; a page it made writable while nobody did is watched
 * (home_rw) and noted at the next release if a sharer appeared meanwhile.
 * Fetching is a one-sided get of the home's runtime view.
 *
 * A fault outside every segment is the program's own: it goes to the
 * handler the program had installed, or is re-raised as the real SIGSEGV.
 */
#include "config.h"
#include "dsm.h"
#include "page_state.h"
#include "proto.h"
#include "stats.h"
#include "../net/net.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

/* ---- fetching a page from its home -------------------------------------- */

/* A one-sided get of pages page, page + stride, ... (n of them, one
 * segment, one home, all claimed) from the home's runtime view: one get
 * for a run (stride 1), one per page otherwise, in one batch.  The pages
 * this node is not a sharer of yet are registered first, in the same
 * batch: the home then counts our copy in every decision it takes after
 * the get (it notes its writes to them, and catches those it made to a
 * page it held writable, at its next release), so the copy need not be
 * dropped as suspect at our next acquire and fetched a second time.
 *
 * From a home of this host (a view of its file, net_rma_direct) the
 * runtime view's page is not mapped first (dsm_populate: a madvise, which
 * holds the address space's lock for reading while the node's protection
 * changes take it for writing; two threads of a node faulting on remote
 * pages waited on each other there, 1.0-1.08 times the fault rate of one
 * thread).  A single page is copied into the runtime view, which the kernel
 * maps at that copy's fault (no lock of the address space); a run is
 * written into the segment's file in one call (pwrite: the kernel fills
 * the pages without mapping them here, nor clearing them first).  Per page
 * here: 4 us populated and copied, 2.7 copied at a fault, 1.6 written in
 * a run of 16.  benchmarks/micro/fault_threads: 2 threads 1.5 times one
 * (medians).  The runtime view maps a written page when it first reads it
 * (a twin, a diff). */
static void fetch(uint64_t page, uint64_t n, uint64_t stride, int home)
{
    struct dsm_seg *seg = dsm_seg_of(page);
    uint64_t masks[stride == 1 ? n / 64 + 2 : n + 1], end = page + n * stride;
    uint64_t piece = stride == 1 ? n : 1, step = stride == 1 ? n : stride;   /* pages of a get */
    bool direct = net_rma_direct(home, seg->net_id), file = direct && piece > 1;
    for (uint64_t q = page; q < end && !direct; q += step)
        dsm_populate(q, piece);
    struct net_wait w;
    net_rma_begin(&w);
    dsm_ps_register_run(&w, page, n, stride, home, masks);
    for (uint64_t q = page; q < end; q += step) {
        uint64_t at = (q - seg->first_page) << dsm.page_shift;
        if (file)
            net_rma_get_file(&w, home, seg->net_id, at, seg->memfd, at, piece << dsm.page_shift);
        else
            net_rma_get(&w, home, seg->net_id, at, dsm_rt(q), piece << dsm.page_shift);
    }
    net_rma_end(&w);
    for (uint64_t q = page; q < end; q += stride) {
        if (dsm_flag(q, PF_HELD))
            dsm_refresh_fetched(q);
        dsm_ps_fetched(q, true);
    }
    STAT_ADD(pages_fetched, n);
}

bool dsm_install_copy(const void *addr, int from, const void *bytes)
{
    int64_t p = dsm_page_of((uintptr_t)addr);
    if (p < 0 || dsm_home_known((uint64_t)p) != from || from == dsm.node)
        return false;
    uint64_t page = (uint64_t)p;
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    bool take = dsm.state[page] == PG_INVALID && !dsm_flag(page, PF_BUSY);
    if (take)
        dsm_ps_claim(page);
    dsm_unlock(&s->mu);
    if (!take)
        return false;
    memcpy(dsm_rt(page), bytes, dsm.page_size);
    dsm_ps_fetched(page, false);
    dsm_settle_claimed(&page, 1, PG_RO, DSM_EV_READ_MISS);
    return true;
}

const void *dsm_home_page_bytes(const void *addr)
{
    int64_t p = dsm_page_of((uintptr_t)addr);
    if (p < 0 || dsm_home_known((uint64_t)p) != dsm.node || dsm.state[p] == PG_INVALID)
        return NULL;
    return dsm_rt((uint64_t)p);
}

/* Read-ahead: the pages after a faulting one that are likely to be read
 * soon come in the same get, read-only, contiguous, with the same home, not
 * held now.  Two kinds are likely: pages this node held before and lost to
 * a write notice (a row of a grid that spans several pages, the
 * neighbour's boundary of a stencil), up to OMPDSM_READAHEAD of them; and,
 * when the fault continues a run fetched just before (a sweep over an
 * array, or over several arrays at once), any page, in a window that
 * doubles at each fault of the sweep, as the kernel's own read-ahead does:
 * a sweep over many pages then costs a few large gets, not one per page.
 * A sweep may also go down a column, a page of every plane (a transpose, a
 * line sweep along the slowest axis: NAS FT's third FFT reads pages 256
 * apart): then the pages `stride` apart are read ahead, one get each in
 * one batch.  Other pages never held are left alone: they may not be
 * needed at all.  The pages are claimed (marked BUSY) here.  Returns how
 * many follow `page`; no stripe lock may be held. */
static uint64_t claim_readahead(uint64_t page, int home, uint64_t max, bool sweep, uint64_t stride)
{
    struct dsm_seg *seg = dsm_seg_of(page);
    uint64_t end = seg->first_page + seg->npages, n = 0;
    for (uint64_t q = page + stride; q < end && n < max; q += stride, n++) {
        if (dsm_home_known(q) != home)
            break;
        struct dsm_stripe *s = dsm_stripe(q);
        dsm_lock(&s->mu);
        bool ok = dsm.state[q] == PG_INVALID
               && (sweep || dsm_flag(q, PF_HELD)) && !dsm_flag(q, PF_BUSY);
        if (ok)
            dsm_ps_claim(q);
        dsm_unlock(&s->mu);
        if (!ok)
            break;
    }
    return n;
}

/* This thread's last few sweeps: the pages the last run read ahead (from
 * `ahead`, `stride` apart, up to `end`), and the read-ahead window of the
 * next fault, at `end`.  A stencil sweeps many arrays at once (Himeno's
 * solver 14), each a sweep of its own.  The window grows to at most
 * SWEEP_MAX_PAGES: the last window of a sweep usually runs past what the
 * node uses (into the neighbour's rows), and those pages stay registered
 * as shared, so the home takes a write fault on each, and this node
 * fetches it again, whenever the home writes it.  16 pages (64 KiB per
 * get) keep that small; 64 made profiled Laplace and Himeno 4-7 % slower
 * with a node slowed (interleaved runs).  A column is recognised by three
 * misses the same distance apart (at most STRIDE_MAX pages) among this
 * thread's last MISSES that continued no sweep; its window starts at
 * STRIDE_FIRST pages. */
enum { SWEEPS = 32, SWEEP_MAX_PAGES = 16, MISSES = 8, STRIDE_FIRST = 2, STRIDE_MAX = 1 << 16 };
static __thread struct {
    uint64_t ahead[SWEEPS], end[SWEEPS], window[SWEEPS], stride[SWEEPS];
    unsigned oldest;
    uint64_t missed[MISSES];
    unsigned next_miss;
} sweeps;

/* The slot of the sweep a fault at `page` continues, or -1. */
static int sweep_of(uint64_t page)
{
    for (int i = 0; i < SWEEPS; i++)
        if (sweeps.end[i] == page && page != 0)
            return i;
    return -1;
}

/* The distance of the column a miss at `page` continues (two earlier
 * misses at page - stride and page - 2 stride), or 1.  The miss is
 * remembered. */
static uint64_t column_of(uint64_t page)
{
    uint64_t stride = 1;
    for (int i = 0; i < MISSES && stride == 1; i++) {
        uint64_t d = page - sweeps.missed[i];
        if (sweeps.missed[i] >= page || d < 2 || d > STRIDE_MAX || sweeps.missed[i] < d)
            continue;
        for (int j = 0; j < MISSES; j++)
            if (sweeps.missed[j] == sweeps.missed[i] - d)
                stride = d;
    }
    sweeps.missed[sweeps.next_miss] = page;
    sweeps.next_miss = (sweeps.next_miss + 1) % MISSES;
    return stride;
}

/* The read-ahead window of a fault in sweep `slot` (-1: none). */
static uint64_t sweep_window(int slot)
{
    if (slot >= 0 && sweeps.stride[slot] > 1)
        return sweeps.window[slot];
    uint64_t w = slot < 0 ? 0 : sweeps.window[slot];
    return w > dsm_cfg.readahead ? w : dsm_cfg.readahead;
}

/* Records the run fetched at a fault at `page`, n pages read ahead
 * `stride` apart in a window of `window`, in its sweep's slot or the
 * oldest slot; the next window doubles, but that of a fault that began no
 * sweep (OMPDSM_READAHEAD).  The pages the sweep's previous run read ahead
 * count now as read for home migration: the sweep went past them, as each
 * would have faulted without the read-ahead; but not those written since,
 * whose write fault counted already what a write miss would have (a read
 * on top made a page the home wrote too look heavier here than the home,
 * and move).  (Those of a sweep's last run are not counted: a read-ahead
 * may run past what this node uses; nor are a column's, only a run's.) */
static void remember_sweep(int slot, uint64_t page, uint64_t n, uint64_t stride, uint64_t window)
{
    uint64_t w = 2 * window;
    if (slot < 0) {
        slot = (int)sweeps.oldest;
        sweeps.oldest = (sweeps.oldest + 1) % SWEEPS;
        if (stride == 1)
            w = dsm_cfg.readahead;
    } else if (sweeps.stride[slot] == 1) {
        for (uint64_t q = sweeps.ahead[slot]; q < sweeps.end[slot]; q++)
            if (__atomic_load_n(&dsm.state[q], __ATOMIC_RELAXED) != PG_RW)
                dsm_count_fault(q, false);
    }
    sweeps.ahead[slot] = page + stride;
    sweeps.end[slot] = page + (n + 1) * stride;
    sweeps.stride[slot] = stride;
    sweeps.window[slot] = w < SWEEP_MAX_PAGES ? w : SWEEP_MAX_PAGES;
}

/* The claimed pages page + stride, ... (n of them) become read-only (one
 * mprotect if they are contiguous).  They count as faults for home
 * migration only once the sweep goes past them (remember_sweep). */
static void release_readahead(uint64_t page, uint64_t n, uint64_t stride)
{
    uint64_t run[n + 1];
    for (uint64_t i = 0; i < n; i++)
        run[i] = page + (i + 1) * stride;
    dsm_settle_claimed(run, n, PG_RO, DSM_EV_READ_MISS);
}

/* ---- the state machine -------------------------------------------------- */

/* Write-ahead.  Code that updates an array in place, page after page (a
 * reduction's merge, a histogram cleared, a vector updated, a block of rows
 * the master initialised written by its node for the first time), takes
 * a write fault on every page it has just read, for a twin and a
 * protection change: 6-15 us each.  A write fault on the page right after
 * the last one this thread took (or right after the last pages it made
 * writable) continues such a sweep, and the next read-only pages of the
 * same home, up to SWEEP_MAX_PAGES, become writable with it
 * (write-upgrade, twins, counted as written for home migration as their
 * faults would have been).  So do the pages read ahead with a page that is
 * then written: code that updates a block of neighbouring pages in an
 * order of its own (a transpose's lines, each across every plane) writes
 * them all; those are not counted for migration (counted, they moved homes
 * the wrong way in the ADI solver, whose sweeps write fewer of them: 15 %
 * slower at 2 nodes).  A page this node wrote at one of its last releases
 * is noted as written: it is written again.  Any other is made writable
 * ahead of a write that may not come (a sweep's first pass, or its end,
 * may run into pages other nodes write: the next rows, the next array):
 * the release announces it only if its diff is not empty (PF_AHEAD,
 * flush.c), so that an unwritten page does not invalidate other nodes'
 * copies.  A sweep's counts it for migration at once: a page written with
 * the values it held (a grid's zeros, the first steps of a stencil) is
 * written all the same, and its home should follow its writer.  One read
 * ahead with a written page is counted if its diff is not empty, as its
 * fault would have counted it.  (The textbook Jacobi's first sweep over
 * the rows the master initialised: 8,445 -> 776 write faults at node
 * 1.) */
static __thread uint64_t write_end;

/* Per page: how many pages were read ahead with it, while it has not been
 * written since (0: none, or taken).  Written by the fault path of any
 * thread of the node, hence the atomic accesses. */
static uint8_t *read_with;

static void remember_read_with(uint64_t page, uint64_t ahead)
{
    __atomic_store_n(&read_with[page], (uint8_t)(ahead < UINT8_MAX ? ahead : UINT8_MAX), __ATOMIC_RELAXED);
}

static uint64_t take_read_with(uint64_t page)
{
    return __atomic_exchange_n(&read_with[page], 0, __ATOMIC_RELAXED);
}

/* Called without a stripe lock, after a write fault on `page`: up to `max`
 * of the pages after it are claimed page by page, then made writable in
 * one step (dsm_ps_write_ahead); `count`: as written, for migration. */
static void write_ahead(uint64_t page, int home, uint64_t max, bool count)
{
    struct dsm_seg *seg = dsm_seg_of(page);
    uint64_t end = seg->first_page + seg->npages, q = page + 1;
    bool ahead[max ? max : 1];
    for (; q < end && q <= page + max; q++) {
        if (dsm.home[q] != (uint16_t)(home + 1))
            break;
        struct dsm_stripe *s = dsm_stripe(q);
        dsm_lock(&s->mu);
        bool ok = dsm.state[q] == PG_RO && !dsm_flag(q, PF_BUSY);
        if (ok)
            dsm_ps_claim(q);
        dsm_unlock(&s->mu);
        if (!ok)
            break;
        ahead[q - page - 1] = !dsm_wrote_lately(q);
    }
    uint64_t n = q - page - 1;
    if (n) {
        dsm_ps_write_ahead(page + 1, n, ahead, count);
        if (count)
            for (uint64_t i = 1; i <= n; i++)
                dsm_count_remote_write(page + i, home);
    }
    write_end = q;
}

/* Called with the stripe lock held; returns with it held.  The page is
 * marked BUSY while the lock is dropped for the network. */
static void remote_fault(uint64_t page, bool write, int home, struct dsm_stripe *s)
{
    if (dsm.state[page] == PG_INVALID) {
        dsm_ps_claim(page);
        dsm_unlock(&s->mu);
        int sweep = sweep_of(page);
        uint64_t stride = sweep >= 0 ? sweeps.stride[sweep] : 1, window = sweep_window(sweep);
        uint64_t ahead = claim_readahead(page, home, window, sweep >= 0, stride);
        /* Pages held before, next to this one, are read ahead first: a
         * column's next pages are needed later than its neighbours. */
        uint64_t column = sweep < 0 ? column_of(page) : 1;
        if (!ahead && column > 1 && dsm_cfg.readahead) {
            stride = column;
            window = STRIDE_FIRST;
            ahead = claim_readahead(page, home, window, true, stride);
        }
        fetch(page, 1 + ahead, stride, home);
        release_readahead(page, ahead, stride);
        remember_sweep(sweep, page, ahead, stride, window);
        if (stride > 1)         /* the fault may begin a sweep along the row too */
            remember_sweep(-1, page, 0, 1, 0);
        remember_read_with(page, stride == 1 ? ahead : 0);
        dsm_lock(&s->mu);
    }
    dsm_ps_remote_fault(page, write);
    if (write) {
        uint64_t with = take_read_with(page);
        bool sweep = page == write_end;
        uint64_t max = sweep ? SWEEP_MAX_PAGES : with;
        write_end = page + 1;
        if (max) {
            dsm_unlock(&s->mu);
            write_ahead(page, home, max, sweep);
            dsm_lock(&s->mu);
        }
    }
}

/* Write-ahead at the home.  The home of a page another node holds takes a
 * write fault on it, to announce the write (home-write): a sweep that
 * rewrites such pages (a histogram cleared and merged into, a vector a
 * solver updates while others read it) pays one fault per page, 13 us
 * each on this machine's VMs.  So does a page nobody else holds that is
 * not writable yet (home-unshared): the first touch of memory the master
 * allocated (NAS FT: 41,000 faults at node 0 for its arrays), a page
 * whose sharers dropped their copies.  A home write that continues a
 * sweep makes the next pages writable with it, in one step: those homed
 * here and not writable, the shared ones noted as written, the others
 * watched (one already writable ends the run).  A shared page of the run
 * that the sweep does not reach after all is announced unwritten, and
 * dropped by the nodes that hold it for nothing, so the run starts at 2
 * pages and doubles while the sweep goes on, up to SWEEP_MAX_PAGES.  With
 * one application thread per node only: a release of another thread could
 * unshare a page between the check and the step.  Called without a stripe
 * lock. */
static __thread uint64_t home_window;

static void home_write_ahead(uint64_t page)
{
    struct dsm_seg *seg = dsm_seg_of(page);
    uint64_t end = seg->first_page + seg->npages, q = page + 1;
    home_window = home_window ? (2 * home_window < SWEEP_MAX_PAGES ? 2 * home_window : SWEEP_MAX_PAGES) : 2;
    for (; q < end && q <= page + home_window; q++) {
        if (dsm_home_known(q) != dsm.node)
            break;
        struct dsm_stripe *s = dsm_stripe(q);
        dsm_lock(&s->mu);
        bool ok = dsm.state[q] != PG_RW && !dsm_flag(q, PF_BUSY) && !dsm_flag(q, PF_HOT) && !dsm.twin[q] &&
                  !dsm_pinned(q);
        if (ok)
            dsm_ps_claim(q);
        dsm_unlock(&s->mu);
        if (!ok)
            break;
    }
    uint64_t n = q - page - 1;
    if (n) {
        dsm_ps_home_write_ahead(page + 1, n);
        for (uint64_t i = 1; i <= n; i++)
            dsm_count_remote_write(page + i, dsm.node);
    }
    write_end = q;
}

static bool allowed(uint64_t page, bool write)
{
    return dsm.state[page] == PG_RW || (!write && dsm.state[page] == PG_RO);
}

/* Checking build: the fault path starts with no runtime mutex and not the
 * transport lock held by this thread; it takes stripe locks, lists_mu and
 * the transport lock itself, and runs other nodes' handlers while it
 * waits (dsm/PROTOCOL.md, "Contexts"). */
static void check_unlocked(uint64_t page)
{
#ifdef OMPDSM_CHECKING
    if (dsm_mutexes_held || net_lock_held())
        dsm_fatal("internal: a fault on page %lu while this thread holds %d runtime mutex(es)%s",
                  (unsigned long)page, dsm_mutexes_held, net_lock_held() ? " and the transport lock" : "");
#else
    (void)page;
#endif
}

void dsm_fault(uint64_t page, bool write)
{
    check_unlocked(page);
    STAT_ADD(read_faults, !write);
    STAT_ADD(write_faults, write);
    /* Learning the home may take a message (first touch); do it unlocked. */
    int home = dsm_home_of(page);
    if (write)
        dsm_count_remote_write(page, home);
    else
        dsm_count_fault(page, false);
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    while (dsm_flag(page, PF_BUSY))
        pthread_cond_wait(&s->cv, &s->mu);
    if (!allowed(page, write)) {
        if (home != dsm.node) {
            remote_fault(page, write, home, s);
        } else if (dsm_ps_home_fault(page, write)) {
            bool sweep = page == write_end;
            write_end = page + 1;
            if (!sweep)
                home_window = 0;
            else if (dsm.app_threads == 1) {
                dsm_unlock(&s->mu);
                home_write_ahead(page);
                return;
            }
        }
    }
    dsm_unlock(&s->mu);
}

/* ---- the signal handler ------------------------------------------------- */

/* A fault outside shared memory goes to the program's handler, the one it
 * had before the DSM started or set since (sig_user.c). */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
    struct sigaction program;
    dsm_sig_deliver(&program);
    if (program.sa_handler != SIG_DFL && program.sa_handler != SIG_IGN) {
        if (program.sa_flags & SA_SIGINFO)
            program.sa_sigaction(sig, si, uc);
        else
            program.sa_handler(sig);
        return;
    }
    /* Returning re-executes the access, which now kills the process with
     * the real SIGSEGV (a fault's SIGSEGV cannot be ignored): the launcher
     * reports it as the segfault it is. */
    dsm_warn("segmentation fault at address %p (outside shared memory)", si->si_addr);
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    dsm_real_sigaction(SIGSEGV, &dfl, NULL);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    int64_t page = dsm_page_of((uintptr_t)si->si_addr);
    if (page < 0 || si->si_code != SEGV_ACCERR) {
        pass_on(sig, si, uc);
    } else {
        /* x86-64 only (configure refuses other hosts): bit 1 means a write. */
        greg_t err = ((ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR];
        dsm_fault((uint64_t)page, (err & 2) != 0);
    }
    errno = saved;
}

/* The handler runs on an alternate stack: the faulting thread's own stack
 * may be a DSM page itself (node 0 runs main() on a stack in the shared
 * region), and the kernel could not write the signal frame there. */
void dsm_fault_thread_init(void)
{
    static __thread void *alt;
    if (alt)
        return;
    /* mmap, not malloc: AddressSanitizer unmaps the signal stack a thread
     * has when it exits, whoever allocated it. */
    size_t size = 256 * 1024;
    alt = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (alt == MAP_FAILED)
        dsm_fatal("cannot allocate the signal stack: %s", strerror(errno));
    stack_t ss = { .ss_sp = alt, .ss_size = size };
    if (sigaltstack(&ss, NULL))
        dsm_fatal("sigaltstack: %s", strerror(errno));
}

void dsm_fault_install(void)
{
    read_with = dsm_page_table(sizeof *read_with);
    dsm_fault_thread_init();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigfillset(&sa.sa_mask);
    struct sigaction before;
    if (sigaction(SIGSEGV, &sa, &before))
        dsm_fatal("sigaction(SIGSEGV): %s", strerror(errno));
    /* AddressSanitizer's sigaction ignores the call, and says it succeeded,
     * when ASAN_OPTIONS has allow_user_segv_handler=0. */
    struct sigaction now;
    if (sigaction(SIGSEGV, NULL, &now) || now.sa_sigaction != on_segv)
        dsm_fatal("the DSM's SIGSEGV handler could not be installed: another one stays in place "
                  "(under AddressSanitizer, ASAN_OPTIONS must not set allow_user_segv_handler=0)");
    dsm_sig_take(&before);
}

void dsm_fault_remove(void)
{
    struct sigaction program;
    dsm_sig_give_back(&program);
    sigaction(SIGSEGV, &program, NULL);
}
