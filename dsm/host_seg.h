/*
 * host_seg.h: the memory segment the nodes of a job share when they all run
 * on one host (host_seg.c).
 *
 * It holds each node's news word (the word its threads sleep on while
 * they wait for another node, notice.c) and the barrier's mailboxes
 * (barrier.c): one arrival box and one release box per node and barrier
 * parity.  A box is published by storing, with release order, the
 * sequence number it is valid for (the barrier epoch + 1) after its bytes;
 * the reader loads the sequence number with acquire order.  And the counts
 * of the diff batches a barrier's release posts without waiting for its
 * homes' answers (flush.c): per pair of nodes, those one node posted to
 * the other, and those the other applied.  Without the
 * segment (nodes on several hosts, OMPDSM_HOST_SEGMENT=off, a failure to
 * share it), news words are private and barriers go by messages.
 */
#ifndef DSM_HOST_SEG_H
#define DSM_HOST_SEG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct host_box {
    _Atomic uint64_t seq;       /* the epoch + 1 the bytes are for */
    _Atomic uint64_t grew;      /* arrivals: the epoch + 1 of a barrier whose arrival grew (barrier.c) */
    uint64_t len;
    char data[];
};

/* A node's news word: the count, and how many of its threads sleep on it. */
/* And, on a line of its own (the other nodes read it seldom, the node
 * writes it at every barrier), the epoch + 1 of the last barrier the node
 * completed (barrier.c). */
struct host_news {
    _Atomic uint32_t gen;
    _Atomic uint32_t sleepers;
    _Alignas(64) _Atomic uint64_t done;
};

/* Collective, after the transport started: every node maps node 0's
 * segment, or none uses one. */
void host_seg_init(void);

/* Whether the nodes share the segment. */
bool host_seg_on(void);

/* The node's news word, in the segment, or NULL when there is none. */
struct host_news *host_seg_news(int node);

/* The batches node `from` posted to node `to` (written by `from`), and
 * those of them `to` applied (written by `to`). */
_Atomic uint64_t *host_seg_posted(int from, int to);
_Atomic uint64_t *host_seg_applied(int to, int from);

/* The barrier's boxes and the bytes each holds at most. */
struct host_box *host_seg_arrival(int node, uint64_t epoch);
struct host_box *host_seg_release(int node, uint64_t epoch);
size_t host_seg_arrival_cap(void);
size_t host_seg_release_cap(void);

#endif
