/*
 * gshmem internal ABI between libgshmem and the device API header
 * (gshmem_device.cuh): the state every translation unit's kernels read, and
 * how a translation unit asks to be kept up to date.  Users never include
 * this header: gshmem_device.cuh does, and its layout changes with
 * GSHMEMI_DEVICE_STATE_VERSION.
 */
#ifndef GSHMEMI_DEVICE_STATE_H
#define GSHMEMI_DEVICE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "fifo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Raise on any change to the structures below: a translation unit built
 * against another version is refused (gshmemi_device_state_register). */
#define GSHMEMI_DEVICE_STATE_VERSION 16
/* PEs whose heap bases the state holds itself (one constant-cache load). */
#define GSHMEMI_DEVICE_NEAR_PES 64

/* Rounds of the device barrier's dissemination: ceil(log2(n_pes)). */
#define GSHMEMI_DEVICE_DBAR_MAX_ROUNDS 32

/* The runtime's internal area of each PE's GPU heap (the heap's first
 * allocation, so at the same offset on every PE; zeroed at init): where
 * each region starts, in 64-bit words, and the area's size.  A barrier's
 * round counters are a word per dissemination round, which the round's
 * partner adds to (or writes). */
enum gshmemi_dev_area {
    /* The on-stream barrier's kernel (src/gpu/host_kernels.cu): round
     * counters, and the barriers this PE has done. */
    GSHMEMI_DEV_AREA_KBAR_ROUNDS = 0,
    GSHMEMI_DEV_AREA_KBAR_EPOCH = 64,
    /* The device barrier (gshmem/device/barrier.cuh): round counters, the
     * barriers this PE has done; the grid barrier's blocks arrived, and
     * the grid barriers completed. */
    GSHMEMI_DEV_AREA_DBAR_ROUNDS = 128,
    GSHMEMI_DEV_AREA_DBAR_EPOCH = 192,
    GSHMEMI_DEV_AREA_GRID_ARRIVE = 193,
    GSHMEMI_DEV_AREA_GRID_GEN = 194,
    /* Words reserved for a barrier's round counters. */
    GSHMEMI_DEV_AREA_ROUNDS = 64,
    /* The area's size in words (GSHMEMI_DEV_AREA_WORDS * 8 bytes). */
    GSHMEMI_DEV_AREA_WORDS = 512,
};

/* The regions follow one another without overlap, inside the area, and
 * each barrier's rounds fit its counters (an int count of PEs needs 31). */
#if defined(__cplusplus)
#define GSHMEMI_DEV_AREA_ASSERT(c, m) static_assert(c, m)
#else
#define GSHMEMI_DEV_AREA_ASSERT(c, m) _Static_assert(c, m)
#endif
GSHMEMI_DEV_AREA_ASSERT(GSHMEMI_DEV_AREA_KBAR_ROUNDS + GSHMEMI_DEV_AREA_ROUNDS <=
                            GSHMEMI_DEV_AREA_KBAR_EPOCH,
                        "kernel barrier rounds overlap its epoch");
GSHMEMI_DEV_AREA_ASSERT(GSHMEMI_DEV_AREA_KBAR_EPOCH + 1 <= GSHMEMI_DEV_AREA_DBAR_ROUNDS,
                        "kernel barrier epoch overlaps the device barrier's rounds");
GSHMEMI_DEV_AREA_ASSERT(GSHMEMI_DEV_AREA_DBAR_ROUNDS + GSHMEMI_DEV_AREA_ROUNDS <=
                            GSHMEMI_DEV_AREA_DBAR_EPOCH,
                        "device barrier rounds overlap its epoch");
GSHMEMI_DEV_AREA_ASSERT(GSHMEMI_DEV_AREA_DBAR_EPOCH + 1 <= GSHMEMI_DEV_AREA_GRID_ARRIVE,
                        "device barrier epoch overlaps the grid barrier's arrivals");
GSHMEMI_DEV_AREA_ASSERT(GSHMEMI_DEV_AREA_GRID_ARRIVE + 1 <= GSHMEMI_DEV_AREA_GRID_GEN,
                        "grid barrier arrivals overlap its generation");
GSHMEMI_DEV_AREA_ASSERT(GSHMEMI_DEV_AREA_GRID_GEN + 1 <= GSHMEMI_DEV_AREA_WORDS,
                        "grid barrier generation runs past the area");
