/*
 * Several threads of one node fault on the same pages at the same time:
 * each page is fetched and installed once, no thread sees a half-installed
 * page, and writes by different threads to different words of one page all
 * reach the home.  Every node runs THREADS threads; in phase 1 they all
 * read every page homed elsewhere, in phase 2 thread t of node n writes
 * word (n * THREADS + t) of every page.
 */
#include "check.h"

#include <pthread.h>
#include <stdint.h>

enum { PAGES = 64, THREADS = 4 };

static uint64_t *mem;
static size_t words_per_page;
static int me, nodes;

static uint64_t value(size_t page, size_t word)
{
    return page * 1000003u + word + 1;
}

static void *reader(void *arg)
{
    (void)arg;
    for (size_t p = 0; p < PAGES; p++)
        for (size_t w = 0; w < words_per_page; w += 61)
            CHECK(mem[p * words_per_page + w] == value(p, w), "thread read %lu at page %zu word %zu",
                  (unsigned long)mem[p * words_per_page + w], p, w);
    return NULL;
}

static void *writer(void *arg)
{
    size_t word = (size_t)me * THREADS + (size_t)(uintptr_t)arg;
    for (size_t p = 0; p < PAGES; p++)
        mem[p * words_per_page + word] = ~value(p, word);
    return NULL;
}

static void run_threads(void *(*fn)(void *))
{
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, fn, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    me = ompdsm_node();
    nodes = ompdsm_nodes();
    words_per_page = ompdsm_page_size() / sizeof(uint64_t);
    mem = ompdsm_alloc(PAGES * ompdsm_page_size());
    if (me == 0)
        for (size_t p = 0; p < PAGES; p++)
            for (size_t w = 0; w < words_per_page; w++)
                mem[p * words_per_page + w] = value(p, w);
    ompdsm_barrier();
    run_threads(reader);
    ompdsm_barrier();
    run_threads(writer);
    ompdsm_barrier();
    for (size_t p = 0; p < PAGES; p++)
        for (size_t w = 0; w < words_per_page; w++) {
            uint64_t want = w < (size_t)nodes * THREADS ? ~value(p, w) : value(p, w);
            CHECK(mem[p * words_per_page + w] == want, "page %zu word %zu = %lu", p, w,
                  (unsigned long)mem[p * words_per_page + w]);
        }
    if (me == 0)
        printf("concurrent_faults: %d nodes x %d threads, %d pages\n", nodes, THREADS, PAGES);
    ompdsm_finalize();
    return 0;
}
