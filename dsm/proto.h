/*
 * proto.h: the bodies of the coherence protocol's messages (their op codes
 * are in ops.h, with every layer's).
 *
 * Requests that expect an answer carry a cookie: the address of the
 * requester's waiting structure, returned untouched in the reply.  Page
 * numbers are global page indices (see dsm.h).
 */
#ifndef DSM_PROTO_H
#define DSM_PROTO_H

#include <stdint.h>

#include "../net/ops.h"

/* A home reply gives the homes of the page asked about and of the pages
 * after it in its run of CLAIM_RUN (home.c). */
enum { CLAIM_RUN = 64 };
struct home_req { uint64_t cookie, page; };
struct home_rep { uint64_t cookie; uint32_t n, pad; int16_t homes[CLAIM_RUN]; };
/* struct batch_hdr: dsm.h, with dsm_send_batches, which home migration
 * uses too */
/* each diff entry: this header, then `bytes` bytes of runs (diff.h) */
struct diff_entry_hdr {
    uint64_t page;
    uint32_t bytes;
} __attribute__((packed));
/* barrier messages: the header, count page numbers (arrival) or notices
 * (release), then `payload` bytes, then `extra` bytes (barrier.c) */
/* members: the barrier is among nodes 0 .. members-1 (dsm_barrier_group);
 * kind: the call that made it (barrier.c's enum bar_kind), alike at every
 * node of one barrier; flags: barrier.c's BAR_BY_MESSAGE; sum: the node's
 * addend (arrival) or every node's added up (release), dsm_barrier_sum */
struct bar_hdr {
    uint64_t epoch, count, sum;
    uint32_t payload, extra, members;
    uint16_t kind, flags;
};
/* a notice: the page and its writer, or -1 when several nodes wrote it */
struct bar_notice { uint64_t page; int32_t writer; int32_t pad; };
/* a lock is named by its space (enum dsm_lock_space) and key */
struct lock_req { uint64_t cookie, key, epoch, count; uint32_t space, pad; };
struct lock_grant { uint64_t cookie, count; };
/* pages a node published outside a barrier, in its barrier epoch; a non-zero
 * cookie asks for net_send_done once they are queued */
struct notice_hdr { uint64_t cookie, epoch, count; };

#endif
