// The NVSHMEM twins run under gshmrun, which only starts the processes:
// rank 0 makes NVSHMEM's unique id and hands it to the others through a
// file (written under a temporary name, then renamed, so nobody reads half).
#ifndef BENCH_NVSHMEM_UID_FILE_H
#define BENCH_NVSHMEM_UID_FILE_H

#include <cstdio>
#include <unistd.h>

#include <nvshmemx.h>

// Returns 0 with *uid filled, or -1.
static int twin_uid_exchange(int rank, const char *file, nvshmemx_uniqueid_t *uid)
{
    if (rank == 0) {
        nvshmemx_get_uniqueid(uid);
        char tmp[512];
        std::snprintf(tmp, sizeof(tmp), "%s.tmp", file);
        FILE *f = std::fopen(tmp, "wb");
        if (f == nullptr || std::fwrite(uid, sizeof(*uid), 1, f) != 1)
            return -1;
        std::fclose(f);
        return std::rename(tmp, file) == 0 ? 0 : -1;
    }
    FILE *f = nullptr;
    while ((f = std::fopen(file, "rb")) == nullptr)
        usleep(1000);
    const int ok = std::fread(uid, sizeof(*uid), 1, f) == 1;
    std::fclose(f);
    return ok ? 0 : -1;
}

#endif
