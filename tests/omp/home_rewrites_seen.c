/*
 * home_rewrites_seen: the pages of a shared array are written, round after
 * round, by a thread that changes every three rounds (so that each node in
 * turn writes pages it is home of and pages homed elsewhere, several rounds
 * running), with no write at all in every fourth round; after each round's
 * barrier every thread reads every page and checks it holds the last value
 * written.  At a barrier a page its home wrote stays writable there with
 * nobody registered as holding it (unshare); a node that reads it again
 * must register again, and the home's next writes, made without a fault,
 * must still reach it.  A stale copy shows as a wrong word.  The output
 * does not depend on the team.
 * Run over tcp too.
 */
#include <omp.h>
#include <stdio.h>

enum { PAGES = 12, WORDS_PER_PAGE = 1024, ROUNDS = 300 };
int data[PAGES * WORDS_PER_PAGE];

static int writes_in(int r)
{
    return r % 4 != 3;
}

/* The value of word i of page p after round r. */
static int value(int r, int p, int i)
{
    while (r > 0 && !writes_in(r))
        r--;
    return r * 100000 + p * WORDS_PER_PAGE + i;
}

int main(void)
{
    long wrong = 0;
#pragma omp parallel reduction(+ : wrong)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        for (int r = 1; r <= ROUNDS; r++) {
            if (writes_in(r))
                for (int p = 0; p < PAGES; p++)
                    if ((p + r / 3) % n == t)
                        for (int i = 0; i < WORDS_PER_PAGE; i++)
                            data[p * WORDS_PER_PAGE + i] = value(r, p, i);
#pragma omp barrier
            for (int p = 0; p < PAGES; p++) {
                int i = (r * 7 + t) % WORDS_PER_PAGE;
                wrong += data[p * WORDS_PER_PAGE + i] != value(r, p, i);
                wrong += data[p * WORDS_PER_PAGE] != value(r, p, 0);
            }
#pragma omp barrier
        }
    }
    printf("%d rounds of %d pages, %ld stale words seen\n", ROUNDS, PAGES, wrong);
    return 0;
}
