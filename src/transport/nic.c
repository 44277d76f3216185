/* RDMA device choice (see nic.h).  Closeness on the PCI tree: the number of
 * bridges between the GPU and the device, from the real paths of their
 * sysfs entries (devices under one PCIe switch share the longest prefix). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "transport/nic.h"

int gshmemi_nic_listed(const char *list, const char *name, int *port_out)
{
    int exclude = list[0] == '^';
    const char *p = list + exclude;

    *port_out = 1;
    if (*p == '\0')
        return 1;
    while (*p != '\0') {
        const char *end = strchr(p, ','), *colon;
        size_t len = end ? (size_t)(end - p) : strlen(p), name_len = len;
        int port = 1;
        if ((colon = memchr(p, ':', len)) != NULL) {
            name_len = (size_t)(colon - p);
            port = atoi(colon + 1);
        }
        if (name_len > 0 && strncmp(name, p, name_len) == 0) {
            *port_out = port > 0 ? port : 1;
            return !exclude;
        }
        p += len + (end != NULL);
    }
    return exclude;
}

/* The real path of a sysfs entry, or "" where there is none. */
static void real(const char *sysfs, const char *fmt, const char *arg, char out[PATH_MAX])
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), fmt, sysfs, arg);
    if (realpath(path, out) == NULL)
        out[0] = '\0';
}

/* Path components the two real paths do not share: the bridges between
 * the two devices.  INT_MAX if either is missing or they hang from
 * different PCI roots (the components "pci0000:00", ...). */
static int pci_distance(const char *a, const char *b)
{
    int shared_root = 0, left = 0;
    if (a[0] == '\0' || b[0] == '\0')
        return INT_MAX;
    while (*a && *b) {
        size_t la = strcspn(a + 1, "/") + 1, lb = strcspn(b + 1, "/") + 1;
        if (la != lb || strncmp(a, b, la) != 0)
            break;
        shared_root |= strncmp(a, "/pci", 4) == 0;
        a += la;
        b += lb;
    }
    if (!shared_root)
        return INT_MAX;
    for (; *a; a++)
        left += *a == '/';
    for (; *b; b++)
        left += *b == '/';
    return left;
}

static int numa_node(const char *real_path)
{
    char path[PATH_MAX + 16];
    if (real_path[0] == '\0')
        return -1;
    snprintf(path, sizeof(path), "%s/numa_node", real_path);
    return gshmemi_read_int_file(path);
}

int gshmemi_nic_pick(const char *sysfs, const char *const *names, int n, const char *list,
                     const char *gpu_bus, int *port_out, char *why, size_t why_len)
{
    char gpu[PATH_MAX], dev[PATH_MAX];
    int best = -1, best_dist = INT_MAX, best_same_node = 0, gpu_node, port;

    gpu[0] = '\0';
    if (gpu_bus != NULL && gpu_bus[0] != '\0')
        real(sysfs, "%s/bus/pci/devices/%s", gpu_bus, gpu);
    gpu_node = numa_node(gpu);
    *port_out = 1;
    for (int i = 0; i < n; i++) {
        if (!gshmemi_nic_listed(list, names[i], &port))
            continue;
        real(sysfs, "%s/class/infiniband/%s/device", names[i], dev);
        int dist = pci_distance(gpu, dev);
        int same_node = gpu_node >= 0 && numa_node(dev) == gpu_node;
        if (best < 0 || dist < best_dist || (dist == best_dist && same_node && !best_same_node)) {
            best = i;
            best_dist = dist;
            best_same_node = same_node;
            *port_out = port;
        }
    }
    if (best < 0)
        snprintf(why, why_len, "no RDMA device passes GSHMEM_HCA_LIST=%s", list);
    else if (list[0] != '\0' && list[0] != '^')
        snprintf(why, why_len, "named by GSHMEM_HCA_LIST");
    else if (best_dist != INT_MAX)
        snprintf(why, why_len, "closest to GPU %s on the PCI tree (%d hops)", gpu_bus, best_dist);
    else if (best_same_node)
        snprintf(why, why_len, "on GPU %s's NUMA node %d", gpu_bus, gpu_node);
    else
        snprintf(why, why_len, "the first one%s", gpu[0] ? " (none is near the GPU)" : "");
    return best;
}
