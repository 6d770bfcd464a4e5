/*
 * atomic.c: atomic read-modify-write operations on shared memory, performed
 * at the page's home.
 *
 * Page copies at other nodes are only made consistent at synchronisation
 * points, so an atomic operation cannot run on a local copy: two nodes would
 * both increment their own copy.  Instead the operation travels to the home
 * (one request, one reply) and runs there on the runtime view with a real
 * CPU atomic, so operations from every node and from every thread of the
 * home are serialised by the hardware.  The home then counts the page as
 * written in this interval, so that cached copies elsewhere are invalidated
 * at the next barrier or lock acquisition; it also pushes a notice for the
 * page to every node (notice.c), so that a node spinning on a plain read of
 * the variable, with flush, sees the change without a barrier.
 *
 * The requester's own copy of the page, if it holds one, gets the value the
 * operation left at the home, in the copy and in its twin alike: its own
 * plain reads then see what its atomic did (a counter it incremented, the
 * value that made its compare-and-swap fail, which a loop such as
 * `do old = x; while (!__sync_bool_compare_and_swap(&x, old, f(old)))`
 * reads again and would otherwise read stale forever), and the bytes stay
 * out of its diff, which never overwrites them.
 */
#include "dsm.h"
#include "page_state.h"
#include "proto.h"
#include "../net/net.h"
#include "../util/log.h"

#include <string.h>

struct atomic_req {
    uint64_t cookie, page;
    uint32_t offset;
    uint8_t op, size, pad[2];
    uint64_t v1, v2;
};

struct atomic_rep {
    uint64_t cookie, old;
};

/* A request in flight: the waiter's reply slot, and what the reply handler
 * needs to mirror the result into this node's copy. */
struct atomic_wait {
    struct net_wait w;
    uint64_t old;
    bool mirrored;
    struct atomic_req req;
};

