/*
 * diff_speed: how fast a page is compared with its twin (dsm_diff_encode)
 * and a diff applied (dsm_diff_apply), with each way of comparing this CPU
 * has, in microseconds per 4 KiB page, on three kinds of change:
 *
 *   ints     every int of the page grew a little (NAS IS merging its
 *            histogram): every word changed, in its low bytes only;
 *   doubles  every double scaled (a stencil's sweep): most bytes changed;
 *   tails    as ints, in a histogram's tail: each int grew with even
 *            odds, so a word in four stayed and runs end anywhere;
 *   sparse   one word in 64 changed.
 *
 * 512 pages (2 MiB, as IS's histogram) are encoded, then one page's diff
 * applied 512 times, at a home page not writable meanwhile and at one that
 * is; the best of 20 rounds.  Prints a table.
 *
 *   diff_speed
 */
#include "../../dsm/diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PAGE = 4096, PAGES = 512, ROUNDS = 20 };

static _Alignas(64) unsigned char twin[PAGES][PAGE], cur[PAGES][PAGE], home[PAGES][PAGE];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void fill(const char *kind)
{
    srand(1);
    for (int p = 0; p < PAGES; p++) {
        if (!strcmp(kind, "doubles")) {
            double *t = (double *)(void *)twin[p], *c = (double *)(void *)cur[p];
            for (int i = 0; i < PAGE / 8; i++) {
                t[i] = 1.0 + rand() % 1000;
                c[i] = t[i] * 0.999;
            }
        } else {
            int *t = (int *)(void *)twin[p], *c = (int *)(void *)cur[p];
            for (int i = 0; i < PAGE / 4; i++) {
                t[i] = rand() % 5000;
                int grows = !strcmp(kind, "ints") || (!strcmp(kind, "tails") && rand() % 2);
                c[i] = t[i] + (strcmp(kind, "sparse") ? grows * (1 + rand() % 20) : (i % 128 == 0));
            }
        }
    }
}

/* Microseconds per page: encoding all pages, applying page 0's diff. */
static void measure(struct dsm_buf *b, double *enc, double *apply, double *apply_w)
{
    *enc = *apply = *apply_w = 1e9;
    for (int r = 0; r < ROUNDS; r++) {
        b->n = 0;
        double t0 = now();
        for (int p = 0; p < PAGES; p++)
            dsm_diff_encode(cur[p], twin[p], PAGE, b);
        double t = (now() - t0) / PAGES * 1e6;
        *enc = t < *enc ? t : *enc;
    }
    b->n = 0;
    size_t len = dsm_diff_encode(cur[0], twin[0], PAGE, b);
    for (int writable = 0; writable < 2; writable++) {
        memcpy(home, twin, sizeof home);
        for (int r = 0; r < ROUNDS; r++) {
            double t0 = now();
            for (int p = 0; p < PAGES; p++)
                dsm_diff_apply(home[p], PAGE, b->p, len, writable);
            double t = (now() - t0) / PAGES * 1e6, *best = writable ? apply_w : apply;
            *best = t < *best ? t : *best;
        }
    }
}

int main(void)
{
    static const char *const kinds[] = { "ints", "tails", "doubles", "sparse" };
    static const char *const ways[] = { "words", "AVX2", "AVX-512" };
    struct dsm_buf b = { 0 };
    printf("| change  | way     | bytes of a diff | encode us | apply us | apply us, writable home |\n");
    printf("|---------|---------|-----------------|-----------|----------|-------------------------|\n");
    for (int k = 0; k < 4; k++) {
        fill(kinds[k]);
        for (int w = DSM_DIFF_WORDS; w <= DSM_DIFF_AVX512; w++) {
            if (!dsm_diff_use((enum dsm_diff_isa)w))
                continue;
            double enc, apply, apply_w;
            measure(&b, &enc, &apply, &apply_w);
            printf("| %-7s | %-7s | %15zu | %9.2f | %8.2f | %23.2f |\n", kinds[k], ways[w], b.n, enc, apply,
                   apply_w);
        }
    }
    dsm_buf_free(&b);
    return 0;
}
