/*
 * boot_wire.h: what the bootstrap client (boot.c, boot_pmix.c) and the
 * launcher (tools/ompdsm-run.c, which does not link the library) must agree
 * on: the wire format of the bootstrap connection and the tag of every
 * collective.  Both include this header, so neither keeps a copy.
 *
 * Wire format (host byte order; all nodes run on one machine family):
 *   HELLO    node -> launcher  BOOT_TOKEN_LEN-byte token, u32 rank, u32 size
 *            launcher -> node  one byte: BOOT_ACCEPTED or BOOT_REFUSED
 *   REQUEST  node -> launcher  u32 tag, u64 len, len bytes
 *   REPLY    launcher -> node  u64 total, size x u64 lens, total bytes
 *                              (every node's data, in rank order)
 *   FINALIZE node -> launcher  u32 BOOT_TAG_FINALIZE, u64 0
 *            launcher -> node  u64 0 (nothing else)
 *   EXIT     node -> launcher  u32 BOOT_TAG_EXIT, u64 4, i32 status
 *            launcher -> node  u64 0: the job ends with this status (the
 *                              program called exit() in a parallel region);
 *                              every node leaves without finalizing
 */
#ifndef NET_BOOT_WIRE_H
#define NET_BOOT_WIRE_H

#define BOOT_MAX_NODES 4096
#define BOOT_TOKEN_LEN 32                       /* hexadecimal digits of OMPDSM_JOB_TOKEN */
#define BOOT_HELLO_LEN (BOOT_TOKEN_LEN + 8)     /* token, u32 rank, u32 size */
#define BOOT_REQ_HDR_LEN 12                     /* u32 tag, u64 len */
#define BOOT_ACCEPTED 'A'
#define BOOT_REFUSED 'R'

/* The two requests that are no collective (u32 values beyond an enum's int). */
#define BOOT_TAG_FINALIZE 0xFFFFFFFFu
#define BOOT_TAG_EXIT 0xFFFFFFFEu               /* i32 status: the program ends the job with exit() */

/* The collectives (boot_allgather), one tag each.  Every node runs the same
 * collectives in the same order; the tag names each one to the reader, and
 * under PMIx it is part of the key that carries the data. */
enum boot_tag {
    BOOT_TAG_NET_ADDRS = 1,     /* net.c: the nodes' UCX worker addresses */
    BOOT_TAG_STARTED = 2,       /* dsm/init.c: every node serves faults, the job may start */
    BOOT_TAG_STATS = 3,         /* dsm/stats.c: the nodes' statistics, for the table at exit */
    BOOT_TAG_STOPPING = 4,      /* dsm/init.c: every node has flushed, the transport may close */
    BOOT_TAG_RKEYS = 5,         /* net.c: a registered region's base and remote key */
    BOOT_TAG_GLOBALS = 6,       /* dsm/init.c: the hash of the globals, the same everywhere */
    BOOT_TAG_IMAGE = 7,         /* dsm/image.c: the build ids of the program and library */
    BOOT_TAG_HOSTS = 8,         /* net_policy.c: which nodes share a host */
    BOOT_TAG_HOST_SEG = 9,      /* host_seg.c: node 0's segment name */
    BOOT_TAG_TEST = 10,         /* 10..19: tests and benchmarks that use boot.h alone */
    BOOT_TAG_SAME_IMAGE = 20,   /* omp_rt/parallel.c: the same code and globals addresses */
    BOOT_TAG_PLACEMENT = 21,    /* omp_rt/placement.c: the nodes' machines and CPUs */
    BOOT_TAG_PROFILE = 22,      /* omp_rt/profiled.c: node 0's saved profile (OMPDSM_PROFILE) */
    BOOT_TAG_HOST_SEG_MAPPED = 23,  /* host_seg.c: which nodes mapped it */
};

#endif
