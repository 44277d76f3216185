/* The device API's state (include/gshmem/internal/device_state.h): published to
 * every registered translation unit at init, heap growth and finalize. */
#ifndef GSHMEMI_DEVICE_DEVICE_STATE_H
#define GSHMEMI_DEVICE_DEVICE_STATE_H

#include <stdint.h>

/* After the heap and the transports are up (GPU heap only; else nothing). */
int gshmemi_device_state_start(void);
void gshmemi_device_state_stop(void);
/* From now on every translation unit using the device API has all its
 * kernels loaded (now, and as units register): kernels are about to wait
 * on peers' kernels (partitioned rounds), and under CUDA's lazy loading a
 * first launch meanwhile would wait for them. */
void gshmemi_device_state_load_units(const char *call);

/* GSHMEM_DEBUG_CHECKS' message for a collective whose next member passed
 * other arguments (word `which`, GSHMEMI_COLL_ARG_*): host and device
 * forms say it alike. */
void gshmemi_coll_args_differ(int which, int next_pe, uint64_t theirs, uint64_t mine, char *buf,
                              size_t n);

/* A host collective that runs as its stream form: between enter and
 * leave (enter's slot; -1: too many at once), a failing kernel that names
 * kernel_call is reported as call's.  Both are kept, not copied (static
 * strings); kernel_call NULL stands for call's typed stream form,
 * gshmemx_<call past its first '_'>_on_stream (gshmem_int_sum_reduce's is
 * gshmemx_int_sum_reduce_on_stream), built only when a kernel fails.
 * failure_wait: where a wait for the GPU failed, report the kernel's
 * failure and end the job where one was recorded (returns after a second
 * where none was: the caller reports). */
int gshmemi_device_host_call_enter(const char *call, const char *kernel_call);
void gshmemi_device_host_call_leave(int slot);
void gshmemi_device_failure_wait(void);

/* The slots' collective areas as the device state describes them
 * (struct gshmemi_device_state's coll_* fields). */
struct gshmemi_device_coll_area {
    uint64_t off, slot_bytes, ll_off;
    uint32_t ll_packets, ll_max;
};

/* Teams for kernels (GPU heap only; else nothing): a table of n_teams
 * entries by handle, the heap offsets of the slots' barrier words and of
 * collect's sizes, and the slots' collective areas.  set and clear keep
 * an entry as the host's team of that handle (mapped: every member maps
 * every other's heap). */
int gshmemi_device_teams_open(int n_teams, uint64_t words_off, uint64_t sizes_off,
                              const struct gshmemi_device_coll_area *coll);
void gshmemi_device_team_set(int slot, const int *pes, int n, int my, int mapped, int generation);
void gshmemi_device_team_clear(int slot);

#endif