GSHMEMI_DEV_AREA_ASSERT(GSHMEMI_DEV_AREA_ROUNDS >= 31, "an int count of PEs needs 31 rounds");
GSHMEMI_DEV_AREA_ASSERT(GSHMEMI_DEVICE_DBAR_MAX_ROUNDS <= GSHMEMI_DEV_AREA_ROUNDS,
                        "the device barrier has more rounds than counters");
#undef GSHMEMI_DEV_AREA_ASSERT

/* Why a device thread stopped the job. */
enum {
    GSHMEMI_DEV_FAIL_NONE = 0,
    GSHMEMI_DEV_FAIL_PE_RANGE,    /* pe outside [0, n_pes) */
    GSHMEMI_DEV_FAIL_NOT_HEAP,    /* a symmetric address outside the heap */
    GSHMEMI_DEV_FAIL_MISALIGNED,  /* an atomic's address not aligned to its size */
    GSHMEMI_DEV_FAIL_UNMAPPED,    /* the pe is reached only through the proxy */
    GSHMEMI_DEV_FAIL_TIMEOUT,     /* a wait passed GSHMEM_TIMEOUT */
    GSHMEMI_DEV_FAIL_NOT_INIT,    /* gshmem is not initialised */
    GSHMEMI_DEV_FAIL_TEAM,        /* pe holds a team handle that is no team this PE is in */
    GSHMEMI_DEV_FAIL_COLL_ARGS,   /* a collective's member passed other arguments (addr: which) */
    GSHMEMI_DEV_FAIL_TEAM_GONE,   /* a stream call's team (pe: its handle) was destroyed since it was enqueued */
    GSHMEMI_DEV_FAIL_COLL_OVERLAP, /* a collective's dest [addr, +size) overlaps its source
                                    * [expected, +found); cmp: its in-place form (enum below) */
    GSHMEMI_DEV_FAIL_PARTITIONED, /* a partitioned call (gshmem/internal/partitioned.h):
                                   * cmp the enum gshmemi_preq_fail, pe the peer, addr the
                                   * partition, size the partitions, expected the round,
                                   * found a count */
};
/* Where a collective may run in place (GSHMEMI_DEV_FAIL_COLL_OVERLAP's cmp). */
enum {
    GSHMEMI_COLL_IN_PLACE_NONE = 0,
    GSHMEMI_COLL_IN_PLACE_SAME,         /* dest == source */
    GSHMEMI_COLL_IN_PLACE_SOURCE_BLOCK, /* source is this member's block of dest (fcollect) */
    GSHMEMI_COLL_IN_PLACE_DEST_BLOCK,   /* dest is this member's block of source (reducescatter) */
};

/* Host-mapped memory: the first failing device thread claims it, fills it
 * and sets `ready`; a host thread of the PE turns it into the job's end. */
struct gshmemi_device_failure {
    unsigned int claimed;
    unsigned int ready;
    int reason; /* GSHMEMI_DEV_FAIL_* */
    int pe;     /* the target (or waited-on) PE, -1 if none */
    unsigned int block[3], thread[3];
    uint64_t addr;
    uint64_t size;     /* bytes of the access */
    uint64_t expected; /* waits: the comparison's value */
    uint64_t found;    /* waits: the value last seen */
    int cmp;           /* waits: GSHMEM_CMP_* */
    char call[64];     /* the API call */
};

/* A team as kernels see it (src/coll/): an entry of a table in GPU memory
 * by team handle; n 0 where this PE is in no team of that handle. */
struct gshmemi_device_team {
    int n;          /* members */
    int my;         /* this PE's index */
    int mapped;     /* every member maps every other's heap: the fast algorithms apply */
    int generation; /* the team's number among those the process made (0: none now) */
    const int *pes; /* GPU memory: the world PE of each member */
};
/* Each team slot's words for the device barriers of its members, in a
 * block of the heap at the same offset on every PE: the round counters,
 * then the barriers this PE has done. */
