/*
 * The lock manager's grant carries the write notices of the lock's earlier
 * holders: each page the grantee has not seen yet (since its last grant)
 * and did not write alone; a page two nodes wrote counts as written by
 * several, so each of them is told.  A barrier epoch newer than the
 * notices makes them stale.  Waiters are granted in FIFO order; a try-lock
 * of a held lock is refused at once.  At the acquirer, the grant's pages
 * are dropped; a release sends the pages written since the acquire,
 * sorted, once each.
 */
#include "fake_net.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

enum { REFUSED_COUNT = -1 };

static void acquire_from(int node, uint64_t id, uint64_t epoch, bool try_only)
{
    struct lock_req r = { .cookie = 100 + (uint64_t)node, .key = id, .epoch = epoch, .count = try_only,
                          .space = DSM_LOCK_PROGRAM };
    fake_deliver(node, OP_LOCK_ACQ, &r, sizeof r);
}

static void release_from(int node, uint64_t id, uint64_t epoch, const uint64_t *pages, size_t n)
{
    _Alignas(8) char buf[1024];
    struct lock_req r = { .key = id, .epoch = epoch, .count = n, .space = DSM_LOCK_PROGRAM };
    memcpy(buf, &r, sizeof r);
    if (n)
        memcpy(buf + sizeof r, pages, n * sizeof *pages);
    fake_deliver(node, OP_LOCK_REL, buf, sizeof r + n * sizeof *pages);
}

/* The last grant sent to `node`: its pages in out, their number (or
 * REFUSED_COUNT), or -2 if none was sent since the last call. */
static long grant_to(int node, uint64_t *out)
{
    long got = -2;
    for (size_t i = 0; i < fake_nout; i++) {
        struct fake_msg *m = &fake_outbox[i];
        if (m->dst != node || m->op != OP_LOCK_GRANT)
            continue;
        struct lock_grant g;
        memcpy(&g, m->body, sizeof g);
        got = g.count == UINT64_MAX ? REFUSED_COUNT : (long)g.count;
        if (got > 0)
            memcpy(out, (char *)m->body + sizeof g, g.count * sizeof *out);
    }
    for (size_t i = 0; i < fake_nout; i++)
        free(fake_outbox[i].body);
    fake_nout = 0;
    return got;
}

static void grant_carries_earlier_writes(void)
{
    uint64_t id = 1, p[8], w[] = { 3, 5 };
    acquire_from(1, id, 0, false);
    EXPECT(grant_to(1, p) == 0, "the first grant carries notices");
    release_from(1, id, 0, w, 2);
    acquire_from(2, id, 0, false);
    EXPECT(grant_to(2, p) == 2 && p[0] == 3 && p[1] == 5, "node 2 was not told of pages 3 and 5");
    release_from(2, id, 0, NULL, 0);
}

static void own_and_seen_writes_not_repeated(void)
{
    uint64_t id = 2, p[8], w1[] = { 3, 5 }, w2[] = { 5, 7 };
    acquire_from(1, id, 0, false);
    grant_to(1, p);
    release_from(1, id, 0, w1, 2);
    acquire_from(2, id, 0, false);
    grant_to(2, p);
    release_from(2, id, 0, w2, 2);
    acquire_from(1, id, 0, false);
    EXPECT(grant_to(1, p) == 2 && p[0] == 5 && p[1] == 7, "node 1 must see 5 (written by both) and 7 only");
    release_from(1, id, 0, NULL, 0);
    acquire_from(2, id, 0, false);
    EXPECT(grant_to(2, p) == 1 && p[0] == 5, "node 2 must see 5 (written by both) only, not 3 (seen) nor 7 (its own)");
    release_from(2, id, 0, NULL, 0);
}

static void newer_epoch_forgets_notices(void)
{
    uint64_t id = 3, p[8], w[] = { 9 };
    acquire_from(1, id, 4, false);
    grant_to(1, p);
    release_from(1, id, 4, w, 1);
    acquire_from(2, id, 5, false);
    EXPECT(grant_to(2, p) == 0, "a barrier's notices were repeated by the lock");
    release_from(2, id, 5, NULL, 0);
}

static void waiters_granted_in_order(void)
{
    uint64_t id = 4, p[8];
    acquire_from(1, id, 0, false);
    acquire_from(3, id, 0, false);
    acquire_from(2, id, 0, false);
    EXPECT(grant_to(1, p) == 0 && grant_to(3, p) == -2 && grant_to(2, p) == -2, "granted while held");
    acquire_from(3, id, 0, false);
    release_from(1, id, 0, NULL, 0);
    EXPECT(grant_to(3, p) == 0, "the first waiter was not granted");
    release_from(3, id, 0, NULL, 0);
    EXPECT(grant_to(2, p) == 0, "the second waiter was not granted");
    release_from(2, id, 0, NULL, 0);
}

static void try_lock_refused_when_held(void)
{
    uint64_t id = 5, p[8];
    acquire_from(1, id, 0, false);
    grant_to(1, p);
    acquire_from(2, id, 0, true);
    EXPECT(grant_to(2, p) == REFUSED_COUNT, "a try-lock of a held lock was not refused");
    release_from(1, id, 0, NULL, 0);
}

static void acquirer_drops_and_releases(void)
{
    uint64_t id = 6, p[8], w[] = { 11, 12 };
    acquire_from(1, id, 0, false);
    grant_to(1, p);
    release_from(1, id, 0, w, 2);
    dsm_lock_acquire(DSM_LOCK_PROGRAM, id);
    EXPECT(fake_ngranted == 2 && fake_granted[0] == 11 && fake_granted[1] == 12, "granted %zu pages",
           fake_ngranted);
    uint64_t logged[] = { 20, 14, 20, 15 };
    for (int i = 0; i < 4; i++)
        dsm_plist_add(&dsm.lock_log, logged[i]);
    dsm_lock_release(DSM_LOCK_PROGRAM, id);
    acquire_from(2, id, 0, false);
    EXPECT(grant_to(2, p) == 5 && p[0] == 11 && p[1] == 12 && p[2] == 14 && p[3] == 15 && p[4] == 20,
           "the release did not send 14, 15 and 20 once each");
    EXPECT(dsm.locks_held == 0 && dsm.lock_log.n == 0, "the node still holds a lock");
    release_from(2, id, 0, NULL, 0);
}

int main(void)
{
    fake_net_init();
    dsm_lock_register();
    grant_carries_earlier_writes();
    own_and_seen_writes_not_repeated();
    newer_epoch_forgets_notices();
    waiters_granted_in_order();
    try_lock_refused_when_held();
    acquirer_drops_and_releases();
    return unit_status();
}
