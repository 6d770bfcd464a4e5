/*
 * flush.c: the release side of release consistency.
 *
 * dsm_release() publishes every write this node made since its previous
 * release: each page it is not home of is diffed against its twin and the
 * runs are applied at the home; the home acknowledges, so when
 * dsm_release() returns every home holds our writes and a node that fetches
 * the page afterwards sees them.  A barrier's release on one host does not
 * wait: the barrier does, once for all nodes (diff_out.c).
 *
 * The written pages are write-protected first, in coalesced ranges, so that
 * no thread of this node can change a page while it is being diffed; a
 * thread that writes meanwhile faults and waits for the page to settle
 * (PF_BUSY).  Home pages in the list go read-only too: they are shared, and
 * the home's next write must be noticed again.
 *
 * Diffs travel in OP_DIFF messages, one or more per home (diff_out.c): a
 * batch_hdr followed by entries (a diff_entry_hdr, then the runs).
 *
 * Sharers.  A home lets a page nobody else holds stay writable and sends no
 * notices for it.  A node that fetches such a page must therefore become
 * known to the home: before its first get of a page it sets its bit in the
 * home's sharer bitmap (one-sided atomics in the get's batch, ordered
 * before it: page_state.c, dsm_ps_register_run).  From then on the home
 * notices its own writes: it checks the bits of its writable pages at each
 * of its releases (catch_new_sharers), and announces those it finds (it
 * may have written one after our get), and again at the end of each
 * barrier, where it only write-protects them (dsm_quiet_catch: it wrote
 * nothing since its release, and a get after the registration read it
 * all).  A copy installed from a region's start (dsm_install_copy) is
 * registered lazily, at our next release (dsm_register_fresh); the home
 * may have written the page between the copy and that registration
 * without a notice, so such copies are suspect and are dropped at our next
 * acquire (barrier or lock), as are those installed since the release and
 * not registered yet (registered then).
 *
 * Hot pages.  A page this node is not home of and writes in one interval is
 * likely to be written in the next (a block of an array that a loop
 * updates at every step, a node's half of a transpose).  Write-protecting
 * it at the release would cost a fault, a new twin and a protection change
 * at every interval.  Such a page stays writable instead, with its twin:
 * at each release it is diffed against the twin, which is then refreshed
 * with its contents; a non-empty diff makes it written in that interval
 * (notices, migration counts), as a fault would have.  After eight releases
 * with nothing written (sixteen if another node writes the page too) it
 * cools: read-only again, the twin dropped.  A barrier that announces
 * another node's writes to it refreshes it from the home (refresh.c);
 * another invalidation drops it like any copy (its twin, refreshed at the
 * release just before, equals its contents); a migration that makes this
 * node its home cools it first.  This relies on the releasing thread being
 * the node's only writer of shared pages (one OpenMP thread per node): a
 * hot page is diffed without being protected first.  A node that runs
 * several threads keeps no hot pages (dsm.app_threads).
 *
 * Releases of one node's threads (a lock's, a flush, a barrier's) take
 * turns: each diffs every page the node wrote.
 */
#include "diff.h"
#include "diff_out.h"
#include "dsm.h"
#include "host_seg.h"
#include "page_state.h"
#include "proto.h"
#include "stats.h"
#include "../net/net.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- at the home -------------------------------------------------------- */

/* Per page, the last two releases (stamp(), below) after which another
 * node's write to it was seen (at its home, a diff; elsewhere, a refresh
 * of a hot copy), and that published this node's writes to it. */
static uint64_t *elsewhere, *wrote;

/* A diff for a page hot here, its home: the snapshot takes it too, so
 * that the release compares only this node's own writes (and does not
 * announce another node's as the home's). */
static void diff_to_snapshot(uint64_t page, const void *diff, size_t len)
{
    if (dsm_flag(page, PF_HOT) && dsm.twin[page])
        dsm_diff_apply(dsm.twin[page], dsm.page_size, diff, len, false);
}

