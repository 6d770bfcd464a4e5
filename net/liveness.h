/*
 * liveness.h: ring heartbeats between the nodes over the transport (prefix
 * net_liveness_).
 */
#ifndef NET_LIVENESS_H
#define NET_LIVENESS_H

/* Registers the heartbeat message and, with two nodes or more and a
 * timeout of more than 0 seconds (OMPDSM_NODE_TIMEOUT, which the caller
 * parsed), starts the thread that sends and checks heartbeats.  Before
 * net_start(); the clock starts now. */
void net_liveness_register(int node, int nodes, double timeout);

/* No heartbeat is sent or expected any more (the job is ending: a
 * heartbeat sent to a node that has closed its endpoints would fail); the
 * thread has ended when it returns. */
void net_liveness_stop(void);

#endif
