/* The device API's state (include/gshmem/internal/device_state.h): published to
 * every registered translation unit at init, heap growth and finalize. */
#ifndef GSHMEMI_DEVICE_DEVICE_STATE_H
#define GSHMEMI_DEVICE_DEVICE_STATE_H

/* After the heap and the transports are up (GPU heap only; else nothing). */
int gshmemi_device_state_start(void);
void gshmemi_device_state_stop(void);

/* Teams for kernels (GPU heap only; else nothing): a table of n_teams
 * entries by handle, and the heap offset of the slots' barrier words.
 * set and clear keep an entry as the host's team of that handle. */
int gshmemi_device_teams_open(int n_teams, uint64_t words_off, uint64_t sizes_off);
void gshmemi_device_team_set(int slot, const int *pes, int n, int my);
void gshmemi_device_team_clear(int slot);

#endif
