/* The one table of gshmem's environment variables: X(NAME, TYPE, DEFAULT,
 * HELP), NAME without the GSHMEM_ prefix.  The parser, struct gshmemi_env,
 * `gshmem-info --env` and the README's list all come from it.
 * TYPE is BOOL, INT, SIZE (k/m/g/t suffixes), SECONDS or STRING. */
#ifndef GSHMEMI_CORE_ENV_TABLE_H
#define GSHMEMI_CORE_ENV_TABLE_H

#define GSHMEMI_ENV_TABLE(X)                                                                \
    X(DEBUG, STRING, "warn", "Log level: error, warn, info or trace.")                      \
    X(DEBUG_SUBSYS, STRING, "all",                                                          \
      "Subsystems to log, comma-separated: core, bootstrap, gpu, heap, transport, proxy, "  \
      "rma, sync, coll, part (partitioned transfers), launch, or all; a leading ^ logs "   \
      "all but those named. Errors are always logged.")                                     \
    X(DEBUG_FILE, STRING, "",                                                               \
      "Send log lines to this file (%h: host name, %p: process id); errors also go to "     \
      "stderr.")                                                                            \
    X(BOOTSTRAP, STRING, "auto",                                                            \
      "How PEs find each other: auto (PMIx under a PMIx server, else gshmrun's "            \
      "environment, else a single PE), pmix, uid, or mpi (MPI_COMM_WORLD of the MPI "       \
      "library the program runs, Open MPI or one of MPICH's family, after its MPI_Init).")  \
    X(BOOTSTRAP_TIMEOUT, SECONDS, "60",                                                     \
      "Deadline of every bootstrap receive, in seconds: a PE that dies or never arrives "   \
      "during initialisation is reported, not waited for.")                                 \
    X(BOOTSTRAP_IFNAME, STRING, "",                                                         \
      "Network interface (or prefix) of the uid bootstrap's sockets; default: loopback "    \
      "under gshmrun, else the first interface that is up and not loopback.")               \
    X(BOOTSTRAP_FAMILY, STRING, "auto",                                                     \
      "Address family of the uid bootstrap: auto, ipv4 or ipv6.")                           \
    X(SYMMETRIC_SIZE, SIZE, "1g",                                                           \
      "Initial size of each PE's symmetric heap; it grows on demand up to GSHMEM_MAX_HEAP.") \
    X(MAX_HEAP, SIZE, "64g",                                                                \
      "Largest size each PE's symmetric heap may grow to (address space reserved at "       \
      "init, not memory).")                                                                 \
    X(SYMMETRIC_DATA, BOOL, "1",                                                            \
      "Make the program's global and static variables symmetric (OpenSHMEM): at init the "  \
      "executable's data and bss move in place onto shared memory, mapped by node-local "   \
      "peers and reached through the transport by the others. 0 leaves them private.")      \
    X(HEAP, STRING, "auto",                                                                 \
      "Memory of the symmetric heap: auto (device when a usable GPU exists, except for "     \
      "OpenSHMEM programs, whose shmem_init asks for host), device or host.")                \
    X(DEVICE, INT, "-1",                                                                    \
      "GPU of this PE (an ordinal among those the process sees); default: the device the "  \
      "application made current before gshmem_init, else the local rank modulo the count.") \
    X(CUMEM_HANDLE, STRING, "posix",                                                        \
      "How GPU heap chunks are shared between processes: posix (file descriptors over "    \
      "Unix sockets) or fabric (fabric handles, where the driver offers them).")           \
    X(DISABLE_P2P, BOOL, "0",                                                               \
      "Map no peer's heap: every other PE is reached through the proxy path (the same on "  \
      "every PE: gshmem_init compares it).")                                                \
    X(TRANSPORT, STRING, "auto",                                                            \
      "How PEs whose heaps are not mapped are reached: auto (the best available), tcp, or " \
      "ibrc (libibverbs RC queue pairs). auto takes ibrc where every PE has an RDMA "       \
      "device that can be given its heap (for the GPU heap: dma-buf or nvidia_peermem).")   \
    X(HCA_LIST, STRING, "",                                                                 \
      "RDMA devices ibrc may use: comma-separated names or prefixes, each with an optional " \
      ":port; a leading ^ lists devices to leave out.  Of those allowed, the one closest to " \
      "the PE's GPU on the PCI tree (then on its NUMA node) is used, else the first.")      \
    X(IB_GID_INDEX, INT, "-1",                                                              \
      "GID index of the ibrc transport; default: the first IPv4-mapped GID (RoCE), else 0.") \
    X(IB_TIMEOUT, INT, "14", "Local ACK timeout exponent of ibrc queue pairs (4.096 us * 2^n).") \
    X(IB_RETRY_CNT, INT, "7", "Retries of ibrc queue pairs before a peer is given up.")      \
    X(TCP_IFNAME, STRING, "",                                                               \
      "Network interface (or prefix) of the tcp transport; default: as the bootstrap's.")   \
    X(HEARTBEAT_TIMEOUT, SECONDS, "6",                                                      \
      "A peer on a network transport that sends nothing (not even its heartbeat, every "    \
      "second) for this long once it has been heard (before, GSHMEM_BOOTSTRAP_TIMEOUT) "    \
      "is lost: every PE connected to it ends, naming it; so is a "                         \
      "node-local peer stopped (SIGSTOP, SIGTSTP; not a debugger's stop) this long while "  \
      "a PE waits for it.")                                                                 \
    X(TIMEOUT, SECONDS, "300",                                                              \
      "Deadline of every blocking wait (wait_until, barriers, ...), in seconds; 0 waits "   \
      "forever. A wait past it ends the job with a message naming the call and values.")    \
    X(MAX_TEAMS, INT, "64",                                                                \
      "Teams that may exist at once, the predefined ones (world, shared, node, same-mype-" \
      "node) included: 4 to 127.")                                                         \
    X(PARTITION_FLAGS, INT, "8192",                                                         \
      "Words of each PE's pool for partitioned transfers (gshmemx_psend_init and "           \
      "gshmemx_precv_init): a receive holds one per partition (two, and one more, where "   \
      "partitions of 1-8 bytes go as flag packets), a send one; from 1 to 16777216, taken " \
      "from the symmetric heap at init.")                                                   \
    X(PARTITION_CE_MIN, SIZE, "2m",                                                         \
      "Partitions of a send at least this large, to a PE whose GPU heap this PE maps, are " \
      "moved by the copy engines: a kernel's ready call marks them and returns at once, "   \
      "and the library's progress thread starts each copy and its flag (in a send of 32 "   \
      "partitions or more, only partitions of four times this and more). The others are " \
      "moved by the calling thread, warp or block with stores. 0: never.")                 \
    X(PARTITION_CHUNK, SIZE, "128k",                                                        \
      "Partitions of a send moved by stores to a PE whose GPU heap this PE maps (not by "   \
      "the copy engines: GSHMEM_PARTITION_CE_MIN), of 16 times this or more, go in "        \
      "chunks of this size: the group whose ready call marks one and the blocks of the "    \
      "round's gshmemx_pwait_on_stream, which start beside the producer's end, take its "   \
      "chunks in turn. 0: each partition whole, by the group that readies it.")             \
    X(COLL_ALGO, STRING, "auto",                                                            \
      "Algorithm of the collectives, for benchmarking: auto (by size and peers: flag "      \
      "packets in kernels up to GSHMEM_COLL_LL_MAX bytes per member and in stream order up " \
      "to GSHMEM_COLL_LL_STREAM_MAX on teams whose members are all mapped, then, in stream " \
      "order, many blocks from GSHMEM_COLL_GRID_MIN bytes; host forms on the host heap one-shot, puts with signals " \
      "into the team's area, up to GSHMEM_COLL_LL_MAX, 2 KiB moved a member where all are "  \
      "mapped, and through the transport beyond that, up to sizes set per collective, "    \
      "pipelined: hierarchical where the team spans nodes, else ring, chain or direct "      \
      "puts with signals; fcollect and the scans of teams of more than 32 members through " \
      "the transport by recursive doubling where the team's area holds them in up to two "  \
      "rounds, alltoall on its steps (Bruck's) where the area holds every step's blocks, "   \
      "and broadcast on its steps up to one-shot's capacity on teams through the "           \
      "transport that the hierarchical forms do not take, jobs of up to 128 PEs), simple "  \
      "(barrier, "                                                                           \
      "move, barrier), ll (flag packets and one-shot wherever they fit), push (pushed "       \
      "reductions and broadcasts in stream order wherever they fit), grid (many blocks "     \
      "in stream order wherever they apply), ring (host forms on the host heap: the "        \
      "pipelined ring, chain and direct forms at every size, mapped peers too), hier (as "  \
      "ring, with the hierarchical forms of fcollect, collect, broadcast and alltoall on "   \
      "teams that span nodes) or doubling (as auto, with fcollect, reduce and the scans of " \
      "the host forms on the host heap by recursive doubling wherever the team's area "     \
      "holds every member's piece, alltoall on its steps where it holds every step's "     \
      "blocks, and broadcast on its steps at any size, mapped peers "                        \
      "too).")                                                                               \
    X(COLL_LL_MAX, SIZE, "16k",                                                             \
      "Largest payload per member that collectives carry in flag packets (data and flag "    \
      "in one 16-byte store, no barrier) or, host forms on the host heap, in one-shot puts " \
      "with signals; capped by the teams' areas (on the GPU heap 256 KiB at 2 PEs, 64 KiB " \
      "at 8, less beyond; 32 KiB over the PEs on the host heap).")                          \
    X(COLL_LL_STREAM_MAX, SIZE, "256k",                                                     \
      "Largest payload per member that collectives in stream order carry in flag packets, " \
      "a share of the packets on each of up to 32 blocks, on teams of up to 8 members all " \
      "mapped (at least GSHMEM_COLL_LL_MAX).  The teams' areas on the GPU heap are sized " \
      "for it, up to 2 MiB of packets each (256 KiB of payload a member at 2 PEs, 128 KiB " \
      "at 4, 64 KiB at 8, less beyond; all 2 MiB with GSHMEM_COLL_ALGO=ll, 512 KiB with "  \
      "simple or grid), and it is capped there.")                                           \
    X(COLL_PUSH_MAX, SIZE, "4m",                                                            \
      "Largest payload per member that reductions, reducescatters and broadcasts in "       \
      "stream order push straight into the receivers' buffers past the flag packets' "      \
      "sizes (no meeting, no reads from peers), on teams of up to 8 members that all map "  \
      "each other and have a push area: the world team (or, where its PEs do not all map "  \
      "each other, the node team) and the teams in the first GSHMEM_COLL_PUSH_TEAMS split "  \
      "slots. Each area "                                                                      \
      "holds up to 16 MiB of slots on the GPU heap (8 MiB over the other members of the "   \
      "largest team: 4 MiB a member at 2 PEs, 2.6 at 4, 1.1 at 8; a smaller team's "        \
      "members get more, up to this), in whole pages. 0: none (the grid algorithm).")       \
    X(COLL_PUSH_TEAMS, INT, "2",                                                            \
      "Split teams' slots, from the first, that have a push area of their own "             \
      "(GSHMEM_COLL_PUSH_MAX): 0 to 8. A strided split takes the lowest slot free on its "  \
      "members, so the groups of one split (say every tensor-parallel group) share a slot " \
      "and the next family of groups takes the next. Each area costs up to 16 MiB of the " \
      "GPU heap on every PE, where some team of its PEs can push.")                         \
    X(COLL_GRID_MIN, SIZE, "32k",                                                           \
      "Smallest payload per member for which a collective in stream order runs on many "    \
      "blocks (two-shot reductions, direct all-push moves).")                              \
    X(STREAM_PDL, BOOL, "1",                                                                \
      "Launch gshmem's kernels in stream order (collectives, barriers, waits, signals, "    \
      "puts and gets through the proxy, and the host's atomics on GPU memory) with "        \
      "programmatic dependent launch, on GPUs of compute capability 9.0 and later with a "  \
      "build for them (gpu_arch sm_90 or later): each is set up while the kernel before "   \
      "it on the stream ends, and waits for that one's completion and memory before its "   \
      "first access. 0 launches them plainly, for comparison.")                              \
    X(DEBUG_CHECKS, BOOL, "0",                                                              \
      "Kernels check every device call's PE, heap bounds and atomic alignment, and every " \
      "collective (host, stream and device forms) that its members passed the same kind, " \
      "size and root, and the host and stream reductions the same element type (two more " \
      "team barriers a call; a stream form captured into a CUDA graph is checked once, at " \
      "the call), and every stream collective that its team still holds the slot it was " \
      "enqueued on (a CUDA graph replayed after gshmem_team_destroy), and every device "   \
      "collective that dest overlaps source only as its in-place form allows (the host "   \
      "and stream forms always check); a failed check ends the job naming the call, the "  \
      "PE and what differs.")                                                               \
    X(TEST_SIM_NODES, INT, "0",                                                            \
      "For tests: split each node's PEs into this many simulated nodes, in blocks of "      \
      "consecutive PEs (where they do not divide evenly, the first blocks have one more). " \
      "Each maps only its own node's heaps and reaches the others through the transport; " \
      "GSHMEMX_TEAM_NODE and local ranks follow. 0 or 1: no split.")                        \
    X(TEST_SIM_CYCLIC, BOOL, "0",                                                           \
      "For tests, with GSHMEM_TEST_SIM_NODES: a machine's PEs go to the simulated nodes in " \
      "turn (its PE i to node i mod GSHMEM_TEST_SIM_NODES), as a launcher that places "    \
      "ranks round robin over nodes does (mpirun --map-by node, srun "                     \
      "--distribution=cyclic), so that a node's PEs are not consecutive in the world. The " \
      "same on every PE.")                                                                  \
    X(TEST_ONESHOT_MEMBERS, INT, "0",                                                       \
      "For tests: the most members of a team through the transport whose host "             \
      "collectives go one-shot (0: 32), so that what auto does beyond, recursive doubling " \
      "among it, runs at a few PEs. The same on every PE.")                                 \
    X(TEST_UNMAPPED, STRING, "",                                                            \
      "For tests: pairs of PEs of one node that do not map each other's heaps and reach "   \
      "each other through the transport, as 0-1,2-3: P2P that does not reach every GPU of " \
      "a node, where two PEs may map a third but not each other. The same on every PE.")  \
    X(LAUNCH_UNIQUEID, STRING, "", "Set by gshmrun: the job's unique id.")                  \
    X(LAUNCH_RANK, INT, "-1", "Set by gshmrun: this process's PE number.")                  \
    X(LAUNCH_SIZE, INT, "0", "Set by gshmrun: the number of PEs.")                          \
    X(LAUNCH_CTRL_FD, INT, "-1", "Set by gshmrun: descriptor on which a PE reports an abort.")

#endif
