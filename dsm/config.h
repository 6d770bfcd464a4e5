/*
 * config.h: every OMPDSM_* environment variable, parsed in one place.
 *
 * dsm_config_load() reads the environment once at start-up; a bad value is a
 * fatal error naming the variable and the accepted forms.  The README's table
 * documents the same variables; keep the two in step.  The transport's
 * settings are parsed here too and handed down (net/ includes nothing of
 * dsm/): dsm_cfg.net to net_init(), node_timeout to net_liveness_register().
 */
#ifndef DSM_CONFIG_H
#define DSM_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "../net/net.h"

enum dsm_home_policy { DSM_HOME_CYCLIC, DSM_HOME_BLOCK, DSM_HOME_FIRST_TOUCH };

/* When the OpenMP layer's counted barriers (the ends of parallel regions and
 * worksharing loops) migrate homes: never, at the first one, or at every
 * migrate_every-th one. */
enum dsm_migrate_mode { DSM_MIGRATE_OFF, DSM_MIGRATE_FIRST, DSM_MIGRATE_EVERY, DSM_MIGRATE_AUTO };

struct dsm_config {
    uintptr_t region_base;      /* OMPDSM_REGION_BASE */
    size_t region_size;         /* OMPDSM_REGION_SIZE */
    size_t page_size;           /* OMPDSM_PAGE_SIZE */
    enum dsm_home_policy home;  /* OMPDSM_HOME */
    enum dsm_migrate_mode migrate;  /* OMPDSM_MIGRATE */
    unsigned migrate_every;     /* N of OMPDSM_MIGRATE=every:N (1 for every) */
    struct net_config net;      /* OMPDSM_SPIN_US, OMPDSM_PROGRESS_NICE: the transport's (net_init) */
    unsigned readahead;         /* OMPDSM_READAHEAD: pages fetched after a faulting one */
    bool stats;                 /* OMPDSM_STATS */
    bool host_segment;          /* OMPDSM_HOST_SEGMENT */
    size_t host_box;            /* OMPDSM_HOST_BOX: bytes of a barrier arrival box */
    const char *trace;          /* OMPDSM_TRACE: trace file, or NULL */
    double node_timeout;        /* OMPDSM_NODE_TIMEOUT seconds, 0: never (net_liveness_register) */
};

extern struct dsm_config dsm_cfg;

void dsm_config_load(void);
const char *dsm_home_policy_name(enum dsm_home_policy p);

#endif
