/*
 * net.h: the transport layer (prefix net_), active messages over UCX UCP.
 *
 * A message is an operation code plus one contiguous body.  Handlers run
 * inside ucp_worker_progress(), in the node's progress thread or in an
 * application thread that is waiting for a reply, always with the transport
 * lock held: they must not block, but they may send.
 *
 * Waiting never spins for long: a waiter progresses the worker itself for at
 * most OMPDSM_SPIN_US (a reply usually comes back within that time), then
 * sleeps on a futex while the progress thread, itself asleep on the UCX
 * wakeup file descriptor, takes over.  Nodes may share cores.
 */
#ifndef DSM_NET_H
#define DSM_NET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*net_handler_t)(int src, void *body, size_t len);

/* Creates the UCX context and worker and connects to every node; the
 * addresses travel through the bootstrap (boot_allgather). */
void net_init(int rank, int size);
/* Starts the progress thread; handlers must be registered before. */
void net_start(void);
/* Stops the progress thread and releases UCX.  Collective callers must
 * first make sure that no node will send to us any more. */
void net_finalize(void);

void net_register(uint8_t op, net_handler_t handler);

/* Sends op with body hdr[0..hdr_len) ++ payload[0..payload_len) to node dst.
 * Both buffers may be reused as soon as it returns. */
void net_send(int dst, uint8_t op, const void *hdr, size_t hdr_len,
              const void *payload, size_t payload_len);

/* A counter of outstanding events that a thread can sleep on. */
struct net_wait {
    _Atomic uint32_t pending;
};
void net_wait_init(struct net_wait *w, uint32_t n);
void net_wait_done(struct net_wait *w);          /* from a handler */
void net_wait(struct net_wait *w);               /* until pending is 0 */

#endif
