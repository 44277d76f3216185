/* RDMA device choice on a fake sysfs: the device under the GPU's PCIe
 * switch wins over one under the same root but another switch, which wins
 * over one on another root; NUMA node breaks ties where PCI cannot tell;
 * GSHMEM_HCA_LIST (names, prefixes, ports, ^ exclusions) overrides. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"
#include "transport/nic.h"

static char root[256];

static void mkdirs(const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *s = path + strlen(root) + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(path, 0755);
            *s = '/';
        }
    mkdir(path, 0755);
}

static void link_to(const char *target_rel, const char *link_rel)
{
    char target[PATH_MAX], lnk[PATH_MAX];
    snprintf(target, sizeof(target), "%s/%s", root, target_rel);
    snprintf(lnk, sizeof(lnk), "%s/%s", root, link_rel);
    EXPECT(symlink(target, lnk) == 0, "symlink %s", lnk);
}

static void write_node(const char *rel, int node)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s/numa_node", root, rel);
    FILE *f = fopen(path, "w");
    fprintf(f, "%d\n", node);
    fclose(f);
}

static int pick(const char *const *names, int n, const char *list, const char *gpu, int *port)
{
    char why[256];
    return gshmemi_nic_pick(root, names, n, list, gpu, port, why, sizeof(why));
}

int main(void)
{
    snprintf(root, sizeof(root), "/tmp/gshmem-test-nic-%d", (int)getpid());
    mkdir(root, 0755);
    /* root 00: switch A holds the GPU (03) and mlx5_1 (04); switch B holds
     * mlx5_0 (06).  Root 80 holds mlx5_2 (NUMA node 0, the GPU's), root 40
     * mlx5_3 (node 1).  rxe0 has no PCI device. */
    const char *gpu_dev = "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0";
    const char *nic1 = "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0";
    const char *nic0 = "devices/pci0000:00/0000:00:02.0/0000:05:00.0/0000:06:00.0";
    const char *nic2 = "devices/pci0000:80/0000:80:01.0/0000:81:00.0";
    const char *nic3 = "devices/pci0000:40/0000:40:01.0/0000:41:00.0";
    mkdirs(gpu_dev);
    mkdirs(nic1);
    mkdirs(nic0);
    mkdirs(nic2);
    mkdirs(nic3);
    mkdirs("bus/pci/devices");
    mkdirs("class/infiniband/mlx5_0");
    mkdirs("class/infiniband/mlx5_1");
    mkdirs("class/infiniband/mlx5_2");
    mkdirs("class/infiniband/mlx5_3");
    mkdirs("class/infiniband/rxe0");
    link_to(gpu_dev, "bus/pci/devices/0000:03:00.0");
    link_to(nic0, "class/infiniband/mlx5_0/device");
    link_to(nic1, "class/infiniband/mlx5_1/device");
    link_to(nic2, "class/infiniband/mlx5_2/device");
    link_to(nic3, "class/infiniband/mlx5_3/device");
    write_node(gpu_dev, 0);
    write_node(nic0, 0);
    write_node(nic1, 0);
    write_node(nic2, 0);
    write_node(nic3, 1);

    const char *all[] = {"mlx5_0", "mlx5_1", "mlx5_2", "rxe0"};
    int port = 0;
    EXPECT(pick(all, 4, "", "0000:03:00.0", &port) == 1, "the device under the GPU's switch");
    EXPECT(port == 1, "port %d", port);
    const char *two[] = {"mlx5_2", "mlx5_0"};
    EXPECT(pick(two, 2, "", "0000:03:00.0", &port) == 1, "same PCI root before another root");
    const char *far[] = {"mlx5_3", "mlx5_2"};
    EXPECT(pick(far, 2, "", "0000:03:00.0", &port) == 1, "NUMA node when PCI cannot tell");
    const char *none[] = {"rxe0", "mlx5_3"};
    EXPECT(pick(none, 2, "", "0000:03:00.0", &port) == 0, "nothing near: the first");
    EXPECT(pick(all, 4, "", NULL, &port) == 0, "no GPU: the first");
    EXPECT(pick(all, 4, "", "0000:99:00.0", &port) == 0, "unknown GPU: the first");
    EXPECT(pick(all, 4, "mlx5_2:2", "0000:03:00.0", &port) == 2 && port == 2, "listed with port");
    EXPECT(pick(all, 4, "rxe", "0000:03:00.0", &port) == 3, "listed by prefix");
    EXPECT(pick(all, 4, "^mlx5_1", "0000:03:00.0", &port) == 0, "exclusion: next closest");
    EXPECT(pick(all, 4, "^mlx5", "0000:03:00.0", &port) == 3, "exclusion by prefix");
    EXPECT(pick(all, 4, "mlx4", "0000:03:00.0", &port) == -1, "nothing listed");
    EXPECT(pick(all, 4, "mlx5_2,mlx5_1", "0000:03:00.0", &port) == 1, "closest of the listed");

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    EXPECT(system(cmd) == 0, "clean up");
    TEST_DONE();
}
