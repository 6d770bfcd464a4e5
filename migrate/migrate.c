/*
 * migrate.c: the collective home-migration step and when to take it.
 *
 * The step, taken by every node at the same point of the program:
 *   1. every node sends the fault counts of its migrate region to the
 *      pages' homes (acknowledged) and resets them;
 *   2. a barrier: every node's diffs are at the homes, every stale copy is
 *      dropped, and every home holds every count of its pages;
 *   3. each home decides the moves of its pages (decide.c); a barrier
 *      gathers every node's moves and gives the whole list to every node;
 *   4. every node applies the list: a new home fetches the page from the
 *      old one (unless it still holds a copy, which is then current),
 *      then every node takes the coherence layer's rehome transition
 *      (dsm_rehome, page_state.c): it records the new home and drops its
 *      copy, so that no node holds a copy the new home does not know of;
 *      the new home makes the pages writable at once (adopt), saving the
 *      fault each would take on its first use;
 *   5. a last barrier, so that no node touches a moved page before its new
 *      home has fetched it.
 * Every node learns every move before any node runs on, so no node can act
 * on an outdated home.
 *
 * The home's own writes weigh against a move (decide.c).  Writes the home
 * made to a page nobody else held are not faults (the page stays writable,
 * PF_HRW), so such a page is kept as if written, as long as nobody else
 * fetched it; and the pages the home wrote in a region, where another node
 * wrote them too, are write-protected again at the migration point, so
 * that its writes in the next are counted (contested_writes).
 */
#include "migrate.h"

#include "../dsm/dsm.h"
#include "../dsm/rehome.h"
#include "../net/net.h"
#include "../util/buf.h"
#include "../util/clock.h"
#include "../util/log.h"
#include "../util/xalloc.h"

#include "ompdsm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct counts_entry { uint64_t page; uint32_t reads, writes; };

/* At a home: the counts received for its pages in this step. */
static struct {
    pthread_mutex_t mu;
    struct mig_count *v;
    size_t n, cap;
} inbox = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Every page's past moves (decide.c), the migration points taken, and
 * the pages they moved. */
static struct mig_past *past;
static uint32_t point;
static uint64_t moved_total;

/* The migration now due was asked for (mig_request): work moved between
 * nodes on purpose, and the pages follow it even straight back to the home
 * they just left.  A profiled schedule that gives rows back (its change
 * undone) would otherwise leave their homes at the node that no longer
 * runs them for 8^b points, b counting the set-up's move as a bounce:
 * every write of those rows a fault and a diff (the textbook Jacobi with a
 * slowed node: 21-26 ms an execution against 4.5 before the change).  Set
 * and cleared around the migration by mig_counted_barrier: an idle node
 * woken to take part decides its pages as usual. */
static bool following;

/* Node 0's record of every migration point, for the OMPDSM_STATS report. */
struct point {
    uint64_t barrier;
    uint64_t moved;
    uint32_t *in, *out;   /* per node */
};
static struct {
    struct point *v;
    size_t n;
} points;

static void inbox_add(int node, uint64_t page, uint32_t reads, uint32_t writes)
{
    inbox.v = xgrow(inbox.v, &inbox.cap, inbox.n + 1, sizeof *inbox.v);
    inbox.v[inbox.n++] = (struct mig_count){ .page = page, .node = node, .reads = reads, .writes = writes };
}

static void on_counts(int src, void *body, size_t len)
{
    struct batch_hdr *h = body;
    if (len != sizeof *h + h->count * sizeof(struct counts_entry))
        dsm_fatal("malformed migration counts from node %d", src);
    const struct counts_entry *e = (const struct counts_entry *)(h + 1);
    dsm_lock(&inbox.mu);
    for (uint64_t i = 0; i < h->count; i++) {
        if (e[i].page >= dsm.npages)
            dsm_fatal("migration count for page %lu from node %d is out of range", (unsigned long)e[i].page,
                      src);
        inbox_add(src, e[i].page, e[i].reads, e[i].writes);
    }
    dsm_unlock(&inbox.mu);
    net_send_done(src, h->cookie);
}

/* Handlers are registered at the first migration, which every node reaches
 * together; the barrier makes sure they are in place everywhere before any
 * count is sent. */
static void ensure_registered(void)
{
    static bool done;
    if (done)
        return;
    net_register(OP_MIG_COUNTS, on_counts);
    dsm_barrier();
    done = true;
}

