/*
 * net.h: the transport layer (prefix net_), active messages over UCX UCP.
 *
 * A message is an operation code plus one contiguous body.  Handlers run
 * inside ucp_worker_progress(), in the node's progress thread or in an
 * application thread that is waiting for a reply, always with the transport
 * lock held: they must not block, but they may send.  The other side of
 * that rule: a thread that holds a mutex some handler takes must not call
 * into the transport (send, wait) before it lets the mutex go, or it and
 * the progress thread each wait for the lock the other holds.  The
 * contexts and what each may hold are in dsm/PROTOCOL.md ("Contexts").
 *
 * Page data moves with one-sided gets from the home's memory.  Between
 * nodes of one host that may share memory, and memory backed by a file,
 * the reader copies from its own read-only mapping of the file (direct.h);
 * elsewhere UCX serves them through the target's progress thread (UCX 1.13
 * emulates gets with active messages on shared memory and tcp alike).
 *
 * Waiting never spins for long: a waiter progresses the worker itself for at
 * most OMPDSM_SPIN_US (a reply usually comes back within that time), then
 * sleeps on a futex while the progress thread, itself asleep on the UCX
 * wakeup file descriptor, takes over.  Nodes may share cores.
 */
#ifndef NET_NET_H
#define NET_NET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops.h"

/* A message handler; body is aligned to 8 bytes, so a handler may read a
 * header struct at its start in place. */
typedef void (*net_handler_t)(int src, void *body, size_t len);

/* The transport's settings.  The coherence layer parses them with every
 * OMPDSM_* variable (dsm/config.c) and hands them over at net_init(). */
struct net_config {
    unsigned spin_us;       /* OMPDSM_SPIN_US: how long a waiter progresses the worker itself */
    int progress_nice;      /* OMPDSM_PROGRESS_NICE: the progress thread's nice value */
};

/* Creates the UCX context and worker and connects to every node; the
 * addresses travel through the bootstrap (boot_allgather). */
void net_init(int rank, int size, const struct net_config *cfg);
/* Starts the progress thread; handlers must be registered before. */
void net_start(void);
/* Waits until UCX has completed every message this node sent, also those
 * nobody answers (write notices): a peer may then close its endpoint
 * without failing a send still on its way. */
void net_flush(void);
/* Stops the progress thread and releases UCX.  Collective callers must
 * first make sure that no node will send to us any more. */
void net_finalize(void);

/* Ops 0..2 are the transport's own (1: heartbeat, 2: done); proto.h
 * numbers the protocol's from 3. */
void net_register(uint8_t op, net_handler_t handler);

/* As net_register, for a handler that may run without the transport lock,
 * at the same time as other handlers (it takes the locks it needs): a
 * large message for it (one UCX delivers by rendezvous) is handled after
 * the thread that received it lets the lock go, so that this node's other
 * threads may send and progress meanwhile.  The diff batches of a release
 * take milliseconds to apply; under the lock the node's own release could
 * not send its batch until they were applied. */
void net_register_unlocked(uint8_t op, net_handler_t handler);

/* Sends op with body hdr[0..hdr_len) ++ payload[0..payload_len) to node dst.
 * Both buffers may be reused as soon as it returns. */
void net_send(int dst, uint8_t op, const void *hdr, size_t hdr_len,
              const void *payload, size_t payload_len);
/* As net_send, but the payload is not copied: the transport reads it in
 * place until the send is done, and then counts one down on *sent (set up
 * by the caller with net_wait_init for all its sends; net_wait waits for
 * them).  Until then the payload must neither change nor be freed.  For
 * payloads of many pages (diff batches), whose copy would cost more than
 * the wait. */
struct net_wait;
void net_send_nocopy(int dst, uint8_t op, const void *hdr, size_t hdr_len, const void *payload,
                     size_t payload_len, struct net_wait *sent);
/* Sends op with an empty body to node dst unless another thread holds the
 * transport lock; says whether it was sent. */
bool net_try_send(int dst, uint8_t op);

/* One-sided access to memory other nodes expose.  net_expose() is
 * collective: every node exposes the same number of regions in the same
 * order, and the id names the region on every node.  With allocate, UCX
 * allocates the memory itself (so that the shared-memory transports can
 * apply remote atomics to it) and *addr receives it; otherwise *addr..len
 * is registered.  Registered memory that maps the start of a file (fd, or
 * -1) is read by the nodes of this host that may share memory with us
 * through a read-only mapping of the file (direct.h), not through UCX. */
int net_expose(void **addr, size_t len, bool allocate, int fd);

/* A batch of one-sided operations, posted under the transport lock and
 * completed together by net_rma_end():
 *     net_rma_begin(&w); net_rma_or(...); net_rma_fence(); net_rma_get(...);
 *     net_rma_end(&w);
 * Operations after net_rma_fence() act after those before it.  The operand
 * of net_rma_or/add must stay valid until net_rma_end returns. */
struct net_wait;
void net_rma_begin(struct net_wait *w);
void net_rma_or(struct net_wait *w, int dst, int id, uint64_t offset, const uint64_t *value);
void net_rma_add(struct net_wait *w, int dst, int id, uint64_t offset, const uint64_t *value);
void net_rma_fence(void);
void net_rma_get(struct net_wait *w, int dst, int id, uint64_t offset, void *buf, size_t len);
void net_rma_end(struct net_wait *w);
/* Whether gets from node dst's region id are copies from a view of its
 * file on this host (direct.h).  Then net_rma_get_file may take the get:
 * its bytes are written into file fd at offset `at` (pwrite), in the same
 * batch, instead of into memory. */
bool net_rma_direct(int dst, int id);
void net_rma_get_file(struct net_wait *w, int dst, int id, uint64_t offset, int fd, uint64_t at, size_t len);

/* A counter of outstanding events that a thread can sleep on. */
struct net_wait {
    _Atomic uint32_t pending;
};
void net_wait_init(struct net_wait *w, uint32_t n);
void net_wait_done(struct net_wait *w);          /* from a handler */
void net_wait(struct net_wait *w);               /* until pending is 0 */
/* Whether this thread holds the transport lock (runs a handler, say). */
bool net_lock_held(void);
/* Progresses the worker from this thread until until(arg) holds, for at
 * most OMPDSM_SPIN_US, checking until() `every` times per progress call
 * (1: checks and progress alternate; more: for a condition another
 * process of the host makes true, a progress call taking several times as
 * long as a check); says whether it holds.  Meanwhile the progress
 * thread stands by (net.c); a thread that returns false has armed the
 * worker, so that it may sleep and leave progress to the progress thread. */
bool net_spin(bool (*until)(const void *arg), const void *arg, unsigned every);

/* Progresses the worker once from the calling thread, unless another
 * thread is progressing it: a thread about to look for messages that
 * handlers queue (write notices) finds them without waiting for the
 * progress thread to be scheduled. */
void net_poll(void);


/* The reply that only says "done": a request carries the address of the
 * requester's net_wait as a cookie, and the handler that served it calls
 * net_send_done(src, cookie), which counts that net_wait down. */
void net_send_done(int dst, uint64_t cookie);

#endif
