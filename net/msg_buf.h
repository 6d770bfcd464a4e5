/*
 * msg_buf.h: buffers for large messages, kept from one message to the next
 * (msg_buf.c), part of the transport layer.
 *
 * A release sends its homes tens of megabytes of diffs when a program
 * rewrites whole arrays (NAS FT's transposes: 37 MB per home), in messages
 * of up to 8 MB (dsm/diff_out.c), and receives as much.  The C library
 * maps a block that large afresh at each allocation and unmaps it at
 * free, so the kernel zeroed every page of every such buffer before the
 * message could be copied in: a page fault and a clear per 4 KB, on both
 * sides, at every release.  Buffers of at least MSG_BUF_KEEP_MIN bytes
 * are therefore kept (a few, the largest) and handed out again.  Smaller
 * ones come from the heap, which keeps its memory anyway.
 *
 * Thread-safe: a send's buffer is taken by the sending thread and given
 * back by whichever thread completes the send.
 */
#ifndef NET_MSG_BUF_H
#define NET_MSG_BUF_H

#include <stddef.h>

/* Buffers of at least MSG_BUF_KEEP_MIN bytes are kept, the MSG_BUF_KEPT
 * largest. */
enum { MSG_BUF_KEEP_MIN = 128 << 10, MSG_BUF_KEPT = 24 };

/* A buffer of at least len bytes, aligned as malloc's. */
void *msg_buf_get(size_t len);

/* How many bytes a buffer from msg_buf_get holds (at least the len asked). */
size_t msg_buf_cap(const void *buf);

/* Gives back a buffer from msg_buf_get (NULL: nothing). */
void msg_buf_put(void *buf);

/* Frees every kept buffer (at the transport's end). */
void msg_buf_release_all(void);

#endif