/* ---- step 1: counts to the homes --------------------------------------- */

/* Takes this node's counts and resets them for the next region. */
static struct dsm_plist take_counts(void)
{
    __atomic_store_n(&dsm.remote_writes, 0, __ATOMIC_RELAXED);
    struct dsm_plist l = { 0 };
    dsm_counted_take(&l);
    return l;
}

/* Forgets this node's counts: a new migrate region starts here. */
static void reset_counts(void)
{
    struct dsm_plist l = take_counts();
    for (size_t i = 0; i < l.n; i++) {
        __atomic_store_n(&dsm.reads[l.pages[i]], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&dsm.writes[l.pages[i]], 0, __ATOMIC_RELAXED);
    }
    dsm_plist_free(&l);
}

static void send_counts(void)
{
    struct dsm_plist l = take_counts();
    struct dsm_buf *batch = xcalloc((size_t)dsm.nodes, sizeof *batch);
    uint64_t *count = xcalloc((size_t)dsm.nodes, sizeof *count);
    for (size_t i = 0; i < l.n; i++) {
        uint64_t p = l.pages[i];
        uint32_t r = __atomic_exchange_n(&dsm.reads[p], 0, __ATOMIC_RELAXED);
        uint32_t w = __atomic_exchange_n(&dsm.writes[p], 0, __ATOMIC_RELAXED);
        int home = dsm_home_of(p);
        if (home == dsm.node) {
            dsm_lock(&inbox.mu);
            inbox_add(dsm.node, p, r, w);
            dsm_unlock(&inbox.mu);
            continue;
        }
        struct counts_entry e = { .page = p, .reads = r, .writes = w };
        dsm_buf_put(&batch[home], &e, sizeof e);
        count[home]++;
    }
    dsm_plist_free(&l);
    dsm_send_batches(OP_MIG_COUNTS, batch, count);
    for (int n = 0; n < dsm.nodes; n++)
        dsm_buf_free(&batch[n]);
    free(batch);
    free(count);
}

/* ---- step 3: deciding -------------------------------------------------- */

/* The page stays: it is the pinned stack, or the home holds it writable
 * with nobody else sharing it, so it may have written it without a fault.
 * A page another node has fetched since is shared (the fetcher registered
 * at its release, before the barrier that precedes the decision): the
 * home's writes before that fetch reached the fetcher with the page, and
 * the page goes where the counts say. */
static bool keep(uint64_t page)
{
    return dsm_pinned(page) || (dsm_flag(page, PF_HRW) && !dsm_shared(page));
}

/* A page its home holds writable and watched as unshared (PF_HRW: after a
 * barrier unshared it, or after a migration brought it) takes its home's
 * writes without a fault, so without a count.  Where another node writes
 * the page too, the other's counts alone then decide: NAS IS's nodes both
 * add into every page of one histogram, and each half went to the node that
 * zeroes the other half, each node then diffing its half to the other at
 * every ranking.  So the pages the home wrote in the closing region and
 * another node wrote too are write-protected again once the moves are made
 * (dsm_home_reprotect): the home's next write of each faults and is counted
 * (a sweep's write-ahead takes the following ones in one step, counted
 * too).  The others are left writable: a page no other node touched cannot
 * move whatever the home's count, and one another node only read hardly
 * outweighs a home that wrote it.  Protecting those too, or the pages the
 * home adopts, cost more faults than the counts gained (NAS FT, whose
 * transposes read many pages their homes write: 4,000 more write faults a
 * node, and 10 % of its time).
 *
 * Here: the pages this home wrote in the closing region that another node
 * wrote too, from the counts as mig_decide leaves them (by page, then
 * node), so in order and each once. */
static void contested_writes(const struct mig_count *c, size_t n, struct dsm_plist *contested)
{
    for (size_t i = 0; i < n;) {
        bool mine = false, theirs = false;
        size_t j = i;
        for (; j < n && c[j].page == c[i].page; j++) {
            mine |= c[j].node == dsm.node && c[j].writes;
            theirs |= c[j].node != dsm.node && c[j].writes;
        }
        if (mine && theirs)
            dsm_plist_add(contested, c[i].page);
        i = j;
    }
}

