/*
 * tls_mirror.c: node 0's threadprivate variables where the other nodes'
 * threads look for them.
 *
 * GCC hands the master's threadprivate variables to a region's other
 * threads by address for copyin of an array or a struct (a scalar travels
 * by value in the region's data), and copyprivate hands over the single
 * thread's variables by address.  For a threadprivate variable that
 * address lies in the master's thread-local block of the executable,
 * which is not shared memory.  At another node the same address is the
 * executable's thread-local block of that node's initial thread: every
 * node runs the same executable at the same addresses (ompdsm-run
 * disables address space randomisation), and the C library lays the
 * initial thread out the same way (checked: node 0's address travels with
 * the mirror).  Followed there, the address gave that thread's own values,
 * without an error (copyin of a threadprivate array at 2 nodes gave the
 * other node's threads the array's initial contents).
 *
 * So that block, at the other nodes, mirrors the master's: node 0 copies
 * its block into shared memory before a region starts and before a
 * copyprivate's broadcast, the changed pages only (a program whose
 * threadprivate variables stay as they were writes nothing), and the other
 * nodes copy it into their initial thread's block as the region or the
 * broadcast reaches them.  Their initial thread never runs the program's
 * code, or it would find the master's values in its own variables: the
 * node's first OpenMP thread is another thread (start.c), with its own
 * threadprivate variables, which persist between regions as the OpenMP
 * specification says.  A program whose executable has no thread-local
 * variable has no mirror.
 */
#include "omp_rt.h"

#include "../dsm/dsm.h"
#include "../util/log.h"

#include <link.h>
#include <string.h>

static struct {
    char *block;                /* this node's initial thread's block of the executable */
    size_t size;                /* its size (the executable's PT_TLS memsz) */
    uintptr_t tp;               /* the initial thread's thread pointer */
    uint64_t *shared;           /* node 0's block address, then the copy */
    bool told;
} mirror;

/* The executable is the first object dl_iterate_phdr reports. */
static int find_block(struct dl_phdr_info *info, size_t len, void *arg)
{
    (void)len;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_TLS) {
            mirror.size = info->dlpi_phdr[i].p_memsz;
            mirror.block = info->dlpi_tls_data;
        }
    return 1;
}

void omp_tls_mirror_init(void)
{
    dl_iterate_phdr(find_block, NULL);
    if (!mirror.block || !mirror.size)
        return;
    mirror.tp = (uintptr_t)__builtin_thread_pointer();
    mirror.shared = dsm_alloc(sizeof(uint64_t) + mirror.size, 0);
    if (omp_rt.node == 0)
        mirror.shared[0] = (uint64_t)(uintptr_t)mirror.block;
}

/* Node 0's thread 0, before a region starts or a copyprivate's broadcast:
 * the initial thread (main()'s) is the only one whose addresses the other
 * nodes can mirror. */
void omp_tls_mirror_publish(void)
{
    if (!mirror.shared || (uintptr_t)__builtin_thread_pointer() != mirror.tp)
        return;
    char *to = (char *)(mirror.shared + 1);
    size_t page = dsm.page_size;
    /* Chunks that end at the shared pages' ends: a page is written only if
     * some byte of it changed. */
    size_t first = page - (uintptr_t)to % page;
    for (size_t at = 0, len = first; at < mirror.size; at += len, len = page) {
        if (len > mirror.size - at)
            len = mirror.size - at;
        if (memcmp(to + at, mirror.block + at, len))
            memcpy(to + at, mirror.block + at, len);
    }
}

/* A node other than 0, once the region or the broadcast has reached it. */
void omp_tls_mirror_apply(void)
{
    if (!mirror.shared)
        return;
    if (mirror.shared[0] != (uint64_t)(uintptr_t)mirror.block) {
        if (!mirror.told)
            dsm_warn("the executable's threadprivate variables are not at node 0's addresses here (%p, node 0 "
                     "%p): copyin and copyprivate of threadprivate arrays and structs give this node's threads "
                     "wrong values", (void *)mirror.block,
                     (void *)(uintptr_t)mirror.shared[0]);
        mirror.told = true;
        return;
    }
    memcpy(mirror.block, mirror.shared + 1, mirror.size);
}
