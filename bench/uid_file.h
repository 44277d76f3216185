// The baselines (NVSHMEM, NCCL) run under gshmrun, which only starts the
// processes: rank 0 makes the library's unique id and hands it to the other
// ranks through a file (written under a temporary name, then renamed, so
// nobody reads half of it).
#ifndef BENCH_UID_FILE_H
#define BENCH_UID_FILE_H

#include <cstdio>
#include <unistd.h>

// Rank 0 writes the `len` bytes at id (made beforehand); the other ranks
// wait for the file and read them into id.  Returns 0, or -1.
static int twin_uid_exchange(int rank, const char *file, void *id, size_t len)
{
    if (rank == 0) {
        char tmp[512];
        std::snprintf(tmp, sizeof(tmp), "%s.tmp", file);
        FILE *f = std::fopen(tmp, "wb");
        if (f == nullptr || std::fwrite(id, len, 1, f) != 1)
            return -1;
        std::fclose(f);
        return std::rename(tmp, file) == 0 ? 0 : -1;
    }
    FILE *f = nullptr;
    for (int waited = 0; (f = std::fopen(file, "rb")) == nullptr; waited++) {
        if (waited == 120000) // 2 minutes: rank 0 did not start
            return -1;
        usleep(1000);
    }
    const int ok = std::fread(id, len, 1, f) == 1;
    std::fclose(f);
    return ok ? 0 : -1;
}

#endif