/* Applies a diff to the home's copy, under the page's stripe lock: a
 * thread of this node that faults on the page meanwhile waits, so the
 * home's threads write the page during the application only if it is
 * writable here already (diff.c). */
static long apply_at_home(uint64_t page, const void *diff, size_t len)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    long n = dsm_diff_apply(dsm_rt(page), dsm.page_size, diff, len, dsm.state[page] == PG_RW);
    if (n >= 0) {
        diff_to_snapshot(page, diff, len);
        dsm_note_written_elsewhere(page);
    }
    dsm_unlock(&s->mu);
    return n;
}

/* A batch's entries, checked: their pages, and where each one's runs are. */
struct diff_entries {
    uint64_t *pages;
    struct diff_runs { const char *at; uint32_t bytes; } *runs;
};

static struct diff_entries parse_batch(int src, const struct batch_hdr *h, const char *end)
{
    const char *p = (const char *)(h + 1);
    size_t n = h->count ? h->count : 1;
    struct diff_entries d = { xcalloc(n, sizeof *d.pages), xcalloc(n, sizeof *d.runs) };
    for (uint64_t i = 0; i < h->count; i++) {
        struct diff_entry_hdr e;
        if ((size_t)(end - p) < sizeof e)
            dsm_fatal("truncated diff message from node %d", src);
        memcpy(&e, p, sizeof e);
        p += sizeof e;
        if (e.page >= dsm.npages || (size_t)(end - p) < e.bytes)
            dsm_fatal("malformed diff entry from node %d (page %lu)", src, (unsigned long)e.page);
        d.pages[i] = e.page;
        d.runs[i] = (struct diff_runs){ p, e.bytes };
        p += e.bytes;
    }
    return d;
}

static void on_diff(int src, void *body, size_t len)
{
    struct batch_hdr *h = body;
    struct diff_entries d = parse_batch(src, h, (const char *)body + len);
    /* Pages of the home that its runtime view has not mapped yet (the
     * program wrote them through its own view, or nobody did) are mapped
     * in one call per run, not one fault a page as the diffs land. */
    dsm_populate_pages(d.pages, h->count);
    for (uint64_t i = 0; i < h->count; i++) {
        long n = apply_at_home(d.pages[i], d.runs[i].at, d.runs[i].bytes);
        if (n < 0)
            dsm_fatal("malformed diff runs from node %d for page %lu", src, (unsigned long)d.pages[i]);
        STAT_ADD(diff_bytes_applied, (uint64_t)n);
    }
    free(d.pages);
    free(d.runs);
    dsm_notice_news();
    if (h->cookie) {
        net_send_done(src, h->cookie);
        return;
    }
    /* Posted by a barrier's release: the nodes in the barrier look. */
    atomic_fetch_add_explicit(host_seg_applied(dsm.node, src), 1, memory_order_release);
    dsm_ring_other_sleepers(dsm.nodes);
}

void dsm_flush_register(void)
{
    elsewhere = dsm_page_table(sizeof *elsewhere);
    wrote = dsm_page_table(sizeof *wrote);
    net_register_unlocked(OP_DIFF, on_diff);
}

/* ---- at the writer ------------------------------------------------------ */

/* Appends the page's diff to its home's (diff_out.c) and, unless the page is to
 * settle later (publish_one), drops the twin and lets it settle read-only.
 * Says whether the diff is not empty. */
static bool diff_one(uint64_t page, bool settle_later)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    bool changed = dsm.twin[page] && dsm_diff_out_add(page, dsm.twin[page]);
    if (!settle_later)
        dsm_ps_publish(page);
    dsm_unlock(&s->mu);
    return changed;
}

/* With several threads per node, a page settles only once its diff is at
 * the home: before, another thread of the node could drop the copy (an
 * acquire) and fetch the home's before the diff reached it, and lose the
 * writes from the node's view. */
