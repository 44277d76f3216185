/* Partitioned transfers to the init module: the mailboxes and flag pool in
 * every PE's heap (collective, at init) and the requests' end. */
#ifndef GSHMEMI_PARTITIONED_H
#define GSHMEMI_PARTITIONED_H

int gshmemi_partitioned_init(void);
/* The start of gshmem_finalize: nothing moves pairs on past this (the
 * progress thread stopped, other waits no longer run progress), so nothing
 * is written to peers that are leaving. */
void gshmemi_partitioned_quiesce(void);
/* Every request still held is dropped (its handle becomes invalid). */
void gshmemi_partitioned_fini(void);

#endif
