/*
 * page_state.c: every change of a page's coherence state, one function per
 * transition, and the table that says which are allowed.
 *
 * A page has a state (INVALID, RO, RW: its protection in the application
 * view) and coherence flags: BUSY (a thread owns the page while a fetch, a
 * flush or a protection change is under way; others wait on its stripe),
 * SHARER (not at the home: the home's sharer bitmap has, or is about to
 * have, our bit), HRW (at the home: writable with nobody else holding a
 * copy, watched in home_rw), HOT (not at the home: kept writable across
 * releases with its twin).  Invariants the table encodes: only a page
 * that is not at its home has a twin, and only while it is RW (the pinned
 * pages at their home keep a snapshot there instead); a HOT page is RW
 * with a twin; an INVALID page has neither.
 *
 * The table (rules[] below) is also dsm/PROTOCOL.md's: a unit test
 * compares the two.  In a checking build every transition checks the
 * page before and after against it.
 */
#include "page_state.h"
#include "../net/net.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table ----------------------------------------------------------- */

#define INV (1 << PG_INVALID)
#define RO (1 << PG_RO)
#define RW (1 << PG_RW)
#define ANY (INV | RO | RW)
#define BUSY PF_BUSY
#define SHARER PF_SHARER
#define HRW PF_HRW
#define HOT PF_HOT
#define TWIN DSM_PS_TWIN

const struct dsm_ps_rule dsm_ps_rules[] = {
    /* event                from      must         must not          to           set          clear */
    { DSM_EV_CLAIM,          ANY,     0,           BUSY,             DSM_PS_SAME, BUSY,        0 },
    { DSM_EV_FETCHED,        INV,     BUSY,        TWIN,             PG_INVALID,  BUSY | SHARER, TWIN },
    { DSM_EV_READ_MISS,      INV,     BUSY,        TWIN | HOT,       PG_RO,       0,           BUSY | TWIN | HOT },
    { DSM_EV_WRITE_MISS,     INV,     BUSY,        TWIN | HOT,       PG_RW,       TWIN,        BUSY | HOT },
    { DSM_EV_WRITE_UPGRADE,  RO,      0,           BUSY | TWIN | HOT, PG_RW,      TWIN,        BUSY | HOT },
    { DSM_EV_WRITE_AHEAD,    RO,      BUSY,        TWIN | HOT,       PG_RW,       TWIN,        BUSY | HOT },
    { DSM_EV_HOME_READ,      INV | RO, 0,          BUSY | TWIN | HOT, PG_RO,      0,           BUSY | TWIN | HOT },
    { DSM_EV_HOME_WRITE,     INV | RO, 0,          BUSY | TWIN | HOT, PG_RW,      0,           BUSY | TWIN | HOT },
    { DSM_EV_HOME_WRITE_AHEAD, INV | RO, BUSY,     TWIN | HOT,       PG_RW,       0,           BUSY | TWIN | HOT },
    { DSM_EV_HOME_UNSHARED,  INV | RO, 0,          BUSY | TWIN | HOT, PG_RW,      0,           BUSY | TWIN | HOT },
    { DSM_EV_HOME_PINNED,    INV | RO, 0,          BUSY | HOT,       PG_RW,       0,           BUSY | HOT },
    { DSM_EV_WATCH,          RW,      0,           BUSY | HRW | HOT, DSM_PS_SAME, HRW,         BUSY | HOT },
    { DSM_EV_UNWATCH,        ANY,     HRW,         0,                DSM_PS_SAME, 0,           HRW },
    { DSM_EV_HOME_PROTECT,   RW,      BUSY,        HRW | HOT | TWIN, PG_RO,       0,           BUSY },
    { DSM_EV_PUBLISH,        ANY,     BUSY,        HOT,              PG_RO,       0,           BUSY | TWIN | HOT },
    { DSM_EV_KEEP_HOT,       RW,      TWIN,        BUSY | HOT,       PG_RW,       TWIN | HOT,  BUSY },
    { DSM_EV_HOME_KEEP_HOT,  RW,      0,           BUSY | HRW | HOT | TWIN, PG_RW, TWIN | HOT, BUSY },
    { DSM_EV_UNSHARE,        RW,      0,           BUSY | HRW,       PG_RW,       0,           BUSY | TWIN | HOT },
    { DSM_EV_UNREGISTERED,   ANY,     SHARER,      0,                DSM_PS_SAME, 0,           SHARER },
    { DSM_EV_HOT_REFRESH,    RW,      TWIN | HOT,  BUSY,             PG_RW,       TWIN | HOT,  BUSY },
    { DSM_EV_COOL,           RW,      BUSY | TWIN | HOT, 0,          PG_RO,       0,           BUSY | TWIN | HOT },
    { DSM_EV_DROP_HOT,       RW,      TWIN | HOT,  BUSY,             PG_RW,       0,           TWIN | HOT },
    { DSM_EV_REFRESH,        RW,      BUSY | HOT | TWIN, 0,          PG_RW,       HOT | TWIN | SHARER, BUSY },
    { DSM_EV_REFRESH_READ,   RO,      BUSY,        HOT | TWIN,       PG_RO,       SHARER,      BUSY | HOT | TWIN },
    { DSM_EV_INVALIDATE,     RO | RW, BUSY,        TWIN | HOT,       PG_INVALID,  0,           BUSY | TWIN | HOT },
    { DSM_EV_LOWER,          INV,     BUSY,        TWIN | HOT,       PG_INVALID,  0,           BUSY },
    { DSM_EV_ARRIVAL_DROP,   RO | RW, BUSY,        0,                PG_INVALID,  0,           BUSY | TWIN | HOT },
    { DSM_EV_HOT_REOPEN,     RW,      BUSY | HOT | TWIN, 0,          PG_RW,       HOT | TWIN,  BUSY },
    { DSM_EV_ADOPT,          INV | RO, BUSY,       TWIN | HOT,       PG_RW,       0,           BUSY | TWIN | HOT },
    { DSM_EV_SNAPSHOT,       RO | RW, 0,           BUSY | HOT,       DSM_PS_SAME, TWIN,        BUSY | HOT },
    { DSM_EV_PIN,            INV,     0,           BUSY | TWIN,      PG_RW,       0,           BUSY | TWIN },
    { DSM_EV_REHOME,         ANY,     0,           BUSY,             DSM_PS_SAME, 0,           BUSY | SHARER },
    { DSM_EV_EXIT,           ANY,     0,           BUSY,             PG_RW,       0,           BUSY },
};
const size_t dsm_ps_nrules = sizeof dsm_ps_rules / sizeof dsm_ps_rules[0];

