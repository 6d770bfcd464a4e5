/*
 * At a release a node registers as a sharer of the copies it installed
 * (dsm_install_copy: a region's data sent with its start) since the
 * previous one: one atomic OR per word of each home's sharer bitmap,
 * then, after a fence, one increment of each such home's registration
 * count (a home that saw the count before the bits would miss them); the
 * pages leave the fresh list for the suspect one (dropped at the next
 * acquire).  With nothing installed, nothing is sent.
 */
#include "fake_pages.h"
#include "unit.h"

static uint64_t bit(uint64_t page)
{
    return 1ULL << (page % 64);
}

static void registers_at_each_home(void)
{
    fake_pages_init(1, NULL);
    /* homed at page % 3: 3, 6 and 129 at node 0, 5 at node 2 */
    uint64_t pages[] = { 3, 6, 5, 129 };
    for (size_t i = 0; i < 4; i++)
        fake_install(pages[i]);
    dsm_register_fresh();
    EXPECT(fake_bitmap[0][1] == (bit(3) | bit(6)), "node 0's word 0 is %#lx", (unsigned long)fake_bitmap[0][1]);
    EXPECT(fake_bitmap[0][3] == bit(129), "node 0's word 2 is %#lx", (unsigned long)fake_bitmap[0][3]);
    EXPECT(fake_bitmap[2][1] == bit(5), "node 2's word 0 is %#lx", (unsigned long)fake_bitmap[2][1]);
    EXPECT(fake_bitmap[0][0] == 1 && fake_bitmap[2][0] == 1 && fake_bitmap[1][0] == 0,
           "registration counts %lu %lu %lu", (unsigned long)fake_bitmap[0][0], (unsigned long)fake_bitmap[1][0],
           (unsigned long)fake_bitmap[2][0]);
    size_t ors = 0;
    for (size_t i = 0; i < fake_nrma; i++)
        ors += fake_rma[i].kind == FAKE_RMA_OR;
    EXPECT(ors == 3, "%zu ORs for 3 bitmap words", ors);
    EXPECT(dsm.fresh.n == 0, "%zu pages still fresh", dsm.fresh.n);
    for (size_t i = 0; i < 4; i++)
        EXPECT(fake_in(&dsm.suspect, pages[i]), "page %lu not suspect", (unsigned long)pages[i]);
}

static void counts_follow_a_fence(void)
{
    fake_pages_init(1, NULL);
    fake_install(3);
    fake_install(5);
    dsm_register_fresh();
    size_t fence = fake_nrma, last_or = 0, first_add = fake_nrma;
    for (size_t i = 0; i < fake_nrma; i++) {
        if (fake_rma[i].kind == FAKE_RMA_OR)
            last_or = i;
        else if (fake_rma[i].kind == FAKE_RMA_FENCE && fence == fake_nrma)
            fence = i;
        else if (fake_rma[i].kind == FAKE_RMA_ADD && first_add == fake_nrma)
            first_add = i;
    }
    EXPECT(first_add < fake_nrma, "no registration count sent");
    EXPECT(last_or < fence && fence < first_add, "OR at %zu, fence at %zu, count at %zu", last_or, fence, first_add);
}

static void nothing_installed_sends_nothing(void)
{
    fake_pages_init(1, NULL);
    dsm_register_fresh();
    EXPECT(fake_nrma == 0, "%zu operations with nothing installed", fake_nrma);
}

int main(void)
{
    registers_at_each_home();
    counts_follow_a_fence();
    nothing_installed_sends_nothing();
    return unit_status();
}