static struct mig_move *decide(size_t *n, struct dsm_plist *contested)
{
    dsm_lock(&inbox.mu);
    struct mig_move *moves = xcalloc(inbox.n + 1, sizeof *moves);
    *n = mig_decide(inbox.v, inbox.n, dsm.nodes, dsm.node, keep, following ? NULL : past, point, moves);
    contested_writes(inbox.v, inbox.n, contested);
    inbox.n = 0;
    dsm_unlock(&inbox.mu);
    return moves;
}

/* ---- step 4: moving ---------------------------------------------------- */

/* A move whose data this node, the new home, must take. */
static bool fetched_in(const struct mig_move *m)
{
    return m->to == dsm.node && dsm.state[m->page] == PG_INVALID;
}

/* The new home takes the data: one-sided gets of the old homes' runtime
 * views, which nobody writes until the last barrier.  A copy the new home
 * still holds needs no get: the barrier before the decisions dropped every
 * copy another node wrote since it was fetched (and the suspect ones), so
 * a copy that survived it is the home's, byte for byte. */
static void fetch_moved_in(const struct mig_move *m, size_t n)
{
    struct dsm_plist in = { 0 };
    for (size_t i = 0; i < n; i++)
        if (fetched_in(&m[i]))
            dsm_plist_add(&in, m[i].page);
    dsm_plist_sort(&in);
    dsm_populate_pages(in.pages, in.n);
    dsm_plist_free(&in);
    struct net_wait w;
    net_rma_begin(&w);
    for (size_t i = 0; i < n; i++) {
        if (!fetched_in(&m[i]))
            continue;
        struct dsm_seg *seg = dsm_seg_of(m[i].page);
        net_rma_get(&w, m[i].from, seg->net_id, (m[i].page - seg->first_page) << dsm.page_shift,
                    dsm_rt(m[i].page), dsm.page_size);
    }
    net_rma_end(&w);
}

static void apply_moves(const struct mig_move *m, size_t n)
{
    dsm_rehome_begin();
    fetch_moved_in(m, n);
    struct dsm_rehoming r = { 0 };
    for (size_t i = 0; i < n; i++) {
        uint64_t p = m[i].page;
        past[p].bounces += past[p].from == m[i].to + 1 && past[p].bounces < UINT8_MAX;
        past[p].from = (uint16_t)(m[i].from + 1);
        past[p].at = point;
        dsm_rehome(&r, p, m[i].to);
        STAT_ADD(pages_migrated_in, m[i].to == dsm.node);
        STAT_ADD(pages_migrated_out, m[i].to != dsm.node && m[i].from == dsm.node);
    }
    dsm_rehome_end(&r);
}

/* ---- statistics ----------------------------------------------------- */