static void publish_one(uint64_t page)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    dsm_ps_publish(page);
    dsm_unlock(&s->mu);
}

/* How many homes have a batch. */
static uint32_t homes_with_batches(const uint64_t *counts)
{
    uint32_t homes = 0;
    for (int n = 0; n < dsm.nodes; n++)
        homes += counts[n] != 0;
    return homes;
}

/* The batches go uncopied (net_send_nocopy). */
void dsm_send_batches(uint8_t op, const struct dsm_buf *batches, const uint64_t *counts)
{
    struct net_wait w, sent;
    uint32_t homes = homes_with_batches(counts);
    net_wait_init(&w, homes);
    net_wait_init(&sent, homes);
    for (int n = 0; n < dsm.nodes; n++) {
        if (!counts[n])
            continue;
        struct batch_hdr h = { .cookie = (uint64_t)(uintptr_t)&w, .count = counts[n] };
        net_send_nocopy(n, op, &h, sizeof h, batches[n].p, batches[n].n, &sent);
    }
    net_wait(&w);
    net_wait(&sent);
}

static bool all_applied(void)
{
    for (int to = 0; to < dsm.nodes; to++)
        for (int from = 0; from < dsm.nodes; from++)
            if (atomic_load_explicit(host_seg_applied(to, from), memory_order_acquire) <
                atomic_load_explicit(host_seg_posted(from, to), memory_order_acquire))
                return false;
    return true;
}

void dsm_wait_applied(void)
{
    if (!host_seg_on())
        return;
    for (;;) {
        uint32_t seen = dsm_news();
        if (all_applied())
            return;
        dsm_news_wait_or(seen, 1000, all_applied);
    }
}

/* Home pages written with no notice because nobody else held them, that
 * a node has registered as a sharer of since this node last looked (the
 * registration count moved): taken out of home_rw into `found`, sorted. */
static void new_sharers(struct dsm_plist *found)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint64_t gen = __atomic_load_n(&dsm.sharers[0], __ATOMIC_SEQ_CST);
    if (gen == dsm.sharers_seen)
        return;
    dsm.sharers_seen = gen;
    dsm_ps_unwatch_shared(found);
    dsm_plist_sort(found);
}

/* At a release: the home may have written such a page after the new
 * sharer read it, so the page is announced as written (and
 * write-protected, like every announced page, even at a barrier: the home
 * may not write it again, and a page read by others every interval would
 * otherwise be announced, and fetched again, at every one). */
static void catch_new_sharers(struct dsm_plist *found)
{
    new_sharers(found);
    for (size_t i = 0; i < found->n; i++)
        dsm_note_written(found->pages[i]);
}

/* At an acquire: the copies installed since our registration was last
 * brought up to date may have been written by their homes after they were
 * taken, without a notice (the homes did not know we held them); register
 * and drop them too. */
void dsm_drop_suspects(void)
{
    /* With one application thread, no other can be between taking the
     * suspects and dropping them. */
    if (dsm.app_threads == 1 && dsm_plist_empty(&dsm.fresh) && dsm_plist_empty(&dsm.suspect))
        return;
    /* Registering is part of the acquire: a page this thread registers
     * joins the suspects only then, and another thread of the node that
     * finds the suspects empty meanwhile must wait for it. */
    struct dsm_plist l = { 0 };
    dsm_lock(&dsm.acquire_mu);
    dsm_register_fresh();
    dsm_lock(&dsm.lists_mu);
    dsm_plist_take(&dsm.suspect, &l);
    dsm_unlock(&dsm.lists_mu);
    dsm_plist_sort(&l);
    dsm_drop_copies(l.pages, l.n);
    dsm_unlock(&dsm.acquire_mu);
    dsm_plist_free(&l);
}

static const char *stack_floor;

const void *dsm_stack_floor(void)
{
    return stack_floor;
}

void dsm_set_stack_floor(const void *floor)
{
    stack_floor = floor;
}

