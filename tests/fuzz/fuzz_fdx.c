/* The fd exchange's handshake message as it arrives on a PE's Unix socket
 * (heap/fdx.h): only this job's magic and secret, of the exact length,
 * from a PE number that is not negative, gets through. */
#include <stdint.h>

#include "heap/fdx.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gshmemi_fdx_msg m;
    if (gshmemi_fdx_msg_check(data, size, fuzz_secret, &m) != 0)
        return 0;
    FUZZ_CHECK(size == sizeof(m), "%zu bytes taken", size);
    FUZZ_CHECK(m.magic == GSHMEMI_FDX_MAGIC && memcmp(m.secret, fuzz_secret, 16) == 0,
               "a stranger taken");
    FUZZ_CHECK(m.from_pe >= 0, "from pe %d", m.from_pe);
    return 0;
}
