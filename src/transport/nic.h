/* Which RDMA device a PE uses: GSHMEM_HCA_LIST when set, else the one
 * closest to the PE's GPU on the PCI tree (then on its NUMA node), else the
 * first.  Works on device names and sysfs only, so it is tested without
 * RDMA hardware (tests/unit/test_nic.c builds a fake sysfs). */
#ifndef GSHMEMI_TRANSPORT_NIC_H
#define GSHMEMI_TRANSPORT_NIC_H

#include <stddef.h>

/* Whether name (port 1, the only one ibrc opens) passes the list: comma
 * separated entries "name" or "name:port", a name matching as a prefix; a
 * list starting with '^' names the devices to leave out instead.  An empty
 * list passes everything.  *port_out gets the entry's port (1 if none). */
int gshmemi_nic_listed(const char *list, const char *name, int *port_out);

/* The index in names[0..n) of the device to use for the GPU at PCI bus id
 * gpu_bus (NULL or "": no GPU), among those the list passes; -1 if none
 * passes.  sysfs is the root of the sysfs tree ("/sys").  why gets a short
 * reason for the log. */
int gshmemi_nic_pick(const char *sysfs, const char *const *names, int n, const char *list,
                     const char *gpu_bus, int *port_out, char *why, size_t why_len);

#endif