/* Pinned pages at their home: those another node holds and that changed
 * at or above the stack floor since the last release are announced as
 * written. */
static void check_pinned(void)
{
    if (dsm.pinned_end == dsm.pinned_first || dsm_home_of(dsm.pinned_first) != dsm.node)
        return;
    uint64_t first = dsm.pinned_first;
    size_t from = 0;        /* the floor's offset in page `first` */
    int64_t fp = stack_floor ? dsm_page_of((uintptr_t)stack_floor) : -1;
    if (fp >= 0 && dsm_pinned((uint64_t)fp)) {
        first = (uint64_t)fp;
        from = (uintptr_t)stack_floor % dsm.page_size;
    }
    for (uint64_t p = first; p < dsm.pinned_end; p++) {
        if (p % 64 == 0 && !__atomic_load_n(&dsm.sharers[1 + p / 64], __ATOMIC_SEQ_CST)) {
            p += 63;    /* nobody holds any page of this bitmap word */
            continue;
        }
        if (!dsm_shared(p) || dsm.state[p] == PG_INVALID)
            continue;
        size_t off = p == first ? from : 0;
        if (dsm.twin[p] && !memcmp((const char *)dsm.twin[p] + off, dsm_rt(p) + off, dsm.page_size - off))
            continue;
        dsm_ps_snapshot(p);
        dsm_note_written(p);
    }
}

/* ---- hot pages --------------------------------------------------------- */

/* Releases with nothing written before a page cools.  At its home, or
 * where another node writes it too, a page stays hot longer: keeping it
 * costs a comparison per release, a fraction of the fault and the two
 * protection changes its next write would cost, and loops that write a
 * vector once per iteration of an outer loop leave it idle for a dozen
 * releases in between (NAS CG: six loops, twelve barriers, per step); a
 * copy another node writes too would also be dropped by a barrier when it
 * cools, and cost a read fault and a fetch more (refresh.c keeps it
 * while it is hot). */
enum { HOT_IDLE_MAX = 8, SHARED_HOT_IDLE_MAX = 16 };

/* A page becomes hot only when this node writes it again within this
 * many releases of the last time it did: comparing a page that is not
 * written again (a burst of writes by the master, one pass of a transpose
 * out of four) costs more than the fault it would save, at every release
 * until it cools. */
enum { HOT_AGAIN = 16 };

static uint32_t releases;         /* dsm_release() calls at this node */

/* Two stamps per page: the last two releases at which something happened
 * to it, + 1, the last in the low half.  Written under release_mu or by
 * the progress thread; read without a lock by the fault path of any
 * thread of the node (write-ahead), hence the atomic accesses. */
static void stamp(uint64_t *table, uint64_t page)
{
    uint64_t seen = __atomic_load_n(&table[page], __ATOMIC_RELAXED);
    uint32_t now = __atomic_load_n(&releases, __ATOMIC_RELAXED) + 1;
    if ((uint32_t)seen != now)
        __atomic_store_n(&table[page], seen << 32 | now, __ATOMIC_RELAXED);
}

static bool stamped_lately(const uint64_t *table, uint64_t page)
{
    uint32_t last = (uint32_t)__atomic_load_n(&table[page], __ATOMIC_RELAXED);
    return last && __atomic_load_n(&releases, __ATOMIC_RELAXED) + 1 - last <= HOT_AGAIN;
}

/* Lately, and not long before: again and again, not once. */
static bool stamped_twice_lately(const uint64_t *table, uint64_t page)
{
    uint64_t seen = __atomic_load_n(&table[page], __ATOMIC_RELAXED);
    uint32_t last = (uint32_t)seen, before = (uint32_t)(seen >> 32);
    return before && stamped_lately(table, page) && last - before <= HOT_AGAIN;
}

bool dsm_wrote_lately(uint64_t page)
{
    return stamped_lately(wrote, page);
}

/* Whether this node, which wrote this page in this interval, wrote it in a
 * recent interval too; remembers this one. */
