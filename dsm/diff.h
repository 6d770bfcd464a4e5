/*
 * diff.h: diffs of a page against its twin.
 *
 * A diff is a sequence of runs of 8-byte words (pages are a multiple of 8
 * bytes), each from a changed word to a changed word; a word between that
 * did not change has mask 0.  A run is a 4-byte index of its first word, a
 * 4-byte word count n (at most DSM_DIFF_RUN_MAX) whose top bit says that
 * every byte of every word changed (DSM_DIFF_FULL), then, unless that bit
 * is set, n bytes of masks (bit k: byte k of the word changed), then the n
 * words.  Exactly the bytes that differ are written where the diff is
 * applied: an unchanged byte is never written, because another node may
 * have written it (false sharing), and our stale copy would undo that
 * write.  A page of numbers whose high bytes stay the same (doubles) costs
 * a mask byte per word, not a run per word.
 */
#ifndef DSM_DIFF_H
#define DSM_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "../util/buf.h"

#include <stdbool.h>

#define DSM_DIFF_FULL 0x80000000u
#define DSM_DIFF_RUN_MAX 4096

/* The ways to compare a page with its twin: a word at a time, or with
 * vector compares (the default is the widest the CPU has). */
enum dsm_diff_isa { DSM_DIFF_WORDS, DSM_DIFF_AVX2, DSM_DIFF_AVX512 };

/* Encodes with that one from now on (the tests compare them); false if the
 * CPU does not have it. */
bool dsm_diff_use(enum dsm_diff_isa isa);

/* Appends the runs where cur differs from twin to out (size a multiple of
 * 8); returns the number of bytes appended (0 when the page is unchanged). */
size_t dsm_diff_encode(const void *cur, const void *twin, size_t size, struct dsm_buf *out);

/* Applies len bytes of runs to the page at dst of the given size.  Returns
 * the number of data bytes written, or -1 if the diff is malformed.
 * writable: threads of this process may write the page meanwhile (it is
 * writable at its home): only the changed bytes of a word are stored, so
 * that none of theirs is put back. */
long dsm_diff_apply(void *dst, size_t size, const void *diff, size_t len, bool writable);

#endif
