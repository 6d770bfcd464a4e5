/*
 * page_state.h: the transitions of a page's coherence state, the only
 * code that changes a page's state, its coherence flags (BUSY, SHARER,
 * HRW, HOT), its twin, its home and its sharer bit (page_state.c).
 *
 * Each transition is named after what the code does at that point
 * (dsm/PROTOCOL.md has the table and who calls what, from which
 * context).  The list flags (REL, BAR, CNT) only say that a page is in one
 * of page.c's lists: page.c changes them.
 *
 * The table of allowed transitions is data (dsm_ps_rules): in a checking
 * build (configure --enable-checking) every transition compares the page
 * before and after with it and stops the node, naming page, event, from
 * and to, on a pair the table does not allow.
 */
#ifndef DSM_PAGE_STATE_H
#define DSM_PAGE_STATE_H

#include "dsm.h"
#include "rehome.h"

struct net_wait;

enum dsm_event {
    DSM_EV_CLAIM,           /* marked BUSY: a fetch, flush or settle is under way */
    DSM_EV_FETCHED,         /* its first fetch: we may now hold a copy (SHARER) */
    DSM_EV_READ_MISS,       /* fetched for a read, or read ahead: read-only */
    DSM_EV_WRITE_MISS,      /* fetched for a write: twin, writable */
    DSM_EV_WRITE_UPGRADE,   /* a write to a read-only copy: twin, writable */
    DSM_EV_WRITE_AHEAD,     /* a claimed read-only copy a write sweep runs into: twin, writable */
    DSM_EV_HOME_READ,       /* a read at the home of a shared page */
    DSM_EV_HOME_WRITE,      /* a write at the home of a shared page (noted) */
    DSM_EV_HOME_WRITE_AHEAD, /* a claimed shared page at its home a write sweep runs into: noted, writable */
    DSM_EV_HOME_UNSHARED,   /* any access at the home of a page nobody else holds */
    DSM_EV_HOME_PINNED,     /* any access at the home of a pinned page */
    DSM_EV_WATCH,           /* writable at the home unshared: in home_rw (HRW) */
    DSM_EV_UNWATCH,         /* out of home_rw: shared now, or homed elsewhere */
    DSM_EV_HOME_PROTECT,    /* unwatched at a barrier's end, not announced: read-only */
    DSM_EV_PUBLISH,         /* diffed at a release: read-only, twin dropped */
    DSM_EV_KEEP_HOT,        /* diffed at a release, stays writable (HOT) */
    DSM_EV_HOME_KEEP_HOT,   /* written at its home, shared: stays writable with a snapshot (HOT) */
    DSM_EV_UNSHARE,         /* written at its home, announced by a barrier: nobody holds it now */
    DSM_EV_UNREGISTERED,    /* elsewhere: its home announced its own write at a barrier, and unshared it */
    DSM_EV_HOT_REFRESH,     /* a hot page diffed: its twin refreshed */
    DSM_EV_COOL,            /* a hot page stops being one: read-only */
    DSM_EV_DROP_HOT,        /* a hot page about to be invalidated drops its twin */
    DSM_EV_REFRESH,         /* a hot page another node wrote too: the home's bytes, still hot */
    DSM_EV_REFRESH_READ,    /* a read-only copy read again and again: the home's bytes, still RO */
    DSM_EV_INVALIDATE,      /* a copy dropped at an acquire */
    DSM_EV_LOWER,           /* a copy an idle node's barrier dropped, left readable: protected now */
    DSM_EV_ARRIVAL_DROP,    /* a clean copy dropped as a notice naming it arrives */
    DSM_EV_HOT_REOPEN,      /* a hot copy claimed for that, found written meanwhile: writable again */
    DSM_EV_ADOPT,           /* the new home of a page nobody holds: writable */
    DSM_EV_SNAPSHOT,        /* a pinned page at its home: snapshot in its twin */
    DSM_EV_PIN,             /* a pinned page at its home, at start-up: writable */
    DSM_EV_REHOME,          /* the page's home moved (migration) */
    DSM_EV_EXIT,            /* node 0's globals, writable for the program's exit handlers */
    DSM_EV_COUNT
};

/* A pseudo-flag for the table: the page has a twin. */
#define DSM_PS_TWIN (1 << 7)
/* The flags the table speaks of; the list flags are left out. */
#define DSM_PS_TRACKED (PF_BUSY | PF_SHARER | PF_HRW | PF_HOT | DSM_PS_TWIN)
/* A rule's `to` that keeps the state the page had. */
#define DSM_PS_SAME (-1)

