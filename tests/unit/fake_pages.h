/*
 * fake_pages.h: the coherence layer's page tables in one process, without
 * memory protection or a network, for the unit tests of the page-state
 * transitions (dsm/page_state.c, dsm/page.c).
 *
 * There are FAKE_PAGES pages of FAKE_PAGE_SIZE bytes; their runtime view
 * is ordinary memory, and dsm_protect() records each page's protection
 * instead of calling mprotect, so that a test can check that the
 * protection follows the state.  This node is node 1 of 3 unless a test
 * says otherwise.  The one-sided operations on other nodes' sharer bitmaps
 * (net_rma_*) act on fake_bitmap[node] and are logged in fake_rma; a
 * page's home is what fake_pages_init set.
 */
#ifndef TESTS_UNIT_FAKE_PAGES_H
#define TESTS_UNIT_FAKE_PAGES_H

#include "../../dsm/dsm.h"
#include "../../dsm/page_state.h"

enum { FAKE_PAGES = 256, FAKE_PAGE_SIZE = 4096 };

/* Each page's protection, as the last dsm_protect() left it. */
extern enum dsm_state fake_prot[FAKE_PAGES];
/* How many times dsm_protect() was called. */
extern size_t fake_protects;

/* The sharer bitmap each node exposes: word 0 counts registrations, then
 * one bit per page. */
extern uint64_t fake_bitmap[3][1 + FAKE_PAGES / 64];
/* The one-sided operations of the last batches, in order. */
enum fake_rma_kind { FAKE_RMA_OR, FAKE_RMA_ADD, FAKE_RMA_FENCE };
struct fake_rma_op {
    enum fake_rma_kind kind;
    int dst;
    uint64_t offset, value;
};
extern struct fake_rma_op fake_rma[64];
extern size_t fake_nrma;

/* Fresh tables; every page homed at `home_of(page)` (NULL: page % 3). */
void fake_pages_init(int node, int (*home_of)(uint64_t page));
/* Another node registered as a sharer of the page (at its home). */
void fake_set_sharer(uint64_t page);
/* Whether the list holds the page. */
bool fake_in(const struct dsm_plist *l, uint64_t page);

/* The fault path of dsm_fault() for a page claimed for a fetch: claim,
 * registration, fetched, and the remote fault, as fault.c runs them. */
void fake_remote_miss(uint64_t page, bool write);
/* dsm_install_copy: a copy taken without registering, read-only. */
void fake_install(uint64_t page);
/* A fault on a page held, under its stripe lock. */
void fake_fault_locked(uint64_t page, bool write, bool at_home);

#endif