static const char *const event_names[DSM_EV_COUNT] = {
    [DSM_EV_CLAIM] = "claim",
    [DSM_EV_FETCHED] = "fetched",
    [DSM_EV_READ_MISS] = "read-miss",
    [DSM_EV_WRITE_MISS] = "write-miss",
    [DSM_EV_WRITE_UPGRADE] = "write-upgrade",
    [DSM_EV_WRITE_AHEAD] = "write-ahead",
    [DSM_EV_HOME_READ] = "home-read",
    [DSM_EV_HOME_WRITE] = "home-write",
    [DSM_EV_HOME_WRITE_AHEAD] = "home-write-ahead",
    [DSM_EV_HOME_UNSHARED] = "home-unshared",
    [DSM_EV_HOME_PINNED] = "home-pinned",
    [DSM_EV_WATCH] = "watch",
    [DSM_EV_UNWATCH] = "unwatch",
    [DSM_EV_HOME_PROTECT] = "home-protect",
    [DSM_EV_PUBLISH] = "publish",
    [DSM_EV_KEEP_HOT] = "keep-hot",
    [DSM_EV_HOME_KEEP_HOT] = "home-keep-hot",
    [DSM_EV_UNSHARE] = "unshare",
    [DSM_EV_UNREGISTERED] = "unregistered",
    [DSM_EV_HOT_REFRESH] = "hot-refresh",
    [DSM_EV_COOL] = "cool",
    [DSM_EV_DROP_HOT] = "drop-hot",
    [DSM_EV_REFRESH] = "refresh",
    [DSM_EV_REFRESH_READ] = "refresh-read",
    [DSM_EV_INVALIDATE] = "invalidate",
    [DSM_EV_LOWER] = "lower",
    [DSM_EV_ARRIVAL_DROP] = "arrival-drop",
    [DSM_EV_HOT_REOPEN] = "hot-reopen",
    [DSM_EV_ADOPT] = "adopt",
    [DSM_EV_SNAPSHOT] = "snapshot",
    [DSM_EV_PIN] = "pin",
    [DSM_EV_REHOME] = "rehome",
    [DSM_EV_EXIT] = "exit",
};

const char *dsm_ps_event_name(enum dsm_event ev)
{
    return ev < DSM_EV_COUNT ? event_names[ev] : "?";
}

static const char *const state_names[] = { "INVALID", "RO", "RW" };

static void format_states(uint8_t mask, char *buf, size_t len)
{
    if (mask == ANY) {
        snprintf(buf, len, "any");
        return;
    }
    buf[0] = '\0';
    for (int s = PG_INVALID; s <= PG_RW; s++)
        if (mask & (1 << s))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", state_names[s]);
}

static void format_flags(uint8_t flags, char *buf, size_t len)
{
    static const struct { uint8_t f; const char *name; } names[] = {
        { PF_BUSY, "BUSY" }, { PF_SHARER, "SHARER" }, { PF_HRW, "HRW" }, { PF_HOT, "HOT" }, { DSM_PS_TWIN, "TWIN" },
    };
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (flags & names[i].f)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", names[i].name);
    if (!buf[0])
        snprintf(buf, len, "-");
}

void dsm_ps_rule_format(const struct dsm_ps_rule *r, char *buf, size_t len)
{
    char from[32], must[48], mustnot[48], to[16], set[48], clear[48];
    format_states(r->from, from, sizeof from);
    format_flags(r->from_set, must, sizeof must);
    format_flags(r->from_clear, mustnot, sizeof mustnot);
    snprintf(to, sizeof to, "%s", r->to == DSM_PS_SAME ? "same" : state_names[r->to]);
    format_flags(r->to_set, set, sizeof set);
    format_flags(r->to_clear, clear, sizeof clear);
    snprintf(buf, len, "%s | %s | %s | %s | %s | %s | %s", dsm_ps_event_name(r->ev), from, must, mustnot, to, set,
             clear);
}

static bool rule_allows(const struct dsm_ps_rule *r, uint8_t fs, uint8_t ff, uint8_t ts, uint8_t tf)
{
    return (r->from & (1 << fs)) && (ff & r->from_set) == r->from_set && !(ff & r->from_clear)
        && (r->to == DSM_PS_SAME ? ts == fs : ts == r->to) && (tf & r->to_set) == r->to_set && !(tf & r->to_clear);
}

bool dsm_ps_allowed(enum dsm_event ev, uint8_t fs, uint8_t ff, uint8_t ts, uint8_t tf)
{
    for (size_t i = 0; i < dsm_ps_nrules; i++)
        if (dsm_ps_rules[i].ev == ev && rule_allows(&dsm_ps_rules[i], fs, ff, ts, tf))
            return true;
    return false;
}

/* ---- checking ------------------------------------------------------------ */

/* A page's state and tracked flags, taken before a transition. */
struct snap {
    uint8_t state, flags;
};

#ifdef OMPDSM_CHECKING
static struct snap snap(uint64_t page)
{
    /* DSM_PS_TWIN shares its bit with PF_HELD, which the table leaves out. */
    uint8_t f = __atomic_load_n(&dsm.flags[page], __ATOMIC_RELAXED) & (DSM_PS_TRACKED & ~DSM_PS_TWIN);
    return (struct snap){ dsm.state[page], (uint8_t)(f | (dsm.twin[page] ? DSM_PS_TWIN : 0)) };
}