static bool writes_again(uint64_t page)
{
    bool again = dsm_wrote_lately(page);
    stamp(wrote, page);
    return again;
}

void dsm_note_written_elsewhere(uint64_t page)
{
    stamp(elsewhere, page);
}

/* Whether another node writes this page again and again, as this node
 * sees it: a page two nodes write at every step, the one a block boundary
 * splits; not a page another node wrote once (the data a node set up,
 * tens of thousands of pages in NAS MG, which kept hot here would be
 * compared at every release). */
static bool others_write(uint64_t page)
{
    return stamped_twice_lately(elsewhere, page);
}

/* The hot pages, touched by the releasing thread only. */
static struct {
    struct hot { uint64_t page; unsigned idle; } *v;
    size_t n, cap;
} hot;

/* A page cooled by a migration, then made hot again before a release
 * forgot it (the barriers of a migration publish nothing), is listed once. */
static void hot_add(uint64_t page)
{
    if (dsm_flag(page, PF_HOT_LISTED))
        return;
    dsm_flag_set(page, PF_HOT_LISTED);
    hot.v = xgrow(hot.v, &hot.cap, hot.n + 1, sizeof *hot.v);
    hot.v[hot.n++] = (struct hot){ page, 0 };
}

/* A hot page written in this interval: announced at the next barrier and
 * counted for migration, as its write fault would have been. */
static void hot_written(uint64_t page, struct dsm_plist *written)
{
    dsm_plist_add(written, page);
    dsm_count_remote_write(page, dsm_home_of(page));
    dsm_note_announced(page);
}

/* Whether a page hot at its home (this node) changed since its snapshot;
 * the snapshot is refreshed if so.  Under the stripe lock, as the home
 * applies other nodes' diffs to both (diff_to_snapshot). */
static bool home_changed(uint64_t page)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    bool changed = dsm_flag(page, PF_HOT) && memcmp(dsm.twin[page], dsm_rt(page), dsm.page_size) != 0;
    if (changed)
        dsm_ps_hot_refresh(page);
    dsm_unlock(&s->mu);
    return changed;
}

/* One page of the hot list at a release: diffed (compared with its
 * snapshot at its home), or idle once more; false if it leaves the list
 * (not hot any more, unshared, or cooled). */
static bool diff_one_hot(struct hot *h, struct dsm_plist *written, bool barrier, struct dsm_plist *unshare,
                         struct dsm_plist *cool)
{
    if (!dsm_flag(h->page, PF_HOT))
        return false;
    bool home = dsm_home_of(h->page) == dsm.node;
    if (home ? home_changed(h->page) : dsm_diff_out_add(h->page, dsm.twin[h->page])) {
        if (!home) {
            dsm_ps_hot_refresh(h->page);
            dsm_refresh_hot_written(h->page);
        }
        hot_written(h->page, written);
        h->idle = 0;
        if (home && barrier && !others_write(h->page)) {
            dsm_plist_add(unshare, h->page);
            return false;
        }
    } else if (++h->idle >= (home || others_write(h->page) ? SHARED_HOT_IDLE_MAX : HOT_IDLE_MAX)) {
        dsm_plist_add(cool, h->page);
        return false;
    }
    return true;
}

/* Diffs every hot page (compares one hot at its home, here, with its
 * snapshot), refreshes the twins of those written and cools those idle for
 * too long; forgets pages that stopped being hot (dropped, or cooled by a
 * migration).  At a barrier a page hot at its home that changed goes to
 * `unshare` instead, unless another node writes it too (may_unshare). */
static void diff_hot(struct dsm_plist *written, bool barrier, struct dsm_plist *unshare)
{
    size_t kept = 0;
    struct dsm_plist cool = { 0 };
    for (size_t i = 0; i < hot.n; i++) {
        struct hot h = hot.v[i];
        if (diff_one_hot(&h, written, barrier, unshare, &cool))
            hot.v[kept++] = h;
        else
            dsm_flag_clear(h.page, PF_HOT_LISTED);
        dsm_diff_out_ship();
    }
    hot.n = kept;
    dsm_plist_sort(&cool);
    dsm_cool(cool.pages, cool.n);
    dsm_plist_free(&cool);
}

