/*
 * heap_limits.c: every function of the malloc family refuses exactly the
 * requests the C library refuses, with the same error, and a refused
 * request leaves the heap as it was.
 *
 * Each case prints one line: "NULL ENOMEM" (or EINVAL) for a refused
 * request, "ok" for a block that has the promised alignment and size, can
 * be written whole and overlaps no other live block.  The output is
 * compared with the same program built against glibc and libgomp; the
 * sizes are ones glibc refuses on any machine (beyond the address space,
 * or overflowing), so the reference does not depend on the machine's
 * memory.  A failed realloc must leave the old block and its contents
 * intact.  The master prints its results; then every thread (every node
 * under ompdsm, each with its own heap arena) runs the same cases and
 * must get the same results.
 */
#include <errno.h>
#include <malloc.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_LINES = 64, LINE = 96, MAX_LIVE = 64 };

struct run {
    char lines[MAX_LINES][LINE];
    int nlines;
    struct { unsigned char *p; size_t n; } live[MAX_LIVE];
    int nlive;
    int bad;            /* live blocks that overlap or lost their contents */
};

static char master_lines[MAX_LINES][LINE];
static int master_nlines;

static void say(struct run *r, const char *what, const char *result)
{
    if (r->nlines < MAX_LINES)
        snprintf(r->lines[r->nlines++], LINE, "%-42s %s", what, result);
}

static const char *err_name(int e)
{
    return e == ENOMEM ? "ENOMEM" : e == EINVAL ? "EINVAL" : e == 0 ? "no errno" : "other errno";
}

/* A block that was handed out: it must be aligned, writable in full, and
 * disjoint from every other live block.  Each live block is filled with
 * its own byte, checked at the end. */
static void keep(struct run *r, const char *what, void *p, size_t n, size_t align)
{
    if ((uintptr_t)p % align) {
        say(r, what, "misaligned");
        return;
    }
    for (int i = 0; i < r->nlive; i++)
        if ((unsigned char *)p < r->live[i].p + r->live[i].n && r->live[i].p < (unsigned char *)p + n)
            r->bad++;
    memset(p, 1 + r->nlive, n);
    if (r->nlive < MAX_LIVE) {
        r->live[r->nlive].p = p;
        r->live[r->nlive].n = n;
        r->nlive++;
    }
    say(r, what, "ok");
}

/* One allocation: NULL with its errno, or a block to keep. */
static void alloc_case(struct run *r, const char *what, void *p, int err, size_t n, size_t align)
{
    if (!p)
        say(r, what, err == ENOMEM ? "NULL ENOMEM" : err == EINVAL ? "NULL EINVAL" : "NULL, other errno");
    else
        keep(r, what, p, n ? n : 1, align);
}