static void refuse(uint64_t page, enum dsm_event ev, struct snap b, struct snap a)
{
    char ff[48], tf[48];
    format_flags(b.flags, ff, sizeof ff);
    format_flags(a.flags, tf, sizeof tf);
    dsm_fatal("internal: page %lu: transition %s from %s {%s} to %s {%s} is not in the protocol's table "
              "(dsm/PROTOCOL.md)", (unsigned long)page, dsm_ps_event_name(ev), state_names[b.state], ff,
              state_names[a.state], tf);
}
#endif

/* A page with a twin about to be dropped or refreshed must be a hot one
 * whose twin the last release made equal to it: no write of the node may
 * be lost.  The checking build compares the two; other builds trust the
 * protocol (the comparison reads two pages, for every hot copy a barrier
 * refreshes: NAS IS refreshes about 1,500 a ranking at 2 nodes). */
static void check_twin_equal(uint64_t page, const char *doing)
{
    if (!dsm_flag(page, PF_HOT))
        dsm_fatal("internal: %s page %lu with unflushed writes", doing, (unsigned long)page);
#ifdef OMPDSM_CHECKING
    if (memcmp(dsm.twin[page], dsm_rt(page), dsm.page_size))
        dsm_fatal("internal: %s page %lu with unflushed writes", doing, (unsigned long)page);
#endif
}

/* The page as it is before a transition (nothing in other builds). */
static inline struct snap before(uint64_t page)
{
#ifdef OMPDSM_CHECKING
    return snap(page);
#else
    (void)page;
    return (struct snap){ 0, 0 };
#endif
}

/* Checking build: stops the node unless the table allows the transition
 * of the page from b to what it is now. */
static inline void after(uint64_t page, enum dsm_event ev, struct snap b)
{
#ifdef OMPDSM_CHECKING
    struct snap a = snap(page);
    if (!dsm_ps_allowed(ev, b.state, b.flags, a.state, a.flags))
        refuse(page, ev, b, a);
#else
    (void)page;
    (void)ev;
    (void)b;
#endif
}

/* ---- shared steps -------------------------------------------------------- */

bool dsm_shared(uint64_t page)
{
    return __atomic_load_n(&dsm.sharers[1 + page / 64], __ATOMIC_SEQ_CST) & (1ULL << (page % 64));
}

void dsm_set_home(uint64_t page, int home)
{
    dsm.home[page] = (uint16_t)(home + 1);
}

/* Every protection change of this file goes through these two: a page
 * they protect lags no more (PF_LAG, the acquire below). */
static void unlag(uint64_t page)
{
    if (dsm_flag(page, PF_LAG))
        dsm_flag_clear(page, PF_LAG);
}

static void protect(uint64_t first, uint64_t n, enum dsm_state st)
{
    for (uint64_t p = first; p < first + n; p++)
        unlag(p);
    dsm_protect(first, n, st);
}

static void protect_list(const uint64_t *sorted, size_t n, enum dsm_state st)
{
    for (size_t i = 0; i < n; i++)
        unlag(sorted[i]);
    dsm_protect_list(sorted, n, st);
}

static void settle(uint64_t page, enum dsm_state st)
{
    protect(page, 1, st);
    dsm.state[page] = (uint8_t)st;
}

static void drop_twin(uint64_t page)
{
    dsm_twin_free(dsm.twin[page]);
    dsm.twin[page] = NULL;
}

static void refresh_twin(uint64_t page)
{
    memcpy(dsm.twin[page], dsm_rt(page), dsm.page_size);
}

static void make_twin(uint64_t page)
{
    void *t = dsm_twin_alloc();
    memcpy(t, dsm_rt(page), dsm.page_size);
    dsm.twin[page] = t;
}

/* Wakes the threads waiting for the page; stripe lock held. */
static void unbusy(uint64_t page)
{
    dsm_flag_clear(page, PF_BUSY);
    pthread_cond_broadcast(&dsm_stripe(page)->cv);
}

/* A home page nobody else holds, writable: watched (home_rw) so that a
 * sharer registering later makes its writes noted.  lists_mu held. */
static void watch_locked(uint64_t page)
{
    if (dsm_flag(page, PF_HRW))
        return;
    struct snap b = before(page);
    dsm_plist_add(&dsm.home_rw, page);
    dsm_flag_set(page, PF_HRW);
    after(page, DSM_EV_WATCH, b);
}

static void watch(uint64_t page)
{
    dsm_lock(&dsm.lists_mu);
    watch_locked(page);
    dsm_unlock(&dsm.lists_mu);
}

/* ---- the fault path ------------------------------------------------------ */

void dsm_ps_claim(uint64_t page)
{
    struct snap b = before(page);
    dsm_flag_set(page, PF_BUSY);
    after(page, DSM_EV_CLAIM, b);
}

/* The first fetch of each page makes us a sharer.  A page that came
 * without registering first (dsm_install_copy) also goes in the fresh
 * list: the home does not know yet that we hold a copy (flush.c registers
 * us at our next release). */
void dsm_ps_fetched(uint64_t page, bool registered)
{
    dsm_flag_set(page, PF_HELD);
    if (dsm_flag(page, PF_SHARER))
        return;
    struct snap b = before(page);
    dsm_flag_set(page, PF_SHARER);
    if (!registered) {
        dsm_lock(&dsm.lists_mu);
        dsm_plist_add(&dsm.fresh, page);
        dsm_unlock(&dsm.lists_mu);
    }
    after(page, DSM_EV_FETCHED, b);
}

