/* The device API's registry (src/device/device_state.c): what each CUDA
 * translation unit calls from its static initialiser.  A header of another
 * version is refused (quietly before init); before init nothing is copied; any
 * number of units can come and go.  And the reading of the names -rdc
 * gives a unit's symbols, by which gshmemx_cumodule_init finds a module's
 * state objects.  No GPU needed. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gshmem/internal/device_state.h>

#include "gpu/gpu.h"
#include "test_util.h"

static int calls[64];

#define FN(i) \
    static int fn##i(const struct gshmemi_device_state *s, void *st) { (void)s; (void)st; calls[i]++; return 0; }
FN(0) FN(1) FN(2) FN(3) FN(4) FN(5) FN(6) FN(7)
static gshmemi_device_state_update_fn fns[8] = {fn0, fn1, fn2, fn3, fn4, fn5, fn6, fn7};

/* A refused registration before init: nonzero, and nothing said yet (gshmem_init
 * says it, naming the PE: tests/spmd/check_negative.py's unit-other-version). */
static void expect_refused(unsigned version, size_t bytes)
{
    char got[512] = "";
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
    EXPECT(st != 0, "version %u, %zu bytes accepted", version, bytes);
    EXPECT(got[0] == 0, "said before init: \"%s\"", got);
}

/* Names nvcc 13.0 wrote for tests/gpu/cumodule_unit.cu built with -rdc:
 * the anchor kernel's prefix must give the state object's name. */
static void rdc_names(void)
{
    static const struct {
        const char *anchor, *state;
    } n[] = {
        {"__nv_static_38__1164656c_16_cumodule_unit_cu_d726b85a__ZN49_GLOBAL__N__1164656c_16_"
         "cumodule_unit_cu_d726b85a17gshmemi_tu_anchorEv",
         "__nv_static_38__1164656c_16_cumodule_unit_cu_d726b85a_gshmemi_dstate"},
        {"__nv_static_18__73e294b2_4_m_cu_k__ZN29_GLOBAL__N__73e294b2_4_m_cu_k17gshmemi_tu_anchorEv",
         "__nv_static_18__73e294b2_4_m_cu_k_gshmemi_dstate"},
        /* a unit whose file name holds "_ZN" */
        {"__nv_static_26__0badf00d_11_my_ZNode_cu_k__ZN37_GLOBAL__N__0badf00d_11_my_ZNode_"
         "cu_k17gshmemi_tu_anchorEv",
         "__nv_static_26__0badf00d_11_my_ZNode_cu_k_gshmemi_dstate"},
    };
    for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
        size_t pre = gshmemi_gpu_rdc_prefix_len(n[i].anchor);
        char got[256];
        snprintf(got, sizeof(got), "%.*sgshmemi_dstate", (int)pre, n[i].anchor);
        EXPECT(pre > 0 && strcmp(got, n[i].state) == 0, "prefix of %s gives %s", n[i].anchor, got);
    }
    /* no prefix: a whole unit's name, a length past the end, no '_' after the length */
    EXPECT(gshmemi_gpu_rdc_prefix_len("_ZN29_GLOBAL__N__x17gshmemi_tu_anchorEv") == 0, "whole");
    EXPECT(gshmemi_gpu_rdc_prefix_len("__nv_static_99__short_x") == 0, "length past the end");
    EXPECT(gshmemi_gpu_rdc_prefix_len("__nv_static_3x_abc_y") == 0, "no '_' after the length");
    EXPECT(gshmemi_gpu_rdc_prefix_len("__nv_static__abc") == 0, "no length");
}

int main(void)
{
    const size_t bytes = sizeof(struct gshmemi_device_state);
    rdc_names();
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
