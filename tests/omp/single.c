/*
 * single: the structured block of a single construct runs on exactly one
 * thread, and the implicit barrier at its end makes its writes visible to
 * every thread; single nowait has no barrier but still runs once.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int runs = 0, runs_nowait = 0, value = 0, bad = 0;

#pragma omp parallel reduction(+ : bad)
    {
        for (int round = 1; round <= 10; round++) {
#pragma omp single
            {
                value = round * 7;
                runs++;
            }
            bad += value != round * 7;
#pragma omp barrier
        }
#pragma omp single nowait
        {
#pragma omp atomic
            runs_nowait++;
        }
    }
    printf("single ran %d times, every thread saw the value: %s\n", runs, bad == 0 ? "ok" : "WRONG");
    printf("single nowait ran %d time(s)\n", runs_nowait);
    return 0;
}