void dsm_ps_remote_fault(uint64_t page, bool write)
{
    struct snap b = before(page);
    bool missed = dsm.state[page] == PG_INVALID;
    if (missed)
        unbusy(page);
    if (write) {
        make_twin(page);
        dsm_note_written(page);
        settle(page, PG_RW);
    } else {
        settle(page, PG_RO);
    }
    after(page, !missed ? DSM_EV_WRITE_UPGRADE : write ? DSM_EV_WRITE_MISS : DSM_EV_READ_MISS, b);
}

/* Write-ahead (fault.c): the claimed read-only pages first..first+n-1 of
 * one segment become writable together.  Each gets its twin while the run
 * is still read-only to every thread of the node, then one protection
 * change covers the run: with several threads per node, each mprotect that
 * makes a page writable costs every CPU running the node's threads a TLB
 * shoot-down, so a sweep pays one per run rather than one per page.  A
 * page with ahead[i] false is noted as written; one with ahead[i] true
 * only for the release, which announces it if it changed (dsm_note_ahead;
 * `counted`: the caller counts the run for migration). */
/* The claimed run first..first+n-1, taken as `b` says: writable in one
 * step, then each page settles by `ev`, its waiters woken. */
static void run_writable(uint64_t first, uint64_t n, const struct snap *b, enum dsm_event ev)
{
    protect(first, n, PG_RW);
    for (uint64_t i = 0; i < n; i++) {
        struct dsm_stripe *s = dsm_stripe(first + i);
        dsm_lock(&s->mu);
        dsm.state[first + i] = PG_RW;
        unbusy(first + i);
        after(first + i, ev, b[i]);
        dsm_unlock(&s->mu);
    }
}

void dsm_ps_write_ahead(uint64_t first, uint64_t n, const bool *ahead, bool counted)
{
    struct snap b[n];
    for (uint64_t i = 0; i < n; i++) {
        struct dsm_stripe *s = dsm_stripe(first + i);
        dsm_lock(&s->mu);
        b[i] = before(first + i);
        make_twin(first + i);
        if (ahead[i])
            dsm_note_ahead(first + i, counted);
        else
            dsm_note_written(first + i);
        dsm_unlock(&s->mu);
    }
    run_writable(first, n, b, DSM_EV_WRITE_AHEAD);
}

/* A home page no other node holds becomes writable and watched, in one
 * step under lists_mu: a release of another thread of this node that
 * looks for new sharers (flush.c, catch_new_sharers, which unwatches
 * under lists_mu) either finds the page watched, or ran before the check
 * here, which then sees the sharer's bit.  Checked first and watched only
 * after, a registration in between went unseen, and the home's writes
 * with it, for good.  Says whether the page was unshared. */
static bool home_unshared(uint64_t page, struct snap b)
{
    dsm_lock(&dsm.lists_mu);
    bool unshared = !dsm_shared(page);
    if (unshared) {
        settle(page, PG_RW);
        after(page, DSM_EV_HOME_UNSHARED, b);
        watch_locked(page);
    }
    dsm_unlock(&dsm.lists_mu);
    return unshared;
}

bool dsm_ps_home_fault(uint64_t page, bool write)
{
    struct snap b = before(page);
    if (dsm_pinned(page)) {
        settle(page, PG_RW);
        after(page, DSM_EV_HOME_PINNED, b);
    } else if (home_unshared(page, b)) {
        return write;   /* writable, watched */
    } else if (write) {
        dsm_note_written(page);
        settle(page, PG_RW);
        after(page, DSM_EV_HOME_WRITE, b);
        return true;
    } else {
        settle(page, PG_RO);
        after(page, DSM_EV_HOME_READ, b);
    }
    return false;
}

/* A page nobody else held is watched once writable, as home-unshared
 * leaves one; a node that registered for it in between (the run is not
 * writable to it before) makes it noted instead.  With one application
 * thread no release runs meanwhile. */
void dsm_ps_home_write_ahead(uint64_t first, uint64_t n)
{
    struct snap b[n];
    bool shared[n];
    memset(b, 0, sizeof b);     /* GCC 12 cannot see the loop fill it */
    for (uint64_t i = 0; i < n; i++) {
        struct dsm_stripe *s = dsm_stripe(first + i);
        dsm_lock(&s->mu);
        b[i] = before(first + i);
        shared[i] = dsm_shared(first + i);
        if (shared[i])
            dsm_note_written(first + i);
        dsm_unlock(&s->mu);
    }
    run_writable(first, n, b, DSM_EV_HOME_WRITE_AHEAD);
    for (uint64_t i = 0; i < n; i++) {
        if (shared[i])
            continue;
        struct dsm_stripe *s = dsm_stripe(first + i);
        dsm_lock(&s->mu);
        dsm_lock(&dsm.lists_mu);
        shared[i] = dsm_shared(first + i);
        if (!shared[i])
            watch_locked(first + i);
        dsm_unlock(&dsm.lists_mu);
        if (shared[i])
            dsm_note_written(first + i);
        dsm_unlock(&s->mu);
    }
}

/* ---- claiming and settling lists ---------------------------------------- */

/* Waits for any fetch or flush under way on the page, then claims it if
 * want (NULL: always) accepts it, under its stripe lock. */
static bool claim_if(uint64_t page, bool (*want)(size_t i, uint64_t page, const void *arg), size_t i,
                     const void *arg)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    while (dsm_flag(page, PF_BUSY))
        pthread_cond_wait(&s->cv, &s->mu);
    bool take = !want || want(i, page, arg);
    if (take)
        dsm_ps_claim(page);
    dsm_unlock(&s->mu);
    return take;
}

uint64_t *dsm_claim(const uint64_t *pages, size_t n, bool (*want)(size_t i, uint64_t page, const void *arg),
                    const void *arg, size_t *k)
{
    uint64_t *claimed = xcalloc(n + 1, sizeof *claimed);
    *k = 0;
    for (size_t i = 0; i < n; i++)
        if (claim_if(pages[i], want, i, arg))
            claimed[(*k)++] = pages[i];
    return claimed;
}

