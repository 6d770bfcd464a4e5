/*
 * diff.c: encodes and applies page diffs (see diff.h for the format).
 *
 * The encoder compares the page with its twin 64 bytes at a time with one
 * vector compare (AVX-512; two with AVX2; else word arithmetic, eight bytes
 * at a time), which gives the masks of the differing bytes of 8 words at
 * once: a run is a stretch of words from one that differs to one that
 * differs, each with its mask, and 8 words add their 8 masks in one store
 * (add_words says why a run spans unchanged words).  A page of ints that all
 * changed a little (NAS IS merging its histogram, 2 MB per iteration at 2
 * nodes, where encoding took 15 % of node 1's time) encodes in 0.23 us
 * (benchmarks/micro/diff_speed, in cache, this machine) where the encoder
 * before, a word at a time, took 0.88.
 *
 * Applying a run writes only the bytes that changed: another node may have
 * written the others (false sharing), and where the page is writable at its
 * home, the home's own threads may write them at the same moment, so even a
 * read-modify-write of a word could put back a byte they had just written.
 * With AVX-512, 8 words go in one masked store (0.08 us per such page in
 * diff_speed, against 0.78 a word at a time).  With AVX2, a page nobody
 * here writes meanwhile takes 4 words at a time, loaded, blended with their
 * masks and stored whole (0.2 us per page of doubles, against 1.3 a word at
 * a time); a page writable at its home takes each word whole, or a whole
 * half of it, in one store and the rest byte by byte (2.3 us, against 4.6
 * byte by byte).  At 2 nodes NAS FT's transposes send every page they
 * touch to its home, most of which the home has writable: applying them
 * byte by byte took 16 % of the samples.  (Storing bytes, or a
 * compare-and-swap per word, everywhere made ADI 20-28 % slower.)
 */
#include "diff.h"

#include <immintrin.h>
#include <string.h>

static uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Bit k of the result is set when byte k of x is not zero. */
static uint8_t nonzero_bytes(uint64_t x)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
    uint64_t high = (((x & low7) + low7) | x) & ~low7;      /* 0x80 in each nonzero byte */
    return (uint8_t)(((high >> 7) * 0x0102040810204080ULL) >> 56);
}

/* Per 4-bit mask: the 32-bit mask with byte k all ones where bit k is set,
 * and the number of bits set. */
static const uint32_t nibble_mask[16] = {
    0x00000000, 0x000000ff, 0x0000ff00, 0x0000ffff, 0x00ff0000, 0x00ff00ff, 0x00ffff00, 0x00ffffff,
    0xff000000, 0xff0000ff, 0xff00ff00, 0xff00ffff, 0xffff0000, 0xffff00ff, 0xffffff00, 0xffffffff,
};
static const uint8_t nibble_bits[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };

/* The 64-bit mask with byte k all ones where bit k of m is set. */
static uint64_t byte_mask(uint8_t m)
{
    return nibble_mask[m & 15] | (uint64_t)nibble_mask[m >> 4] << 32;
}

/* Stores the bytes of v that mask m selects at w, and no other byte: a
 * whole word, or a whole half of it, in one store (a double whose sign and
 * exponent stayed, mask 0x7f, takes four stores, not seven). */
static void store_selected(unsigned char *w, const unsigned char *v, uint8_t m)
{
    if (m == 0xff) {
        memcpy(w, v, 8);
        return;
    }
    unsigned rest = m;
    if ((m & 0x0f) == 0x0f) {
        memcpy(w, v, 4);
        rest &= 0xf0;
    } else if ((m & 0xf0) == 0xf0) {
        memcpy(w + 4, v + 4, 4);
        rest &= 0x0f;
    }
    for (; rest; rest &= rest - 1)
        w[__builtin_ctz(rest)] = v[__builtin_ctz(rest)];
}

/* One run: words [first, first + n) of cur, whose masks say which bytes
 * changed; the unchanged words at its end are left out. */
static void put_run(struct dsm_buf *out, const unsigned char *c, size_t first, size_t n, const uint8_t *masks,
                    int full)
{
    while (!masks[n - 1])
        n--;
    uint32_t hdr[2] = { (uint32_t)first, (uint32_t)n | (full ? DSM_DIFF_FULL : 0) };
    dsm_buf_reserve(out, sizeof hdr + n + 8 * n);
    dsm_buf_put(out, hdr, sizeof hdr);
    if (!full)
        dsm_buf_put(out, masks, n);
    dsm_buf_put(out, c + 8 * first, 8 * n);
}

/* The run being gathered. */
struct run {
    size_t first, n;
    int full;
    uint8_t masks[DSM_DIFF_RUN_MAX];
};

/* Adds words [w, w + k) (k <= 8), whose masks are the bytes of m (word i's
 * in bits 8i..8i+7), to the run.  A run starts at a changed word and ends
 * at a block of 8 words none of which changed (or when full): the words in
 * between that did not change go in with mask 0 (9 bytes each, where a new
 * run costs 8 of header), so a page whose words change at random (the
 * tails of NAS IS's histogram) is a few long runs, encoded and applied 8
 * words at a time, not hundreds of short ones taken a word at a time. */
