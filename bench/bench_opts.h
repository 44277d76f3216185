// What every benchmark's host side shares, whatever library it measures:
// its options ("--name value"), and the launch facts gshmrun gives each
// process.
#ifndef GSHMEM_BENCH_OPTS_H
#define GSHMEM_BENCH_OPTS_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// A file name both ranks of one gshmrun job agree on and no other job uses:
// the launch's unique id is per job.
static inline void bench_job_file(char *buf, size_t len, const char *what)
{
    const char *id = std::getenv("GSHMEM_LAUNCH_UNIQUEID");
    unsigned long h = 5381;
    for (const char *p = id != nullptr ? id : ""; *p != '\0'; p++)
        h = h * 33 + (unsigned char)*p;
    std::snprintf(buf, len, "/tmp/gshmem-bench-%s-%lx", what, h);
}

static inline int bench_env_int(const char *name)
{
    const char *v = std::getenv(name);
    if (v == nullptr) {
        std::fprintf(stderr, "%s is not set: start the benchmark with gshmrun\n", name);
        std::exit(2);
    }
    return std::atoi(v);
}

// "--name value" options: the value of --name, or def.
static inline const char *bench_opt(int argc, char **argv, const char *name, const char *def)
{
    for (int i = 1; i + 1 < argc; i++)
        if (std::strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return def;
}

static inline size_t bench_opt_size(int argc, char **argv, const char *name, size_t def)
{
    const char *v = bench_opt(argc, argv, name, nullptr);
    return v != nullptr ? (size_t)std::strtoull(v, nullptr, 0) : def;
}

// A comma list of numbers ("--name 1,2,4"): the option's, else def's
// (def may be nullptr: an empty list).
static inline std::vector<unsigned long long> bench_opt_list(int argc, char **argv, const char *name,
                                                             const char *def)
{
    std::vector<unsigned long long> out;
    const char *v = bench_opt(argc, argv, name, def);
    for (const char *p = v != nullptr ? v : ""; *p != '\0';) {
        char *e;
        out.push_back(std::strtoull(p, &e, 0));
        if (e == p) {
            std::fprintf(stderr, "%s: not a comma list of numbers: %s\n", name, v);
            std::exit(2);
        }
        p = *e == ',' ? e + 1 : e;
    }
    return out;
}

// Whether `word` is allowed by the option's value: "all" or a comma list.
static inline bool bench_pick(int argc, char **argv, const char *name, const char *word)
{
    const char *v = bench_opt(argc, argv, name, "all");
    if (std::strcmp(v, "all") == 0)
        return true;
    const size_t n = std::strlen(word);
    for (const char *p = v; *p != '\0';) {
        const char *e = std::strchr(p, ',');
        const size_t len = e != nullptr ? (size_t)(e - p) : std::strlen(p);
        if (len == n && std::strncmp(p, word, n) == 0)
            return true;
        p += len + (e != nullptr);
    }
    return false;
}

#endif