/* Under the stripe lock, a claimed page already protected as st: takes
 * state st (and, if cool, drops its twin and stops being hot); its
 * waiters are woken. */
static void settle_locked(uint64_t page, enum dsm_state st, enum dsm_event ev, bool cool)
{
    struct snap b = before(page);
    dsm.state[page] = (uint8_t)st;
    if (cool) {
        if (dsm.twin[page])
            drop_twin(page);
        dsm_flag_clear(page, PF_HOT);
    }
    unbusy(page);
    after(page, ev, b);
}

/* The claimed pages' protection for state st, in coalesced ranges, but
 * for the lagging ones, readable still: right as it is for RO (they lag no
 * more), left so for INVALID (they lag, listed until dsm_ps_lower). */
static void protect_settling(const uint64_t *sorted, size_t n, enum dsm_state st)
{
    size_t lagging = 0;
    for (size_t i = 0; i < n; i++)
        lagging += dsm_flag(sorted[i], PF_LAG) != 0;
    if (!lagging || st == PG_RW) {
        protect_list(sorted, n, st);
        return;
    }
    uint64_t *rest = xcalloc(n, sizeof *rest);
    size_t k = 0;
    dsm_lock(&dsm.lists_mu);
    for (size_t i = 0; i < n; i++) {
        if (!dsm_flag(sorted[i], PF_LAG))
            rest[k++] = sorted[i];
        else if (st == PG_RO)
            dsm_flag_clear(sorted[i], PF_LAG);
        else
            dsm_plist_add(&dsm.lagging, sorted[i]);
    }
    dsm_unlock(&dsm.lists_mu);
    protect_list(rest, k, st);
    free(rest);
}

static void settle_list(const uint64_t *sorted, size_t n, enum dsm_state st, enum dsm_event ev, bool cool)
{
    protect_settling(sorted, n, st);
    for (size_t i = 0; i < n; i++) {
        struct dsm_stripe *s = dsm_stripe(sorted[i]);
        dsm_lock(&s->mu);
        settle_locked(sorted[i], st, ev, cool);
        dsm_unlock(&s->mu);
    }
}

void dsm_settle_claimed(const uint64_t *sorted, size_t n, enum dsm_state st, enum dsm_event ev)
{
    settle_list(sorted, n, st, ev, false);
}

static bool writable_cold(size_t i, uint64_t page, const void *arg)
{
    (void)i;
    (void)arg;
    return dsm.state[page] == PG_RW && !dsm_flag(page, PF_HOT);
}

void dsm_ps_home_protect(const uint64_t *sorted, size_t n)
{
    size_t k;
    uint64_t *todo = dsm_claim(sorted, n, writable_cold, NULL, &k);
    dsm_settle_claimed(todo, k, PG_RO, DSM_EV_HOME_PROTECT);
    free(todo);
}

/* ---- the release --------------------------------------------------------- */

/* A page and its home in one sortable key: by home, then page. */
#define HOME_SHIFT 48
#define KEY_PAGE(k) ((k) & ((1ULL << HOME_SHIFT) - 1))

static const uint64_t one = 1;

void dsm_ps_register_run(struct net_wait *w, uint64_t page, uint64_t n, uint64_t stride, int home,
                         uint64_t *masks)
{
    size_t k = 0;
    uint64_t word = 0;
    for (uint64_t q = page; q < page + n * stride; q += stride) {
        if (dsm_flag(q, PF_SHARER))
            continue;
        if (k && q / 64 != word)
            net_rma_or(w, home, dsm.sharers_id, 8 * (1 + word), &masks[k - 1]);
        if (!k || q / 64 != word) {
            word = q / 64;
            masks[k++] = 0;
        }
        masks[k - 1] |= 1ULL << (q % 64);
    }
    if (!k)
        return;
    net_rma_or(w, home, dsm.sharers_id, 8 * (1 + word), &masks[k - 1]);
    /* The count must not be seen before the bits, nor the pages read
     * before the count is. */
    net_rma_fence();
    net_rma_add(w, home, dsm.sharers_id, 0, &one);
    net_rma_fence();
}

/* Sets our bits in the homes' sharer bitmaps for the pages installed since
 * the last release, one atomic per word of each home's bitmap (the pages
 * sorted by home: cyclic homes interleave them), and bumps each such
 * home's registration count (word 0), which tells it to look at the bits. */
void dsm_register_fresh(void)
{
    if (dsm_plist_empty(&dsm.fresh))
        return;
    struct dsm_plist l = { 0 };
    dsm_lock(&dsm.lists_mu);
    dsm_plist_take(&dsm.fresh, &l);
    dsm_unlock(&dsm.lists_mu);
    if (!l.n)
        return;
    for (size_t i = 0; i < l.n; i++)
        l.pages[i] |= (uint64_t)dsm_home_of(l.pages[i]) << HOME_SHIFT;
    dsm_plist_sort(&l);
    uint64_t *masks = xcalloc(l.n, sizeof *masks);
    bool *told = xcalloc((size_t)dsm.nodes, sizeof *told);
    struct net_wait w;
    net_rma_begin(&w);
    for (size_t i = 0; i < l.n;) {
        uint64_t word = KEY_PAGE(l.pages[i]) / 64;
        int home = (int)(l.pages[i] >> HOME_SHIFT);
        size_t j = i;
        for (; j < l.n && l.pages[j] >> HOME_SHIFT == (uint64_t)home && KEY_PAGE(l.pages[j]) / 64 == word; j++)
            masks[i] |= 1ULL << (KEY_PAGE(l.pages[j]) % 64);
        net_rma_or(&w, home, dsm.sharers_id, 8 * (1 + word), &masks[i]);
        told[home] = true;
        i = j;
    }
    /* The count must not be seen before the bits. */
    net_rma_fence();
    for (int n = 0; n < dsm.nodes; n++)
        if (told[n])
            net_rma_add(&w, n, dsm.sharers_id, 0, &one);
    net_rma_end(&w);
    free(masks);
    free(told);
    dsm_lock(&dsm.lists_mu);
    for (size_t i = 0; i < l.n; i++)
        dsm_plist_add(&dsm.suspect, KEY_PAGE(l.pages[i]));
    dsm_unlock(&dsm.lists_mu);
    dsm_plist_free(&l);
}

