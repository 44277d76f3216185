/* Who the PEs are and where they run: after the bootstrap is up, every PE
 * gathers each PE's process id, host and node identity into gshmemi_rt
 * (peers, nodes, local PEs and local rank). */
#ifndef GSHMEMI_BOOTSTRAP_PEERS_H
#define GSHMEMI_BOOTSTRAP_PEERS_H

/* Collective over gshmemi_rt.bs; fills gshmemi_rt's peer fields. */
int gshmemi_peers_init(void);
void gshmemi_peers_fini(void);

/* GSHMEM_TEST_SIM_NODES's split: the simulated node, 0..k-1, of the i-th of
 * a machine's n PEs split into k (1 <= k <= n) blocks of consecutive PEs,
 * the first n % k of them one PE larger. */
int gshmemi_sim_node_of(int i, int n, int k);

#endif
