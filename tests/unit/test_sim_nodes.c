/* GSHMEM_TEST_SIM_NODES's split arithmetic: the simulated node of each of a
 * machine's PEs, from a table of known splits and, for every n up to 64 and
 * k up to n, its properties (consecutive blocks, every node used, sizes
 * differing by at most one, the larger first). */
#include "bootstrap/peers.h"
#include "test_util.h"

static const struct {
    int n, k;
    int nodes[8];
} known[] = {
    {1, 1, {0}},
    {3, 1, {0, 0, 0}},
    {4, 2, {0, 0, 1, 1}},
    {5, 2, {0, 0, 0, 1, 1}},
    {6, 3, {0, 0, 1, 1, 2, 2}},
    {7, 3, {0, 0, 0, 1, 1, 2, 2}},
    {8, 3, {0, 0, 0, 1, 1, 1, 2, 2}},
    {5, 5, {0, 1, 2, 3, 4}},
    {8, 5, {0, 0, 1, 1, 2, 2, 3, 4}},
};

int main(void)
{
    for (size_t t = 0; t < sizeof(known) / sizeof(known[0]); t++)
        for (int i = 0; i < known[t].n; i++)
            EXPECT(gshmemi_sim_node_of(i, known[t].n, known[t].k) == known[t].nodes[i],
                   "%d PEs as %d nodes: PE %d on node %d, expected %d", known[t].n, known[t].k, i,
                   gshmemi_sim_node_of(i, known[t].n, known[t].k), known[t].nodes[i]);
    for (int n = 1; n <= 64; n++)
        for (int k = 1; k <= n; k++) {
            int size[64] = {0}, prev = 0;
            for (int i = 0; i < n; i++) {
                int node = gshmemi_sim_node_of(i, n, k);
                EXPECT(node >= 0 && node < k, "n %d k %d: PE %d on node %d", n, k, i, node);
                EXPECT(node == prev || node == prev + 1, "n %d k %d: PE %d on node %d after %d",
                       n, k, i, node, prev);
                if (node >= 0 && node < k)
                    size[node]++;
                prev = node;
            }
            for (int j = 0; j < k; j++)
                EXPECT(size[j] == n / k + (j < n % k), "n %d k %d: node %d has %d PEs", n, k, j,
                       size[j]);
        }
    TEST_DONE();
}
