/* The unique id, as the application hands it over: its text form (what
 * gshmrun passes in GSHMEM_LAUNCH_UNIQUEID) and its bytes (what the
 * application copies between processes, e.g. through a file).  The first
 * byte picks the form. */
#include <stdint.h>

#include <gshmem.h>
#include <gshmemx.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/uid_wire.h"
#include "fuzz.h"

static void text_form(const uint8_t *d, size_t n)
{
    char text[2 * GSHMEMX_UNIQUEID_BYTES + 8], back[2 * GSHMEMX_UNIQUEID_BYTES + 1], addr[80];
    gshmemx_uniqueid_t uid;
    if (n >= sizeof(text))
        return;
    memcpy(text, d, n);
    text[n] = '\0';
    if (gshmemi_uid_decode(text, &uid) != 0)
        return;
    /* Taken: it round-trips (up to the case of the hex digits) and names a root. */
    gshmemi_uid_encode(&uid, back);
    FUZZ_CHECK(strlen(text) == strlen(back) && strcasecmp(text, back) == 0, "round trip");
    FUZZ_CHECK(gshmemi_uid_root_address(&uid, addr, sizeof(addr)) == 0, "no root address");
}

static void bytes_form(const uint8_t *d, size_t n)
{
    struct gshmemi_uid_blob blob;
    union gshmemi_sockaddr root;
    char why[120] = "", addr[80];
    if (gshmemi_uid_blob_check(d, n, &blob, &root, why, sizeof(why)) != 0) {
        fuzz_check_why(why, sizeof(why));
        return;
    }
    FUZZ_CHECK(n >= sizeof(blob) && blob.magic == GSHMEMI_UID_MAGIC, "not an id");
    FUZZ_CHECK(root.sa.sa_family == AF_INET || root.sa.sa_family == AF_INET6, "family %d",
               root.sa.sa_family);
    gshmemi_sock_str(&root, addr, sizeof(addr));
    FUZZ_CHECK(memchr(addr, '\0', sizeof(addr)) != NULL, "address text not terminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 1)
        bytes_form(data + 1, size - 1);
    else
        text_form(data + 1, size - 1);
    return 0;
}
