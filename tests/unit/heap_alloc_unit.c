/*
 * The shared heap's allocator, on node 0 of 2, in one process (the shared
 * region is ordinary memory here, the transport a fake): a call from the
 * program's code gets a block of this node's arena, a call from elsewhere
 * private memory.  Small blocks are 16-byte aligned, distinct, and reused
 * once freed; large blocks are runs of whole pages, any alignment asked
 * is honoured, and freed neighbours coalesce into one run; calloc zeroes,
 * realloc keeps the contents in the shared heap; a request larger than
 * the arena is refused with ENOMEM; a block of another node's arena is
 * freed by sending it to that node.
 */
#include "../../dsm/dsm.h"
#include "../../net/net.h"
#include "../../omp_rt/omp_rt.h"
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { REGION = 8 << 20, PAGE = 4096 };

struct dsm dsm;
struct omp_rt omp_rt;
static uintptr_t region;
static int sent_op = -1, sent_to = -1;
static void *sent_block;


int64_t dsm_page_of(uintptr_t addr)
{
    return (int64_t)((addr - region) / PAGE);
}

void dsm_home_record_alloc(uint64_t first, uint64_t n, int fixed_home)
{
    (void)first;
    (void)n;
    (void)fixed_home;
}

void net_register(uint8_t op, net_handler_t handler)
{
    (void)op;
    (void)handler;
}

void net_send(int dst, uint8_t op, const void *hdr, size_t hdr_len, const void *body, size_t body_len)
{
    (void)body;
    (void)body_len;
    sent_to = dst;
    sent_op = op;
    if (hdr_len == sizeof sent_block)
        memcpy(&sent_block, hdr, sizeof sent_block);
}

/* The caller the heap sees: this function lies in the program's code. */
static const void *program(void)
{
    return (const void *)program;
}

/* This node's arena: the first of two, in the upper half of the region. */
static bool mine(const void *p, size_t size)
{
    uintptr_t lo = region + REGION / 2, a = (uintptr_t)p;
    return a >= lo && a + size <= lo + REGION / 4;
}

static void small_blocks(void)
{
    char *a = omp_rt_malloc(24, program()), *b = omp_rt_malloc(24, program());
    EXPECT(mine(a, 24) && mine(b, 24) && a != b, "blocks %p %p", (void *)a, (void *)b);
    EXPECT((uintptr_t)a % 16 == 0 && (uintptr_t)b % 16 == 0, "not 16-byte aligned");
    EXPECT(omp_rt_usable_size(a) == 32, "usable size %zu", omp_rt_usable_size(a));
    omp_rt_free(a);
    EXPECT(omp_rt_malloc(20, program()) == a, "a freed block of the class is not reused");
}

static void large_blocks_coalesce(void)
{
    char *a = omp_rt_malloc(2 * PAGE, program()), *b = omp_rt_malloc(3 * PAGE, program());
    char *c = omp_rt_malloc(PAGE, program());
    EXPECT(mine(a, 2 * PAGE) && (uintptr_t)a % PAGE == 0, "large block %p", (void *)a);
    EXPECT(b == a + 2 * PAGE && c == b + 3 * PAGE, "runs not contiguous");
    omp_rt_free(a);
    omp_rt_free(b);
    EXPECT(omp_rt_malloc(5 * PAGE, program()) == a, "two freed neighbours did not coalesce");
    char *d = omp_rt_memalign(16 * PAGE, PAGE, program());
    EXPECT(mine(d, PAGE) && (uintptr_t)d % (16 * PAGE) == 0, "alignment not honoured: %p", (void *)d);
}

static void calloc_and_realloc(void)
{
    unsigned char *z = omp_rt_calloc(100, 40, program());
    bool zero = z != NULL;
    for (int i = 0; zero && i < 4000; i++)
        zero = z[i] == 0;
    EXPECT(zero && mine(z, 4000), "calloc did not zero a shared block");
    memset(z, 7, 4000);
    unsigned char *r = omp_rt_realloc(z, 3 * PAGE, NULL);
    EXPECT(mine(r, 3 * PAGE) && r[0] == 7 && r[3999] == 7, "realloc lost the contents or the heap");
}

static void refusals_and_private_memory(void)
{
    errno = 0;
    EXPECT(omp_rt_malloc(REGION, program()) == NULL && errno == ENOMEM, "an oversized request was not refused");
    void *p = omp_rt_malloc(64, NULL);
    EXPECT(p && !mine(p, 64), "a call from outside the program got shared memory");
    omp_rt_free(p);
}

static void remote_free_goes_to_owner(void)
{
    void *theirs = (void *)(region + REGION / 2 + REGION / 4 + 64);
    omp_rt_free(theirs);
    EXPECT(sent_to == 1 && sent_op == OP_HEAP_FREE && sent_block == theirs, "sent op %d to %d", sent_op, sent_to);
}

int main(void)
{
    void *m = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 99;      /* automake's hard error */
    region = (uintptr_t)m;
    dsm.page_size = PAGE;
    dsm.page_shift = 12;
    dsm.alloc_next = region;
    dsm.alloc_end = region + REGION;
    omp_rt.node = 0;
    omp_rt.nodes = 2;
    omp_heap_init();
    small_blocks();
    large_blocks_coalesce();
    calloc_and_realloc();
    refusals_and_private_memory();
    remote_free_goes_to_owner();
    return unit_status();
}