void dsm_claim_written(const uint64_t *sorted, size_t n)
{
    for (size_t i = 0; i < n; i++)
        claim_if(sorted[i], NULL, i, NULL);
    if (n)
        protect_list(sorted, n, PG_RO);
}

void dsm_ps_publish(uint64_t page)
{
    struct snap b = before(page);
    drop_twin(page);
    dsm.state[page] = PG_RO;
    dsm_flag_clear(page, PF_REL | PF_AHEAD | PF_AHEAD_COUNTED);
    unbusy(page);
    after(page, DSM_EV_PUBLISH, b);
}

/* The page stays writable, its twin (made here at its home) refreshed. */
static void keep_hot(uint64_t page, enum dsm_event ev)
{
    struct snap b = before(page);
    if (!dsm.twin[page])
        dsm.twin[page] = dsm_twin_alloc();
    refresh_twin(page);
    dsm_flag_clear(page, PF_REL);
    dsm_flag_set(page, PF_HOT);
    after(page, ev, b);
}

void dsm_ps_keep_hot(uint64_t page)
{
    keep_hot(page, DSM_EV_KEEP_HOT);
}

void dsm_ps_home_keep_hot(uint64_t page)
{
    keep_hot(page, DSM_EV_HOME_KEEP_HOT);
}

/* At the home, a page it wrote and a barrier announces: every other node
 * drops its copy at that barrier (nobody can fetch one meanwhile: they are
 * all in it), so nobody holds one after it.  The sharer bit is cleared and
 * the page stays writable, watched like one nobody held: the home writes it
 * again with no fault and no comparison, and a node that fetches it later
 * registers, which makes the page noted at the home's next release.  A
 * registration that lands before the bit is cleared is of a copy the
 * barrier drops. */
void dsm_ps_home_unshare(uint64_t page)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    dsm_lock(&dsm.lists_mu);
    struct snap b = before(page);
    __atomic_fetch_and(&dsm.sharers[1 + page / 64], ~(1ULL << (page % 64)), __ATOMIC_SEQ_CST);
    if (dsm.twin[page])
        drop_twin(page);
    dsm_flag_clear(page, PF_HOT);
    after(page, DSM_EV_UNSHARE, b);
    watch_locked(page);
    dsm_unlock(&dsm.lists_mu);
    dsm_unlock(&s->mu);
}

void dsm_ps_forget_shares(const uint64_t *pages, const int32_t *writers, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t page = pages[i];
        int home = (int)dsm.home[page] - 1;     /* -1: not known */
        bool home_wrote = writers[i] == home || writers[i] == -1;
        if (home < 0 || home == dsm.node || !home_wrote || !dsm_flag(page, PF_SHARER))
            continue;
        struct dsm_stripe *s = dsm_stripe(page);
        dsm_lock(&s->mu);
        struct snap b = before(page);
        dsm_flag_clear(page, PF_SHARER);
        after(page, DSM_EV_UNREGISTERED, b);
        dsm_unlock(&s->mu);
    }
}

void dsm_ps_hot_refresh(uint64_t page)
{
    struct snap b = before(page);
    refresh_twin(page);
    after(page, DSM_EV_HOT_REFRESH, b);
}

static bool still_hot(size_t i, uint64_t page, const void *arg)
{
    (void)i;
    (void)arg;
    return dsm_flag(page, PF_HOT);
}

/* Claimed first, so that one protection change covers each run of pages:
 * removing write access page by page cost 7 us a page here, and NAS MG
 * cools 16,000 pages of its finest grid at once. */
void dsm_cool(const uint64_t *sorted, size_t n)
{
    size_t k;
    uint64_t *todo = dsm_claim(sorted, n, still_hot, NULL, &k);
    settle_list(todo, k, PG_RO, DSM_EV_COOL, true);
    free(todo);
}

void dsm_ps_snapshot(uint64_t page)
{
    struct snap b = before(page);
    if (!dsm.twin[page])
        dsm.twin[page] = dsm_twin_alloc();
    refresh_twin(page);
    after(page, DSM_EV_SNAPSHOT, b);
}

static void unwatch(uint64_t page)
{
    struct snap b = before(page);
    dsm_flag_clear(page, PF_HRW);
    after(page, DSM_EV_UNWATCH, b);
}

/* Takes out of home_rw the pages `gone` says; lists_mu held. */
static void unwatch_if(bool (*gone)(uint64_t page, const void *arg), const void *arg, struct dsm_plist *found)
{
    struct dsm_plist *l = &dsm.home_rw;
    for (size_t i = 0; i < l->n;) {
        uint64_t p = l->pages[i];
        if (gone(p, arg)) {
            l->pages[i] = l->pages[--l->n];
            unwatch(p);
            if (found)
                dsm_plist_add(found, p);
        } else {
            i++;
        }
    }
}

static bool shared(uint64_t page, const void *arg)
{
    (void)arg;
    return dsm_shared(page);
}

void dsm_ps_unwatch_shared(struct dsm_plist *found)
{
    dsm_lock(&dsm.lists_mu);
    unwatch_if(shared, NULL, found);
    dsm_unlock(&dsm.lists_mu);
}

static bool listed(uint64_t page, const void *sorted)
{
    return dsm_plist_has(sorted, page);
}

void dsm_home_reprotect(const struct dsm_plist *sorted)
{
    struct dsm_plist found = { 0 };
    dsm_lock(&dsm.lists_mu);
    unwatch_if(listed, sorted, &found);
    dsm_unlock(&dsm.lists_mu);
    dsm_plist_sort(&found);
    dsm_ps_home_protect(found.pages, found.n);
    dsm_plist_free(&found);
}

