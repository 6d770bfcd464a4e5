/*
 * home.c: where each page's master copy lives.
 *
 * Every page has a base node that always knows its home: page % nodes, but
 * under first-touch the base of a run of CLAIM_RUN pages.
 * Other nodes cache what they learn in dsm.home (home + 1, 0 = not known).
 * Initial homes follow OMPDSM_HOME:
 *   cyclic       page % nodes, as SCASH does: computed, no message.  Where
 *                that would deal more than CYCLIC_RUNS pages of one stretch
 *                (an allocation, or the program's globals), runs of pages
 *                are dealt instead, at most CYCLIC_RUNS of them: a node's
 *                protections change from page to page where homes do, and
 *                each change is a memory mapping of its own (vm.max_map_count,
 *                65,530 by default: a 640 MB global array failed at 2 nodes);
 *   block        each ompdsm_alloc() block split into nodes contiguous parts;
 *   first-touch  the first node to fault on the page, as arbitrated by the
 *                base: HOME_REQ claims the page when it has no home yet,
 *                and with it the pages after it in its run that have none
 *                (a node's first sweep over an array asks once a run, not
 *                once a page: 195,000 requests for 800 MB at 2 nodes).
 * Pages outside any allocation are cyclic under the block policy.  An
 * allocation may also name its home outright (the runtime's own structures,
 * such as the master's stack, whatever the policy).
 */
#include "dsm.h"
#include "page_state.h"
#include "proto.h"
#include "stats.h"
#include "../net/net.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <stdlib.h>

enum { CYCLIC_RUNS = 32768 };

/* The page's cyclic home in a stretch of n pages (see above). */
static int cyclic_home(uint64_t page, uint64_t n)
{
    uint64_t run = n <= CYCLIC_RUNS ? 1 : (n + CYCLIC_RUNS - 1) / CYCLIC_RUNS;
    return (int)(page / run % (uint64_t)dsm.nodes);
}

struct alloc_rec {
    uint64_t first, n;
    int fixed;            /* the home of every page, or -1: the policy decides */
};

static struct {
    pthread_mutex_t mu;
    struct alloc_rec *recs;
    size_t n, cap;
} allocs = { .mu = PTHREAD_MUTEX_INITIALIZER };

void dsm_home_record_alloc(uint64_t first, uint64_t n, int fixed)
{
    dsm_lock(&allocs.mu);
    allocs.recs = xgrow(allocs.recs, &allocs.cap, allocs.n + 1, sizeof *allocs.recs);
    /* Keep the records sorted by page (usually an append). */
    size_t i = allocs.n;
    while (i > 0 && allocs.recs[i - 1].first > first) {
        allocs.recs[i] = allocs.recs[i - 1];
        i--;
    }
    allocs.recs[i] = (struct alloc_rec){ first, n, fixed };
    allocs.n++;
    dsm_unlock(&allocs.mu);
}

/* The home an allocation record decides for the page, or -1. */
static int recorded_home(uint64_t page)
{
    int home = -1;
    dsm_lock(&allocs.mu);
    size_t lo = 0, hi = allocs.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (allocs.recs[mid].first + allocs.recs[mid].n <= page)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < allocs.n && allocs.recs[lo].first <= page) {
        struct alloc_rec *r = &allocs.recs[lo];
        if (r->fixed >= 0)
            home = r->fixed;
        else if (dsm_cfg.home == DSM_HOME_BLOCK)
            home = (int)((page - r->first) * (uint64_t)dsm.nodes / r->n);
        else if (dsm_cfg.home == DSM_HOME_CYCLIC)
            home = cyclic_home(page, r->n);
    }
    dsm_unlock(&allocs.mu);
    return home;
}

/* The pages from `page` to the end of its run (at most CLAIM_RUN), and the
 * run's base. */
static uint64_t run_rest(uint64_t page)
{
    uint64_t end = (page / CLAIM_RUN + 1) * CLAIM_RUN;
    return (end < dsm.npages ? end : dsm.npages) - page;
}

static int base_of(uint64_t page)
{
    return (int)(page / CLAIM_RUN % (uint64_t)dsm.nodes);
}

/* At the base: the homes of the rest of the page's run, into homes[], each
 * claimed for `claimer` if it has none; returns how many.  The run stops
 * at a page whose home an allocation fixes (the heap of a node, a stack). */
static uint64_t base_claim(uint64_t page, int claimer, int16_t *homes)
{
    uint64_t n = run_rest(page);
    for (uint64_t i = 0; i < n; i++) {
        if (i > 0 && recorded_home(page + i) >= 0)
            return i;
        struct dsm_stripe *s = dsm_stripe(page + i);
        dsm_lock(&s->mu);
        if (dsm.home[page + i] == 0)
            dsm_set_home(page + i, claimer);
        homes[i] = (int16_t)(dsm.home[page + i] - 1);
        dsm_unlock(&s->mu);
    }
    return n;
}

struct home_wait {
    struct net_wait w;
    uint64_t page;
};

static void on_home_req(int src, void *body, size_t len)
{
    struct home_req *r = body;
    if (len != sizeof *r || r->page >= dsm.npages || base_of(r->page) != dsm.node)
        dsm_fatal("malformed home request from node %d", src);
    struct home_rep rep = { .cookie = r->cookie };
    rep.n = (uint32_t)base_claim(r->page, src, rep.homes);
    net_send(src, OP_HOME_REP, &rep, sizeof rep, NULL, 0);
}

/* The homes learnt are cached (they change only at home migrations, which
 * every node takes part in). */
static void on_home_rep(int src, void *body, size_t len)
{
    struct home_rep *r = body;
    if (len != sizeof *r || r->n == 0 || r->n > CLAIM_RUN)
        dsm_fatal("malformed home reply from node %d", src);
    struct home_wait *hw = (struct home_wait *)(uintptr_t)r->cookie;
    for (uint32_t i = 0; i < r->n; i++)
        dsm_set_home(hw->page + i, r->homes[i]);
    net_wait_done(&hw->w);
}

static int first_touch_home(uint64_t page)
{
    int base = base_of(page);
    if (base == dsm.node) {
        int16_t homes[CLAIM_RUN];
        base_claim(page, dsm.node, homes);
        return homes[0];
    }
    struct home_wait hw = { .page = page };
    net_wait_init(&hw.w, 1);
    struct home_req req = { .cookie = (uint64_t)(uintptr_t)&hw, .page = page };
    net_send(base, OP_HOME_REQ, &req, sizeof req, NULL, 0);
    net_wait(&hw.w);
    return dsm.home[page] - 1;
}

int dsm_home_of(uint64_t page)
{
    uint16_t h = dsm.home[page];
    if (h)
        return h - 1;
    int home = recorded_home(page);
    if (home < 0 && dsm_cfg.home == DSM_HOME_FIRST_TOUCH)
        home = first_touch_home(page);
    if (home < 0)
        home = (int)(page % (uint64_t)dsm.nodes);
    dsm_set_home(page, home);
    return home;
}

int dsm_home_known(uint64_t page)
{
    if (!dsm.home[page] && dsm_cfg.home == DSM_HOME_FIRST_TOUCH && recorded_home(page) < 0)
        return -1;
    return dsm_home_of(page);
}

void dsm_home_register(void)
{
    net_register(OP_HOME_REQ, on_home_req);
    net_register(OP_HOME_REP, on_home_rep);
}
