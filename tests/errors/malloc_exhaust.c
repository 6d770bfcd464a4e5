/*
 * malloc_exhaust.c: an OpenMP program whose malloc exhausts the shared heap
 * (run with OMPDSM_REGION_SIZE=64M): 8 MiB blocks, far more than the region
 * holds.  ompdsm stops the program with a fatal error naming the shared heap
 * (C would also allow malloc returning NULL; the program reports that case
 * on stderr and exits 4).  Reaching the end is a failure (exit 3).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    for (int i = 0; i < 64; i++) {      /* 512 MiB in all */
        char *p = malloc((size_t)8 << 20);
        if (p == NULL) {
            fprintf(stderr, "malloc_exhaust: malloc returned NULL at block %d\n", i);
            return 4;
        }
        p[0] = (char)i;
    }
    int n = 0;
#pragma omp parallel
#pragma omp atomic
    n++;
    fprintf(stderr, "malloc_exhaust: 512 MiB allocated without an error (%d threads)\n", n);
    return 3;
}
