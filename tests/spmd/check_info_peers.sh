#!/bin/sh
# gshmem-info --peers in a job: every PE's line names how it reaches every
# peer: mapped on one node, tcp when GSHMEM_DISABLE_P2P unmaps them or
# GSHMEM_TEST_SIM_NODES puts them on another (simulated) node.  The
# heap's place (host memory, which GPU) is checked by its own word: HEAP.
# usage: check_info_peers.sh GSHMRUN GSHMEM_INFO [HEAP]  (HEAP: host or GPU)
set -eu
run=$1 info=$2 heap=${3:-host}
where=$([ "$heap" = GPU ] && echo "on GPU" || echo "in host memory")
full=$(timeout 60 "$run" -n 3 "$info" --peers)
place=$(printf '%s\n' "$full" | grep -c "(heap $where")
[ "$place" = 3 ] || { echo "FAIL: $place of 3 PEs say their heap is $heap"; exit 1; }
out=$(printf '%s\n' "$full" | sed 's/ (heap [^)]*)//')
want="pe 0: 0:self 1:mapped 2:mapped
pe 1: 0:mapped 1:self 2:mapped
pe 2: 0:mapped 1:mapped 2:self"
[ "$out" = "$want" ] || { printf 'FAIL mapped: got\n%s\n' "$out"; exit 1; }
out=$(GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORT=tcp timeout 60 "$run" -n 3 "$info" --peers |
      sed 's/ (heap [^)]*)//')
want="pe 0: 0:self 1:tcp 2:tcp
pe 1: 0:tcp 1:self 2:tcp
pe 2: 0:tcp 1:tcp 2:self"
[ "$out" = "$want" ] || { printf 'FAIL tcp: got\n%s\n' "$out"; exit 1; }
# Two simulated nodes of 2 and 1 PEs: mapped within a node, tcp across.
out=$(GSHMEM_TEST_SIM_NODES=2 GSHMEM_TRANSPORT=tcp timeout 60 "$run" -n 3 "$info" --peers |
      sed 's/ (heap [^)]*)//')
want="pe 0: 0:self 1:mapped 2:tcp
pe 1: 0:mapped 1:self 2:tcp
pe 2: 0:tcp 1:tcp 2:self"
[ "$out" = "$want" ] || { printf 'FAIL simulated nodes: got\n%s\n' "$out"; exit 1; }
echo "gshmem-info --peers ($heap heap): mapped, tcp and simulated-node lines as expected"
