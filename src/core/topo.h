/* What this machine offers: GPUs (through the CUDA runtime, linked
 * statically, so a machine without the driver simply has none). */
#ifndef GSHMEMI_CORE_TOPO_H
#define GSHMEMI_CORE_TOPO_H

#include <stddef.h>

/* Number of usable GPUs; 0 with a reason in why when there are none. */
int gshmemi_gpu_count(char *why, size_t len);
/* Name and PCI bus id of GPU dev, for gshmem-info. */
int gshmemi_gpu_describe(int dev, char *buf, size_t len);

#endif
