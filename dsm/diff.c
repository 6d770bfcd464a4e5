/*
 * diff.c: encodes and applies page diffs (see diff.h for the format).
 *
 * The encoder compares eight bytes at a time, both to skip equal words and
 * to swallow words whose every byte differs, and falls back to single bytes
 * at the edges of a run, so that runs are byte-exact.
 */
#include "diff.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

void dsm_buf_reserve(struct dsm_buf *b, size_t more)
{
    if (b->n + more <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + more)
        cap *= 2;
    b->p = realloc(b->p, cap);
    if (!b->p)
        dsm_fatal("out of memory growing a %zu-byte buffer", cap);
    b->cap = cap;
}

void dsm_buf_put(struct dsm_buf *b, const void *src, size_t len)
{
    if (!len)
        return;
    dsm_buf_reserve(b, len);
    memcpy(b->p + b->n, src, len);
    b->n += len;
}

void dsm_buf_free(struct dsm_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

static uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* True when no byte of a equals the same byte of b. */
static int all_bytes_differ(uint64_t a, uint64_t b)
{
    uint64_t v = a ^ b;
    return ((v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL) == 0;
}

static size_t skip_equal(const unsigned char *c, const unsigned char *t, size_t i, size_t size)
{
    while (i + 8 <= size && load64(c + i) == load64(t + i))
        i += 8;
    while (i < size && c[i] == t[i])
        i++;
    return i;
}

static size_t skip_different(const unsigned char *c, const unsigned char *t, size_t i, size_t size)
{
    for (;;) {
        while (i + 8 <= size && all_bytes_differ(load64(c + i), load64(t + i)))
            i += 8;
        if (i >= size || c[i] == t[i])
            return i;
        i++;
    }
}

size_t dsm_diff_encode(const void *cur, const void *twin, size_t size, struct dsm_buf *out)
{
    const unsigned char *c = cur, *t = twin;
    size_t before = out->n;
    size_t i = skip_equal(c, t, 0, size);
    while (i < size) {
        size_t end = skip_different(c, t, i, size);
        uint32_t hdr[2] = { (uint32_t)i, (uint32_t)(end - i) };
        dsm_buf_put(out, hdr, sizeof hdr);
        dsm_buf_put(out, c + i, end - i);
        i = skip_equal(c, t, end, size);
    }
    return out->n - before;
}

long dsm_diff_apply(void *dst, size_t size, const void *diff, size_t len)
{
    const char *d = diff;
    long written = 0;
    size_t pos = 0;
    while (pos < len) {
        uint32_t hdr[2];
        if (len - pos < sizeof hdr)
            return -1;
        memcpy(hdr, d + pos, sizeof hdr);
        pos += sizeof hdr;
        if (hdr[1] > len - pos || hdr[0] > size || hdr[1] > size - hdr[0])
            return -1;
        memcpy((char *)dst + hdr[0], d + pos, hdr[1]);
        pos += hdr[1];
        written += hdr[1];
    }
    return written;
}
