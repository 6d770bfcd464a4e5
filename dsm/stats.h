/*
 * stats.h: this node's DSM counters.
 *
 * Counters are relaxed atomics: they are bumped from application threads and
 * from the progress thread, and read only for reports.
 */
#ifndef DSM_STATS_H
#define DSM_STATS_H

#include <stdatomic.h>
#include <stdint.h>

struct dsm_stats {
    _Atomic uint64_t read_faults, write_faults;
    _Atomic uint64_t pages_fetched, pages_served;
    _Atomic uint64_t diffs_sent, diff_bytes_sent, diff_bytes_applied;
    _Atomic uint64_t barriers, locks;
    _Atomic uint64_t barrier_wait_ns, lock_wait_ns;
    _Atomic uint64_t migrations, pages_migrated_in, pages_migrated_out, migrate_ns;
    _Atomic uint64_t flushes, flush_ns, notices_sent, notices_applied;
};

extern struct dsm_stats dsm_stats;

#define STAT_ADD(field, v) atomic_fetch_add_explicit(&dsm_stats.field, (v), memory_order_relaxed)

/* Prints the table of every node's counters (collective: node 0 prints). */
void dsm_stats_report(void);
/* Further reports upper layers print on node 0 after the table, in the
 * order they were added (at most 4). */
void dsm_stats_on_report(void (*fn)(void));

#endif