/* A page written in this interval that may stay writable: not pinned,
 * writable, either homed elsewhere with a twin, or homed here and shared
 * (a write fault of the home's told of it), and written again soon after
 * the last time (the next faults would come interval after interval,
 * where a comparison with a twin or snapshot costs a fraction of a fault). */
static bool may_stay_hot(uint64_t page)
{
    if (dsm.app_threads > 1) {
        /* No hot pages with several threads per node; the write is
         * remembered all the same, for write-ahead (fault.c). */
        writes_again(page);
        return false;
    }
    if (dsm.state[page] != PG_RW || dsm_pinned(page))
        return false;
    if (dsm_home_of(page) == dsm.node)
        return !dsm.twin[page] && !dsm_flag(page, PF_HRW) && writes_again(page);
    return dsm.twin[page] && writes_again(page);
}

/* A page written in this interval that stays writable joins the hot
 * pages: at another node its diff is taken and its twin refreshed; at its
 * home its twin becomes a snapshot. */
static void diff_keep(uint64_t page)
{
    if (dsm_home_of(page) == dsm.node) {
        struct dsm_stripe *s = dsm_stripe(page);
        dsm_lock(&s->mu);
        dsm_ps_home_keep_hot(page);
        dsm_unlock(&s->mu);
    } else {
        dsm_diff_out_add(page, dsm.twin[page]);
        dsm_ps_keep_hot(page);
        dsm_refresh_hot_written(page);
    }
    hot_add(page);
}

/* While this node holds locks, every page a release publishes is logged:
 * a lock's release must announce all written since it was acquired. */
static void log_for_locks(const struct dsm_plist *written)
{
    dsm_lock(&dsm.lists_mu);
    if (dsm.locks_held)
        for (size_t i = 0; i < written->n; i++)
            dsm_plist_add(&dsm.lock_log, written->pages[i]);
    dsm_unlock(&dsm.lists_mu);
}

/* A page made writable ahead of a write (fault.c, write-ahead) whose diff
 * this release found not empty: written after all, so announced (at the
 * next barrier, and by a lock's release through `written`), remembered as
 * written lately, and counted for migration unless its sweep counted it. */
static void ahead_written(uint64_t page, bool counted)
{
    dsm_note_announced(page);
    writes_again(page);
    if (!counted)
        dsm_count_remote_write(page, dsm_home_of(page));
}

/* Removes from sorted `written` the pages of sorted `unwritten`. */
static void drop_unwritten(struct dsm_plist *written, const struct dsm_plist *unwritten)
{
    size_t kept = 0;
    for (size_t i = 0; i < written->n && unwritten->n; i++)
        if (!dsm_plist_has(unwritten, written->pages[i]))
            written->pages[kept++] = written->pages[i];
    if (unwritten->n)
        written->n = kept;
}

/* A page written at its home that this release may unshare: a barrier's,
 * writable, not pinned, noted by the home's own write (not by a new sharer,
 * `caught`, sorted), and not written by another node lately: that node
 * keeps its copy hot and refreshes it at this barrier (refresh.c, one
 * application thread per node), so the page stays shared, and hot here
 * too. */
static bool may_unshare(uint64_t page, bool barrier, const struct dsm_plist *caught)
{
    return barrier && dsm_home_of(page) == dsm.node && dsm.state[page] == PG_RW && !dsm_pinned(page)
        && !dsm_plist_has(caught, page) && !(dsm.app_threads == 1 && others_write(page));
}

/* The pages the last barrier's release unshared, sorted (quiet_hot). */
static struct dsm_plist unshared;

