/* What a tcp frame that gshmemi_tcp_frame_check let through may touch,
 * worked out apart from the check (the unit test's random frames and the
 * fuzz harness): only bytes of the heap (heap bytes) or of the static data
 * (stat bytes from GSHMEMI_STATIC_OFF), or a word of the control segment;
 * and it must be well formed (aligned atomics and signals, whole elements,
 * no payload where none belongs). */
#ifndef GSHMEM_TESTS_TCP_FRAME_REACH_H
#define GSHMEM_TESTS_TCP_FRAME_REACH_H

#include <stdint.h>

#include "heap/ctrl.h"
#include "heap/static_data.h"
#include "transport/tcp_wire.h"

/* A strided frame's bytes, first element to last (at most max bytes of
 * whole elements at a pitch no smaller than one), or 0 where it is not
 * well formed. */
static inline unsigned __int128 tcp_strided_reach(const struct gshmemi_tcp_frame *f, uint64_t max)
{
    if (f->size == 0 || f->len % f->size != 0 || f->a < f->size || f->len == 0 || f->len > max)
        return 0;
    return (unsigned __int128)(f->len / f->size - 1) * f->a + f->size;
}

static inline int tcp_frame_inside(const struct gshmemi_tcp_frame *f, uint64_t heap, uint64_t stat)
{
    unsigned __int128 n;
    switch (f->type) {
    case GSHMEMI_TCP_PUT:
        n = f->len;
        if ((f->op & GSHMEMI_TCP_PUT_STRIDED) &&
            (n = tcp_strided_reach(f, GSHMEMI_TCP_STRIDED_MAX)) == 0)
            return 0;
        break;
    case GSHMEMI_TCP_GET: /* a strided one's reply packed */
        n = f->len;
        if ((f->op & ~GSHMEMI_TCP_GET_STRIDED) ||
            ((f->op & GSHMEMI_TCP_GET_STRIDED) &&
             (n = tcp_strided_reach(f, GSHMEMI_TCP_GET_CHUNK)) == 0))
            return 0;
        break;
    case GSHMEMI_TCP_AMO:
        if (f->off % f->size != 0 || f->len != 0)
            return 0;
        n = f->size;
        break;
    case GSHMEMI_TCP_SIGNAL:
        if (f->off % 8 != 0 || f->len != 0)
            return 0;
        n = 8;
        break;
    case GSHMEMI_TCP_CTRL: return f->off < GSHMEMI_CTRL_SIZE / 8 && f->len == 0;
    case GSHMEMI_TCP_REPLY: return f->len <= GSHMEMI_TCP_GET_CHUNK;
    case GSHMEMI_TCP_QUIET:
    case GSHMEMI_TCP_BYE:
    case GSHMEMI_TCP_HEARTBEAT: return f->len == 0;
    default: return 0;
    }
    if (f->type == GSHMEMI_TCP_GET && f->len > GSHMEMI_TCP_GET_CHUNK)
        return 0;
    if (f->off >= GSHMEMI_STATIC_OFF)
        return (unsigned __int128)(f->off - GSHMEMI_STATIC_OFF) + n <= stat;
    return (unsigned __int128)f->off + n <= heap;
}

#endif
