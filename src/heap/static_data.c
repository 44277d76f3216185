/* The executable's writable segment moved onto a memfd in place, so that
 * node-local peers can map it and the transports can reach it (see
 * static_data.h). */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gshmem.h>

#include "bootstrap/bootstrap.h"
#include "core/env.h"
#include "core/log.h"
#include "core/runtime.h"
#include "heap/static_data.h"

struct gshmemi_static_data gshmemi_static;

/* What the move found and made, from init to finalize. */
static struct {
    char *start;         /* page-aligned */
    size_t size;         /* whole pages */
    uint64_t link_off;   /* start minus the executable's load bias */
    int fd;              /* the memfd now backing [start, start + size) */
} seg = {.fd = -1};

struct found {
    uintptr_t lo, hi;        /* the writable PT_LOAD, in memory */
    uintptr_t file_hi;       /* its end of file-backed bytes */
    uintptr_t relro_hi;      /* end of PT_GNU_RELRO inside it, or 0 */
    uintptr_t bias;
    int n_writable;
};

static int find_main(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct found *f = arg;
    (void)size;
    /* The first object is the executable. */
    f->bias = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
            if (f->n_writable++ == 0) {
                f->lo = info->dlpi_addr + ph->p_vaddr;
                f->hi = f->lo + ph->p_memsz;
                f->file_hi = f->lo + ph->p_filesz;
            }
        }
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_GNU_RELRO && f->n_writable > 0 && lo >= f->lo && lo < f->hi)
            f->relro_hi = lo + ph->p_memsz;
    }
    return 1;
}

/* Whether every page of [lo, hi) is private, readable and writable memory
 * (what the segment should be; anything else is left alone). */
static int plain_rw(uintptr_t lo, uintptr_t hi)
{
    FILE *m = fopen("/proc/self/maps", "r");
    char line[512];
    uintptr_t covered = lo;
    if (m == NULL)
        return 0;
    while (covered < hi && fgets(line, sizeof(line), m) != NULL) {
        unsigned long a, b;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) != 3 || b <= covered || a >= hi)
            continue;
        if (a > covered || strcmp(perms, "rw-p") != 0)
            break;
        covered = b;
    }
    fclose(m);
    return covered >= hi;
}

/* Whether the anonymous page at p was ever touched (present or swapped;
 * an untouched one reads as zeros): /proc/self/pagemap, else assume so. */
static int page_touched(int pagemap, const char *p, size_t page)
{
    uint64_t e;
    if (pagemap < 0 ||
        pread(pagemap, &e, sizeof(e), (off_t)((uintptr_t)p / page * sizeof(e))) != sizeof(e))
        return 1;
    return (e >> 62) != 0; /* bit 63 present, bit 62 swapped */
}

/* Copies whole pages of the program's data as they are.  Under
 * AddressSanitizer the redzones between its global variables lie in them,
 * and reading those is no error here (the sanitizer's shadow describes the
 * same addresses after the move); ThreadSanitizer's runtime keeps state in
 * them.  So: uninstrumented, word by word, through volatile so that the
 * loop does not become a call to the sanitizers' memcpy. */
__attribute__((no_sanitize("address", "thread"))) static void
copy_pages(char *dst, const char *src, size_t len)
{
    volatile uint64_t *d = (volatile uint64_t *)(void *)dst;
    const volatile uint64_t *s = (const volatile uint64_t *)(const void *)src;
    for (size_t i = 0; i < len / sizeof(uint64_t); i++)
        d[i] = s[i];
}

/* Puts private pages with the memfd's contents back in place of it and
 * closes it; 0, or -1 where no memory could be had (the segment stays). */
static int unshare_segment(void)
{
    void *tmp = mmap(NULL, seg.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tmp == MAP_FAILED)
        return -1;
    /* Only the memfd's allocated ranges: the holes are zeros already. */
    for (off_t at = 0; at < (off_t)seg.size;) {
        off_t data = lseek(seg.fd, at, SEEK_DATA);
        if (data < 0)
            break;
        off_t hole = lseek(seg.fd, data, SEEK_HOLE);
        if (hole < 0 || hole > (off_t)seg.size)
            hole = (off_t)seg.size;
        copy_pages((char *)tmp + data, seg.start + data, (size_t)(hole - data));
        at = hole;
    }
    if (mremap(tmp, seg.size, seg.size, MREMAP_MAYMOVE | MREMAP_FIXED, seg.start) == MAP_FAILED) {
        munmap(tmp, seg.size);
        return -1;
    }
    close(seg.fd);
    seg.fd = -1;
    return 0;
}

