/*
 * fault.c: the SIGSEGV handler and the page state machine.
 *
 * A fault inside a DSM segment is an access the page's state does not allow;
 * dsm_fault() moves the page to a state that allows it:
 *
 *   at a non-home node   INVALID --read-->  fetch from home, RO
 *                        INVALID --write--> fetch, twin, RW (one fault: the
 *                                           x86 error code says it is a write)
 *                        RO      --write--> twin, RW
 *   at the home          INVALID/RO --any--> RW if no other node may hold a
 *                                           copy (PF_SHARED clear); else RO
 *                                           for a read, RW + noted for a write
 *
 * Pages written at a non-home node are diffed against their twin at the
 * next release (flush.c).  The home notes its own writes only while others
 * may hold copies; serving a copy (on_page_req) write-protects the home's
 * page again so that its later writes are seen.
 *
 * A fault outside every segment is the program's own: it goes to the
 * handler the program had installed, or is re-raised as the real SIGSEGV.
 */
#include "dsm.h"
#include "log.h"
#include "net.h"
#include "proto.h"
#include "stats.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

static struct sigaction previous;

/* ---- fetching a page from its home -------------------------------------- */

static void on_page_req(int src, void *body, size_t len)
{
    (void)len;
    struct page_req *r = body;
    uint64_t p = r->page;
    struct dsm_stripe *s = dsm_stripe(p);
    pthread_mutex_lock(&s->mu);
    dsm_flag_set(p, PF_SHARED);
    if (dsm.state[p] == PG_RW) {
        /* From now on the home's writes must be noticed. */
        dsm_protect(p, 1, PG_RO);
        dsm.state[p] = PG_RO;
    }
    pthread_mutex_unlock(&s->mu);
    struct page_rep rep = { .cookie = r->cookie, .page = p };
    STAT_ADD(pages_served, 1);
    net_send(src, OP_PAGE_REP, &rep, sizeof rep, dsm_rt(p), dsm.page_size);
}

static void on_page_rep(int src, void *body, size_t len)
{
    (void)src;
    struct page_rep *r = body;
    if (len != sizeof *r + dsm.page_size)
        dsm_fatal("page reply from node %d has %zu bytes, expected %zu", src, len - sizeof *r, dsm.page_size);
    memcpy(dsm_rt(r->page), (char *)body + sizeof *r, dsm.page_size);
    net_wait_done((struct net_wait *)(uintptr_t)r->cookie);
}

static void fetch(uint64_t page, int home)
{
    struct net_wait w;
    net_wait_init(&w, 1);
    struct page_req req = { .cookie = (uint64_t)(uintptr_t)&w, .page = page };
    net_send(home, OP_PAGE_REQ, &req, sizeof req, NULL, 0);
    net_wait(&w);
    STAT_ADD(pages_fetched, 1);
}

void dsm_fetch_register(void)
{
    net_register(OP_PAGE_REQ, on_page_req);
    net_register(OP_PAGE_REP, on_page_rep);
}

/* ---- the state machine -------------------------------------------------- */

static void settle(uint64_t page, enum dsm_state st)
{
    dsm_protect(page, 1, st);
    dsm.state[page] = (uint8_t)st;
}

static void home_fault(uint64_t page, bool write)
{
    if (!dsm_flag(page, PF_SHARED)) {
        settle(page, PG_RW);
    } else if (write) {
        dsm_note_written(page);
        settle(page, PG_RW);
    } else {
        settle(page, PG_RO);
    }
}

static void make_twin(uint64_t page)
{
    void *t = malloc(dsm.page_size);
    if (!t)
        dsm_fatal("out of memory for a twin page");
    memcpy(t, dsm_rt(page), dsm.page_size);
    dsm.twin[page] = t;
    dsm_note_written(page);
}

/* Called with the stripe lock held; returns with it held.  The page is
 * marked BUSY while the lock is dropped for the network. */
static void remote_fault(uint64_t page, bool write, int home, struct dsm_stripe *s)
{
    if (dsm.state[page] == PG_INVALID) {
        dsm_flag_set(page, PF_BUSY);
        pthread_mutex_unlock(&s->mu);
        fetch(page, home);
        pthread_mutex_lock(&s->mu);
        dsm_flag_clear(page, PF_BUSY);
        pthread_cond_broadcast(&s->cv);
    }
    if (write) {
        make_twin(page);
        settle(page, PG_RW);
    } else {
        settle(page, PG_RO);
    }
}

static bool allowed(uint64_t page, bool write)
{
    return dsm.state[page] == PG_RW || (!write && dsm.state[page] == PG_RO);
}

void dsm_fault(uint64_t page, bool write)
{
    STAT_ADD(read_faults, !write);
    STAT_ADD(write_faults, write);
    /* Learning the home may take a message (first touch); do it unlocked. */
    int home = dsm_home_of(page);
    struct dsm_stripe *s = dsm_stripe(page);
    pthread_mutex_lock(&s->mu);
    while (dsm_flag(page, PF_BUSY))
        pthread_cond_wait(&s->cv, &s->mu);
    if (!allowed(page, write)) {
        if (home == dsm.node)
            home_fault(page, write);
        else
            remote_fault(page, write, home, s);
    }
    pthread_mutex_unlock(&s->mu);
}

/* ---- the signal handler ------------------------------------------------- */

static void pass_on(int sig, siginfo_t *si, void *uc)
{
    if (previous.sa_flags & SA_SIGINFO) {
        previous.sa_sigaction(sig, si, uc);
        return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    /* Returning re-executes the access, which now kills the process with
     * the real SIGSEGV: the launcher reports it as the segfault it is. */
    dsm_warn("segmentation fault at address %p (outside shared memory)", si->si_addr);
    signal(SIGSEGV, SIG_DFL);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    int64_t page = dsm_page_of((uintptr_t)si->si_addr);
    if (page < 0 || si->si_code != SEGV_ACCERR) {
        pass_on(sig, si, uc);
    } else {
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
    static __thread char *alt;
    if (alt)
        return;
    size_t size = 256 * 1024;
    alt = malloc(size);
    if (!alt)
        dsm_fatal("out of memory for the signal stack");
    stack_t ss = { .ss_sp = alt, .ss_size = size };
    if (sigaltstack(&ss, NULL))
        dsm_fatal("sigaltstack: %s", strerror(errno));
}

void dsm_fault_install(void)
{
    dsm_fault_thread_init();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigfillset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &previous))
        dsm_fatal("sigaction(SIGSEGV): %s", strerror(errno));
}

void dsm_fault_remove(void)
{
    sigaction(SIGSEGV, &previous, NULL);
}
