/*
 * A sparse 4 GiB shared allocation touched at scattered pages: only the
 * touched pages cost memory, and every node sees every node's writes.
 * Page k of 1000 scattered pages is written by node k % N with a value
 * derived from k, then read back by all.
 */
#include "check.h"

#include <stdint.h>
#include <sys/resource.h>

enum { TOUCHED = 1000 };

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    int me = ompdsm_node(), n = ompdsm_nodes();
    size_t ps = ompdsm_page_size();
    size_t size = (size_t)4 << 30, pages = size / ps;
    char *mem = ompdsm_alloc(size);

    for (size_t k = (size_t)me; k < TOUCHED; k += (size_t)n) {
        size_t page = (k * 1000003u) % pages;
        uint64_t *w = (uint64_t *)(mem + page * ps);
        w[0] = k + 1;
        w[ps / sizeof *w - 1] = ~(uint64_t)k;
    }
    ompdsm_barrier();
    for (size_t k = 0; k < TOUCHED; k++) {
        size_t page = (k * 1000003u) % pages;
        uint64_t *w = (uint64_t *)(mem + page * ps);
        CHECK(w[0] == k + 1 && w[ps / sizeof *w - 1] == ~(uint64_t)k, "page %zu (k = %zu) holds %lu", page, k,
              (unsigned long)w[0]);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    CHECK(ru.ru_maxrss < 512 * 1024, "resident set grew to %ld KiB for %d touched pages", ru.ru_maxrss, TOUCHED);
    if (me == 0)
        printf("sparse_region: %d nodes, %d pages of a 4 GiB region, max RSS %ld KiB\n", n, TOUCHED, ru.ru_maxrss);
    ompdsm_finalize();
    return 0;
}
