/* Prints every symbol libgshmem must export: each operation table expanded
 * for the types of its type tables (the host-only ones in the host forms
 * alone) and in the forms GSHMEMI_RMA_<FORM>_<SHAPE> give it, then the
 * untyped API.  check_symbols.py compares this with what
 * the library really exports, both ways.  The typed names are taken as
 * functions, not strings: each must be declared by gshmem.h or gshmemx.h
 * (or this fails to compile) and defined by libgshmem (or it fails to link). */
#include <stdio.h>

#include <gshmem.h>
#include <gshmemx.h>

/* Written through a volatile pointer, so that the reference survives
 * optimisation and the linker must find the function. */
static void (*volatile taken)(void);
static void print_symbol(const char *name, void (*function)(void))
{
    taken = function;
    puts(name);
}
#define SYMBOL(F) print_symbol(#F, (void (*)(void))F);
#define PRINT(name) puts(name)

/* A shape the form has: its name; the forms' filters leave out the rest. */
#define TYPED(STEM, TAIL, SHAPE, V, NAME, TYPE) SYMBOL(gshmem_##NAME##_##STEM##TAIL)
#define SIZED(STEM, TAIL, SHAPE, NBI, BITS, TYPE) \
    GSHMEMI_RMA_SIZED_##SHAPE(NBI, SYMBOL(gshmem_##STEM##BITS##TAIL))
#define MEM(STEM, TAIL, SHAPE, NBI, A, B) \
    GSHMEMI_RMA_MEM_##SHAPE(NBI, SYMBOL(gshmem_##STEM##mem##TAIL))
#define ON_STREAM(STEM, TAIL, SHAPE, NBI, NAME, TYPE) \
    GSHMEMI_RMA_ON_STREAM_##SHAPE(NBI, SYMBOL(gshmemx_##NAME##_##STEM##TAIL##_on_stream))
#define ON_STREAM_MEM(STEM, TAIL, SHAPE, NBI, A, B) \
    GSHMEMI_RMA_MEM_##SHAPE(                        \
        NBI, GSHMEMI_RMA_ON_STREAM_##SHAPE(NBI, SYMBOL(gshmemx_##STEM##mem##TAIL##_on_stream)))

#define RMA(NAME, TYPE, G) \
    GSHMEM_FOR_RMA_OPS(TYPED, NAME, TYPE) GSHMEM_FOR_RMA_OPS(ON_STREAM, NAME, TYPE)
#define RMA_HOST(NAME, TYPE, G) GSHMEM_FOR_RMA_OPS(TYPED, NAME, TYPE)
#define RMA_SIZED(BITS, TYPE) GSHMEM_FOR_RMA_OPS(SIZED, BITS, TYPE)
#define AMO_EXTENDED(NAME, TYPE, G) GSHMEM_FOR_AMO_EXTENDED_OPS(TYPED, NAME, TYPE)
#define AMO_STANDARD(NAME, TYPE, G) GSHMEM_FOR_AMO_STANDARD_OPS(TYPED, NAME, TYPE)
#define AMO_BITWISE(NAME, TYPE, G) GSHMEM_FOR_AMO_BITWISE_OPS(TYPED, NAME, TYPE)
#define AMO_NBI(STEM, TAIL, SHAPE, AMO, NAME, TYPE) \
    GSHMEMI_AMO_NBI_##SHAPE(SYMBOL(gshmem_##NAME##_##STEM##TAIL##_nbi))
