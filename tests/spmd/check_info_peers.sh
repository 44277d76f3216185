#!/bin/sh
# gshmem-info --peers in a job: every PE's line names how it reaches every
# peer: mapped on one node, tcp when GSHMEM_DISABLE_P2P unmaps them.
# usage: check_info_peers.sh GSHMRUN GSHMEM_INFO
set -eu
run=$1 info=$2
out=$(timeout 60 "$run" -n 3 "$info" --peers)
want="pe 0 (heap in host memory): 0:self 1:mapped 2:mapped
pe 1 (heap in host memory): 0:mapped 1:self 2:mapped
pe 2 (heap in host memory): 0:mapped 1:mapped 2:self"
[ "$out" = "$want" ] || { printf 'FAIL mapped: got\n%s\n' "$out"; exit 1; }
out=$(GSHMEM_DISABLE_P2P=1 GSHMEM_TRANSPORT=tcp timeout 60 "$run" -n 3 "$info" --peers)
want="pe 0 (heap in host memory): 0:self 1:tcp 2:tcp
pe 1 (heap in host memory): 0:tcp 1:self 2:tcp
pe 2 (heap in host memory): 0:tcp 1:tcp 2:self"
[ "$out" = "$want" ] || { printf 'FAIL tcp: got\n%s\n' "$out"; exit 1; }
echo "gshmem-info --peers: mapped and tcp lines as expected"
