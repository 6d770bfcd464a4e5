/*
 * boot_pmix.h: the bootstrap through PMIx (boot_pmix.c), for nodes started
 * by a PMIx launcher such as Open MPI's mpirun or Slurm's srun --mpi=pmix.
 *
 * Only boot.c calls these: it chooses between the launcher client, PMIx and
 * a single node, and forwards the operations of boot.h (see there for what
 * they mean) to the one in use.
 */
#ifndef NET_BOOT_PMIX_H
#define NET_BOOT_PMIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True if the environment says that a PMIx launcher started this process
 * (PMIX_NAMESPACE or PMIX_RANK is set). */
bool boot_pmix_present(void);

/* Re-executes the process with address-space randomisation off, unless it
 * is off already (then it returns).  PMIx launchers leave it on, and a
 * program whose globals are shared needs the same addresses on every node. */
void boot_pmix_fix_addresses(void);

/* PMIx_Init; rank and size of this process in its namespace.  Any failure
 * is fatal: the environment promised a PMIx server. */
void boot_pmix_init(int *rank, int *size);

void *boot_pmix_allgather(uint32_t tag, const void *data, size_t len, size_t *lens);

void boot_pmix_finalize(void);

#endif
