/* Partitioned transfers to the init module: the mailboxes and flag pool in
 * every PE's heap (collective, at init) and the requests' end. */
#ifndef GSHMEMI_PARTITIONED_H
#define GSHMEMI_PARTITIONED_H

int gshmemi_partitioned_init(void);
/* Every request still held is dropped (its handle becomes invalid). */
void gshmemi_partitioned_fini(void);

#endif