#define RMW(type, p, op, v1, v2, out)                                                      \
    do {                                                                                   \
        volatile type *q = (volatile type *)(p);                                           \
        type e = (type)(v1);                                             \
        switch (op) {                                                                      \
        case DSM_AT_LOAD: out = __atomic_load_n(q, __ATOMIC_SEQ_CST); break;               \
        case DSM_AT_STORE: out = 0; __atomic_store_n(q, (type)(v1), __ATOMIC_SEQ_CST); break; \
        case DSM_AT_XCHG: out = __atomic_exchange_n(q, (type)(v1), __ATOMIC_SEQ_CST); break; \
        case DSM_AT_CAS:                                                                   \
            __atomic_compare_exchange_n(q, &e, (type)(v2), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            out = e;                                                                       \
            break;                                                                         \
        case DSM_AT_ADD: out = __atomic_fetch_add(q, (type)(v1), __ATOMIC_SEQ_CST); break; \
        case DSM_AT_SUB: out = __atomic_fetch_sub(q, (type)(v1), __ATOMIC_SEQ_CST); break; \
        case DSM_AT_AND: out = __atomic_fetch_and(q, (type)(v1), __ATOMIC_SEQ_CST); break; \
        case DSM_AT_OR: out = __atomic_fetch_or(q, (type)(v1), __ATOMIC_SEQ_CST); break;   \
        case DSM_AT_XOR: out = __atomic_fetch_xor(q, (type)(v1), __ATOMIC_SEQ_CST); break; \
        case DSM_AT_NAND: out = __atomic_fetch_nand(q, (type)(v1), __ATOMIC_SEQ_CST); break; \
        default: dsm_fatal("internal: unknown atomic operation %d", op);                  \
        }                                                                                  \
    } while (0)

uint64_t dsm_atomic_local(volatile void *p, enum dsm_atomic_op op, int size, uint64_t v1, uint64_t v2)
{
    uint64_t old = 0;
    switch (size) {
    case 1: RMW(uint8_t, p, op, v1, v2, old); break;
    case 2: RMW(uint16_t, p, op, v1, v2, old); break;
    case 4: RMW(uint32_t, p, op, v1, v2, old); break;
    case 8: RMW(uint64_t, p, op, v1, v2, old); break;
    default: dsm_fatal("internal: atomic operation of %d bytes", size);
    }
    return old;
}

/* Runs the operation on the home's copy and returns the previous value
 * (zero-extended).  A write runs under the page's stripe lock, as a diff's
 * application does, which may store whole words of the page (flush.c). */
static uint64_t at_home(uint64_t page, uint32_t offset, int op, int size, uint64_t v1, uint64_t v2)
{
    if (op == DSM_AT_LOAD)
        return dsm_atomic_local(dsm_rt(page) + offset, op, size, v1, v2);
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    uint64_t old = dsm_atomic_local(dsm_rt(page) + offset, op, size, v1, v2);
    bool shared = dsm_shared(page);
    if (shared)
        dsm_note_written(page);
    dsm_unlock(&s->mu);
    if (shared)
        dsm_notice_push(&page, 1, false);
    return old;
}

static void on_atomic(int src, void *body, size_t len)
{
    struct atomic_req *r = body;
    if (len != sizeof *r || r->page >= dsm.npages || r->offset + r->size > dsm.page_size)
        dsm_fatal("malformed atomic request from node %d", src);
    struct atomic_rep rep = { .cookie = r->cookie };
    rep.old = at_home(r->page, r->offset, r->op, r->size, r->v1, r->v2);
    if (r->op != DSM_AT_LOAD)
        dsm_notice_news();
    net_send(src, OP_ATOMIC_REP, &rep, sizeof rep, NULL, 0);
}

uint64_t dsm_atomic_apply(enum dsm_atomic_op op, uint64_t old, uint64_t v)
{
    switch (op) {
    case DSM_AT_ADD: return old + v;
    case DSM_AT_SUB: return old - v;
    case DSM_AT_AND: return old & v;
    case DSM_AT_OR: return old | v;
    case DSM_AT_XOR: return old ^ v;
    case DSM_AT_NAND: return ~(old & v);
    default: return v;
    }
}

/* The value the operation left at the home, `old` being the one it found
 * there (zero-extended, `size` bytes). */
static uint64_t result_of(enum dsm_atomic_op op, int size, uint64_t old, uint64_t v1, uint64_t v2)
{
    uint64_t mask = size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
    if (op == DSM_AT_LOAD)
        return old;
    if (op == DSM_AT_CAS)
        return (old & mask) == (v1 & mask) ? v2 : old;
    return dsm_atomic_apply(op, old, v1);
}

/* Stores `value` (its low `size` bytes) at `offset` of this node's copy of
 * a page homed elsewhere, and of its twin, if the copy is valid; stripe
 * lock held, nothing under way on the page. */
static void store_locked(uint64_t page, uint32_t offset, int size, uint64_t value)
{
    if (dsm.state[page] == PG_INVALID)
        return;
    dsm_atomic_local(dsm_rt(page) + offset, DSM_AT_STORE, size, value, 0);
    if (dsm.twin[page])
        memcpy((char *)dsm.twin[page] + offset, &value, (size_t)size);
}

/* The copy takes the result, unless a fetch or flush of the page is under
 * way (returns false): the caller then waits for it (mirror_settled). */
static bool mirror(uint64_t page, uint32_t offset, int size, uint64_t value)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    bool idle = !dsm_flag(page, PF_BUSY);
    if (idle)
        store_locked(page, offset, size, value);
    dsm_unlock(&s->mu);
    return idle;
}

/* The reply found a fetch or flush of the page under way.  A fetch may have
 * read the home before the operation ran there: once it is done, a
 * read-only copy is dropped, and the next read fetches one that holds the
 * result.  A copy with a twin (a flush, or a fetch for a write) takes the
 * result as mirror() would have given it. */
