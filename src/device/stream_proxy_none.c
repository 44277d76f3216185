/* A build without CUDA: the stream-ordered forms never reach these (they
 * need the heap in GPU memory), which say so by failing. */
#include "device/stream_proxy.h"

int gshmemi_launch_proxy_put(void *s, void *d, const void *r, size_t n, int pe)
{ (void)s; (void)d; (void)r; (void)n; (void)pe; return -1; }
int gshmemi_launch_proxy_get(void *s, void *d, const void *r, size_t n, int pe)
{ (void)s; (void)d; (void)r; (void)n; (void)pe; return -1; }
int gshmemi_launch_proxy_signal(void *s, uint64_t *g, uint64_t v, int op, int pe)
{ (void)s; (void)g; (void)v; (void)op; (void)pe; return -1; }
int gshmemi_launch_proxy_put_signal(void *s, void *d, const void *r, size_t n, uint64_t *g,
                                    uint64_t v, int op, int pe)
{ (void)s; (void)d; (void)r; (void)n; (void)g; (void)v; (void)op; (void)pe; return -1; }
int gshmemi_launch_p(void *s, void *d, uint64_t b, int size, int pe)
{ (void)s; (void)d; (void)b; (void)size; (void)pe; return -1; }
int gshmemi_launch_proxy_quiet(void *s) { (void)s; return -1; }
int gshmemi_launch_proxy_barrier(void *s) { (void)s; return -1; }
