/* fd exchange between node-local PEs: abstract-namespace Unix sockets named
 * from the job id and secret (nothing left in the file system), accepting
 * only peers of our uid (SO_PEERCRED) that present the secret.  The names
 * live in the machine's network namespace, which simulated nodes
 * (GSHMEM_TEST_SIM_NODES) share: that is harmless, as a name is per PE and
 * each node exchanges only among its own PEs. */
#ifndef GSHMEMI_HEAP_FDX_H
#define GSHMEMI_HEAP_FDX_H

#include <stddef.h>
#include <stdint.h>

#define GSHMEMI_FDX_MAGIC 0x786466686d687367ull

/* The message that comes with each fd (SCM_RIGHTS). */
struct gshmemi_fdx_msg {
    uint64_t magic;
    unsigned char secret[16];
    int32_t from_pe;
    int32_t pad;
    uint64_t tag;
};

struct gshmemi_fdx {
    int listen_fd;
    int my_pe;
    uint64_t name_key;
    unsigned char secret[16];
};

int gshmemi_fdx_open(struct gshmemi_fdx *x, const unsigned char secret[16], uint64_t job_id,
                     int my_pe);
/* Sends my_fd to every PE in peers and receives one fd from each, tagged
 * with tag; fds_out[i] is peers[i]'s.  Fails with a message naming the PE
 * that did not deliver before the deadline. */
int gshmemi_fdx_exchange(struct gshmemi_fdx *x, int my_fd, uint64_t tag, const int *peers,
                         int npeers, int *fds_out, double timeout);
void gshmemi_fdx_close(struct gshmemi_fdx *x);
/* Whether the n bytes received are a message of this job's (magic,
 * secret, a PE number that is not negative): 0 and *msg, else -1.  The
 * caller checks that the PE and the tag are those it waits for. */
int gshmemi_fdx_msg_check(const void *buf, size_t n, const unsigned char secret[16],
                          struct gshmemi_fdx_msg *msg);
/* The socket name of a PE (for tests that try to intrude). */
int gshmemi_fdx_sockaddr(uint64_t name_key, int pe, void *sun /* struct sockaddr_un */,
                         unsigned *len);

#endif
