/*
 * fake_net.h: the transport in one process, for unit tests of the layers
 * that talk through it (the lock manager).
 *
 * This process is node 0 of FAKE_NODES and plays every lock manager.  A
 * message to this node, and a request to a lock manager, is delivered at
 * once to its registered handler; any other message (a grant to another
 * node) is kept in the outbox for the test to read.  The test plays the
 * other nodes by calling fake_deliver().
 */
#ifndef TESTS_UNIT_FAKE_NET_H
#define TESTS_UNIT_FAKE_NET_H

#include "../../dsm/dsm.h"
#include "../../dsm/proto.h"
#include "../../net/net.h"

enum { FAKE_NODES = 4 };

struct fake_msg {
    int dst;
    uint8_t op;
    size_t len;
    void *body;
};

/* The messages sent to other nodes, oldest first. */
extern struct fake_msg fake_outbox[64];
extern size_t fake_nout;

void fake_net_init(void);
/* Runs the handler of op as if node src had sent body. */
void fake_deliver(int src, uint8_t op, const void *body, size_t len);
/* Pages of a lock's grant that dsm_notice_apply() was last given at this
 * node (the acquire drops or refreshes them with the notices queued). */
extern uint64_t fake_granted[64];
extern size_t fake_ngranted;

#endif
