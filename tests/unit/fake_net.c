/*
 * fake_net.c: see fake_net.h.  Also stands in for what the lock manager's
 * acquirer side calls in the coherence layer (dropping copies, applying
 * notices, publishing), which other unit tests cover: it records what it
 * was asked to drop and does nothing else.
 */
#include "fake_net.h"
#include "unit.h"
#include "../../dsm/stats.h"

#include <stdlib.h>
#include <string.h>

struct dsm dsm;
struct dsm_stats dsm_stats;
struct fake_msg fake_outbox[64];
size_t fake_nout;
uint64_t fake_granted[64];
size_t fake_ngranted;
static net_handler_t handlers[NET_MAX_OPS];


void fake_net_init(void)
{
    dsm.node = 0;
    dsm.nodes = FAKE_NODES;
    dsm.page_size = 4096;
}

void net_register(uint8_t op, net_handler_t handler)
{
    handlers[op] = handler;
}

void fake_deliver(int src, uint8_t op, const void *body, size_t len)
{
    _Alignas(8) char buf[4096];
    memcpy(buf, body, len);
    handlers[op](src, buf, len);
}

void net_send(int dst, uint8_t op, const void *hdr, size_t hdr_len, const void *body, size_t body_len)
{
    char *m = malloc(hdr_len + body_len + 1);
    if (!m)
        abort();
    memcpy(m, hdr, hdr_len);
    if (body_len)
        memcpy(m + hdr_len, body, body_len);
    if (dst == dsm.node || op == OP_LOCK_ACQ || op == OP_LOCK_REL) {
        fake_deliver(dsm.node, op, m, hdr_len + body_len);
        free(m);
    } else if (fake_nout < sizeof fake_outbox / sizeof fake_outbox[0]) {
        fake_outbox[fake_nout++] = (struct fake_msg){ dst, op, hdr_len + body_len, m };
    }
}

/* An acknowledgement: the requests of the tests' own node are delivered
 * at once, so their waits count down at once too. */
void net_send_done(int dst, uint64_t cookie)
{
    if (dst == dsm.node && cookie)
        net_wait_done((struct net_wait *)(uintptr_t)cookie);
}

void net_wait_init(struct net_wait *w, uint32_t n)
{
    atomic_store(&w->pending, n);
}

void net_wait_done(struct net_wait *w)
{
    atomic_fetch_sub(&w->pending, 1);
}

void net_wait(struct net_wait *w)
{
    EXPECT(atomic_load(&w->pending) == 0, "a wait for a reply that never comes");
}

size_t dsm_notice_apply(const uint64_t *granted, size_t k)
{
    fake_ngranted = k < 64 ? k : 64;
    memcpy(fake_granted, granted, fake_ngranted * sizeof *granted);
    return 0;
}

void dsm_drop_suspects(void)
{
}

size_t dsm_release_push(bool wait)
{
    (void)wait;
    return 0;
}
