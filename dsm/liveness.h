/*
 * liveness.h: ring heartbeats between the nodes (prefix dsm_liveness_).
 */
#ifndef DSM_LIVENESS_H
#define DSM_LIVENESS_H

/* Registers the heartbeat message and, with two nodes or more and a
 * non-zero OMPDSM_NODE_TIMEOUT, the progress thread's timer that sends and
 * checks heartbeats.  Before net_start(); the clock starts now. */
void dsm_liveness_register(int node, int nodes);

/* No heartbeat is sent or expected any more (the job is ending: a
 * heartbeat sent to a node that has closed its endpoints would fail). */
void dsm_liveness_stop(void);

#endif