static inline __attribute__((always_inline)) void add_words(struct run *r, const unsigned char *c, size_t w,
                                                            uint64_t m, size_t k, struct dsm_buf *out)
{
    if (!m) {
        if (r->n)
            put_run(out, c, r->first, r->n, r->masks, r->full);
        r->n = 0;
        return;
    }
    size_t from = r->n ? 0 : (size_t)__builtin_ctzll(m) / 8;
    if (r->n + k - from > DSM_DIFF_RUN_MAX) {
        put_run(out, c, r->first, r->n, r->masks, r->full);
        r->n = 0;
        from = (size_t)__builtin_ctzll(m) / 8;
    }
    if (!r->n) {
        r->first = w + from;
        r->full = 1;
    }
    if (k == 8 && !from) {
        memcpy(r->masks + r->n, &m, 8);
        r->n += 8;
        r->full &= m == ~0ULL;
        return;
    }
    for (size_t i = from; i < k; i++) {
        uint8_t b = (uint8_t)(m >> 8 * i);
        r->masks[r->n++] = b;
        r->full &= b == 0xff;
    }
}

/* The masks of words [w, w + k) (k <= 8), computed a word at a time. */
static uint64_t words_mask(const unsigned char *c, const unsigned char *t, size_t k)
{
    uint64_t m = 0;
    for (size_t i = 0; i < k; i++)
        m |= (uint64_t)nonzero_bytes(load64(c + 8 * i) ^ load64(t + 8 * i)) << 8 * i;
    return m;
}

static uint64_t block_word(const unsigned char *c, const unsigned char *t)
{
    return words_mask(c, t, 8);
}

/* The masks of the 8 words (64 bytes) at c against t, by vector compares. */
__attribute__((target("avx2"))) static inline uint64_t block_avx2(const unsigned char *c, const unsigned char *t)
{
    __m256i lo = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)c),
                                   _mm256_loadu_si256((const __m256i *)(const void *)t));
    __m256i hi = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(c + 32)),
                                   _mm256_loadu_si256((const __m256i *)(const void *)(t + 32)));
    return ~((uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32 | (uint32_t)_mm256_movemask_epi8(lo));
}

__attribute__((target("avx512f,avx512bw"))) static inline uint64_t block_avx512(const unsigned char *c,
                                                                               const unsigned char *t)
{
    return _mm512_cmpneq_epi8_mask(_mm512_loadu_si512(c), _mm512_loadu_si512(t));
}

/* The encoder, with block() giving the masks of 8 words at a time; the
 * words past the last whole block of 8 go a word at a time. */
static inline __attribute__((always_inline)) size_t
encode_blocks(uint64_t (*block)(const unsigned char *, const unsigned char *), const unsigned char *c,
              const unsigned char *t, size_t size, struct dsm_buf *out)
{
    struct run r;
    size_t before = out->n, words = size / 8, w = 0;
    r.n = 0;
    for (; w + 8 <= words; w += 8) {
        uint64_t m = block(c + 8 * w, t + 8 * w);
        if (m || r.n)
            add_words(&r, c, w, m, 8, out);
    }
    if (w < words)
        add_words(&r, c, w, words_mask(c + 8 * w, t + 8 * w, words - w), words - w, out);
    if (r.n)
        put_run(out, c, r.first, r.n, r.masks, r.full);
    return out->n - before;
}

static size_t encode_word(const void *cur, const void *twin, size_t size, struct dsm_buf *out)
{
    return encode_blocks(block_word, cur, twin, size, out);
}

__attribute__((target("avx2"))) static size_t encode_avx2(const void *cur, const void *twin, size_t size,
                                                           struct dsm_buf *out)
{
    return encode_blocks(block_avx2, cur, twin, size, out);
}

__attribute__((target("avx512f,avx512bw"))) static size_t encode_avx512(const void *cur, const void *twin,
                                                                        size_t size, struct dsm_buf *out)
{
    return encode_blocks(block_avx512, cur, twin, size, out);
}

static size_t (*const encoders[])(const void *, const void *, size_t, struct dsm_buf *) = {
    [DSM_DIFF_WORDS] = encode_word,
    [DSM_DIFF_AVX2] = encode_avx2,
    [DSM_DIFF_AVX512] = encode_avx512,
};

static bool cpu_has(enum dsm_diff_isa isa)
{
    switch (isa) {
    case DSM_DIFF_WORDS:
        return true;
    case DSM_DIFF_AVX2:
        return __builtin_cpu_supports("avx2");
    case DSM_DIFF_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    }
    return false;
}

/* The way in use: the widest the CPU has, chosen at the first call (every
 * thread chooses the same); -1 before. */
static int isa = -1;

bool dsm_diff_use(enum dsm_diff_isa to)
{
    if (!cpu_has(to))
        return false;
    __atomic_store_n(&isa, (int)to, __ATOMIC_RELAXED);
    return true;
}

