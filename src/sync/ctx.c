/* Contexts.  Every context shares the default one's resources today (one
 * completion scope per PE), so its quiet and fence are the PE's: they
 * complete at least the context's operations, as OpenSHMEM asks. */
#include <stdlib.h>

#include <gshmem.h>

#include "core/log.h"
#include "core/runtime.h"

#define CTX_MAGIC 0x63747831u /* "ctx1" */
#define CTX_OPTIONS (GSHMEM_CTX_SERIALIZED | GSHMEM_CTX_PRIVATE | GSHMEM_CTX_NOSTORE)

GSHMEM_API struct gshmemi_ctx gshmemi_ctx_default = {
    .options = 0, .team = GSHMEM_TEAM_WORLD, .magic = CTX_MAGIC};

/* Whether ctx is a live context; logs why not. */
static int ctx_check(const char *call, gshmem_ctx_t ctx)
{
    if (ctx == GSHMEM_CTX_INVALID) {
        GSHMEMI_ERROR(SYNC, "%s: the context is GSHMEM_CTX_INVALID", call);
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (ctx->magic != CTX_MAGIC) {
        GSHMEMI_ERROR(SYNC, "%s(%p): not a live context (destroyed, or never created)", call,
                      (void *)ctx);
        return GSHMEM_ERR_INVALID_ARG;
    }
    return 0;
}

GSHMEM_API void gshmemi_ctx_invalid(const char *call)
{
    GSHMEMI_ERROR(SYNC, "%s: the context is GSHMEM_CTX_INVALID", call);
    gshmemi_abort_job(GSHMEMI_EXIT_ERROR, call);
}

GSHMEM_API int gshmem_team_create_ctx(gshmem_team_t team, long options, gshmem_ctx_t *ctx)
{
    struct gshmemi_ctx *c;

    if (ctx == NULL) {
        GSHMEMI_ERROR(SYNC, "gshmem_team_create_ctx: ctx is NULL");
        return GSHMEM_ERR_INVALID_ARG;
    }
    *ctx = GSHMEM_CTX_INVALID;
    if (!gshmemi_rt.initialized) {
        GSHMEMI_ERROR(SYNC, "gshmem_team_create_ctx called before gshmem_init");
        return GSHMEM_ERR_NOT_INITIALIZED;
    }
    if ((options & ~CTX_OPTIONS) != 0) {
        GSHMEMI_ERROR(SYNC, "gshmem_team_create_ctx: unknown options %#lx (GSHMEM_CTX_SERIALIZED, "
                      "_PRIVATE and _NOSTORE are known)", options & ~CTX_OPTIONS);
        return GSHMEM_ERR_INVALID_ARG;
    }
    /* A team this PE is not in (or an invalid one) has no context. */
    if (team == GSHMEM_TEAM_INVALID || gshmem_team_my_pe(team) < 0)
        return GSHMEM_ERR_INVALID_ARG;
    c = malloc(sizeof(*c));
    if (c == NULL) {
        GSHMEMI_ERROR(SYNC, "gshmem_team_create_ctx: out of host memory");
        return GSHMEM_ERR_NO_MEMORY;
    }
    *c = (struct gshmemi_ctx){.options = options, .team = team, .magic = CTX_MAGIC};
    *ctx = c;
    return 0;
}

GSHMEM_API int gshmem_ctx_create(long options, gshmem_ctx_t *ctx)
{
    return gshmem_team_create_ctx(GSHMEM_TEAM_WORLD, options, ctx);
}

GSHMEM_API void gshmem_ctx_destroy(gshmem_ctx_t ctx)
{
    if (ctx == GSHMEM_CTX_INVALID) /* OpenSHMEM: no effect */
        return;
    if (ctx == GSHMEM_CTX_DEFAULT) {
        GSHMEMI_ERROR(SYNC, "gshmem_ctx_destroy: the default context cannot be destroyed");
        return;
    }
    if (ctx_check("gshmem_ctx_destroy", ctx) != 0)
        return;
    gshmem_quiet(); /* destroying a context completes its operations */
    ctx->magic = 0;
    free(ctx);
}

GSHMEM_API int gshmem_ctx_get_team(gshmem_ctx_t ctx, gshmem_team_t *team)
{
    if (team == NULL) {
        GSHMEMI_ERROR(SYNC, "gshmem_ctx_get_team: team is NULL");
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (ctx == GSHMEM_CTX_INVALID) {
        *team = GSHMEM_TEAM_INVALID;
        return GSHMEM_ERR_INVALID_ARG;
    }
    if (ctx_check("gshmem_ctx_get_team", ctx) != 0)
        return GSHMEM_ERR_INVALID_ARG;
    *team = ctx->team;
    return 0;
}

GSHMEM_API void gshmem_ctx_quiet(gshmem_ctx_t ctx)
{
    if (ctx_check("gshmem_ctx_quiet", ctx) != 0)
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "gshmem_ctx_quiet: bad context");
    gshmem_quiet();
}

GSHMEM_API void gshmem_ctx_fence(gshmem_ctx_t ctx)
{
    if (ctx_check("gshmem_ctx_fence", ctx) != 0)
        gshmemi_abort_job(GSHMEMI_EXIT_ERROR, "gshmem_ctx_fence: bad context");
    gshmem_fence();
}