/* An allowed transition: the page's state is in the mask `from` (1 <<
 * state), has the flags from_set and none of from_clear; after, its state
 * is `to` and it has the flags to_set and none of to_clear. */
struct dsm_ps_rule {
    enum dsm_event ev;
    uint8_t from, from_set, from_clear;
    int8_t to;
    uint8_t to_set, to_clear;
};

extern const struct dsm_ps_rule dsm_ps_rules[];
extern const size_t dsm_ps_nrules;
const char *dsm_ps_event_name(enum dsm_event ev);
/* The rule as the first seven cells of PROTOCOL.md's table row. */
void dsm_ps_rule_format(const struct dsm_ps_rule *r, char *buf, size_t len);
/* Whether the table allows the page to go from (state, flags) to (state,
 * flags) at event ev; flags are tracked flags (DSM_PS_TRACKED). */
bool dsm_ps_allowed(enum dsm_event ev, uint8_t from_state, uint8_t from_flags, uint8_t to_state, uint8_t to_flags);

/* The page's home is `home` (a first touch arbitrated, a hint learnt). */
void dsm_set_home(uint64_t page, int home);

/* ---- the fault path (fault.c) ---- */
/* Stripe lock held, page not BUSY: marks it BUSY. */
void dsm_ps_claim(uint64_t page);
/* Before a get of the claimed pages page, page + stride, ... (n of them)
 * from `home`: posts in the batch w the registration of those this node is
 * not a sharer of yet (their bits in the home's bitmap, then its count),
 * ordered before whatever the batch posts next.  masks: room for
 * n / 64 + 2 words (n + 1 if stride > 1), valid until the batch ends. */
void dsm_ps_register_run(struct net_wait *w, uint64_t page, uint64_t n, uint64_t stride, int home,
                         uint64_t *masks);
/* A claimed page has just been fetched (registered: by dsm_ps_register_run
 * before the get; otherwise at our next release). */
void dsm_ps_fetched(uint64_t page, bool registered);
/* Stripe lock held, the page at a node that is not its home: fetched
 * (claimed, INVALID) or read-only for a write; it becomes RO or RW. */
void dsm_ps_remote_fault(uint64_t page, bool write);
void dsm_ps_write_ahead(uint64_t first, uint64_t n, const bool *ahead, bool counted);
/* Stripe lock held, the page at its home, INVALID or RO; says whether it
 * was a write that made it writable (home-write, noted, of a shared page;
 * home-unshared, watched, of a page nobody else holds). */
bool dsm_ps_home_fault(uint64_t page, bool write);
/* The claimed pages first..first+n-1, read-only at their home, this node,
 * one application thread: the shared ones noted as written, then all
 * writable in one step, then those nobody else held watched. */
void dsm_ps_home_write_ahead(uint64_t first, uint64_t n);

/* ---- claiming and settling lists of pages ---- */
/* Claims (marks BUSY) the pages of the list that `want` accepts, waiting
 * first for any fetch or flush under way on each; `want` runs under the
 * page's stripe lock.  Returns the claimed pages, in list order, in a
 * malloc'd array (*k of them), for dsm_settle_claimed(). */
uint64_t *dsm_claim(const uint64_t *pages, size_t n, bool (*want)(size_t i, uint64_t page, const void *arg),
                    const void *arg, size_t *k);
/* Pages claimed by the caller, sorted: protected in coalesced ranges, then
 * given state st by event ev and released to the threads that wait. */
void dsm_settle_claimed(const uint64_t *sorted, size_t n, enum dsm_state st, enum dsm_event ev);

/* ---- the release (flush.c) ---- */
/* The sorted pages a release is about to diff: claimed (marked BUSY, after
 * waiting for any fetch or flush under way on each), then write-protected,
 * so that a write made while the diff is taken faults and waits. */
void dsm_claim_written(const uint64_t *sorted, size_t n);
/* Home pages just taken out of home_rw (sorted), that no release will
 * announce: read-only, so that the home's next write is noted. */
void dsm_ps_home_protect(const uint64_t *sorted, size_t n);
/* Sets our bits in the homes' sharer bitmaps for the pages fetched since
 * the last release (`fresh`), then moves them to `suspect`. */