static void release(struct dsm_plist *written, bool barrier)
{
    __atomic_store_n(&releases, releases + 1, __ATOMIC_RELAXED);
    struct dsm_plist caught = { 0 };
    catch_new_sharers(&caught);
    check_pinned();
    dsm_register_fresh();
    if (!dsm_plist_empty(&dsm.rel)) {
        dsm_lock(&dsm.lists_mu);
        dsm_plist_take(&dsm.rel, written);
        dsm_unlock(&dsm.lists_mu);
    }
    if (written->n == 0 && hot.n == 0) {
        dsm_plist_free(&caught);
        return;
    }
    dsm_plist_sort(written);
    /* Pinned pages are announced but never protected nor diffed here; nor
     * are pages hot already (an atomic run at its home notes a page
     * without its fault): diff_hot() takes care of them. */
    struct dsm_plist prot = { 0 }, keep = { 0 }, unshare = { 0 }, unwritten = { 0 };
    for (size_t i = 0; i < written->n; i++) {
        uint64_t p = written->pages[i];
        if ((dsm_pinned(p) && dsm_home_of(p) == dsm.node) || dsm_flag(p, PF_HOT))
            dsm_rel_done(p);
        else if (may_unshare(p, barrier, &caught))
            dsm_plist_add(&unshare, p);
        else if (!dsm_flag(p, PF_AHEAD) && may_stay_hot(p))
            dsm_plist_add(&keep, p);
        else
            dsm_plist_add(&prot, p);
    }
    dsm_claim_written(prot.pages, prot.n);

    /* At a barrier on one host the release posts its diffs: it counts them
     * in the host segment and goes on to the barrier, and the homes count
     * what they applied; the barrier ends once every diff posted is applied
     * (dsm_wait_applied).  It does not wait for each home to answer, which
     * costs a wake-up of the home's progress thread when its program thread
     * computes; a home waiting in the barrier applies them itself as it
     * polls.  NAS CG at 2 nodes sent a diff at about a quarter of its 4,650
     * barriers, 58-155 us each. */
    bool settle_later = dsm.app_threads > 1;
    dsm_diff_out_begin(barrier && host_seg_on() && !settle_later);
    diff_hot(written, barrier, &unshare);
    for (size_t i = 0; i < unshare.n; i++) {
        dsm_rel_done(unshare.pages[i]);
        dsm_ps_home_unshare(unshare.pages[i]);
        writes_again(unshare.pages[i]);
    }
    for (size_t i = 0; i < keep.n; i++) {
        diff_keep(keep.pages[i]);
        dsm_diff_out_ship();
    }
    for (size_t i = 0; i < prot.n; i++) {
        uint64_t p = prot.pages[i];
        bool ahead = dsm_flag(p, PF_AHEAD), counted = dsm_flag(p, PF_AHEAD_COUNTED);
        bool changed = diff_one(p, settle_later);
        dsm_diff_out_ship();
        if (ahead && changed)
            ahead_written(p, counted);
        else if (ahead)
            dsm_plist_add(&unwritten, p);
    }
    dsm_diff_out_end();
    for (size_t i = 0; i < prot.n && settle_later; i++)
        publish_one(prot.pages[i]);
    dsm_plist_free(&prot);
    dsm_plist_free(&keep);
    if (barrier) {
        dsm_plist_free(&unshared);
        dsm_plist_take(&unshare, &unshared);
        dsm_plist_sort(&unshared);
    }
    dsm_plist_free(&unshare);
    dsm_plist_free(&caught);
    dsm_plist_sort(written);
    drop_unwritten(written, &unwritten);
    dsm_plist_free(&unwritten);
    log_for_locks(written);
}

static pthread_mutex_t release_mu = PTHREAD_MUTEX_INITIALIZER;