enum {
    GSHMEMI_DEVICE_TEAM_ROUNDS = 0,
    GSHMEMI_DEVICE_TEAM_EPOCH = 32,
    GSHMEMI_DEVICE_TEAM_LL_EPOCH = 33, /* the slot's flag-packet collectives this PE has done */
    GSHMEMI_DEVICE_TEAM_ARGS = 34,     /* GSHMEM_DEBUG_CHECKS: the collective's 3 argument words */
    GSHMEMI_DEVICE_TEAM_LL_BLOCKS = 37, /* a stream kernel's blocks done with its flag packets */
    GSHMEMI_DEVICE_TEAM_WORDS = 64,
};

/* What GSHMEM_DEBUG_CHECKS compares between the members of a collective,
 * host or device form: its kind (shape * 16 + reduction operation), bytes
 * per member and root (-1: none); the words' index is the failure's addr. */
enum {
    GSHMEMI_COLL_KIND_BROADCAST = 1,
    GSHMEMI_COLL_KIND_COLLECT,
    GSHMEMI_COLL_KIND_FCOLLECT,
    GSHMEMI_COLL_KIND_ALLTOALL,
    GSHMEMI_COLL_KIND_ALLTOALLS,
    GSHMEMI_COLL_KIND_REDUCE,
    GSHMEMI_COLL_KIND_REDUCESCATTER,
    GSHMEMI_COLL_KIND_INSCAN,
    GSHMEMI_COLL_KIND_EXSCAN,
};
enum {
    GSHMEMI_COLL_OP_NONE = 0,
    GSHMEMI_COLL_OP_AND,
    GSHMEMI_COLL_OP_OR,
    GSHMEMI_COLL_OP_XOR,
    GSHMEMI_COLL_OP_MIN,
    GSHMEMI_COLL_OP_MAX,
    GSHMEMI_COLL_OP_SUM,
    GSHMEMI_COLL_OP_PROD,
};
#define GSHMEMI_COLL_KIND(SHAPE, OP) (GSHMEMI_COLL_KIND_##SHAPE * 16 + GSHMEMI_COLL_OP_##OP)
/* The host's and stream forms' reductions add their element type to the
 * kind they compare: its class times 4096 and its size times 65536. */
enum {
    GSHMEMI_COLL_ELEM_SIGNED = 1,
    GSHMEMI_COLL_ELEM_UNSIGNED,
    GSHMEMI_COLL_ELEM_FLOAT,
    GSHMEMI_COLL_ELEM_COMPLEX,
    GSHMEMI_COLL_ELEM_HALF,
    GSHMEMI_COLL_ELEM_BFLOAT16,
};
enum { GSHMEMI_COLL_ARG_KIND, GSHMEMI_COLL_ARG_BYTES, GSHMEMI_COLL_ARG_ROOT, GSHMEMI_COLL_ARGS };

/* Each team slot's collective area, in a block of the GPU heap at the same
 * offset on every PE (coll_off + slot * coll_slot_bytes), zeroed when a
 * team takes the slot:
 *  - the grid algorithms' barriers (src/coll/coll_kernels.cuh):
 *    per block b, a counter every member's block b adds to, and the count
 *    of barriers this PE's block b has done;
 *  - the flag-packet (LL) algorithms (gshmem/device/coll/ll.cuh): per
 *    member, the last LL collective it finished (it writes that here when
 *    it begins the next, so a sender never overwrites packets not yet
 *    read), then two buffers (by
 *    the collective's number's parity) of coll_ll_packets 16-byte packets
 *    per member: 8 bytes of data, the collective's number and its
 *    complement. */
enum gshmemi_coll_area {
    GSHMEMI_COLL_GRID_BLOCKS = 64, /* most blocks of a grid collective */
    GSHMEMI_COLL_AREA_GRID_ARRIVE = 0,
    GSHMEMI_COLL_AREA_GRID_DONE = 8 * GSHMEMI_COLL_GRID_BLOCKS,
    GSHMEMI_COLL_AREA_LL_ACKS = 16 * GSHMEMI_COLL_GRID_BLOCKS, /* then 4 bytes per world PE */
};

/* A team slot's collective areas as one PE maps them, filled on the host
 * for the stream collectives' flag-packet kernels (passed by value), so
 * that these load no team state before their first store: teams of up to
 * GSHMEMI_LL_AREAS_MEMBERS members, all mapped. */