static enum dsm_diff_isa isa_now(void)
{
    int i = __atomic_load_n(&isa, __ATOMIC_RELAXED);
    if (i < 0) {
        if (!dsm_diff_use(DSM_DIFF_AVX512) && !dsm_diff_use(DSM_DIFF_AVX2))
            dsm_diff_use(DSM_DIFF_WORDS);
        i = __atomic_load_n(&isa, __ATOMIC_RELAXED);
    }
    return (enum dsm_diff_isa)i;
}

size_t dsm_diff_encode(const void *cur, const void *twin, size_t size, struct dsm_buf *out)
{
    return encoders[isa_now()](cur, twin, size, out);
}

/* Stores the changed bytes of 8 words at a time (one masked store each)
 * where the CPU has AVX-512, the last fewer than 8 too (a masked load,
 * which reads no byte its mask leaves out, past the run's end neither):
 * a run that does not end on a multiple of 8 words, most of them where a
 * histogram's tails leave words unchanged (NAS IS), took its last words
 * byte by byte.  Returns n, and adds the bytes it stored to *written. */
__attribute__((target("avx512f,avx512bw,popcnt"))) static size_t apply_avx512(unsigned char *w,
                                                                              const unsigned char *v,
                                                                              const unsigned char *masks,
                                                                              size_t n, long *written)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t m = load64(masks + i);
        _mm512_mask_storeu_epi8(w + 8 * i, m, _mm512_loadu_si512(v + 8 * i));
        *written += __builtin_popcountll(m);
    }
    if (i < n) {
        uint64_t m = 0;
        memcpy(&m, masks + i, n - i);
        _mm512_mask_storeu_epi8(w + 8 * i, m, _mm512_maskz_loadu_epi8(m, v + 8 * i));
        *written += __builtin_popcountll(m);
    }
    return n;
}

/* Blends the changed bytes of 4 words at a time into the page (where no
 * thread of this process writes it meanwhile) with AVX2: each word's mask
 * byte is spread over its 8 bytes, and the page's 32 bytes are loaded,
 * blended and stored back.  Returns how many of the n words it did. */
__attribute__((target("avx2,popcnt"))) static size_t blend_avx2(unsigned char *w, const unsigned char *v,
                                                                const unsigned char *masks, size_t n,
                                                                long *written)
{
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2,
                                            2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bits = _mm256_set1_epi64x((long long)0x8040201008040201ULL);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t m;
        memcpy(&m, masks + i, 4);
        __m256i sel = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32((int)m), spread), bits);
        __m256i *at = (__m256i *)(void *)(w + 8 * i);
        __m256i now = _mm256_loadu_si256(at), in = _mm256_loadu_si256((const __m256i *)(const void *)(v + 8 * i));
        _mm256_storeu_si256(at, _mm256_blendv_epi8(now, in, _mm256_cmpeq_epi8(sel, bits)));
        *written += __builtin_popcount(m);
    }
    return i;
}

static size_t apply_blocks(unsigned char *w, const unsigned char *v, const unsigned char *masks, size_t n,
                           bool writable, long *written)
{
    enum dsm_diff_isa way = isa_now();
    if (way == DSM_DIFF_AVX512)
        return apply_avx512(w, v, masks, n, written);
    if (way == DSM_DIFF_AVX2 && !writable)
        return blend_avx2(w, v, masks, n, written);
    return 0;
}

long dsm_diff_apply(void *dst, size_t size, const void *diff, size_t len, bool writable)
{
    const unsigned char *d = diff;
    unsigned char *page = dst;
    size_t words = size / 8, pos = 0;
    long written = 0;
    while (pos < len) {
        uint32_t hdr[2];
        if (len - pos < sizeof hdr)
            return -1;
        memcpy(hdr, d + pos, sizeof hdr);
        pos += sizeof hdr;
        size_t first = hdr[0], n = hdr[1] & ~DSM_DIFF_FULL;
        int full = (hdr[1] & DSM_DIFF_FULL) != 0;
        size_t body = (full ? 0 : n) + 8 * n;
        if (n == 0 || n > DSM_DIFF_RUN_MAX || first > words || n > words - first || body > len - pos)
            return -1;
        const unsigned char *masks = d + pos, *data = d + pos + (full ? 0 : n);
        if (full) {
            memcpy(page + 8 * first, data, 8 * n);
            written += (long)(8 * n);
        } else {
            size_t i = apply_blocks(page + 8 * first, data, masks, n, writable, &written);
            for (; i < n; i++) {
                unsigned char *w = page + 8 * (first + i);
                const unsigned char *v = data + 8 * i;
                if (writable) {
                    store_selected(w, v, masks[i]);
                } else {
                    uint64_t m = byte_mask(masks[i]);
                    memcpy(w, &(uint64_t){ (load64(w) & ~m) | (load64(v) & m) }, 8);
                }
                written += nibble_bits[masks[i] & 15] + nibble_bits[masks[i] >> 4];
            }
        }
        pos += body;
    }
    return written;
}