static void mirror_settled(uint64_t page, uint32_t offset, int size, uint64_t value)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    while (dsm_flag(page, PF_BUSY))
        pthread_cond_wait(&s->cv, &s->mu);
    bool drop = dsm.state[page] == PG_RO && !dsm.twin[page];
    if (!drop)
        store_locked(page, offset, size, value);
    dsm_unlock(&s->mu);
    if (drop)
        dsm_invalidate(&page, NULL, 1);
}

/* The value this node wrote at `offset` of a page homed elsewhere since its
 * last release (its copy and twin differ there), into *value; the twin
 * takes it, as the home is about to. */
static bool pending_write(uint64_t page, uint32_t offset, int size, uint64_t *value)
{
    struct dsm_stripe *s = dsm_stripe(page);
    dsm_lock(&s->mu);
    char *twin = dsm.twin[page];
    bool pending = twin && dsm.state[page] != PG_INVALID && !dsm_flag(page, PF_BUSY) &&
                   memcmp(dsm_rt(page) + offset, twin + offset, (size_t)size) != 0;
    if (pending) {
        *value = 0;
        memcpy(value, dsm_rt(page) + offset, (size_t)size);
        memcpy(twin + offset, value, (size_t)size);
    }
    dsm_unlock(&s->mu);
    return pending;
}

/* The reply mirrors the result before it wakes the requester, in the order
 * the home served this node's requests (handlers run one at a time, in the
 * order messages arrive): two threads of this node adding to one counter
 * leave the later sum in the copy.  Mirrored by the requesters themselves,
 * after they woke, the earlier sum could land last, and a thread read back
 * less than its own addition had made. */
static void on_atomic_rep(int src, void *body, size_t len)
{
    (void)src;
    (void)len;
    struct atomic_rep *r = body;
    struct atomic_wait *aw = (struct atomic_wait *)(uintptr_t)r->cookie;
    const struct atomic_req *q = &aw->req;
    aw->old = r->old;
    aw->mirrored = mirror(q->page, q->offset, q->size, result_of(q->op, q->size, r->old, q->v1, q->v2));
    net_wait_done(&aw->w);
}

void dsm_atomic_register(void)
{
    net_register(OP_ATOMIC, on_atomic);
    net_register(OP_ATOMIC_REP, on_atomic_rep);
}

static uint64_t at_remote(int home, uint64_t page, uint32_t offset, int op, int size, uint64_t v1, uint64_t v2)
{
    struct atomic_wait aw;
    net_wait_init(&aw.w, 1);
    aw.req = (struct atomic_req){ .cookie = (uint64_t)(uintptr_t)&aw, .page = page, .offset = offset,
                                  .op = (uint8_t)op, .size = (uint8_t)size, .v1 = v1, .v2 = v2 };
    net_send(home, OP_ATOMIC, &aw.req, sizeof aw.req, NULL, 0);
    net_wait(&aw.w);
    if (!aw.mirrored)
        mirror_settled(page, offset, size, result_of(op, size, aw.old, v1, v2));
    return aw.old;
}

/* At a page homed elsewhere, a plain write of this thread's to the same
 * variable, not released yet, goes to the home first: the operation must
 * act on it (`total = 0;` then an atomic add to total, as an orphaned
 * reduction outside a region does, added to the home's old total). */
uint64_t dsm_atomic(uintptr_t addr, enum dsm_atomic_op op, int size, uint64_t v1, uint64_t v2)
{
    int64_t page = dsm_page_of(addr);
    if (page < 0)
        dsm_fatal("internal: dsm_atomic on a private address %p", (void *)addr);
    uint32_t offset = (uint32_t)(addr & (dsm.page_size - 1));
    if (offset % (uint32_t)size)
        dsm_fatal("misaligned %d-byte atomic access at %p", size, (void *)addr);
    int home = dsm_home_of((uint64_t)page);
    if (home == dsm.node)
        return at_home((uint64_t)page, offset, op, size, v1, v2);
    uint64_t written;
    if (pending_write((uint64_t)page, offset, size, &written))
        at_remote(home, (uint64_t)page, offset, DSM_AT_STORE, size, written, 0);
    return at_remote(home, (uint64_t)page, offset, op, size, v1, v2);
}
