/* gshmem device API, part of gshmem_device.cuh: this translation unit's
 * copy of the runtime's state (a static __constant__ object), its
 * registration with the library, and the calls that only read it
 * (gshmem_my_pe, gshmem_n_pes, gshmem_ptr). */
#ifndef GSHMEMI_DEVICE_UMBRELLA
#error "include <gshmem_device.cuh>, not <gshmem/device/state.cuh>"
#endif
#ifndef GSHMEM_DEVICE_STATE_CUH
#define GSHMEM_DEVICE_STATE_CUH

/* This translation unit's copy of the runtime's state. */
static __constant__ struct gshmemi_device_state gshmemi_dstate;

/* ---- registration (host) ------------------------------------------------ */

namespace {

/* A kernel of this unit's own, through which the library finds the unit's
 * module and loads all its kernels (gshmemi_device_load_unit). */
__global__ void gshmemi_tu_anchor() {}

int gshmemi_tu_update(const struct gshmemi_device_state *s, void *stream)
{
    static bool loaded;
    if ((s->has_proxy || s->load_units) && !loaded) {
        cudaFunction_t f;
        loaded = true;
        if (cudaGetFuncBySymbol(&f, reinterpret_cast<const void *>(gshmemi_tu_anchor)) == cudaSuccess)
            gshmemi_device_load_unit(f);
        else
            gshmemi_device_load_unit(nullptr), (void)cudaGetLastError();
    }
    return static_cast<int>(cudaMemcpyToSymbolAsync(gshmemi_dstate, s, sizeof(*s), 0,
                                                    cudaMemcpyHostToDevice,
                                                    static_cast<cudaStream_t>(stream)));
}

struct gshmemi_tu_registrar {
    gshmemi_tu_registrar()
    {
        gshmemi_device_state_register(gshmemi_tu_update, GSHMEMI_DEVICE_STATE_VERSION,
                                      sizeof(struct gshmemi_device_state));
    }
    ~gshmemi_tu_registrar() { gshmemi_device_state_unregister(gshmemi_tu_update); }
};

gshmemi_tu_registrar gshmemi_tu_registrar_instance;

} // namespace

/* ---- device internals --------------------------------------------------- */

namespace {

__device__ __forceinline__ const struct gshmemi_device_state &gshmemi_s() { return gshmemi_dstate; }

/* PE pe's heap base as mapped here (NULL: reached through the proxy): the
 * first PEs' from the constant state itself, one load.  That load does not
 * wait for the test of pe against the table's end (a branch on it put a
 * compare and a second load of pe in front of every put's and get's
 * stores); the table in GPU memory replaces it for the other PEs. */
__device__ __forceinline__ char *gshmemi_peer_base(const struct gshmemi_device_state &s, int pe)
{
    char *base = s.peer_base_near[static_cast<unsigned>(pe) % GSHMEMI_DEVICE_NEAR_PES];
    if (static_cast<unsigned>(pe) >= GSHMEMI_DEVICE_NEAR_PES)
        base = s.peer_base[pe];
    return base;
}

} // namespace

/* ---- the API ------------------------------------------------------------ */

#ifdef __CUDA_ARCH__
extern "C" {

__device__ inline int gshmem_my_pe(void) { return gshmemi_dstate.my_pe; }
__device__ inline int gshmem_n_pes(void) { return gshmemi_dstate.n_pes; }

__device__ inline void *gshmem_ptr(const void *dest, int pe)
{
    const struct gshmemi_device_state &s = gshmemi_s();
    if (!s.initialized || pe < 0 || pe >= s.n_pes)
        return nullptr;
    char *base = gshmemi_peer_base(s, pe);
    return base == nullptr ? nullptr : base + (static_cast<const char *>(dest) - s.heap_base);
}

} /* extern "C" */
#endif /* __CUDA_ARCH__ */

#endif /* GSHMEM_DEVICE_STATE_CUH */