void dsm_set_app_threads(int n)
{
    dsm_lock(&release_mu);
    if (dsm.app_threads == 1 && n > 1) {
        struct dsm_plist cool = { 0 };
        for (size_t i = 0; i < hot.n; i++) {
            if (dsm_flag(hot.v[i].page, PF_HOT))
                dsm_plist_add(&cool, hot.v[i].page);
            dsm_flag_clear(hot.v[i].page, PF_HOT_LISTED);
        }
        hot.n = 0;
        dsm_plist_sort(&cool);
        dsm_cool(cool.pages, cool.n);
        dsm_plist_free(&cool);
    }
    dsm.app_threads = n;
    dsm_unlock(&release_mu);
}

void dsm_release(struct dsm_plist *written, bool barrier)
{
    dsm_lock(&release_mu);
    release(written, barrier);
    dsm_unlock(&release_mu);
}

bool dsm_release_try_hold(void)
{
    return dsm_trylock(&release_mu);
}

void dsm_release_resume(void)
{
    dsm_unlock(&release_mu);
}

/* The pages a barrier's release unshared assume that nobody reads them
 * until the barrier ends, and that this node writes them no more in its
 * interval (dsm_ps_home_unshare).  A task of another node that this node
 * runs while it waits in the barrier (task.c) breaks both: the task's
 * creator, still running, may hold such a page, fetched before, and read
 * what the task writes there once the task is done, while a page nobody
 * shares is written with no fault and no notice.  So the pages count as
 * shared again, as if a node had registered for them: the task's release
 * catches them (catch_new_sharers), announces them and write-protects
 * them. */
void dsm_share_unshared(void)
{
    dsm_lock(&release_mu);
    for (size_t i = 0; i < unshared.n; i++) {
        uint64_t p = unshared.pages[i];
        __atomic_fetch_or(&dsm.sharers[1 + p / 64], 1ULL << (p % 64), __ATOMIC_SEQ_CST);
    }
    if (unshared.n)
        __atomic_fetch_add(&dsm.sharers[0], 1, __ATOMIC_SEQ_CST);
    dsm_plist_free(&unshared);
    dsm_unlock(&release_mu);
}

/* A page found at the end of a barrier that this node will likely write
 * again (its release unshared it, or it wrote the page again and again):
 * it stays writable, hot, with a snapshot of what it holds now, instead of
 * taking a fault at its next write.  A node that reads it after every step
 * registers again at every barrier (refresh.c), right after this node
 * unshared it, or late in an interval.  Not the pages a node fetches for
 * the first time (the data the master set up): tens of thousands of them,
 * compared at every release until they cooled, made NAS MG 15 % slower at
 * 2 nodes. */
static bool quiet_hot(uint64_t page)
{
    if (dsm.app_threads > 1 || dsm_pinned(page)
        || !(dsm_plist_has(&unshared, page) || stamped_twice_lately(wrote, page)))
        return false;
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    bool ok = dsm.state[page] == PG_RW && !dsm_flag(page, PF_BUSY | PF_HOT | PF_HRW) && !dsm.twin[page];
    if (ok)
        dsm_ps_home_keep_hot(page);
    dsm_unlock(&s->mu);
    if (ok)
        hot_add(page);
    return ok;
}

/* At the end of a barrier: the pages found are write-protected, or kept
 * hot (quiet_hot), but not announced.  This node wrote nothing since its
 * last release (it waited in the barrier, and a task it ran meanwhile
 * ended with a release of its own), and a node registers before it reads
 * (fault.c): a registration that release did not see was followed by a
 * read of everything this node had written.  Data the master set up alone
 * is so fetched once, not a second time after the home's next release
 * announced it. */
void dsm_quiet_catch(void)
{
    struct dsm_plist found = { 0 };
    dsm_lock(&release_mu);
    new_sharers(&found);
    size_t cold = 0;
    for (size_t i = 0; i < found.n; i++)
        if (!quiet_hot(found.pages[i]))
            found.pages[cold++] = found.pages[i];
    dsm_ps_home_protect(found.pages, cold);
    dsm_unlock(&release_mu);
    dsm_plist_free(&found);
}
