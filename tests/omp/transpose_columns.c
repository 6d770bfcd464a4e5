/*
 * transpose_columns: a 3-D array whose rows are one page each (512 longs),
 * worked on by planes and then by columns, as a 3-D FFT's passes are: the
 * column pass gathers, for each of its j, the row (k, j) of every plane k,
 * so consecutive misses are a plane apart, and most of the rows it reads
 * and writes were last written by another thread.  Four rounds of: a row
 * pass by planes, a column pass in place (a recurrence down each column),
 * and a column pass out of place into a second array, never read before.
 * All arithmetic is modulo a prime, so the result is exact in any order.
 * Prints checksums of both arrays and a few entries.
 */
#include <stdio.h>
#include <stdlib.h>

#define NZ 48
#define NY 32
#define NX 512
#define P 1000003L
#define BLOCK 16

static long a[NZ][NY][NX], b[NZ][NY][NX];

int main(void)
{
#pragma omp parallel for
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                a[k][j][i] = (k * 7919L + j * 104729L + i * 13L) % P;

    for (int round = 0; round < 4; round++) {
        /* Along the rows: each thread its planes. */
#pragma omp parallel for
        for (int k = 0; k < NZ; k++)
            for (int j = 0; j < NY; j++)
                for (int i = 1; i < NX; i++)
                    a[k][j][i] = (a[k][j][i] + 3 * a[k][j][i - 1] + round) % P;

        /* Down the columns, in place: each thread its j. */
#pragma omp parallel for
        for (int j = 0; j < NY; j++)
            for (int i0 = 0; i0 < NX; i0 += BLOCK) {
                long line[BLOCK][NZ];
                for (int k = 0; k < NZ; k++)
                    for (int c = 0; c < BLOCK; c++)
                        line[c][k] = a[k][j][i0 + c];
                for (int c = 0; c < BLOCK; c++)
                    for (int k = 1; k < NZ; k++)
                        line[c][k] = (line[c][k] + 5 * line[c][k - 1] + 1) % P;
                for (int k = 0; k < NZ; k++)
                    for (int c = 0; c < BLOCK; c++)
                        a[k][j][i0 + c] = line[c][k];
            }

        /* Down the columns, out of place. */
#pragma omp parallel for
        for (int j = 0; j < NY; j++)
            for (int k = 0; k < NZ; k++)
                for (int i = 0; i < NX; i++)
                    b[k][j][i] = (a[k][j][i] * (k + 1) + b[k][j][i]) % P;
    }

    long sa = 0, sb = 0;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                sa = (sa * 31 + a[k][j][i]) % P;
                sb = (sb * 37 + b[k][j][i]) % P;
            }
    printf("checksums %ld %ld\n", sa, sb);
    printf("a[0][0][0] = %ld a[47][31][511] = %ld b[23][17][300] = %ld\n", a[0][0][0], a[NZ - 1][NY - 1][NX - 1],
           b[23][17][300]);
    return 0;
}