#define TRY(r, call, n, align)                                  \
    do {                                                        \
        errno = 0;                                              \
        void *p_ = (call);                                      \
        alloc_case((r), #call, p_, errno, (n), (align));        \
    } while (0)

static void memalign_cases(struct run *r)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = &p;   /* must stay untouched on failure */
    int rc;
    char res[LINE];
#define PM(align, n, want_align)                                                              \
    do {                                                                                      \
        p = &p;                                                                               \
        rc = posix_memalign(&p, (align), (n));                                                \
        if (rc) {                                                                             \
            snprintf(res, sizeof res, "returns %s%s", err_name(rc), p == &p ? "" : ", pointer changed"); \
            say(r, "posix_memalign(&p, " #align ", " #n ")", res);                            \
        } else {                                                                              \
            keep(r, "posix_memalign(&p, " #align ", " #n ")", p, (n), (want_align));         \
        }                                                                                     \
    } while (0)
    PM(65536, SIZE_MAX - 1000, 1);
    PM(65536, 1000, 65536);
    PM((size_t)1 << 20, 100, (size_t)1 << 20);
    PM(24, 10, 1);
    PM(4, 10, 1);
    PM(0, 10, 1);
    PM(SIZE_MAX / 2 + 1, 64, 1);
#undef PM
    TRY(r, aligned_alloc(64, 100), 100, 64);
    TRY(r, aligned_alloc(0, 64), 64, 16);
    TRY(r, aligned_alloc(3, 64), 64, 16);
    TRY(r, aligned_alloc(8, SIZE_MAX), 0, 1);
    TRY(r, aligned_alloc(4096, SIZE_MAX - 100), 0, 1);
    TRY(r, aligned_alloc(SIZE_MAX / 2 + 2, 64), 0, 1);
    TRY(r, memalign(48, 100), 100, 64);
    TRY(r, memalign(0, 64), 64, 16);
    TRY(r, memalign(65536, SIZE_MAX - 1000), 0, 1);
    TRY(r, memalign(SIZE_MAX / 2 + 1, 64), 0, 1);
    TRY(r, memalign(SIZE_MAX / 2 + 2, 64), 0, 1);
    TRY(r, valloc(SIZE_MAX), 0, 1);
    TRY(r, valloc(100), 100, page);
    TRY(r, pvalloc(SIZE_MAX), 0, 1);
    TRY(r, pvalloc(SIZE_MAX - 5000), 0, 1);
    TRY(r, pvalloc(0), 0, page);
    void *pv = pvalloc(1);
    say(r, "pvalloc(1): usable size", pv && malloc_usable_size(pv) >= page ? "at least a page" : "less than a page");
    free(pv);
}

/* realloc and reallocarray: a refused request leaves the block as it was. */
static void realloc_case(struct run *r, const char *what, unsigned char *old, void *got, int err)
{
    char res[LINE];
    int intact = 1;
    for (int i = 0; i < 1000; i++)
        intact &= old[i] == (unsigned char)(i * 7);
    snprintf(res, sizeof res, "%s %s, old block %s", got ? "ptr" : "NULL", got ? "" : err_name(err),
             intact ? "intact" : "changed");
    say(r, what, res);
}

static void realloc_cases(struct run *r)
{
    unsigned char *a = malloc(1000);
    for (int i = 0; i < 1000; i++)
        a[i] = (unsigned char)(i * 7);
#define RE(call)                                        \
    do {                                                \
        errno = 0;                                      \
        void *q_ = (call);                              \
        realloc_case(r, #call, a, q_, errno);           \
    } while (0)
    RE(realloc(a, SIZE_MAX));
    RE(realloc(a, SIZE_MAX - 100));
    RE(realloc(a, PTRDIFF_MAX));
    RE(realloc(a, (size_t)1 << 62));
    RE(reallocarray(a, SIZE_MAX, 2));
    RE(reallocarray(a, (size_t)1 << 31, (size_t)1 << 31));
#undef RE
    TRY(r, realloc(NULL, SIZE_MAX), 0, 1);
    TRY(r, realloc(NULL, 0), 0, 16);
    TRY(r, reallocarray(NULL, 0, 5), 0, 16);
    unsigned char *b = reallocarray(a, 100, 40);
    int same = b != NULL;
    for (int i = 0; b && i < 1000; i++)
        same &= b[i] == (unsigned char)(i * 7);
    say(r, "reallocarray(a, 100, 40)", same ? "ok, contents kept" : "contents lost");
    errno = 0;
    void *z = realloc(b, 0);    /* frees b */
    say(r, "realloc(b, 0)", z ? "ptr" : "NULL");
    free(z);
}

static void run_cases(struct run *r)
{
    memset(r, 0, sizeof *r);
    /* Blocks made before the refused requests, which must not be touched. */
    TRY(r, malloc(100), 100, 16);
    TRY(r, malloc(3 * 4096), 3 * 4096, 16);
    TRY(r, malloc(SIZE_MAX), 0, 1);
    TRY(r, malloc(SIZE_MAX - 100), 0, 1);
    TRY(r, malloc(PTRDIFF_MAX), 0, 1);
    TRY(r, malloc((size_t)1 << 62), 0, 1);
    TRY(r, malloc(0), 0, 16);
    TRY(r, calloc(SIZE_MAX / 2, 3), 0, 1);
    TRY(r, calloc((size_t)1 << 31, (size_t)1 << 31), 0, 1);
    TRY(r, calloc(SIZE_MAX, 0), 0, 16);
    TRY(r, calloc(1000, 8), 8000, 16);
    realloc_cases(r);
    memalign_cases(r);
    /* Blocks made after them must be new memory too. */
    TRY(r, malloc(100), 100, 16);
    TRY(r, malloc(3 * 4096), 3 * 4096, 16);
    for (int i = 0; i < r->nlive; i++) {
        for (size_t k = 0; k < r->live[i].n; k++)
            if (r->live[i].p[k] != (unsigned char)(1 + i)) {
                r->bad++;
                break;
            }
        free(r->live[i].p);
    }
}

int main(void)
{
    static struct run master;
    run_cases(&master);
    for (int i = 0; i < master.nlines; i++)
        printf("%s\n", master.lines[i]);
    printf("live blocks overlapping or overwritten: %d\n", master.bad);
    memcpy(master_lines, master.lines, sizeof master_lines);
    master_nlines = master.nlines;

    int differ = 0;
#pragma omp parallel reduction(+ : differ)
    {
        struct run *r = malloc(sizeof *r);
        run_cases(r);
        differ += r->bad || r->nlines != master_nlines
                  || memcmp(r->lines, master_lines, sizeof master_lines) != 0;
        free(r);
    }
    printf("threads whose results differ from the master's: %d\n", differ);
    return 0;
}
