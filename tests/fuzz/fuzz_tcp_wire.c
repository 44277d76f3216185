/* The tcp transport's frames and hello as they arrive from a peer
 * (transport/tcp_wire.h): a frame header, then the target's heap and
 * static data sizes, then a hello.  A frame the check lets through must
 * touch only bytes of the heap, of the static data or of the control
 * segment; a refusal must say why. */
#include <stdint.h>

#include <gshmem.h>

#include "transport/tcp_wire.h"
#include "../unit/tcp_frame_reach.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gshmemi_tcp_frame f;
    struct gshmemi_tcp_hello h;
    uint64_t heap = 4ull << 20, stat = 64ull << 10;
    char why[160] = "";

    if (size < sizeof(f))
        return 0;
    memcpy(&f, data, sizeof(f));
    data += sizeof(f);
    size -= sizeof(f);
    if (size >= 16) { /* a heap below the static data's offsets, as every heap is */
        memcpy(&heap, data, 8);
        memcpy(&stat, data + 8, 8);
        heap %= GSHMEMI_STATIC_OFF;
        stat %= GSHMEMI_STATIC_OFF;
        data += 16;
        size -= 16;
    }
    int st = gshmemi_tcp_frame_check(&f, heap, stat, why, sizeof(why));
    if (st == 0)
        FUZZ_CHECK(tcp_frame_inside(&f, heap, stat), "frame of type %u at %llu (+%llu, size %u) let through",
                   f.type, (unsigned long long)f.off, (unsigned long long)f.len, f.size);
    else {
        FUZZ_CHECK(st == GSHMEM_ERR_INVALID_ARG, "status %d", st);
        fuzz_check_why(why, sizeof(why));
    }
    if (size >= sizeof(h)) {
        memcpy(&h, data, sizeof(h));
        int valid = gshmemi_tcp_hello_valid(&h, fuzz_secret);
        FUZZ_CHECK(valid == (h.magic == GSHMEMI_TCP_MAGIC &&
                             memcmp(h.secret, fuzz_secret, sizeof(fuzz_secret)) == 0),
                   "hello judged %d", valid);
    }
    return 0;
}
