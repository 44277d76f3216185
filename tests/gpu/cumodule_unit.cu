// A unit of the modules cumodule.cu loads with the driver API (compiled to
// a fatbin, to PTX, and with -rdc to cubins linked at run time): UNIT
// numbers it, and its kernel's name.
#include <gshmem_device.cuh>

#ifndef UNIT
#define UNIT 0
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

// Reports what the unit's state says (my pe, PE count) and puts
// 1000 * (UNIT + 1) + 10 * round + my pe into the next PE's buf[UNIT] and
// late[UNIT] (late: a block allocated after gshmemx_cumodule_init, past the
// heap's first size, which the debug checks refuse if the module missed the
// heap's growth).
extern "C" __global__ void CAT(unit_put_, UNIT)(int *buf, int *late, int round, int *out)
{
    const int me = gshmem_my_pe(), n = gshmem_n_pes(), to = (me + 1) % n;
    const int v = 1000 * (UNIT + 1) + 10 * round + me;
    out[2 * UNIT] = me;
    out[2 * UNIT + 1] = n;
    gshmem_int_p(&buf[UNIT], v, to);
    gshmem_int_p(&late[UNIT], v, to);
    gshmem_quiet();
}