/* ---- the acquire --------------------------------------------------------- */

/* Set by dsm_ps_lag for the calling thread's invalidations. */
static __thread bool lag;

void dsm_ps_lag(bool on)
{
    lag = on;
}

static bool still_lagging(size_t i, uint64_t page, const void *keep)
{
    (void)i;
    if (!dsm_flag(page, PF_LAG) || page == *(const uint64_t *)keep)
        return false;
    dsm_flag_clear(page, PF_LAG);
    return dsm.state[page] == PG_INVALID;
}

void dsm_ps_lower(uint64_t keep)
{
    if (dsm_plist_empty(&dsm.lagging))
        return;
    struct dsm_plist l = { 0 };
    dsm_lock(&dsm.lists_mu);
    dsm_plist_take(&dsm.lagging, &l);
    if (keep != DSM_NO_PAGE && dsm_flag(keep, PF_LAG))
        dsm_plist_add(&dsm.lagging, keep);
    dsm_unlock(&dsm.lists_mu);
    dsm_plist_sort_unique(&l);
    size_t k;
    uint64_t *todo = dsm_claim(l.pages, l.n, still_lagging, &keep, &k);
    dsm_settle_claimed(todo, k, PG_INVALID, DSM_EV_LOWER);
    free(todo);
    dsm_plist_free(&l);
}

/* The home's own copy is always current and is kept; so is a copy whose
 * only writer was this node (it is byte for byte what the home has). */
static bool must_drop(uint64_t page, int32_t writer)
{
    if (writer == dsm.node)
        return false;
    uint16_t h = dsm.home[page];
    return h != (uint16_t)(dsm.node + 1);
}

struct drop_arg {
    const int32_t *writers;
    size_t unflushed;           /* pages left alone: written since the caller's flush */
};

/* Under the stripe lock: a copy to drop is one still held.  Callers flush
 * first: no page in the list may still have a twin but a hot page's, which
 * then equals its contents, unless another thread of the node wrote it
 * since; such a page is left for the caller to flush again. */
static bool droppable(size_t i, uint64_t page, const void *arg)
{
    struct drop_arg *a = (struct drop_arg *)arg;
    if (!must_drop(page, a->writers ? a->writers[i] : -1) || dsm.state[page] == PG_INVALID)
        return false;
    if (dsm.twin[page] && !dsm_flag(page, PF_HOT) && dsm.app_threads > 1) {
        a->unflushed++;
        return false;
    }
    if (dsm.twin[page]) {
        check_twin_equal(page, "invalidating");
        struct snap b = before(page);
        drop_twin(page);
        dsm_flag_clear(page, PF_HOT);
        after(page, DSM_EV_DROP_HOT, b);
    }
    if (lag && dsm.state[page] == PG_RO && !dsm.twin[page])
        dsm_flag_set(page, PF_LAG);
    return true;
}

/* The release just before, in the same barrier, refreshed a hot page's
 * twin, and no thread of the node ran since. */
bool dsm_ps_refreshable(size_t i, uint64_t page, const void *writers)
{
    const int32_t *w = writers;
    if (dsm.app_threads > 1 || !must_drop(page, w ? w[i] : -1))
        return false;
    if (dsm.state[page] == PG_RO)
        return !dsm.twin[page];
    if (dsm.state[page] != PG_RW || !dsm_flag(page, PF_HOT))
        return false;
    check_twin_equal(page, "refreshing");
    return true;
}

void dsm_ps_refreshed(uint64_t page)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    struct snap b = before(page);
    bool hot = dsm.state[page] == PG_RW;
    if (hot)
        refresh_twin(page);
    dsm_flag_set(page, PF_SHARER);
    unbusy(page);
    after(page, hot ? DSM_EV_REFRESH : DSM_EV_REFRESH_READ, b);
    dsm_unlock(&s->mu);
}

/* Pages are marked busy, protected in coalesced ranges, then settled, so
 * that a thread faulting meanwhile waits instead of racing with the
 * protection change. */
size_t dsm_invalidate(const uint64_t *pages, const int32_t *writers, size_t n)
{
    size_t k;
    struct drop_arg a = { .writers = writers };
    uint64_t *drop = dsm_claim(pages, n, droppable, &a, &k);
    dsm_settle_claimed(drop, k, PG_INVALID, DSM_EV_INVALIDATE);
    free(drop);
    return a.unflushed;
}

/* ---- a notice's clean copies, dropped as it arrives ------------------------ */

/* Held while a notice's copies are dropped on its arrival, and by a home
 * migration from its fetch of the pages moving here to their adoption: a
 * copy the fetch skipped (it was current) must still be there to adopt. */
static pthread_mutex_t early_mu = PTHREAD_MUTEX_INITIALIZER;

/* Under the stripe lock: a copy homed elsewhere, nothing under way on it,
 * read-only with no twin, or (if hot) hot with its twin equal to it. */
static bool clean_copy(uint64_t page, bool hot)
{
    uint16_t h = dsm.home[page];
    if (!h || h == (uint16_t)(dsm.node + 1) || dsm_flag(page, PF_BUSY | PF_HRW))
        return false;
    if (dsm.state[page] == PG_RO)
        return !dsm.twin[page] && !dsm_flag(page, PF_HOT);
    return hot && dsm.state[page] == PG_RW && dsm_flag(page, PF_HOT) && dsm.twin[page] &&
           !memcmp(dsm.twin[page], dsm_rt(page), dsm.page_size);
}

/* A claimed copy, protected now: dropped, unless it is a hot one that a
 * thread wrote before the protection (it is writable again).  Returns
 * whether it was dropped. */
