/*
 * reduction_int: reductions on int with every operator + * max min & | ^
 * && ||, with their identities, on a combined parallel for.  Values are
 * chosen so that each result is independent of the grouping.
 */
#include <omp.h>
#include <stdio.h>

#define N 300

int main(void)
{
    int sum = 5, prod = 1, mx = -1000, mn = 1000, band = ~0, bor = 0, bxor = 0, land = 1, lor = 0;
    int land2 = 1, lor2 = 0;

#pragma omp parallel for reduction(+ : sum) reduction(* : prod) reduction(max : mx) \
    reduction(min : mn) reduction(& : band) reduction(| : bor) reduction(^ : bxor) \
    reduction(&& : land) reduction(|| : lor) reduction(&& : land2) reduction(|| : lor2)
    for (int i = 0; i < N; i++) {
        sum += i;
        prod *= (i % 50 == 0) ? -2 : 1;
        mx = mx > (i * 37) % 101 ? mx : (i * 37) % 101;
        mn = mn < (i * 37) % 101 - 50 ? mn : (i * 37) % 101 - 50;
        band &= ~(1 << (i % 20)) | (i < 200 ? 0 : ~0);
        bor |= 1 << (i % 25);
        bxor ^= i * 2654435761u;
        land = land && (i < N);
        lor = lor || (i == 177);
        land2 = land2 && (i != 123);
        lor2 = lor2 || (i > N);
    }
    printf("+ %d\n* %d\nmax %d\nmin %d\n", sum, prod, mx, mn);
    printf("& %d\n| %d\n^ %d\n", band, bor, bxor);
    printf("&& %d %d\n|| %d %d\n", land, land2, lor, lor2);
    return 0;
}
