/* The tcp transport's checks of what arrives from the network (tcp_wire.h). */
#include <stdio.h>
#include <string.h>

#include <gshmem.h>

#include "core/amo.h"
#include "heap/ctrl.h"
#include "heap/static_data.h"
#include "transport/tcp_wire.h"

/* In the heap, or in the static data at GSHMEMI_STATIC_OFF and above. */
static int in_sym(uint64_t off, uint64_t len, uint64_t heap_size, uint64_t static_size)
{
    if (off < GSHMEMI_STATIC_OFF)
        return off <= heap_size && len <= heap_size - off;
    off -= GSHMEMI_STATIC_OFF;
    return off <= static_size && len <= static_size - off;
}

/* The bytes from the first of a strided frame's elements to the last
 * (UINT64_MAX where that overflows), or 0 where the frame's elements are
 * not whole or its pitch is below their size (why says so). */
static uint64_t strided_span(const struct gshmemi_tcp_frame *f, uint64_t max, const char *what,
                             char *why, size_t why_len)
{
    uint64_t span;
    if (f->size == 0 || f->len == 0 || f->len > max || f->len % f->size != 0 || f->a < f->size) {
        snprintf(why, why_len, "a strided %s of %llu bytes in elements of %u at a pitch of %llu",
                 what, (unsigned long long)f->len, f->size, (unsigned long long)f->a);
        return 0;
    }
    if (__builtin_mul_overflow(f->len / f->size - 1, f->a, &span) ||
        __builtin_add_overflow(span, f->size, &span))
        span = UINT64_MAX;
    return span;
}

int gshmemi_tcp_frame_check(const struct gshmemi_tcp_frame *f, uint64_t heap_size,
                            uint64_t static_size, char *why, size_t why_len)
{
    const unsigned long long off = f->off, len = f->len;
    uint64_t span = f->len; /* a put's or get's bytes, first to last */
    const int no_payload = f->type == GSHMEMI_TCP_AMO || f->type == GSHMEMI_TCP_SIGNAL ||
                           f->type == GSHMEMI_TCP_CTRL || f->type == GSHMEMI_TCP_QUIET ||
                           f->type == GSHMEMI_TCP_BYE || f->type == GSHMEMI_TCP_HEARTBEAT;
    if (no_payload && f->len != 0) { /* (what followed would be read as frames) */
        snprintf(why, why_len, "a frame of type %u with %llu payload bytes", f->type, len);
        return GSHMEM_ERR_INVALID_ARG;
    }
    switch (f->type) {
    case GSHMEMI_TCP_PUT:
        if ((f->op & ~(GSHMEMI_TCP_PUT_FENCED | GSHMEMI_TCP_PUT_STRIDED)) != 0) {
            snprintf(why, why_len, "a put with unknown flags %#x", f->op);
            return GSHMEM_ERR_INVALID_ARG;
        }
        if ((f->op & GSHMEMI_TCP_PUT_STRIDED) &&
            (span = strided_span(f, GSHMEMI_TCP_STRIDED_MAX, "put", why, why_len)) == 0)
            return GSHMEM_ERR_INVALID_ARG;
        if (!in_sym(f->off, span, heap_size, static_size))
            break;
        return 0;
    case GSHMEMI_TCP_GET:
        if ((f->op & ~GSHMEMI_TCP_GET_STRIDED) != 0) {
            snprintf(why, why_len, "a get with unknown flags %#x", f->op);
            return GSHMEM_ERR_INVALID_ARG;
        }
        if (f->len > GSHMEMI_TCP_GET_CHUNK) {
            snprintf(why, why_len, "a %llu-byte get, over the %u bytes a get may ask for", len,
                     GSHMEMI_TCP_GET_CHUNK);
            return GSHMEM_ERR_INVALID_ARG;
        }
        if ((f->op & GSHMEMI_TCP_GET_STRIDED) &&
            (span = strided_span(f, GSHMEMI_TCP_GET_CHUNK, "get", why, why_len)) == 0)
            return GSHMEM_ERR_INVALID_ARG;
        if (!in_sym(f->off, span, heap_size, static_size))
            break;
        return 0;
    case GSHMEMI_TCP_AMO:
        if ((f->size != 4 && f->size != 8) || !gshmemi_amo_valid((int)f->op) || f->fetch > 1 ||
            (f->off & (f->size - 1)) != 0) {
            snprintf(why, why_len, "an atomic of op %u on %u bytes at heap offset %llu", f->op,
                     f->size, off);
            return GSHMEM_ERR_INVALID_ARG;
        }
        if (!in_sym(f->off, f->size, heap_size, static_size))
            break;
        return 0;
    case GSHMEMI_TCP_SIGNAL:
        if (f->op > 1 || (f->off & 7) != 0) {
            snprintf(why, why_len, "a signal of op %u at heap offset %llu", f->op, off);
            return GSHMEM_ERR_INVALID_ARG;
        }
        if (!in_sym(f->off, 8, heap_size, static_size))
            break;
        return 0;
    case GSHMEMI_TCP_CTRL:
        if (f->off >= GSHMEMI_CTRL_SIZE / sizeof(uint64_t)) {
            snprintf(why, why_len, "word %llu of the control segment, which has %zu", off,
                     GSHMEMI_CTRL_SIZE / sizeof(uint64_t));
            return GSHMEM_ERR_INVALID_ARG;
        }
        return 0;
    case GSHMEMI_TCP_REPLY:
        if (f->len > GSHMEMI_TCP_GET_CHUNK) {
            snprintf(why, why_len, "a reply of %llu bytes, over the %u bytes a get asks for", len,
                     GSHMEMI_TCP_GET_CHUNK);
            return GSHMEM_ERR_INVALID_ARG;
        }
        return 0;
    case GSHMEMI_TCP_QUIET:
    case GSHMEMI_TCP_BYE:
    case GSHMEMI_TCP_HEARTBEAT:
        return 0;
    default:
        snprintf(why, why_len, "a frame of unknown type %u", f->type);
        return GSHMEM_ERR_INVALID_ARG;
    }
    const unsigned long long n = f->type == GSHMEMI_TCP_AMO ? (unsigned long long)f->size
                                 : f->type == GSHMEMI_TCP_SIGNAL ? 8ull
                                 : (unsigned long long)span;
    if (f->off >= GSHMEMI_STATIC_OFF)
        snprintf(why, why_len, "static data range [%llu, +%llu) beyond this pe's static data "
                 "(%llu bytes)", off - GSHMEMI_STATIC_OFF, n, (unsigned long long)static_size);
    else
        snprintf(why, why_len, "heap range [%llu, +%llu) beyond this heap (%llu bytes)", off, n,
                 (unsigned long long)heap_size);
    return GSHMEM_ERR_INVALID_ARG;
}

int gshmemi_tcp_hello_valid(const struct gshmemi_tcp_hello *h,
                            const unsigned char secret[GSHMEMI_SECRET_BYTES])
{
    return h->magic == GSHMEMI_TCP_MAGIC && memcmp(h->secret, secret, GSHMEMI_SECRET_BYTES) == 0;
}
