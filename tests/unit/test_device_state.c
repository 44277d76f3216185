/* The device API's registry (src/device/device_state.c): what each CUDA
 * translation unit calls from its static initialiser.  A header of another
 * version is refused with a message; before init nothing is copied; any
 * number of units can come and go.  No GPU needed. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gshmem/internal/device_state.h>

#include "test_util.h"

static int calls[64];

#define FN(i) \
    static int fn##i(const struct gshmemi_device_state *s, void *st) { (void)s; (void)st; calls[i]++; return 0; }
FN(0) FN(1) FN(2) FN(3) FN(4) FN(5) FN(6) FN(7)
static gshmemi_device_state_update_fn fns[8] = {fn0, fn1, fn2, fn3, fn4, fn5, fn6, fn7};

/* Runs a refused registration with stderr captured; the message must name
 * both versions and both sizes. */
static void expect_refused(unsigned version, size_t bytes)
{
    char want[256], got[512] = "";
    FILE *tmp = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    dup2(fileno(tmp), 2);
    int st = gshmemi_device_state_register(fn0, version, bytes);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(got, 1, sizeof(got) - 1, tmp);
    got[n] = 0;
    fclose(tmp);
    snprintf(want, sizeof(want), "gshmem: a translation unit was built with gshmem_device.cuh of "
             "device-state version %u (%zu bytes); this libgshmem has version %u (%zu bytes): "
             "rebuild it against the installed headers\n", version, bytes,
             GSHMEMI_DEVICE_STATE_VERSION, sizeof(struct gshmemi_device_state));
    EXPECT(st != 0, "version %u, %zu bytes accepted", version, bytes);
    EXPECT(strcmp(got, want) == 0, "message was \"%s\"", got);
}

int main(void)
{
    const size_t bytes = sizeof(struct gshmemi_device_state);
    expect_refused(GSHMEMI_DEVICE_STATE_VERSION + 1, bytes); /* another version */
    expect_refused(GSHMEMI_DEVICE_STATE_VERSION, bytes - 8); /* another layout */
    /* 8 units, 4 rounds each (the table grows past its first size), then all go. */
    for (int round = 0; round < 4; round++)
        for (int i = 0; i < 8; i++)
            EXPECT(gshmemi_device_state_register(fns[i], GSHMEMI_DEVICE_STATE_VERSION, bytes) == 0,
                   "unit %d refused", i);
    for (int round = 0; round < 4; round++)
        for (int i = 0; i < 8; i++)
            gshmemi_device_state_unregister(fns[i]);
    gshmemi_device_state_unregister(fn0); /* not registered any more: nothing happens */
    for (int i = 0; i < 8; i++)
        EXPECT(calls[i] == 0, "unit %d updated %d times before gshmem_init", i, calls[i]);
    TEST_DONE();
}
