// Kernels in modules the program loads itself with the driver API, as
// JIT-compiling frameworks do: gshmemx_cumodule_init (NVSHMEM's
// nvshmemx_cumodule_init) gives each module the device state, and
// gshmemx_culibrary_init each library's.  The modules: a fatbin of one
// unit, PTX of one unit (compiled by the driver), and two units built with
// -rdc as cubins and linked at run time; the library: a fatbin of one unit
// loaded with cuLibraryLoadFromFile.  Each
// unit's kernel puts to the next PE, into a block allocated before and one
// allocated after the modules' init past the heap's first size (the debug
// checks, on here, refuse it if a module missed the heap's growth); every
// value is checked, over two rounds with a finalize and init between.  The
// misuses return their errors.  Exit 77 without a GPU.
//
//   gshmrun -n 2 ./cumodule MODULE_DIR
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cuda.h>
#include <gshmem.h>
#include <gshmemx.h>

#include "gpu_check.h"

static int me;

static std::string read_file(const std::string &path)
{
    std::string s;
    FILE *f = std::fopen(path.c_str(), "rb");
    CHECK(f != nullptr, "cannot open %s", path.c_str());
    char b[4096];
    size_t n;
    while ((n = std::fread(b, 1, sizeof(b), f)) > 0)
        s.append(b, n);
    std::fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s MODULE_DIR\n", argv[0]);
        return 2;
    }
    if (gpu_count() == 0)
        return 77;
    setenv("GSHMEM_DEBUG_CHECKS", "1", 1);
    setenv("GSHMEM_SYMMETRIC_SIZE", "4m", 1); // so that the late block grows the heap
    int n, next, prev;
    init_ring(&me, &n, &next, &prev);
    const std::string dir = argv[1];

    auto load = DRIVER(cuModuleLoad);
    auto load_data = DRIVER(cuModuleLoadData);
    auto unload = DRIVER(cuModuleUnload);
    auto get_function = DRIVER(cuModuleGetFunction);
    auto launch = DRIVER(cuLaunchKernel);
    auto link_create = DRIVER(cuLinkCreate);
    auto link_add = DRIVER(cuLinkAddFile);
    auto link_complete = DRIVER(cuLinkComplete);
    auto link_destroy = DRIVER(cuLinkDestroy);
    auto library_load = DRIVER(cuLibraryLoadFromFile);
    auto library_module = DRIVER(cuLibraryGetModule);
    auto library_unload = DRIVER(cuLibraryUnload);
    CHECK(load && load_data && unload && get_function && launch && link_create && link_add &&
              link_complete && link_destroy && library_load && library_module && library_unload,
          "a driver entry point is missing");

    CUmodule whole, ptx, linked, plain;
    CHECK(load(&whole, (dir + "/cumodule_whole.fatbin").c_str()) == CUDA_SUCCESS, "fatbin");
    const std::string ptx_text = read_file(dir + "/cumodule_ptx.ptx");
    CHECK(load_data(&ptx, ptx_text.c_str()) == CUDA_SUCCESS, "PTX");
    CUlinkState ls;
    void *image;
    size_t image_bytes;
    CHECK(link_create(0, nullptr, nullptr, &ls) == CUDA_SUCCESS, "cuLinkCreate");
    for (const char *f : {"/cumodule_rdc1.cubin", "/cumodule_rdc2.cubin"})
        CHECK(link_add(ls, CU_JIT_INPUT_CUBIN, (dir + f).c_str(), 0, nullptr, nullptr) ==
                  CUDA_SUCCESS, "cuLinkAddFile %s", f);
    CHECK(link_complete(ls, &image, &image_bytes) == CUDA_SUCCESS, "cuLinkComplete");
    CHECK(load_data(&linked, image) == CUDA_SUCCESS, "the linked module");
    link_destroy(ls);
    // a module with no gshmem in it
    const char *plain_ptx = ".version 7.0\n.target sm_50\n.address_size 64\n"
                            ".visible .entry nothing()\n{\n ret;\n}\n";
    CHECK(load_data(&plain, plain_ptx) == CUDA_SUCCESS, "the plain module");
    CUlibrary lib;
    CUmodule lib_mod;
    CHECK(library_load(&lib, (dir + "/cumodule_library.fatbin").c_str(), nullptr, nullptr, 0,
                       nullptr, nullptr, 0) == CUDA_SUCCESS, "cuLibraryLoadFromFile");
    CHECK(library_module(&lib_mod, lib) == CUDA_SUCCESS, "cuLibraryGetModule");

    // misuse
    int misuse = 0;
    CHECK(gshmemx_cumodule_init(nullptr) == GSHMEM_ERR_INVALID_ARG, "init(NULL)");
    CHECK(gshmemx_cumodule_init(plain) == GSHMEM_ERR_INVALID_ARG, "a module without gshmem");
    CHECK(gshmemx_cumodule_finalize(whole) == GSHMEM_ERR_INVALID_ARG, "finalize before init");
    CHECK(gshmemx_culibrary_init(nullptr) == GSHMEM_ERR_INVALID_ARG, "culibrary_init(NULL)");
    misuse += 4;

    struct {
        CUmodule mod;
        int unit;
    } units[] = {{whole, 0}, {ptx, 3}, {linked, 1}, {linked, 2}, {lib_mod, 4}};
    const int n_units = 5, late_bytes = 8 << 20;
    for (CUmodule m : {whole, ptx, linked})
        CHECK(gshmemx_cumodule_init(m) == 0, "gshmemx_cumodule_init");
    CHECK(gshmemx_culibrary_init(lib) == 0, "gshmemx_culibrary_init");
    int *buf = static_cast<int *>(gshmem_calloc(n_units, sizeof(int)));
    char *big = static_cast<char *>(gshmem_malloc(late_bytes));
    int *late = reinterpret_cast<int *>(big + late_bytes - 64);
    CHECK(reinterpret_cast<char *>(late) > reinterpret_cast<char *>(buf) + (4 << 20),
          "the late block lies in the heap's first 4 MiB");
    int *out;
    CUDA(cudaMalloc(&out, 2 * n_units * sizeof(int)));
    int checks = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 1) { // finalize and init again: the state comes back
            CHECK(gshmemx_cumodule_finalize(whole) == 0, "finalize");
            CHECK(gshmemx_cumodule_init(whole) == 0, "init again");
        }
        CUDA(cudaMemset(out, 0xff, 2 * n_units * sizeof(int)));
        gshmem_barrier_all();
        for (auto &u : units) {
            CUfunction f;
            const std::string name = "unit_put_" + std::to_string(u.unit);
            CHECK(get_function(&f, u.mod, name.c_str()) == CUDA_SUCCESS, "%s", name.c_str());
            void *args[] = {&buf, &late, &round, &out};
            CHECK(launch(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr) == CUDA_SUCCESS,
                  "launch %s", name.c_str());
            CUDA(cudaDeviceSynchronize());
        }
        gshmem_barrier_all();
        int seen[2 * n_units], got[n_units], got_late[n_units];
        CUDA(cudaMemcpy(seen, out, sizeof(seen), cudaMemcpyDeviceToHost));
        gshmem_getmem(got, buf, sizeof(got), me);
        gshmem_getmem(got_late, late, sizeof(got_late), me);
        for (int u = 0; u < n_units; u++) {
            const int want = 1000 * (u + 1) + 10 * round + prev;
            CHECK(seen[2 * u] == me && seen[2 * u + 1] == n,
                  "round %d, unit %d: my pe %d of %d, expected %d of %d", round, u, seen[2 * u],
                  seen[2 * u + 1], me, n);
            CHECK(got[u] == want, "round %d, unit %d: buf %d, expected %d", round, u, got[u], want);
            CHECK(got_late[u] == want, "round %d, unit %d: late block %d, expected %d", round, u,
                  got_late[u], want);
            checks += 3;
        }
    }
    for (CUmodule m : {whole, ptx, linked})
        CHECK(gshmemx_cumodule_finalize(m) == 0, "finalize");
    CHECK(gshmemx_culibrary_finalize(lib) == 0, "culibrary finalize");
    for (CUmodule m : {whole, ptx, linked, plain})
        unload(m);
    library_unload(lib);
    CUDA(cudaFree(out));
    gshmem_free(big);
    gshmem_free(buf);
    gshmem_finalize();
    if (me == 0)
        std::printf("cumodule: %d PEs: 5 units in 3 loaded modules (fatbin, PTX, two -rdc cubins "
                    "linked at run time) and a library: %d values checked, %d misuses refused\n",
                    n, checks,
                    misuse);
    return 0;
}
