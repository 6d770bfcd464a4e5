/*
 * The diff encoder sends exactly the bytes that changed, and applying a
 * diff reproduces the page: no change gives an empty diff; one byte at
 * either end gives one run of one word with its mask; everything changed
 * gives one run of the whole page without masks; a page of doubles whose
 * high bytes stay costs at most a mask byte per word over the page;
 * scattered changes round-trip; a byte between two changed bytes of a word
 * is never written; a malformed diff is refused.  Every case runs with each
 * way of comparing the CPU has (a word at a time, AVX2, AVX-512), and those
 * encode every page of a random mix of sparse, dense and block-crossing
 * changes, at 4 KiB and at 64 KiB (runs longer than DSM_DIFF_RUN_MAX words),
 * into the very same bytes, whose application keeps the bytes other nodes
 * wrote meanwhile around the changed ones.
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

enum { BIG = 64 * 1024 };
/* Words 10 and 12 changed, 11 not: one run of 3 words, the middle one with
 * mask 0, which leaves another node's write to word 11 in place.  Words
 * 20 and 40 are more than a block of 8 apart: two runs. */
static void unchanged_word_inside(struct dsm_buf *b)
{
    reset();
    cur[8 * 10] ^= 1;
    cur[8 * 12 + 7] ^= 1;
    size_t len = round_trip(b);
    EXPECT(len == 8 + 3 + 24 && run_words(b, 0) == 3, "words 10 and 12: %zu bytes", len);
    memcpy(home, twin, PAGE);
    home[8 * 11 + 3] = 0xAA;
    dsm_diff_apply(home, PAGE, b->p, b->n, true);
    EXPECT(home[8 * 11 + 3] == 0xAA && home[8 * 10] == cur[8 * 10] && home[8 * 12 + 7] == cur[8 * 12 + 7],
           "a run's unchanged word was written");
    reset();
    cur[8 * 20] ^= 1;
    cur[8 * 40] ^= 1;
    EXPECT(round_trip(b) == 2 * 17 && run_words(b, 0) == 1, "words 20 and 40: %zu bytes", b->n);
}

static _Alignas(64) uint8_t big_twin[BIG], big_cur[BIG], big_home[BIG], big_want[BIG];

/* A random change of big_cur: a few bytes, a stretch of words, or every
 * word a little, at a random place and length. */
static void random_change(size_t size)
{
    memcpy(big_cur, big_twin, size);
    size_t at = (size_t)rand() % size, len = 1 + (size_t)rand() % (size - at);
    switch (rand() % 4) {
    case 0:
        for (int j = rand() % 16; j >= 0; j--)
            big_cur[(size_t)rand() % size] ^= (uint8_t)(1 + rand() % 255);
        break;
    case 1:
        for (size_t i = at; i < at + len; i++)
            big_cur[i] = (uint8_t)~big_cur[i];
        break;
    case 2:
        for (size_t i = at & ~(size_t)3; i + 4 <= at + len; i += 4)
            big_cur[i] += (uint8_t)(1 + rand() % 7);
        break;
    default:
        for (size_t i = at; i < at + len; i++)
            if (rand() % 3 == 0)
                big_cur[i] ^= (uint8_t)(1 << rand() % 8);
    }
}

/* big_home as the home holds it when the diff of big_cur arrives: the twin,
 * with other nodes' writes in a fifth of the bytes this change left alone;
 * big_want is what applying the diff must leave, theirs and the change's. */
static void foreign_writes(size_t size)
{
    memcpy(big_home, big_twin, size);
    for (size_t i = 0; i < size; i++)
        if (big_cur[i] == big_twin[i] && rand() % 5 == 0)
            big_home[i] = (uint8_t)~big_twin[i];
    for (size_t i = 0; i < size; i++)
        big_want[i] = big_cur[i] != big_twin[i] ? big_cur[i] : big_home[i];
}

/* Every way the CPU has encodes as a word at a time does, and its diffs,
 * applied blended or byte by byte, write every changed byte and no other. */
static void same_encoding(int ways)
{
    struct dsm_buf want = { 0 }, got = { 0 };
    srand(11);
    for (int i = 0; i < (int)BIG; i++)
        big_twin[i] = (uint8_t)(i * 7 + 3);
    for (int t = 0; t < 2000; t++) {
        size_t size = t % 2 ? BIG : PAGE;
        random_change(size);
        dsm_diff_use(DSM_DIFF_WORDS);
        want.n = 0;
        dsm_diff_encode(big_cur, big_twin, size, &want);
        for (int w = DSM_DIFF_AVX2; w <= DSM_DIFF_AVX512; w++) {
            if (!(ways & 1 << w))
                continue;
            dsm_diff_use((enum dsm_diff_isa)w);
            got.n = 0;
            dsm_diff_encode(big_cur, big_twin, size, &got);
            EXPECT(got.n == want.n && memcmp(got.p, want.p, want.n) == 0,
                   "way %d encodes %zu bytes unlike a word at a time (%zu), change %d", w, got.n, want.n, t);
            for (int writable = 0; writable < 2; writable++) {
                foreign_writes(size);
                EXPECT(dsm_diff_apply(big_home, size, got.p, got.n, writable) >= 0 &&
                           memcmp(big_home, big_want, size) == 0,
                       "way %d: applied diff differs, change %d (writable %d)", w, t, writable);
            }
        }
    }
    dsm_buf_free(&want);
    dsm_buf_free(&got);
}

int main(void)
{
    static const char *const names[] = { "a word at a time", "AVX2", "AVX-512" };
    struct dsm_buf b = { 0 };
    int ways = 0;
    for (int w = DSM_DIFF_WORDS; w <= DSM_DIFF_AVX512; w++) {
        if (!dsm_diff_use((enum dsm_diff_isa)w)) {
            printf("diff_unit: this CPU has no %s\n", names[w]);
            continue;
        }
        ways |= 1 << w;
        no_change(&b);
        first_byte(&b);
        last_byte(&b);
        everything(&b);
        doubles(&b);
        scattered(&b);
        exact_bytes(&b);
        unchanged_word_inside(&b);
        malformed(&b);
        printf("diff_unit: the cases, %s: %d failure(s) so far\n", names[w], failures);
    }
    same_encoding(ways);
    dsm_buf_free(&b);
    printf("diff_unit: %s\n", failures ? "FAILED" : "all cases hold");
    return failures != 0;
}
