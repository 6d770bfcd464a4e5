/*
 * atomic_read_write: atomic write stores a whole value and atomic read
 * loads a whole value: a reader never sees a mix of two writes.  Every
 * writer stores a value whose halves agree (for long: v * 0x100000001; for
 * double: an integer whose square is also stored), and every atomic read
 * returns one of the written values or the initial one.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long xl = 0;
    int xi = 0;
    double xd = 0.0;
    int torn = 0;

#pragma omp parallel reduction(+ : torn)
    {
        int me = omp_get_thread_num();
        for (int k = 0; k < 300; k++) {
            long v = (long)(me * 1000 + k);
#pragma omp atomic write
            xl = v * 0x100000001L;
#pragma omp atomic write
            xi = (int)v;
#pragma omp atomic write
            xd = (double)v * 4.0;
            long rl;
            int ri;
            double rd;
#pragma omp atomic read
            rl = xl;
#pragma omp atomic read
            ri = xi;
#pragma omp atomic read
            rd = xd;
            torn += (rl >> 32) != (rl & 0xffffffffL);
            torn += ri < 0 || ri % 1000 >= 300;
            torn += rd != (double)(long)rd || (long)rd % 4 != 0;
        }
    }
    /* after the region everyone is done; the sequential final write wins */
#pragma omp atomic write
    xl = 77;
    long r;
#pragma omp atomic read
    r = xl;
    printf("no torn values: %s\n", torn == 0 ? "ok" : "WRONG");
    printf("final read after write: %ld\n", r);
    return 0;
}
