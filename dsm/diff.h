/*
 * diff.h: run-length diffs of a page against its twin.
 *
 * A diff is a sequence of runs, each a 4-byte offset, a 4-byte length and
 * the bytes themselves.  Runs hold exactly the bytes that differ: an
 * unchanged byte is never sent, because another node may have written it
 * (false sharing), and sending our stale copy would undo that write.
 */
#ifndef DSM_DIFF_H
#define DSM_DIFF_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer. */
struct dsm_buf {
    char *p;
    size_t n, cap;
};

void dsm_buf_reserve(struct dsm_buf *b, size_t more);
void dsm_buf_put(struct dsm_buf *b, const void *src, size_t len);
void dsm_buf_free(struct dsm_buf *b);

/* Appends the runs where cur differs from twin to out; returns the number
 * of bytes appended (0 when the page is unchanged). */
size_t dsm_diff_encode(const void *cur, const void *twin, size_t size, struct dsm_buf *out);

/* Applies len bytes of runs to the page at dst of the given size.  Returns
 * the number of data bytes written, or -1 if the diff is malformed. */
long dsm_diff_apply(void *dst, size_t size, const void *diff, size_t len);

#endif