static void record_point(const struct mig_move *m, size_t n)
{
    if (dsm.node != 0 || !dsm_cfg.stats)
        return;
    struct point pt = { .barrier = dsm.epoch, .moved = n };
    pt.in = xcalloc((size_t)dsm.nodes, sizeof *pt.in);
    pt.out = xcalloc((size_t)dsm.nodes, sizeof *pt.out);
    struct point *v = xrealloc(points.v, (points.n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        pt.in[m[i].to]++;
        pt.out[m[i].from]++;
    }
    points.v = v;
    points.v[points.n++] = pt;
}

/* Node 0, after the statistics table: one line per migration point (the
 * first and last ten when there are many). */
static void report_points(void)
{
    if (!points.n)
        return;
    fprintf(stderr, "home migrations: %zu point(s)\n%10s %10s  %s\n", points.n, "barrier", "pages",
            "per node: +in -out");
    for (size_t i = 0; i < points.n; i++) {
        if (points.n > 20 && i == 10) {
            fprintf(stderr, "%10s\n", "...");
            i = points.n - 10;
        }
        struct point *pt = &points.v[i];
        fprintf(stderr, "%10lu %10lu ", (unsigned long)pt->barrier, (unsigned long)pt->moved);
        for (int n = 0; n < dsm.nodes; n++)
            fprintf(stderr, " %d:+%u-%u", n, pt->in[n], pt->out[n]);
        fputc('\n', stderr);
    }
}

/* ---- the step, and when to take it ------------------------------------ */

static void auto_adjust(size_t moved);

/* published: this node has published its writes at a barrier since it
 * last ran application code (auto's counted barrier, or a node that sat
 * out the region).  The step's own barriers publish nothing then, nor do
 * the ones after the first in any case: nothing runs between them that
 * writes shared memory. */
static void migrate_step(bool published)
{
    dsm_barrier_quiet(published);
    ensure_registered();
    if (dsm.locks_held)
        dsm_fatal("home migration requested while this node holds a lock");
    if (!past)
        past = dsm_page_table(sizeof *past);
    point++;
    uint64_t t0 = dsm_now_ns();
    /* The barrier's release counts the pages written ahead that changed
     * (dsm/flush.c): their writes are in the counts only after it. */
    dsm_barrier();
    dsm_barrier_quiet(true);
    send_counts();
    dsm_barrier();
    size_t n;
    struct dsm_plist contested = { 0 };
    struct mig_move *mine = decide(&n, &contested);
    size_t len;
    struct mig_move *all = dsm_barrier_gather(mine, n * sizeof *mine, &len);
    free(mine);
    n = len / sizeof *all;
    apply_moves(all, n);
    dsm_home_reprotect(&contested);
    dsm_plist_free(&contested);
    record_point(all, n);
    moved_total += n;
    auto_adjust(n);
    free(all);
    dsm_barrier();
    dsm_barrier_quiet(false);
    STAT_ADD(migrations, 1);
    STAT_ADD(migrate_ns, dsm_now_ns() - t0);
    static bool hooked;
    if (!hooked) {
        dsm_stats_on_report(report_points);
        hooked = true;
    }
}

/* In a team smaller than the job, the idle nodes take part too: they may
 * be homes (of pages to decide on and to move) and bases, and every node
 * must learn every move.  Node 0 wakes them; they call mig_migrate() too. */
void mig_migrate(bool published)
{
    int group = dsm_barrier_group_size();
    if (group < dsm.nodes) {
        if (dsm.node == 0)
            dsm_barrier_wake_idle(MIG_WAKE, NULL, 0);
        dsm_barrier_group(dsm.nodes);
    }
    migrate_step(published);
    dsm_barrier_group(group);
}

/* OMPDSM_MIGRATE=auto, the default: a counted barrier migrates when the
 * team's write faults on pages homed elsewhere, since the last migration,
 * reach a threshold.  Those faults are what a migration can save: each is
 * a twin and a diff, again at every interval in which the page is written
 * (reads alone never move a page, decide.c).  The counted barrier carries
 * each node's count, so every node sees the same total and decides alike,
 * and a program whose homes have settled pays eight bytes per barrier.  A
 * migration that moves few pages for the faults that caused it (pages that
 * two nodes write in turn, which stay) doubles the threshold, and sets it
 * to at least twice the faults that caused it, so such a program migrates
 * ever more rarely; one that moves many restores it.  Only a decision on
 * a whole cycle's counts (below) adjusts it: one at a loop's first end
 * sees a part of the program's use of its pages.
 *
 * And it migrates only where the counts show how the program uses its
 * pages: at the end of a loop's first execution (the set-up's loops, each
 * run once, and the first use of data the master initialised), or at the
 * end of a loop that already ended since the last migration, the counts
 * then covering a whole cycle of the program's loops (a time step), not
 * the last loop or two of it.  A page that the loops of a step write from
 * different nodes (a 3-D FFT's planes, written by plane in three passes
 * and by column in the fourth) then stays with the node that writes it in
 * most passes, which as its home writes it in the window too; counted over
 * one pass at a time, it followed each pass in turn, until the bounce rule
 * (decide.c) froze it wherever it was. */
enum { AUTO_BASE = 64, AUTO_MAX = 1 << 24 };

/* A set of loops (call sites; 0 for a region's end without one). */
struct loops {
    uintptr_t *v;
    size_t n, cap;
};

static bool loops_add(struct loops *s, uintptr_t loop)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == loop)
            return false;
    s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof *s->v);
    s->v[s->n++] = loop;
    return true;
}

/* What decides which counted barriers migrate; every node keeps it alike,
 * and nodes that sat out a team's barriers take node 0's (mig_state_*). */
static struct {
    uint64_t counted;           /* counted barriers so far */
    unsigned requested;         /* counted barriers until a requested migration, 0: none */
    uint64_t threshold;         /* auto: remote write faults that make a migration due */
    uint64_t trigger;           /* auto: the team's remote write faults at the last decision */
    bool cycle;                 /* auto: the last decision's counts covered a whole cycle */
    struct loops seen;          /* first, auto: the loops that have ended once */
    struct loops window;        /* auto: the loops that ended since the last migration */
} when = { .threshold = AUTO_BASE };

