/*
 * exhaust.c: a DSM-API program that allocates shared memory with
 * ompdsm_alloc, 8 MiB at a time, far beyond the region (run with
 * OMPDSM_REGION_SIZE=64M).  The runtime must stop it with a message saying
 * the shared memory is exhausted; reaching the end is a failure (exit 3).
 */
#include <ompdsm.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    ompdsm_init(&argc, &argv);
    for (int i = 0; i < 64; i++) {      /* 512 MiB in all */
        char *p = ompdsm_alloc((size_t)8 << 20);
        if (p == NULL) {
            fprintf(stderr, "exhaust: ompdsm_alloc returned NULL at allocation %d\n", i);
            return 4;
        }
        if (ompdsm_node() == 0)
            p[0] = 1;
    }
    fprintf(stderr, "exhaust: 512 MiB allocated without an error\n");
    ompdsm_finalize();
    return 3;
}