enum { GSHMEMI_LL_AREAS_MEMBERS = 8 };
struct gshmemi_ll_areas {
    char *area[GSHMEMI_LL_AREAS_MEMBERS]; /* member m's area, by team index */
    unsigned long long *count;            /* this PE's word GSHMEMI_DEVICE_TEAM_LL_EPOCH of the slot */
    int n, my;                            /* members (0: not filled); this PE's index */
    int generation;                       /* the team's under GSHMEM_DEBUG_CHECKS (stream kernels check it), else 0 */
};

struct gshmemi_device_state {
    uint32_t version;
    uint32_t bytes; /* sizeof(struct gshmemi_device_state) */
    int initialized;
    int my_pe;
    int n_pes;
    int debug_checks; /* GSHMEM_DEBUG_CHECKS */
    char *heap_base;  /* this PE's heap */
    uint64_t heap_size;
    char *const *peer_base; /* GPU memory: each PE's heap here, NULL where not mapped */
    char *peer_base_near[GSHMEMI_DEVICE_NEAR_PES]; /* the first PEs' entries, in constant memory */
    uint64_t *dev_area;     /* this PE's internal area (same offset in every heap) */
    uint64_t dev_area_off;  /* its offset in the heap */
    uint64_t timeout_ns;    /* GSHMEM_TIMEOUT, 0 = none */
    struct gshmemi_device_failure *failure;
    int has_proxy;           /* fifo is the proxy's: unmapped PEs are reached through it */
    /* every unit loads all its kernels now (gshmem/device/state.cuh): with
     * the proxy in use, or once partitioned requests exist, a running
     * kernel may wait on work that a first launch, loaded lazily, would
     * hold up */
    int load_units;
    struct gshmemi_fifo fifo;
    /* The device barrier's partners, worked out at init so a barrier spends
     * no time on them: round r signals PE (my_pe + 2^r) % n_pes at `word`,
     * its round-r counter as mapped here (NULL: through the proxy). */
    int dbar_rounds;
    struct {
        uint64_t *word;
        int pe;
    } dbar[GSHMEMI_DEVICE_DBAR_MAX_ROUNDS];
    /* Teams: the table (GPU memory, n_teams entries by handle) and the heap
     * offset of the slots' barrier words (GSHMEMI_DEVICE_TEAM_WORDS each). */
    const struct gshmemi_device_team *teams;
    int n_teams;
    uint64_t team_words_off;
    uint64_t coll_sizes_off; /* collect's sizes: n_pes words a team slot, slot 0's first */
    /* The slots' collective areas (enum gshmemi_coll_area): where slot 0's
     * starts in the heap, each one's size, where its packets start, the
     * packets per member and buffer, and the largest payload per member
     * that goes by flag packets (GSHMEM_COLL_LL_MAX; 0: never). */
    uint64_t coll_off;
    uint64_t coll_slot_bytes;
    uint64_t coll_ll_off;
    uint32_t coll_ll_packets;
    uint32_t coll_ll_max;
};

/* A translation unit's copy of the state is refreshed through its own
 * callback (its __constant__ object belongs to its own CUDA module):
 * `stream` is a non-blocking CUDA stream to copy on; the library waits for
 * it after calling every callback. */
typedef int (*gshmemi_device_state_update_fn)(const struct gshmemi_device_state *state,
                                              void *stream);

/* Called from each translation unit's static initialiser; after init the
 * callback runs at once.  Returns 0, or nonzero when the header and the
 * library disagree on the version: gshmem_init then fails with a message
 * naming the PE (after init, the job ends at once). */
int gshmemi_device_state_register(gshmemi_device_state_update_fn fn, unsigned int version,
                                  size_t bytes);
void gshmemi_device_state_unregister(gshmemi_device_state_update_fn fn);
/* Loads every kernel of the translation unit holding `function` (a
 * CUfunction from cudaGetFuncBySymbol).  Called by a unit's callback
 * the first time it is updated with the proxy in use: see
 * gshmemi_gpu_load_module_of for why. */
void gshmemi_device_load_unit(void *function);
/* An error of the device API's host-side inline functions (the collective
 * launch), logged by the library as "call: message" with the PE and the
 * log's destination (GSHMEM_DEBUG_FILE). */
void gshmemi_device_api_error(const char *call, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* GSHMEMI_DEVICE_STATE_H */
