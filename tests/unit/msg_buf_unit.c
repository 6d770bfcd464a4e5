/*
 * The kept buffers of large messages (net/msg_buf.c): a large buffer given
 * back is handed out again, to the request it fits most closely; one too
 * small for a request grows (and is then kept at its new size); small
 * buffers are not kept; no more than the pool's places are kept, the
 * largest staying; every buffer handed out is writable over its length.
 */
#include "unit.h"
#include "../../net/msg_buf.h"

#include <string.h>

enum { BIG = 4 << 20 };

static void large_buffers_come_back(void)
{
    char *a = msg_buf_get(BIG);
    memset(a, 1, BIG);
    msg_buf_put(a);
    char *b = msg_buf_get(BIG - 4096);
    EXPECT(b == a, "a kept buffer is handed out again for a smaller message (%p, %p)", (void *)a, (void *)b);
    msg_buf_put(b);
    msg_buf_release_all();
}

static void the_closest_fit_is_taken(void)
{
    char *small = msg_buf_get(1 << 20), *large = msg_buf_get(BIG);
    msg_buf_put(large);
    msg_buf_put(small);
    char *got = msg_buf_get(512 << 10);
    EXPECT(got == small, "a 512 KiB message takes the 1 MiB buffer, not the 4 MiB one");
    char *other = msg_buf_get(2 << 20);
    EXPECT(other == large, "a 2 MiB message takes the 4 MiB buffer");
    msg_buf_put(got);
    msg_buf_put(other);
    msg_buf_release_all();
}

static void a_buffer_too_small_grows(void)
{
    char *a = msg_buf_get(1 << 20);
    msg_buf_put(a);
    char *b = msg_buf_get(BIG);
    memset(b, 2, BIG);
    EXPECT(b[BIG - 1] == 2, "the grown buffer holds the whole message");
    msg_buf_put(b);
    char *c = msg_buf_get(BIG);
    EXPECT(c == b, "the grown buffer is kept at its new size");
    /* Room for a slightly larger message of the same pages. */
    msg_buf_put(c);
    char *d = msg_buf_get(BIG + 4096);
    EXPECT(d == b, "a message a little larger fits the kept buffer");
    msg_buf_put(d);
    msg_buf_release_all();
}

static void the_largest_stay(void)
{
    enum { N = MSG_BUF_KEPT + 4 };
    char *v[N];
    for (int i = 0; i < N; i++)
        v[i] = msg_buf_get((size_t)(i + 1) << 20);
    for (int i = 0; i < N; i++)
        msg_buf_put(v[i]);
    /* The largest came back last and must be kept: asking for its whole
     * capacity (an eighth more than asked, for the next message) returns it. */
    char *got = msg_buf_get(((size_t)N << 20) * 9 / 8);
    EXPECT(got == v[N - 1], "the largest buffer is kept when the pool is full");
    msg_buf_put(got);
    /* The smallest was dropped: a 1 MiB request takes a larger one. */
    got = msg_buf_get(1 << 20);
    EXPECT(got != v[0], "the smallest buffer made way when the pool was full");
    msg_buf_put(got);
    msg_buf_release_all();
}

int main(void)
{
    large_buffers_come_back();
    the_closest_fit_is_taken();
    a_buffer_too_small_grows();
    the_largest_stay();
    msg_buf_put(NULL);
    return unit_status();
}
