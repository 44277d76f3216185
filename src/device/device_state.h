/* The device API's state (include/gshmem/internal/device_state.h): published to
 * every registered translation unit at init, heap growth and finalize. */
#ifndef GSHMEMI_DEVICE_DEVICE_STATE_H
#define GSHMEMI_DEVICE_DEVICE_STATE_H

/* After the heap and the transports are up (GPU heap only; else nothing). */
int gshmemi_device_state_start(void);
void gshmemi_device_state_stop(void);

#endif