/* A counted barrier that also adds up the team's remote write faults. */
static uint64_t auto_barrier(void)
{
    return dsm_barrier_sum(__atomic_load_n(&dsm.remote_writes, __ATOMIC_RELAXED));
}

static void auto_adjust(size_t moved)
{
    if (dsm_cfg.migrate != DSM_MIGRATE_AUTO || !when.cycle)
        return;
    if (4 * (uint64_t)moved >= when.trigger) {
        when.threshold = AUTO_BASE;
        return;
    }
    uint64_t t = 2 * when.threshold > 2 * when.trigger ? 2 * when.threshold : 2 * when.trigger;
    when.threshold = t < AUTO_MAX ? t : AUTO_MAX;
}

/* The first parallel region starts.  The master's set-up before it shows
 * nothing of how the team will use the pages, and its writes, as home of
 * the pages it allocated, would keep every one of them where it is. */
void mig_team_starts(void)
{
    static bool started;
    if (!started) {
        started = true;
        reset_counts();
    }
}

uint64_t mig_pages_moved(void)
{
    return moved_total;
}

bool mig_request(unsigned after, bool forget)
{
    if (dsm_cfg.migrate == DSM_MIGRATE_OFF || after == 0)
        return false;
    if (when.requested == 0 || after < when.requested)
        when.requested = after;
    /* Faults from before the work moved show the old use of the pages
     * (and the homes' old writes would keep them in place). */
    if (forget)
        reset_counts();
    return true;
}

/* `first` migrates at the first counted barrier and at the end of each
 * worksharing loop's first execution: a loop's first execution shows how
 * it uses its pages (a solver's loops may touch arrays the initialisation
 * did not, as Himeno's wrk2), and a migration with nothing to move costs
 * only its barriers.  Every node meets the loops in the same order, so
 * they all agree. */
bool mig_counted_barrier(uintptr_t loop)
{
    when.counted++;
    bool due = following = when.requested > 0 && --when.requested == 0;
    if (dsm_cfg.migrate == DSM_MIGRATE_FIRST) {
        due |= (loop && loops_add(&when.seen, loop)) || when.counted == 1;
    } else if (dsm_cfg.migrate == DSM_MIGRATE_EVERY) {
        due |= when.counted % dsm_cfg.migrate_every == 0;
    } else if (dsm_cfg.migrate == DSM_MIGRATE_AUTO) {
        when.trigger = auto_barrier();
        bool first = loop && loops_add(&when.seen, loop), cycle = loop && !loops_add(&when.window, loop);
        due |= when.trigger >= when.threshold && (first || cycle);
        when.cycle = cycle;
        if (due) {
            mig_migrate(true);
            when.window.n = 0;
        }
        following = false;
        return due;
    }
    if (due)
        mig_migrate(false);
    else
        dsm_barrier();
    following = false;
    return due;
}

static void put_loops(uint64_t **p, const struct loops *s)
{
    for (size_t i = 0; i < s->n; i++)
        *(*p)++ = s->v[i];
}

static void get_loops(const uint64_t **p, struct loops *s, uint64_t n)
{
    s->n = 0;
    for (uint64_t i = 0; i < n; i++)
        loops_add(s, (uintptr_t)*(*p)++);
}

void *mig_state_export(size_t *len)
{
    *len = (5 + when.seen.n + when.window.n) * sizeof(uint64_t);
    uint64_t *head = xmalloc(*len), *p = head + 5;
    head[0] = when.counted;
    head[1] = when.requested;
    head[2] = when.threshold;
    head[3] = when.seen.n;
    head[4] = when.window.n;
    put_loops(&p, &when.seen);
    put_loops(&p, &when.window);
    return head;
}

void mig_state_import(const void *data, size_t len)
{
    const uint64_t *head = data;
    if (len % sizeof *head || len < 5 * sizeof *head || len != (5 + head[3] + head[4]) * sizeof *head)
        dsm_fatal("malformed home migration state (%zu bytes)", len);
    when.counted = head[0];
    when.requested = (unsigned)head[1];
    when.threshold = head[2];
    const uint64_t *p = head + 5;
    get_loops(&p, &when.seen, head[3]);
    get_loops(&p, &when.window, head[4]);
}

void ompdsm_barrier_migrate_home(void)
{
    mig_migrate(false);
}
