/*
 * A copy one node writes in one loop and other nodes write in the next
 * few (NAS FT's transposes) is dropped at the first barrier of such a
 * stretch instead of refreshed at each (dsm/refresh.c), and must come back
 * with every write of the others in it when it is read again.
 *
 * A 32 MB array a[NZ][NY][NX] of unsigned longs: the z pass splits the
 * rows j among the threads and rewrites every plane k of its rows; the y
 * pass, the x pass and the evolution split the planes k, so that the rows
 * of a plane another thread rewrote in the z pass are written by this
 * plane's thread three times before the z pass reads them again.  Each
 * step prints a checksum (a sum, the same in any order and at any number
 * of threads).
 */
#include <stdio.h>
#include <stdlib.h>

enum { NZ = 64, NY = 128, NX = 512, STEPS = 6 };

static unsigned long (*a)[NY][NX];

static unsigned long checksum(void)
{
    unsigned long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                s += a[k][j][i] * (unsigned long)(1 + (k ^ j ^ i));
    return s;
}

int main(void)
{
    a = malloc(sizeof(unsigned long[NZ][NY][NX]));
    if (!a)
        return 1;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                a[k][j][i] = (unsigned long)(k * NY + j) * NX + (unsigned long)i;
    for (unsigned long s = 1; s <= STEPS; s++) {
#pragma omp parallel for
        for (int j = 0; j < NY; j++)
            for (int k = 0; k < NZ; k++)
                for (int i = 0; i < NX; i++)
                    a[k][j][i] = a[k][j][i] * 3 + (unsigned long)k + s;
#pragma omp parallel for
        for (int k = 0; k < NZ; k++)
            for (int j = 0; j < NY; j++)
                for (int i = 0; i < NX; i++)
                    a[k][j][i] = a[k][j][i] * 7 + (unsigned long)j;
#pragma omp parallel for
        for (int k = 0; k < NZ; k++)
            for (int j = 0; j < NY; j++)
                for (int i = 0; i < NX; i++)
                    a[k][j][i] += (unsigned long)i * s;
#pragma omp parallel for
        for (int k = 0; k < NZ; k++)
            for (int j = 0; j < NY; j++)
                for (int i = 0; i < NX; i++)
                    a[k][j][i] ^= s << (k % 32);
        printf("step %lu: %lu\n", s, checksum());
    }
    free(a);
    return 0;
}
