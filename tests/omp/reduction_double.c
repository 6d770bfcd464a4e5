/*
 * reduction_double: reductions on double with + * max min && ||.  Every
 * operand is an exactly representable value (small integers, halves,
 * powers of two) so the results are exact whatever the grouping.
 */
#include <omp.h>
#include <stdio.h>

#define N 1000

int main(void)
{
    double sum = 0.25, prod = 1.0, mx = -1e300, mn = 1e300, land = 1.0, lor = 0.0;

#pragma omp parallel for reduction(+ : sum) reduction(* : prod) reduction(max : mx) \
    reduction(min : mn) reduction(&& : land) reduction(|| : lor) schedule(dynamic, 13)
    for (int i = 0; i < N; i++) {
        sum += i * 0.5;
        prod *= (i % 100 == 3) ? 2.0 : (i % 100 == 51 ? 0.5 : 1.0);
        prod *= (i % 250 == 0) ? 4.0 : 1.0;
        double h = (double)((i * 613) % 997) - 498.5;
        mx = mx > h ? mx : h;
        mn = mn < h ? mn : h;
        land = land && (i * 1.0 < 2000.0);
        lor = lor || (i == 999);
    }
    printf("+ %.6f\n* %.6f\nmax %.6f\nmin %.6f\n", sum, prod, mx, mn);
    printf("&& %.1f\n|| %.1f\n", land, lor);
    return 0;
}
