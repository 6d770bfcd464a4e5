/*
 * The diff encoder sends exactly the bytes that changed, and applying a
 * diff reproduces the page: no change gives an empty diff; one byte at
 * either end gives one run of one word with its mask; everything changed
 * gives one run of the whole page without masks; a page of doubles whose
 * high bytes stay costs at most a mask byte per word over the page;
 * scattered changes round-trip; a byte between two changed bytes of a word
 * is never written; a malformed diff is refused.
 */
#include "../../dsm/diff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PAGE = 4096 };

static int failures;

#define EXPECT(cond, ...)                                                \
    do {                                                                 \
        if (!(cond)) {                                                   \
            printf("FAIL %s: ", __func__);                               \
            printf(__VA_ARGS__);                                         \
            putchar('\n');                                               \
            failures++;                                                  \
        }                                                                \
    } while (0)

static _Alignas(8) uint8_t twin[PAGE], cur[PAGE], home[PAGE];

static void reset(void)
{
    for (int i = 0; i < PAGE; i++)
        twin[i] = cur[i] = (uint8_t)(i * 13 + 5);
}

/* Applies the encoded diff of cur to a copy of twin, both ways (words
 * blended whole, and changed bytes only, as on a page writable at its
 * home); checks each equals cur. */
static size_t round_trip(struct dsm_buf *b)
{
    b->n = 0;
    size_t len = dsm_diff_encode(cur, twin, PAGE, b);
    for (int writable = 0; writable < 2; writable++) {
        memcpy(home, twin, PAGE);
        long applied = dsm_diff_apply(home, PAGE, b->p, len, writable);
        EXPECT(applied >= 0, "apply refused a diff it produced");
        EXPECT(memcmp(home, cur, PAGE) == 0, "applied diff differs from the written page (writable %d)", writable);
    }
    return len;
}

/* The word count of the run at run_off, and whether it has masks. */
static uint32_t run_words(const struct dsm_buf *b, size_t run_off)
{
    uint32_t v;
    memcpy(&v, b->p + run_off + 4, 4);
    return v & ~DSM_DIFF_FULL;
}

static bool run_full(const struct dsm_buf *b, size_t run_off)
{
    uint32_t v;
    memcpy(&v, b->p + run_off + 4, 4);
    return v & DSM_DIFF_FULL;
}

static void no_change(struct dsm_buf *b)
{
    reset();
    EXPECT(round_trip(b) == 0, "unchanged page produced a diff");
}

static void first_byte(struct dsm_buf *b)
{
    reset();
    cur[0] ^= 0xff;
    EXPECT(round_trip(b) == 17 && run_words(b, 0) == 1, "first byte: %zu bytes", b->n);
}

static void last_byte(struct dsm_buf *b)
{
    reset();
    cur[PAGE - 1] ^= 1;
    EXPECT(round_trip(b) == 17 && run_words(b, 0) == 1, "last byte: %zu bytes", b->n);
}

static void everything(struct dsm_buf *b)
{
    reset();
    for (int i = 0; i < PAGE; i++)
        cur[i] = (uint8_t)~cur[i];
    EXPECT(round_trip(b) == 8 + PAGE && run_words(b, 0) == PAGE / 8 && run_full(b, 0), "whole page: %zu bytes",
           b->n);
}

static void doubles(struct dsm_buf *b)
{
    double *t = (double *)twin, *c = (double *)cur;
    for (int i = 0; i < PAGE / 8; i++)
        t[i] = c[i] = 1.0 + i;
    for (int i = 0; i < PAGE / 8; i++)
        c[i] *= 1.0001;
    size_t len = round_trip(b);
    EXPECT(len <= 8 + PAGE / 8 + PAGE, "a page of doubles: %zu bytes", len);
}

static void scattered(struct dsm_buf *b)
{
    srand(7);
    for (int t = 0; t < 1000; t++) {
        reset();
        int k = rand() % 64;
        for (int j = 0; j < k; j++)
            cur[rand() % PAGE] = (uint8_t)rand();
        round_trip(b);
    }
}

/* Only the bytes that differ travel: a neighbour's byte is never resent. */
static void exact_bytes(struct dsm_buf *b)
{
    reset();
    cur[100] ^= 1;
    cur[102] ^= 1;
    round_trip(b);
    memcpy(home, twin, PAGE);
    home[101] = 0xAA;   /* another node's write to the byte between */
    dsm_diff_apply(home, PAGE, b->p, b->n, false);
    EXPECT(home[101] == 0xAA, "diff overwrote a byte it did not change");
}

static void malformed(struct dsm_buf *b)
{
    uint32_t bad[2] = { PAGE - 2, 8 };   /* run past the end of the page */
    EXPECT(dsm_diff_apply(home, PAGE, bad, sizeof bad, false) < 0, "accepted a run past the page end");
    EXPECT(dsm_diff_apply(home, PAGE, bad, 5, false) < 0, "accepted a truncated run header");
    (void)b;
}

int main(void)
{
    struct dsm_buf b = { 0 };
    no_change(&b);
    first_byte(&b);
    last_byte(&b);
    everything(&b);
    doubles(&b);
    scattered(&b);
    exact_bytes(&b);
    malformed(&b);
    dsm_buf_free(&b);
    printf("diff_unit: %s\n", failures ? "FAILED" : "all cases hold");
    return failures != 0;
}
