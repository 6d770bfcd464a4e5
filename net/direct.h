/*
 * direct.h: reading the exposed memory of another node of this host
 * without UCX (direct.c), part of the transport layer.
 *
 * UCX 1.13 has no one-sided get of registered memory on its shared-memory
 * transports: it emulates one with active messages, so the target's
 * progress thread must wake, copy and reply (about 25 us when it slept,
 * for a copy that takes under 1 us).  A region backed by a file, as the
 * coherence layer's memfd segments are, can instead be mapped read-only by
 * the other nodes of its host, and their gets become copies by the reader.
 */
#ifndef NET_DIRECT_H
#define NET_DIRECT_H

#include <stddef.h>
#include <stdint.h>

/* What a node publishes of a file-backed region, for its peers to find it. */
struct direct_id {
    int32_t pid, fd;            /* fd -1: not file-backed */
    uint64_t dev, ino;
};

/* This node's description of fd (-1: none). */
struct direct_id direct_describe(int fd);

/* Maps a peer's region read-only through /proc/PID/fd, if it is the file
 * the peer described and of at least len bytes; NULL if it cannot (not
 * file-backed, another host or PID namespace, no ptrace read access). */
const void *direct_map(const struct direct_id *id, size_t len);

void direct_unmap(const void *view, size_t len);

#endif
