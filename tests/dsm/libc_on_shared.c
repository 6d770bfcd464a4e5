/*
 * The C library's memory and string functions work on shared pages that
 * this node does not hold yet: their accesses fault inside the library (or,
 * in an AddressSanitizer build, inside ASan's checking versions of them)
 * and the DSM fetches the pages as for any access.  ASan checks its shadow
 * memory first, which says the bytes are addressable, then the access
 * faults: no report, the page arrives, the function goes on.
 *
 * In round r node n fills the block of node (n + r) % N with memset,
 * memcpy, memmove and strcpy; after a barrier every node checks every block
 * with memcmp, memchr, strlen and strcmp, most of them on pages it has not
 * fetched since they were written.
 */
#include "check.h"

#include <string.h>

enum { PAGES_PER_NODE = 5, ROUNDS = 3 };

/* The block's expected contents: a run of one byte, a copied pattern, and
 * a string that ends the block. */
static void expected(unsigned char *b, size_t len, int blk, int round)
{
    memset(b, 'a' + (blk + round) % 26, len / 2);
    for (size_t i = len / 2; i < len - 64; i++)
        b[i] = (unsigned char)(1 + (i * 31 + (size_t)blk * 7 + (size_t)round) % 255);   /* never 0 */
    snprintf((char *)b + len - 64, 64, "block %d round %d", blk, round);
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    int me = ompdsm_node(), n = ompdsm_nodes();
    size_t len = PAGES_PER_NODE * ompdsm_page_size();
    unsigned char *shared = ompdsm_alloc(len * (size_t)n);
    unsigned char *want = malloc(len);
    CHECK(want != NULL, "out of memory");

    for (int r = 0; r < ROUNDS; r++) {
        int blk = (me + r) % n;
        unsigned char *b = shared + (size_t)blk * len;
        size_t mid = len / 2, tail = len - 64, half = (tail - mid) / 2;
        expected(want, len, blk, r);
        memset(b, want[0], mid);
        memcpy(b + mid, want + mid, half);
        memmove(b + mid + half, want + mid + half, tail - mid - half);
        strcpy((char *)b + tail, (char *)want + tail);
        ompdsm_barrier();
        for (int k = 0; k < n; k++) {
            unsigned char *c = shared + (size_t)k * len;
            char name[64];
            expected(want, len, k, r);
            snprintf(name, sizeof name, "block %d round %d", k, r);
            CHECK(memchr(c, 0, len) == c + len - 64 + strlen(name), "round %d: block %d: memchr", r, k);
            CHECK(strlen((char *)c + len - 64) == strlen(name), "round %d: block %d: strlen", r, k);
            CHECK(strcmp((char *)c + len - 64, name) == 0, "round %d: block %d: strcmp", r, k);
            CHECK(memcmp(c, want, len) == 0, "round %d: block %d differs", r, k);
        }
        ompdsm_barrier();
    }
    if (me == 0)
        printf("libc_on_shared: %d nodes, %d rounds\n", n, ROUNDS);
    free(want);
    ompdsm_finalize();
    return 0;
}