#define AMO_NBI_EXTENDED(NAME, TYPE, G) GSHMEM_FOR_AMO_EXTENDED_OPS(AMO_NBI, NAME, TYPE)
#define AMO_NBI_STANDARD(NAME, TYPE, G) GSHMEM_FOR_AMO_STANDARD_OPS(AMO_NBI, NAME, TYPE)
#define AMO_NBI_BITWISE(NAME, TYPE, G) GSHMEM_FOR_AMO_BITWISE_OPS(AMO_NBI, NAME, TYPE)
#define P2P_SYNC(NAME, TYPE, G) GSHMEM_FOR_P2P_SYNC_OPS(TYPED, NAME, TYPE)
#define COLL(NAME, TYPE, G) GSHMEM_FOR_COLL_OPS(TYPED, NAME, TYPE)
#define COLL_MEM(STEM, TAIL, SHAPE, V, A, B) SYMBOL(gshmem_##STEM##mem##TAIL)
#define REDUCE_BITWISE(NAME, TYPE, G) GSHMEM_FOR_REDUCE_BITWISE_OPS(TYPED, NAME, TYPE)
#define REDUCE_ARITH(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(TYPED, NAME, TYPE)
#define REDUCE_COMPLEX(NAME, TYPE, G) GSHMEM_FOR_REDUCE_COMPLEX_OPS(TYPED, NAME, TYPE)
#define ON_STREAM_ANY(STEM, TAIL, SHAPE, V, NAME, TYPE) \
    SYMBOL(gshmemx_##NAME##_##STEM##TAIL##_on_stream)
#define COLL_ON_STREAM(NAME, TYPE, G) GSHMEM_FOR_COLL_OPS(ON_STREAM_ANY, NAME, TYPE)
#define COLL_ON_STREAM_MEM(STEM, TAIL, SHAPE, V, A, B) SYMBOL(gshmemx_##STEM##mem##TAIL##_on_stream)
#define REDUCE_BITWISE_ON_STREAM(NAME, TYPE, G) \
    GSHMEM_FOR_REDUCE_BITWISE_OPS(ON_STREAM_ANY, NAME, TYPE)
#define REDUCE_ARITH_ON_STREAM(NAME, TYPE, G) GSHMEM_FOR_REDUCE_ARITH_OPS(ON_STREAM_ANY, NAME, TYPE)
#define ACTIVE_SET_OP(STEM, TAIL, SHAPE, V, BITS, TYPE) SYMBOL(gshmem_##STEM##BITS##TAIL)
#define ACTIVE_SET(BITS, TYPE) GSHMEM_FOR_COLL_OPS(ACTIVE_SET_OP, BITS, TYPE)
#define TO_ALL_BITWISE(NAME, TYPE, G) GSHMEM_FOR_TO_ALL_BITWISE_OPS(TYPED, NAME, TYPE)
#define TO_ALL_MINMAX(NAME, TYPE, G) GSHMEM_FOR_TO_ALL_MINMAX_OPS(TYPED, NAME, TYPE)
#define TO_ALL_SUMPROD(NAME, TYPE, G) GSHMEM_FOR_TO_ALL_SUMPROD_OPS(TYPED, NAME, TYPE)

int main(void)
{
    static const char *const untyped[] = {
        "gshmem_status_string", "gshmem_init", "gshmem_init_thread", "gshmem_query_thread",
        "gshmem_finalize", "gshmem_my_pe", "gshmem_n_pes", "gshmem_global_exit",
        "gshmem_info_get_version", "gshmem_info_get_name", "gshmem_malloc", "gshmem_calloc",
        "gshmem_align", "gshmem_realloc", "gshmem_free", "gshmem_ptr", "gshmem_addr_accessible",
        "gshmem_pe_accessible", "gshmem_signal_fetch", "gshmem_signal_wait_until",
        "gshmem_fence", "gshmem_quiet", "gshmem_barrier_all", "gshmem_sync_all",
        "gshmemx_get_uniqueid", "gshmemx_set_attr_uniqueid_args", "gshmemx_init_attr",
        "gshmemx_init_status", "gshmemx_signal_op", "gshmemx_signal_op_on_stream",
        "gshmemx_signal_wait_until_on_stream", "gshmemx_quiet_on_stream",
        "gshmemx_barrier_all_on_stream", "gshmemx_sync_all_on_stream", "gshmemx_buffer_register",
        "gshmemx_buffer_unregister", "gshmemx_buffer_register_symmetric",
        "gshmemx_buffer_unregister_symmetric", "gshmemx_cumodule_init",
        "gshmemx_cumodule_finalize", "gshmemx_culibrary_init", "gshmemx_culibrary_finalize",
        "gshmemi_device_state_register",
        "gshmemi_device_state_unregister", "gshmemi_device_load_unit", "gshmemi_device_api_error",
        "gshmem_team_my_pe", "gshmem_team_n_pes", "gshmem_team_translate_pe",
        "gshmem_team_get_config", "gshmem_team_split_strided", "gshmem_team_split_2d",
        "gshmem_team_destroy", "gshmem_team_ptr", "gshmem_team_sync", "gshmem_barrier",
        "gshmemx_team_sync_on_stream", "gshmemx_barrier_on_stream", "gshmem_malloc_with_hints",
        "gshmem_pcontrol", "gshmem_set_lock", "gshmem_clear_lock", "gshmem_test_lock",
        "gshmemi_ctx_default", "gshmem_ctx_create", "gshmem_team_create_ctx", "gshmem_ctx_destroy",
        "gshmem_ctx_get_team", "gshmem_ctx_quiet", "gshmem_ctx_fence", "gshmemi_ctx_invalid",
        "gshmemx_barrier_active_set",
        "gshmemx_sync_active_set", "gshmemx_psend_init", "gshmemx_precv_init",
        "gshmemx_prequest_free", "gshmemx_pstart", "gshmemx_pwait", "gshmemx_pready",
        "gshmemx_pready_range", "gshmemx_pready_list", "gshmemx_parrived",
        "gshmemx_pstart_on_stream", "gshmemx_pwait_on_stream",
    };
    GSHMEM_FOR_RMA_TYPES(RMA)
    GSHMEM_FOR_RMA_SIZES(RMA_SIZED)
    GSHMEM_FOR_RMA_OPS(MEM, , )
    GSHMEM_FOR_RMA_OPS(ON_STREAM_MEM, , )
    GSHMEM_FOR_AMO_EXTENDED_TYPES(AMO_EXTENDED)
    GSHMEM_FOR_AMO_STANDARD_TYPES(AMO_STANDARD)
    GSHMEM_FOR_AMO_BITWISE_TYPES(AMO_BITWISE)
    GSHMEM_FOR_AMO_EXTENDED_TYPES(AMO_NBI_EXTENDED)
    GSHMEM_FOR_AMO_STANDARD_TYPES(AMO_NBI_STANDARD)
    GSHMEM_FOR_AMO_BITWISE_TYPES(AMO_NBI_BITWISE)
    GSHMEM_FOR_P2P_SYNC_TYPES(P2P_SYNC)
    GSHMEM_FOR_RMA_TYPES(COLL)
    GSHMEM_FOR_COLL_OPS(COLL_MEM, , )
    GSHMEM_FOR_REDUCE_BITWISE_TYPES(REDUCE_BITWISE)
    GSHMEM_FOR_REDUCE_ARITH_TYPES(REDUCE_ARITH)
    GSHMEM_FOR_RMA_TYPES(COLL_ON_STREAM)
    GSHMEM_FOR_COLL_OPS(COLL_ON_STREAM_MEM, , )
    GSHMEM_FOR_REDUCE_BITWISE_TYPES(REDUCE_BITWISE_ON_STREAM)
    GSHMEM_FOR_REDUCE_ARITH_TYPES(REDUCE_ARITH_ON_STREAM)
    GSHMEM_FOR_ACTIVE_SET_SIZES(ACTIVE_SET)
    GSHMEM_FOR_TO_ALL_BITWISE_TYPES(TO_ALL_BITWISE)
    GSHMEM_FOR_TO_ALL_MINMAX_TYPES(TO_ALL_MINMAX)
    GSHMEM_FOR_TO_ALL_SUMPROD_TYPES(TO_ALL_SUMPROD)
    GSHMEM_FOR_TO_ALL_MINMAX_HOST_TYPES(TO_ALL_MINMAX)
    GSHMEM_FOR_TO_ALL_SUMPROD_HOST_TYPES(TO_ALL_SUMPROD)
    /* the host-only types: no stream-ordered forms */
    GSHMEM_FOR_RMA_HOST_TYPES(RMA_HOST)
    GSHMEM_FOR_RMA_HOST_TYPES(COLL)
    GSHMEM_FOR_REDUCE_ARITH_HOST_TYPES(REDUCE_ARITH)
    GSHMEM_FOR_REDUCE_COMPLEX_HOST_TYPES(REDUCE_COMPLEX)
    for (size_t i = 0; i < sizeof(untyped) / sizeof(untyped[0]); i++)
        PRINT(untyped[i]);
    return 0;
}
