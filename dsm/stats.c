/*
 * stats.c: the counters and the OMPDSM_STATS report.
 *
 * The report is collective: every node sends its counters through the
 * bootstrap channel and node 0 prints one table, so the lines of different
 * nodes cannot interleave.
 */
#include "stats.h"
#include "dsm.h"
#include "../net/boot.h"
#include "../util/log.h"

#include "ompdsm.h"

#include <stdio.h>
#include <stdlib.h>

struct dsm_stats dsm_stats;

void ompdsm_get_stats(ompdsm_stats_t *o)
{
    o->read_faults = dsm_stats.read_faults;
    o->write_faults = dsm_stats.write_faults;
    o->pages_fetched = dsm_stats.pages_fetched;
    o->pages_served = dsm_stats.pages_served;
    o->diffs_sent = dsm_stats.diffs_sent;
    o->diff_bytes_sent = dsm_stats.diff_bytes_sent;
    o->diff_bytes_applied = dsm_stats.diff_bytes_applied;
    o->barriers = dsm_stats.barriers;
    o->locks = dsm_stats.locks;
    o->barrier_wait_s = (double)dsm_stats.barrier_wait_ns * 1e-9;
    o->lock_wait_s = (double)dsm_stats.lock_wait_ns * 1e-9;
    o->migrations = dsm_stats.migrations;
    o->pages_migrated_in = dsm_stats.pages_migrated_in;
    o->pages_migrated_out = dsm_stats.pages_migrated_out;
    o->migrate_s = (double)dsm_stats.migrate_ns * 1e-9;
    o->flushes = dsm_stats.flushes;
    o->flush_s = (double)dsm_stats.flush_ns * 1e-9;
    o->notices_sent = dsm_stats.notices_sent;
    o->notices_applied = dsm_stats.notices_applied;
}

static void (*extra_report[4])(void);

void dsm_stats_on_report(void (*fn)(void))
{
    for (size_t i = 0; i < sizeof extra_report / sizeof *extra_report; i++) {
        if (!extra_report[i] || extra_report[i] == fn) {
            extra_report[i] = fn;
            return;
        }
    }
    dsm_fatal("internal: too many statistics reports");
}

void dsm_stats_report(void)
{
    ompdsm_stats_t mine;
    ompdsm_get_stats(&mine);
    ompdsm_stats_t *all = &mine;
    if (dsm.nodes > 1)
        all = boot_allgather(BOOT_TAG_STATS, &mine, sizeof mine, NULL);
    if (dsm.node == 0) {
        fprintf(stderr, "ompdsm statistics (%d nodes, page %zu bytes, OMPDSM_HOME=%s for globals)\n",
                dsm.nodes, dsm.page_size, dsm_home_policy_name(dsm_cfg.home));
        fprintf(stderr, "%5s %10s %10s %10s %10s %10s %12s %9s %9s %10s %10s %8s %8s %10s %9s %9s %9s\n", "node",
                "rd-faults", "wr-faults", "fetched", "served", "diffs", "diff-bytes", "barriers", "locks",
                "barrier-s", "lock-s", "mig-in", "mig-out", "migrate-s", "flushes", "flush-s", "notices");
        for (int i = 0; i < dsm.nodes; i++) {
            ompdsm_stats_t *s = &all[i];
            fprintf(stderr, "%5d %10lu %10lu %10lu %10lu %10lu %12lu %9lu %9lu %10.4f %10.4f %8lu %8lu %10.4f %9lu %9.4f %9lu\n",
                    i, (unsigned long)s->read_faults, (unsigned long)s->write_faults,
                    (unsigned long)s->pages_fetched, (unsigned long)s->pages_served,
                    (unsigned long)s->diffs_sent, (unsigned long)s->diff_bytes_sent,
                    (unsigned long)s->barriers, (unsigned long)s->locks, s->barrier_wait_s, s->lock_wait_s,
                    (unsigned long)s->pages_migrated_in, (unsigned long)s->pages_migrated_out, s->migrate_s,
                    (unsigned long)s->flushes, s->flush_s, (unsigned long)s->notices_applied);
        }
        for (size_t i = 0; i < sizeof extra_report / sizeof *extra_report && extra_report[i]; i++)
            extra_report[i]();
    }
    if (all != &mine)
        free(all);
}