static bool arrival_drop(uint64_t page)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    bool written = dsm.twin[page] && memcmp(dsm.twin[page], dsm_rt(page), dsm.page_size);
    if (written)
        protect(page, 1, PG_RW);
    settle_locked(page, written ? PG_RW : PG_INVALID, written ? DSM_EV_HOT_REOPEN : DSM_EV_ARRIVAL_DROP, !written);
    dsm_unlock(&s->mu);
    return !written;
}

size_t dsm_drop_on_arrival(const uint64_t *pages, size_t n, uint64_t epoch, bool hot, uint64_t *left)
{
    struct dsm_plist drop = { 0 };
    size_t m = 0;
    bool now = dsm_trylock(&early_mu);
    if (now && epoch < __atomic_load_n(&dsm.epoch, __ATOMIC_ACQUIRE)) {
        dsm_unlock(&early_mu);
        now = false;
    }
    for (size_t i = 0; i < n; i++) {
        struct dsm_stripe *s = dsm_stripe(pages[i]);
        bool take = now && dsm_trylock(&s->mu);
        if (take) {
            take = clean_copy(pages[i], hot);
            if (take)
                dsm_ps_claim(pages[i]);
            dsm_unlock(&s->mu);
        }
        if (take)
            dsm_plist_add(&drop, pages[i]);
        else
            left[m++] = pages[i];
    }
    dsm_plist_sort(&drop);
    if (drop.n)
        protect_list(drop.pages, drop.n, PG_INVALID);
    for (size_t i = 0; i < drop.n; i++)
        if (!arrival_drop(drop.pages[i]))
            left[m++] = drop.pages[i];
    dsm_plist_free(&drop);
    if (now)
        dsm_unlock(&early_mu);
    return m;
}

void dsm_rehome_begin(void)
{
    dsm_lock(&early_mu);
}

/* ---- start-up and home migration ---------------------------------------- */

/* The pages [first, first + n) writable at once, by event ev. */
static void open_range(uint64_t first, uint64_t n, enum dsm_event ev)
{
    protect(first, n, PG_RW);
    for (uint64_t p = first; p < first + n; p++) {
        struct snap b = before(p);
        dsm.state[p] = PG_RW;
        after(p, ev, b);
    }
}

void dsm_ps_pin(uint64_t first, uint64_t n)
{
    open_range(first, n, DSM_EV_PIN);
}

static bool adoptable(size_t i, uint64_t page, const void *arg)
{
    (void)i;
    (void)arg;
    return dsm.state[page] != PG_RW && !dsm_pinned(page) && !dsm_shared(page);
}

/* Pages this node has just become home of, that no other node holds
 * (home migration moved them here and every other copy was dropped):
 * writable at once, watched as unshared pages are (home_rw), as the first
 * fault of each would leave them.  A migration moves thousands of pages
 * whose new home goes on to use them; this saves a fault per page.
 * `sorted` is in increasing order; no stripe lock may be held. */
void dsm_adopt(const uint64_t *sorted, size_t n)
{
    size_t k;
    uint64_t *todo = dsm_claim(sorted, n, adoptable, NULL, &k);
    dsm_settle_claimed(todo, k, PG_RW, DSM_EV_ADOPT);
    for (size_t i = 0; i < k; i++)
        watch(todo[i]);
    free(todo);
}

/* Every node records the new home and forgets that it registered as a
 * sharer; the new home cools a hot page of its own (home pages keep no
 * twin) and starts the page unshared: nobody holds a copy once every other
 * node has dropped its own (dsm_rehome_end). */
void dsm_rehome(struct dsm_rehoming *r, uint64_t page, int to)
{
    if (to == dsm.node)
        dsm_cool(&page, 1);
    struct snap b = before(page);
    dsm_set_home(page, to);
    dsm_flag_clear(page, PF_SHARER);
    if (to == dsm.node) {
        __atomic_fetch_and(&dsm.sharers[1 + page / 64], ~(1ULL << (page % 64)), __ATOMIC_SEQ_CST);
        dsm_plist_add(&r->in, page);
    } else {
        dsm_plist_add(&r->out, page);
    }
    after(page, DSM_EV_REHOME, b);
}

void dsm_ps_exit(uint64_t first, uint64_t n)
{
    open_range(first, n, DSM_EV_EXIT);
}

static bool homed_elsewhere(uint64_t page, const void *arg)
{
    (void)arg;
    return dsm.home[page] != (uint16_t)(dsm.node + 1);
}

/* Under lists_mu: an old home forgets the pages that left it from its
 * release list.  Another node's atomic run here after this node's last
 * release (while it waited in the barrier that migrates) put the page
 * there; its notice went out then, and the copy is dropped now, so there
 * is nothing left to publish.  Left in the list, the next release would
 * make the dropped copy readable again, stale, held without the new
 * home knowing. */
static void forget_released(const struct dsm_plist *sorted_out)
{
    size_t kept = 0;
    for (size_t i = 0; i < dsm.rel.n; i++) {
        uint64_t p = dsm.rel.pages[i];
        if (dsm_plist_has(sorted_out, p))
            dsm_flag_clear(p, PF_REL);
        else
            dsm.rel.pages[kept++] = p;
    }
    dsm.rel.n = kept;
}

/* The old homes forget the pages they watched as unshared, every node
 * drops its copies of the pages homed elsewhere now, and the new homes
 * adopt theirs. */
void dsm_rehome_end(struct dsm_rehoming *r)
{
    dsm_plist_sort(&r->out);
    dsm_lock(&dsm.lists_mu);
    unwatch_if(homed_elsewhere, NULL, NULL);
    forget_released(&r->out);
    dsm_unlock(&dsm.lists_mu);
    dsm_invalidate(r->out.pages, NULL, r->out.n);
    dsm_plist_sort(&r->in);
    dsm_adopt(r->in.pages, r->in.n);
    dsm_plist_free(&r->in);
    dsm_plist_free(&r->out);
    dsm_unlock(&early_mu);
}