void dsm_register_fresh(void);
/* Stripe lock held, the page claimed and its diff taken: read-only. */
void dsm_ps_publish(uint64_t page);
/* The page written in this interval stays writable: twin refreshed, HOT. */
void dsm_ps_keep_hot(uint64_t page);
/* Stripe lock held: a shared page its home wrote in this interval stays
 * writable; its twin becomes a snapshot, compared at each release. */
void dsm_ps_home_keep_hot(uint64_t page);
/* At a barrier: a page written at its home, RW, nobody else to hold it
 * after the barrier: sharer bit cleared, writable, watched. */
void dsm_ps_home_unshare(uint64_t page);
/* At a barrier or wake: of the announced pages, those homed elsewhere that
 * their home may have written (writers[i] is the home, or -1: several) may
 * have been unshared there; this node is no longer registered as holding
 * them, and its next fetch of one registers again. */
void dsm_ps_forget_shares(const uint64_t *pages, const int32_t *writers, size_t n);
/* A hot page's diff was taken: its twin becomes its contents. */
void dsm_ps_hot_refresh(uint64_t page);
/* The hot pages (PF_HOT) of the sorted list stop being kept writable:
 * claimed, read-only, their twins dropped.  Only right after a release
 * (a twin is then its page's contents). */
void dsm_cool(const uint64_t *sorted, size_t n);
/* A pinned page at its home: its twin becomes a snapshot of it. */
void dsm_ps_snapshot(uint64_t page);
/* Home pages watched as unshared (home_rw) that another node registered
 * for since: out of the watch, appended to `found`. */
void dsm_ps_unwatch_shared(struct dsm_plist *found);

/* ---- the acquire (invalidate.c, barrier.c, lock.c) ---- */
/* Invalidate a list of pages that other nodes wrote (writers: each page's
 * writer, -1 for several; NULL: not this node).  Returns how many were
 * left alone because another thread of the node wrote them since the
 * caller's flush (only with several threads per node). */
size_t dsm_invalidate(const uint64_t *pages, const int32_t *writers, size_t n);
/* While on, the calling thread's invalidations leave the read-only copies
 * they drop readable (PF_LAG, listed in dsm.lagging): the barriers of a
 * node that runs no application code until dsm_ps_lower() (barrier.c,
 * dsm_idle_begin).  A lagging copy installed again (dsm_install_copy)
 * becomes RO with no protection change. */
void dsm_ps_lag(bool on);
/* Protects the copies still lagging, in coalesced ranges, but page `keep`
 * (DSM_NO_PAGE: none). */
#define DSM_NO_PAGE UINT64_MAX
void dsm_ps_lower(uint64_t keep);
/* At a barrier's acquire or a lock's grant, one application thread per node
 * (refresh.c), under the stripe lock: whether pages[i], announced with
 * writer ((const int32_t *)writers)[i] (NULL: not known), is a copy that
 * could be refreshed rather than dropped: a hot one, or a read-only one. */
bool dsm_ps_refreshable(size_t i, uint64_t page, const void *writers);
/* A claimed copy whose home's bytes are in it now: a hot page's twin takes
 * them too; it keeps its state, registered at its home. */
void dsm_ps_refreshed(uint64_t page);

/* A write notice's pages, as it arrives (in its handler, before it is
 * acknowledged): the clean copies among them are dropped at once, so that
 * a flush returns only when its readers can no longer read them stale,
 * even before their next acquire.  A clean copy is homed elsewhere with
 * nothing under way on it, and read-only with no twin or, if `hot` (the
 * caller holds off every release, which reads hot twins unlocked), hot
 * with its twin equal to it: no write of this node since its last release
 * (checked again once it is protected).  Never waits: a page whose stripe
 * lock is taken, a notice older than this node's barrier epoch, or a
 * migration under way leaves the pages to the inbox.  Writes to `left` the
 * pages not dropped and returns how many. */
size_t dsm_drop_on_arrival(const uint64_t *pages, size_t n, uint64_t epoch, bool hot, uint64_t *left);

/* ---- start-up and home migration ---- */
/* The pinned pages [first, first + n), at their home: writable. */
void dsm_ps_pin(uint64_t first, uint64_t n);
/* At the new home of pages nobody else holds: make them writable now. */
void dsm_adopt(const uint64_t *sorted, size_t n);
/* Node 0 at exit, every node past its last barrier: the pages [first,
 * first + n) of the program's globals writable, with no more coherence,
 * for the code that runs after (exit handlers, destructors). */
void dsm_ps_exit(uint64_t first, uint64_t n);
/* The rehome transition, and dsm_shared(): rehome.h, which home migration
 * (migrate/) includes too. */

#endif
