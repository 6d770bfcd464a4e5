/*
 * words_of_shared_pages: every thread of every node writes its own words
 * of the same pages, interleaved word by word (thread t writes the words
 * i with i mod team = t), then a barrier, then every thread checks every
 * word, 1000 rounds.  With several threads per node, a node's threads
 * write one page at once while the node diffs it at a barrier and other
 * nodes invalidate it: a write lost to a twin, a diff or an invalidation
 * shows as a wrong word.  The output (rounds and wrong words) does not
 * depend on the team.
 */
#include <omp.h>
#include <stdio.h>

enum { WORDS = 4 * 1024, ROUNDS = 1000 };   /* 4 pages of 4 KiB */
int words[WORDS];

int main(void)
{
    long wrong = 0;
#pragma omp parallel reduction(+ : wrong)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        for (int r = 1; r <= ROUNDS; r++) {
            for (int i = t; i < WORDS; i += n)
                words[i] = r * WORDS + i;
#pragma omp barrier
            for (int i = 0; i < WORDS; i += 61)
                wrong += words[i] != r * WORDS + i;
#pragma omp barrier
        }
    }
    long bad = 0;
    for (int i = 0; i < WORDS; i++)
        bad += words[i] != ROUNDS * WORDS + i;
    printf("%d rounds, %ld wrong words seen, %ld wrong at the end\n", ROUNDS, wrong, bad);
    return 0;
}