/* In a child of fork: the segment must not stay shared with the parent.
 * The child has one thread, so moving private pages in is safe. */
static void privatize_in_child(void)
{
    if (seg.fd < 0)
        return;
    if (unshare_segment() != 0)
        _exit(GSHMEMI_EXIT_ERROR);
    memset(&gshmemi_static, 0, sizeof(gshmemi_static));
}

static int move_segment(const struct found *f, size_t page, char *why, size_t why_len)
{
    /* glibc makes the whole pages below the RELRO end read-only; the page
     * it ends in stays writable, and is where the movable part begins. */
    uintptr_t lo = (f->relro_hi > f->lo ? f->relro_hi : f->lo) / page * page;
    uintptr_t hi = (f->hi + page - 1) / page * page;
    uintptr_t file_hi = (f->file_hi + page - 1) / page * page;
    size_t size = hi - lo;
    int fd, pagemap;
    char *tmp;

    if (hi <= lo) {
        snprintf(why, why_len, "the executable has no writable data after its read-only part");
        return -1;
    }
    if (!plain_rw(lo, hi)) {
        snprintf(why, why_len, "its data segment [%#lx, %#lx) is not all private writable memory",
                 (unsigned long)lo, (unsigned long)hi);
        return -1;
    }
    fd = memfd_create("gshmem-static-data", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        snprintf(why, why_len, "cannot make a %zu-byte memfd: %s", size, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    tmp = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED) {
        snprintf(why, why_len, "cannot map a %zu-byte memfd: %s", size, strerror(errno));
        close(fd);
        return -1;
    }
    /* The file-backed part whole; of the zero-filled rest (.bss) only the
     * pages ever touched, so a large untouched array costs no memory. */
    pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    for (uintptr_t p = lo; p < hi; p += page)
        if (p < file_hi || page_touched(pagemap, (const char *)p, page))
            copy_pages(tmp + (p - lo), (const char *)p, page);
    if (pagemap >= 0)
        close(pagemap);
    /* One step from the old pages to the new: the range is never unmapped. */
    if (mremap(tmp, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) == MAP_FAILED) {
        snprintf(why, why_len, "cannot move the memfd onto the data segment: %s", strerror(errno));
        munmap(tmp, size);
        close(fd);
        return -1;
    }
    seg.start = (char *)lo;
    seg.size = size;
    seg.link_off = lo - f->bias;
    seg.fd = fd;
    return 0;
}

void gshmemi_static_move(void)
{
    struct found f;
    long page = sysconf(_SC_PAGESIZE);
    char why[160];

    static int at_fork;
    gshmemi_static.why_not[0] = '\0';
    if (seg.fd >= 0) /* still moved: a finalize could not put it back */
        return;
    if (!gshmemi_env.SYMMETRIC_DATA) {
        snprintf(gshmemi_static.why_not, sizeof(gshmemi_static.why_not),
                 "GSHMEM_SYMMETRIC_DATA is 0");
        return;
    }
    /* ThreadSanitizer's runtime keeps its state in the program's data
     * segment and writes it from a thread of its own at any moment: a write
     * between the copy and the remap below would be lost, and the runtime
     * crash later (seen in about one run of 30). */
    if (dlsym(RTLD_DEFAULT, "__tsan_init") != NULL) {
        snprintf(gshmemi_static.why_not, sizeof(gshmemi_static.why_not),
                 "ThreadSanitizer is in this process, whose thread writes the data segment "
                 "that would be moved");
        GSHMEMI_INFO(HEAP, "the program's global and static variables stay private: %s",
                     gshmemi_static.why_not);
        return;
    }
    memset(&f, 0, sizeof(f));
    dl_iterate_phdr(find_main, &f);
    if (f.n_writable == 0)
        snprintf(why, sizeof(why), "the executable has no writable segment");
    else if (move_segment(&f, (size_t)page, why, sizeof(why)) == 0) {
        if (!at_fork++)
            pthread_atfork(NULL, NULL, privatize_in_child);
        GSHMEMI_INFO(HEAP, "the program's static data [%p, +%zu) is on shared memory%s",
                     (void *)seg.start, seg.size,
                     f.n_writable > 1 ? " (only the first of its writable segments)" : "");
        return;
    }
    GSHMEMI_WARN(HEAP, "the program's global and static variables stay private (not symmetric): %s",
                 why);
    snprintf(gshmemi_static.why_not, sizeof(gshmemi_static.why_not), "%s", why);
}

/* What each PE tells the others: the segments must match for offsets to
 * name the same variables. */
struct seg_info {
    uint64_t moved;
    uint64_t size;
    uint64_t link_off;
};

int gshmemi_static_share(void)
{
    struct gshmemi_static_data *s = &gshmemi_static;
    const struct gshmemi_heap *h = &gshmemi_heap;
    const int n_pes = gshmemi_rt.n_pes, me = gshmemi_rt.my_pe;
    struct seg_info mine = {seg.fd >= 0, seg.size, seg.link_off}, *all;
    int *fds = NULL, st;

    s->base = NULL;
    s->size = 0;
    s->peer_base = calloc((size_t)n_pes, sizeof(char *));
    all = malloc(sizeof(*all) * (size_t)n_pes);
    if (s->peer_base == NULL || all == NULL) {
        free(all);
        free(s->peer_base);
        s->peer_base = NULL;
        return GSHMEM_ERR_NO_MEMORY;
    }
    st = gshmemi_rt.bs->ops->allgather(gshmemi_rt.bs, &mine, all, sizeof(mine));
    if (st != 0)
        goto out;
    for (int pe = 0; pe < n_pes; pe++) {
        if (!all[pe].moved) {
            if (s->why_not[0] == '\0')
                snprintf(s->why_not, sizeof(s->why_not), "pe %d could not move its static data "
                         "onto shared memory (its log says why)", pe);
            goto out; /* not symmetric: every PE sees the same and says so on use */
        }
        if (all[pe].size != mine.size || all[pe].link_off != mine.link_off) {
            snprintf(s->why_not, sizeof(s->why_not), "pe %d's data segment (%llu bytes at link "
                     "offset %#llx) differs from this pe's (%zu at %#llx): not the same program",
                     pe, (unsigned long long)all[pe].size, (unsigned long long)all[pe].link_off,
                     seg.size, (unsigned long long)seg.link_off);
            goto out;
        }
    }
    s->why_not[0] = '\0';
    s->base = seg.start;
    s->peer_base[me] = seg.start;
    if (h->n_mapped_peers > 0) {
        fds = malloc(sizeof(int) * (size_t)h->n_mapped_peers);
        if (fds == NULL) {
            st = GSHMEM_ERR_NO_MEMORY;
            goto out;
        }
        const int got = gshmemi_fdx_exchange(&gshmemi_heap.fdx, seg.fd, UINT64_MAX - 1,
                                             h->mapped_peers, h->n_mapped_peers, fds,
                                             gshmemi_env.BOOTSTRAP_TIMEOUT);
        st = got;
        for (int i = 0; st == 0 && i < h->n_mapped_peers; i++) {
            void *p = mmap(NULL, seg.size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
            if (p == MAP_FAILED) {
                GSHMEMI_ERROR(HEAP, "cannot map pe %d's static data (%zu bytes): %s",
                              h->mapped_peers[i], seg.size, strerror(errno));
                st = GSHMEM_ERR_NO_MEMORY;
            } else
                s->peer_base[h->mapped_peers[i]] = p;
        }
        for (int i = 0; got == 0 && i < h->n_mapped_peers; i++) /* the mappings hold them */
            close(fds[i]);
        if (st != 0)
            goto out;
    }
    s->size = seg.size;
    GSHMEMI_INFO(HEAP, "static data symmetric: %zu bytes, mapped for %d peers", seg.size,
                 h->n_mapped_peers);
out:
    free(fds);
    free(all);
    if (st != 0)
        gshmemi_static_fini();
    return st;
}

void gshmemi_static_restore(void)
{
    if (seg.fd >= 0 && unshare_segment() != 0)
        GSHMEMI_WARN(HEAP, "the program's static data stays on shared memory after "
                     "gshmem_finalize: no memory to copy it back (%zu bytes)", seg.size);
}

void gshmemi_static_fini(void)
{
    struct gshmemi_static_data *s = &gshmemi_static;
    if (s->peer_base != NULL)
        for (int pe = 0; pe < gshmemi_rt.n_pes; pe++)
            if (s->peer_base[pe] != NULL && s->peer_base[pe] != seg.start)
                munmap(s->peer_base[pe], seg.size);
    free(s->peer_base);
    s->peer_base = NULL;
    s->base = NULL;
    s->size = 0;
}
