/* Prints every symbol libgshmem must export: the typed families expanded
 * from the type tables, then the untyped API.  check_symbols.py compares
 * this with what the library really exports, both ways. */
#include <stdio.h>

#include <gshmem.h>
#include <gshmemx.h>

#define P(name) puts(name)

#define RMA(NAME, TYPE, G)                                                                       \
    P("gshmem_" #NAME "_put"); P("gshmem_" #NAME "_put_nbi"); P("gshmem_" #NAME "_get");         \
    P("gshmem_" #NAME "_get_nbi"); P("gshmem_" #NAME "_p"); P("gshmem_" #NAME "_g");             \
    P("gshmem_" #NAME "_iput"); P("gshmem_" #NAME "_iget"); P("gshmem_" #NAME "_put_signal");    \
    P("gshmem_" #NAME "_put_signal_nbi");
#define ON_STREAM(NAME, TYPE, G)                                                                 \
    P("gshmemx_" #NAME "_put_on_stream"); P("gshmemx_" #NAME "_get_on_stream");                  \
    P("gshmemx_" #NAME "_put_signal_on_stream");
#define SIZED(BITS, TYPE)                                                                        \
    P("gshmem_put" #BITS); P("gshmem_put" #BITS "_nbi"); P("gshmem_get" #BITS);                  \
    P("gshmem_get" #BITS "_nbi"); P("gshmem_iput" #BITS); P("gshmem_iget" #BITS);                \
    P("gshmem_put" #BITS "_signal"); P("gshmem_put" #BITS "_signal_nbi");
#define AMO_EXT(NAME, TYPE, G)                                                                   \
    P("gshmem_" #NAME "_atomic_fetch"); P("gshmem_" #NAME "_atomic_set");                        \
    P("gshmem_" #NAME "_atomic_swap");
#define AMO_STD(NAME, TYPE, G)                                                                   \
    P("gshmem_" #NAME "_atomic_compare_swap"); P("gshmem_" #NAME "_atomic_fetch_inc");           \
    P("gshmem_" #NAME "_atomic_inc"); P("gshmem_" #NAME "_atomic_fetch_add");                    \
    P("gshmem_" #NAME "_atomic_add");
#define AMO_BIT(NAME, TYPE, G)                                                                   \
    P("gshmem_" #NAME "_atomic_fetch_and"); P("gshmem_" #NAME "_atomic_and");                    \
    P("gshmem_" #NAME "_atomic_fetch_or"); P("gshmem_" #NAME "_atomic_or");                      \
    P("gshmem_" #NAME "_atomic_fetch_xor"); P("gshmem_" #NAME "_atomic_xor");
#define SYNC(NAME, TYPE, G)                                                                      \
    P("gshmem_" #NAME "_wait_until"); P("gshmem_" #NAME "_wait_until_all");                      \
    P("gshmem_" #NAME "_wait_until_any"); P("gshmem_" #NAME "_wait_until_some");                 \
    P("gshmem_" #NAME "_wait_until_all_vector"); P("gshmem_" #NAME "_wait_until_any_vector");    \
    P("gshmem_" #NAME "_wait_until_some_vector"); P("gshmem_" #NAME "_test");                    \
    P("gshmem_" #NAME "_test_all"); P("gshmem_" #NAME "_test_any");                              \
    P("gshmem_" #NAME "_test_some"); P("gshmem_" #NAME "_test_all_vector");                      \
    P("gshmem_" #NAME "_test_any_vector"); P("gshmem_" #NAME "_test_some_vector");

int main(void)
{
    static const char *const untyped[] = {
        "gshmem_status_string", "gshmem_init", "gshmem_init_thread", "gshmem_query_thread",
        "gshmem_finalize", "gshmem_my_pe", "gshmem_n_pes", "gshmem_global_exit",
        "gshmem_info_get_version", "gshmem_info_get_name", "gshmem_malloc", "gshmem_calloc",
        "gshmem_align", "gshmem_realloc", "gshmem_free", "gshmem_ptr", "gshmem_addr_accessible",
        "gshmem_pe_accessible", "gshmem_putmem", "gshmem_putmem_nbi", "gshmem_getmem",
        "gshmem_getmem_nbi", "gshmem_putmem_signal", "gshmem_putmem_signal_nbi",
        "gshmem_signal_fetch", "gshmem_signal_wait_until", "gshmem_fence", "gshmem_quiet",
        "gshmem_barrier_all", "gshmem_sync_all", "gshmemx_get_uniqueid",
        "gshmemx_set_attr_uniqueid_args", "gshmemx_init_attr", "gshmemx_init_status",
        "gshmemx_signal_op", "gshmemx_putmem_on_stream", "gshmemx_getmem_on_stream",
        "gshmemx_putmem_signal_on_stream", "gshmemx_signal_op_on_stream",
        "gshmemx_signal_wait_until_on_stream", "gshmemx_quiet_on_stream",
        "gshmemx_barrier_all_on_stream", "gshmemx_sync_all_on_stream", "gshmemx_buffer_register",
        "gshmemx_buffer_unregister", "gshmemi_device_state_register",
        "gshmemi_device_state_unregister", "gshmemi_device_load_unit",
        "gshmem_team_my_pe", "gshmem_team_n_pes", "gshmem_team_translate_pe",
        "gshmem_team_get_config", "gshmem_team_split_strided", "gshmem_team_split_2d",
        "gshmem_team_destroy", "gshmem_team_ptr", "gshmem_team_sync", "gshmem_barrier", "gshmemi_device_api_error",
    };
    GSHMEM_FOR_RMA_TYPES(RMA)
    GSHMEM_FOR_RMA_TYPES(ON_STREAM)
    GSHMEM_FOR_RMA_SIZES(SIZED)
    GSHMEM_FOR_AMO_EXTENDED_TYPES(AMO_EXT)
    GSHMEM_FOR_AMO_STANDARD_TYPES(AMO_STD)
    GSHMEM_FOR_AMO_BITWISE_TYPES(AMO_BIT)
    GSHMEM_FOR_P2P_SYNC_TYPES(SYNC)
    for (size_t i = 0; i < sizeof(untyped) / sizeof(untyped[0]); i++)
        P(untyped[i]);
    return 0;
}
