/*
 * boot.h: the bootstrap client (prefix boot_), a node's private channel to
 * the launcher (tools/ompdsm-run.c).
 *
 * The launcher gives every node the same argv and environment; the node learns
 * its number from OMPDSM_RANK/OMPDSM_SIZE and proves that it belongs to the
 * job by sending OMPDSM_JOB_TOKEN over a TCP connection to OMPDSM_BOOTSTRAP.
 * Over that connection the nodes then run a few all-gather collectives
 * (exchange of transport addresses, start/stop barriers) before the real
 * transport exists.
 *
 * Wire format (host byte order; all nodes run on one machine family):
 *   HELLO    node -> launcher  32-byte token, u32 rank, u32 size
 *            launcher -> node  one byte: 'A' accepted, 'R' refused
 *   REQUEST  node -> launcher  u32 tag, u64 len, len bytes
 *   REPLY    launcher -> node  u64 total, size x u64 lens, total bytes
 *                              (every node's data, in rank order)
 *   FINALIZE node -> launcher  u32 0xFFFFFFFF, u64 0
 *            launcher -> node  u64 0 (nothing else)
 *
 * The launcher closes the connection when the job is torn down, so a node
 * that reads EOF knows that another node died; it then exits at once.
 */
#ifndef DSM_BOOT_H
#define DSM_BOOT_H

#include <stddef.h>
#include <stdint.h>

#define BOOT_TAG_FINALIZE 0xFFFFFFFFu

/* Connects to the launcher.  Returns -1 if OMPDSM_BOOTSTRAP is unset (the
 * program runs as a single node: rank 0 of 1), 0 otherwise.  Bad variables,
 * a refused token or an unreachable launcher are fatal. */
int boot_init(int *rank, int *size);

/* Collective over all nodes: every node calls it with the same tag.  Returns
 * a malloc'd buffer with the data of every node concatenated in rank order
 * (the caller frees it); if lens is not NULL, lens[0..size) receives the
 * length of each node's part.  One collective at a time per process. */
void *boot_allgather(uint32_t tag, const void *data, size_t len, size_t *lens);

/* Tells the launcher that this node has finished with the bootstrap, waits
 * for its acknowledgement and closes the connection. */
void boot_finalize(void);

/* The connection to the launcher, -1 if none: a progress thread may poll it
 * to learn early that the job is being torn down (EOF). */
int boot_fd(void);

#endif
