/*
 * reduction_long: reductions on long with + * max min & | ^ && || inside a
 * parallel region with a worksharing loop (orphan of the combined form).
 */
#include <omp.h>
#include <stdio.h>

#define N 400

int main(void)
{
    long sum = 0, prod = 3, mx = -1, mn = 1L << 62, band = -1, bor = 0, bxor = 0, land = 1, lor = 0;

#pragma omp parallel
    {
#pragma omp for reduction(+ : sum) reduction(* : prod) reduction(max : mx) reduction(min : mn) \
    reduction(& : band) reduction(| : bor) reduction(^ : bxor) reduction(&& : land) reduction(|| : lor)
        for (long i = 0; i < N; i++) {
            sum += i * 1000000007L;
            prod *= (i % 40 == 7) ? 3 : 1;
            long h = (i * 7919) % 10007;
            mx = mx > h ? mx : h;
            mn = mn < h - 5000 ? mn : h - 5000;
            band &= ~(1L << (i % 60)) | (i < 100 ? 0 : -1L);
            bor |= 1L << (i % 63);
            bxor ^= i * 0x9E3779B97F4A7C15L;
            land = land && i >= 0;
            lor = lor || i == 399;
        }
    }
    printf("+ %ld\n* %ld\nmax %ld\nmin %ld\n", sum, prod, mx, mn);
    printf("& %ld\n| %ld\n^ %ld\n", band, bor, bxor);
    printf("&& %ld\n|| %ld\n", land, lor);
    return 0;
}
