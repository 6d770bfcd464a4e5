/*
 * net_policy.h: what UCX may use (net_policy.c), part of the transport layer.
 *
 * Before UCX starts, the nodes tell each other which host they run on and
 * which networks they are on; from that and from the user's own UCX_TLS and
 * UCX_NET_DEVICES, every node chooses the UCX transports and network
 * devices that keep the job's memory and traffic to the job:
 *   - never UCX's SysV shared-memory transport (UCX 1.13 creates its
 *     segments mode 0660: readable and writable by the owner's group);
 *   - on one host, shared memory only, and tcp (if the user asks for it) on
 *     the loopback interface only;
 *   - across hosts, tcp only on the interfaces that reach the other hosts.
 * The README's "Security" section says the same for users.
 */
#ifndef NET_NET_POLICY_H
#define NET_NET_POLICY_H

#include <stdbool.h>
#include <ucp/api/ucp.h>

/* Collective (it exchanges host descriptions through the bootstrap when size
 * > 1).  Sets UCX's TLS and NET_DEVICES in config, or stops the node with a
 * message when the user's UCX_TLS asks for what would expose the job. */
void net_policy_apply(ucp_config_t *config, int rank, int size);

/* Whether node runs on this host (same kernel, network and PID namespace)
 * and the chosen transports let the two share memory: then this node may
 * read the memory node exposes directly (net/direct.h).  False before
 * net_policy_apply. */
bool net_policy_shares_memory(int node);

#endif
