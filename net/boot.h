/*
 * boot.h: the bootstrap client (prefix boot_), how a node joins its job and
 * exchanges a few messages before the real transport exists.
 *
 * Three cases, chosen by boot_init() from the environment:
 *   - OMPDSM_BOOTSTRAP is set: ompdsm-run started the node; a private TCP
 *     channel to it, described below (boot.c);
 *   - otherwise, PMIX_NAMESPACE or PMIX_RANK is set: a PMIx launcher (mpirun,
 *     srun --mpi=pmix) started it; rank, size and all-gathers through PMIx
 *     (boot_pmix.c);
 *   - neither: the node runs alone, rank 0 of 1.
 *
 * ompdsm-run gives every node the same argv and environment; the node learns
 * its number from OMPDSM_RANK/OMPDSM_SIZE and proves that it belongs to the
 * job by sending OMPDSM_JOB_TOKEN over a TCP connection to OMPDSM_BOOTSTRAP.
 * Over that connection the nodes then run a few all-gather collectives
 * (exchange of transport addresses, start/stop barriers) before the real
 * transport exists.
 *
 * The wire format and the tags of the collectives are in boot_wire.h.
 *
 * The launcher closes the connection when the job is torn down, so a node
 * that reads EOF knows that another node died; it then exits at once.
 */
#ifndef NET_BOOT_H
#define NET_BOOT_H

#include "boot_wire.h"

#include <stddef.h>
#include <stdint.h>

/* Joins the job: connects to the launcher or initialises PMIx.  Returns -1
 * if neither started the node (it runs as a single node: rank 0 of 1), 0
 * otherwise.  Bad variables, a refused token, an unreachable launcher or a
 * failing PMIx_Init are fatal. */
int boot_init(int *rank, int *size);

/* For a program whose global variables are shared between nodes (they must
 * sit at the same address on every node): call before boot_init.  ompdsm-run
 * starts its nodes with address-space randomisation off; a node started by
 * a PMIx launcher re-executes itself once with it off, and does not return
 * from here then.  Does nothing otherwise. */
void boot_fix_addresses(void);

/* Collective over all nodes: every node calls it with the same tag (enum
 * boot_tag).  Returns
 * a malloc'd buffer with the data of every node concatenated in rank order
 * (the caller frees it); if lens is not NULL, lens[0..size) receives the
 * length of each node's part.  One collective at a time per process. */
void *boot_allgather(uint32_t tag, const void *data, size_t len, size_t *lens);

/* Tells the launcher that this node has finished with the bootstrap, waits
 * for its acknowledgement and closes the connection (under PMIx:
 * PMIx_Finalize). */
void boot_finalize(void);

/* The program calls exit(status) where the nodes cannot finalize together
 * (inside a parallel region): tells the launcher that the job ends with
 * that status, so that nodes leaving now are no failure, and waits for its
 * acknowledgement.  Nothing under PMIx or alone. */
void boot_exit(int status);

/* The connection to the launcher, -1 if none (also under PMIx, whose
 * launcher itself ends the job when a node dies): a progress thread may
 * poll it to learn early that the job is being torn down (EOF). */
int boot_fd(void);

#endif
