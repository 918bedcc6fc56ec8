/*
 * mpi_comm.c - communicators: a group, two context ids, a name, an error
 * handler and attributes.
 *
 * Context ids keep communicators' messages apart: a new communicator's id
 * is the largest "next unused id" among the ranks that make it (one
 * collective over the parent, which also carries what MPI_Comm_split
 * needs), so no rank has used it for anything else.  Ids are never reused;
 * a node runs out after about 32,000 communicators.
 */
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mpi_internal.h"

/* User keyvals start here; below are the predefined attributes. */
#define MPI_KEYVAL_FIRST 16

mpi_comm_t *mpi_comm_get(MPI_Comm comm)
{
    if (comm <= MPI_COMM_NULL || comm >= mpi->ncomms) {
        return NULL;
    }
    return mpi->comms[comm];
}

void mpi_comm_release(mpi_comm_t *c)
{
    if (--c->refs == 0) {
        mpi_cart_free(c->cart);
        mpi_group_release(c->group);
        free(c->rank_of);
        free(c);
    }
}

/* A communicator of group g (whose reference it takes) with context ctx,
 * given a handle; NULL if out of memory. */
static mpi_comm_t *comm_new(mpi_group_t *g, uint16_t ctx, MPI_Comm *handle)
{
    mpi_comm_t *c = calloc(1, sizeof *c);
    int *rank_of = malloc((size_t)mpi->size * sizeof *rank_of);
    if (c == NULL || rank_of == NULL) {
        free(c);
        free(rank_of);
        mpi_group_release(g);
        return NULL;
    }
    for (int i = 0; i < mpi->size; i++) {
        rank_of[i] = -1;
    }
    for (int i = 0; i < g->size; i++) {
        rank_of[g->world[i]] = i;
    }
    *c = (mpi_comm_t){.refs = 1,
                      .ctx = ctx,
                      .rank = g->rank,
                      .size = g->size,
                      .group = g,
                      .rank_of = rank_of,
                      .errhandler = MPI_ERRORS_ARE_FATAL};
    int slot = -1;
    for (int i = MPI_COMM_SELF + 1; i < mpi->ncomms && slot < 0; i++) {
        if (mpi->comms[i] == NULL) {
            slot = i;
        }
    }
    if (slot < 0) {
        int n = mpi->ncomms < MPI_COMM_SELF + 1 ? MPI_COMM_SELF + 1
                                                : mpi->ncomms + 1;
        mpi_comm_t **comms = realloc(mpi->comms, (size_t)n * sizeof *comms);
        if (comms == NULL) {
            mpi_comm_release(c);
            return NULL;
        }
        for (int i = mpi->ncomms; i < n; i++) {
            comms[i] = NULL;
        }
        mpi->comms = comms;
        slot = n - 1;
        mpi->ncomms = n;
    }
    if (*handle != MPI_COMM_NULL) {
        slot = *handle; /* the predefined ones */
    }
    mpi->comms[slot] = c;
    c->handle = slot;
    *handle = slot;
    return c;
}

int mpi_comms_init(void)
{
    int *world = malloc((size_t)mpi->size * sizeof *world);
    int *self = malloc(sizeof *self);
    if (world == NULL || self == NULL) {
        free(world);
        free(self);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < mpi->size; i++) {
        world[i] = i;
    }
    self[0] = mpi->rank;
    mpi_group_t *gw = mpi_group_new(mpi->size, world);
    mpi_group_t *gs = mpi_group_new(1, self);
    MPI_Comm hw = MPI_COMM_WORLD, hs = MPI_COMM_SELF;
    mpi_comm_t *cw = gw != NULL ? comm_new(gw, MPI_CTX_WORLD, &hw) : NULL;
    mpi_comm_t *cs = gs != NULL ? comm_new(gs, MPI_CTX_SELF, &hs) : NULL;
    if (cw == NULL || cs == NULL) {
        return MPI_ERR_NO_MEM;
    }
    strcpy(cw->name, "MPI_COMM_WORLD");
    strcpy(cs->name, "MPI_COMM_SELF");
    mpi->next_ctx = MPI_CTX_FIRST;
    return MPI_SUCCESS;
}

static void attrs_delete(mpi_comm_t *c)
{
    while (c->attrs != NULL) {
        mpi_attr_t *a = c->attrs;
        c->attrs = a->next;
        const mpi_keyval_t *k = &mpi->keyvals[a->keyval - MPI_KEYVAL_FIRST];
        if (k->del != MPI_COMM_NULL_DELETE_FN) {
            k->del(c->handle, a->keyval, a->value, k->extra);
        }
        free(a);
    }
}

void mpi_comms_free(void)
{
    for (int i = 0; i < mpi->ncomms; i++) {
        mpi_comm_t *c = mpi->comms[i];
        if (c != NULL) {
            attrs_delete(c);
            c->handle = MPI_COMM_NULL;
            mpi->comms[i] = NULL;
            mpi_comm_release(c);
        }
    }
    free(mpi->comms);
    mpi->comms = NULL;
    mpi->ncomms = 0;
    free(mpi->keyvals);
    mpi->keyvals = NULL;
    mpi->nkeyvals = 0;
}

/* ---- making communicators --------------------------------------------- */

/* Takes the context id agreed (max): no rank has used it. */
static int ctx_take(const char *fn, unsigned agreed, uint16_t *ctx)
{
    if (agreed > MPI_CTX_MAX - 1) {
        return mpi_error(MPI_ERR_INTERN, "%s: out of context ids (more than "
                                         "%d communicators made)",
                         fn, MPI_CTX_MAX / 2);
    }
    *ctx = (uint16_t)agreed;
    if (mpi->next_ctx < agreed + 2) {
        mpi->next_ctx = (uint16_t)(agreed + 2);
    }
    return MPI_SUCCESS;
}

/* Copies c's attributes to n through their keyvals' copy functions. */
static int attrs_copy(const mpi_comm_t *c, mpi_comm_t *n)
{
    for (const mpi_attr_t *a = c->attrs; a != NULL; a = a->next) {
        const mpi_keyval_t *k = &mpi->keyvals[a->keyval - MPI_KEYVAL_FIRST];
        void *out = NULL;
        int flag = 0;
        if (k->copy != MPI_COMM_NULL_COPY_FN) {
            int r = k->copy(c->handle, a->keyval, k->extra, a->value, &out,
                            &flag);
            if (r != MPI_SUCCESS) {
                return r;
            }
        }
        if (flag) {
            mpi_attr_t *copy = malloc(sizeof *copy);
            if (copy == NULL) {
                return MPI_ERR_NO_MEM;
            }
            *copy = (mpi_attr_t){
                .next = n->attrs, .keyval = a->keyval, .value = out};
            n->attrs = copy;
        }
    }
    return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                    void *attribute_val_in, void *attribute_val_out,
                    int *flag)
{
    (void)oldcomm;
    (void)comm_keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* What each rank of the parent says when a communicator is made from it. */
typedef struct {
    int color, key;
    int next_ctx;
} comm_offer_t;

/* Gathers every rank's offer over c (a collective on c). */
static int offers_gather(const char *fn, MPI_Comm comm, const mpi_comm_t *c,
                         comm_offer_t mine, comm_offer_t **all_p)
{
    comm_offer_t *all = malloc((size_t)c->size * sizeof *all);
    if (all == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    int r = PMPI_Allgather(&mine, 3, MPI_INT, all, 3, MPI_INT, comm);
    if (r != MPI_SUCCESS) {
        free(all);
        return r;
    }
    *all_p = all;
    return MPI_SUCCESS;
}

static unsigned offers_max_ctx(const comm_offer_t *all, int n)
{
    unsigned m = 0;
    for (int i = 0; i < n; i++) {
        if ((unsigned)all[i].next_ctx > m) {
            m = (unsigned)all[i].next_ctx;
        }
    }
    return m;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_dup";
    mpi_comm_t *c;
    comm_offer_t *all;
    uint16_t ctx = 0;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS && newcomm == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL newcomm", fn);
    }
    if (r == MPI_SUCCESS) {
        r = offers_gather(fn, comm, c, (comm_offer_t){0, 0, mpi->next_ctx},
                          &all);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    r = ctx_take(fn, offers_max_ctx(all, c->size), &ctx);
    free(all);
    if (r != MPI_SUCCESS) {
        return r;
    }
    c->group->refs++;
    *newcomm = MPI_COMM_NULL;
    mpi_comm_t *n = comm_new(c->group, ctx, newcomm);
    if (n == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    n->errhandler = c->errhandler;
    n->cart = mpi_cart_copy(c->cart); /* a duplicate keeps the topology */
    if (c->cart != NULL && n->cart == NULL) {
        PMPI_Comm_free(newcomm);
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    r = attrs_copy(c, n);
    if (r != MPI_SUCCESS) {
        PMPI_Comm_free(newcomm);
        return mpi_error(r, "%s: an attribute's copy function failed", fn);
    }
    return MPI_SUCCESS;
}

/* Orders (key, parent rank). */
static int by_key(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : 1);
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split";
    mpi_comm_t *c;
    comm_offer_t *all;
    uint16_t ctx = 0;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS && newcomm == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL newcomm", fn);
    }
    if (r == MPI_SUCCESS && color < 0 && color != MPI_UNDEFINED) {
        r = mpi_error(MPI_ERR_ARG, "%s: color %d; expected >= 0 or "
                                   "MPI_UNDEFINED",
                      fn, color);
    }
    if (r == MPI_SUCCESS) {
        r = offers_gather(fn, comm, c,
                          (comm_offer_t){color, key, mpi->next_ctx}, &all);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    r = ctx_take(fn, offers_max_ctx(all, c->size), &ctx);
    *newcomm = MPI_COMM_NULL;
    if (r != MPI_SUCCESS || color == MPI_UNDEFINED) {
        free(all);
        return r;
    }
    /* (key, parent rank) of every rank of my color, in order */
    int *kr = malloc((size_t)c->size * 2 * sizeof *kr);
    int *world = malloc((size_t)c->size * sizeof *world);
    if (kr == NULL || world == NULL) {
        free(all);
        free(kr);
        free(world);
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    int n = 0;
    for (int i = 0; i < c->size; i++) {
        if (all[i].color == color) {
            kr[2 * n] = all[i].key;
            kr[2 * n + 1] = i;
            n++;
        }
    }
    free(all);
    qsort(kr, (size_t)n, 2 * sizeof *kr, by_key);
    for (int i = 0; i < n; i++) {
        world[i] = c->group->world[kr[2 * i + 1]];
    }
    free(kr);
    mpi_group_t *g = mpi_group_new(n, world);
    mpi_comm_t *nc = g != NULL ? comm_new(g, ctx, newcomm) : NULL;
    if (nc == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    nc->errhandler = c->errhandler;
    return MPI_SUCCESS;
}

/* Whether every member of g is a member of c. */
static int group_within(const mpi_group_t *g, const mpi_comm_t *c)
{
    for (int i = 0; i < g->size; i++) {
        if (c->rank_of[g->world[i]] < 0) {
            return 0;
        }
    }
    return 1;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create";
    mpi_comm_t *c;
    mpi_group_t *g = NULL;
    comm_offer_t *all;
    uint16_t ctx = 0;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS && newcomm == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL newcomm", fn);
    }
    if (r == MPI_SUCCESS && (g = mpi_group_get(group)) == NULL) {
        r = mpi_error(MPI_ERR_GROUP, "%s: group %d names no group", fn, group);
    }
    if (r == MPI_SUCCESS && !group_within(g, c)) {
        r = mpi_error(MPI_ERR_GROUP, "%s: the group has members outside the "
                                     "communicator",
                      fn);
    }
    if (r == MPI_SUCCESS) {
        r = offers_gather(fn, comm, c, (comm_offer_t){0, 0, mpi->next_ctx},
                          &all);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    r = ctx_take(fn, offers_max_ctx(all, c->size), &ctx);
    free(all);
    *newcomm = MPI_COMM_NULL;
    if (r != MPI_SUCCESS || g->rank == MPI_UNDEFINED) {
        return r;
    }
    g->refs++;
    mpi_comm_t *nc = comm_new(g, ctx, newcomm);
    if (nc == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    nc->errhandler = c->errhandler;
    return MPI_SUCCESS;
}

/* A blocking exchange on c's collective context between world ranks. */
static int exchange_int(const char *fn, const mpi_comm_t *c, int peer,
                        int tag, int sending, int *value)
{
    struct lci_mpi_request req = {.kind = sending ? MPI_REQ_SEND
                                                  : MPI_REQ_RECV,
                                  .internal = 1};
    int r = MPI_SUCCESS;
    if (sending) {
        r = mpi_send_start(fn, &req, (uint16_t)(c->ctx + 1), peer, tag, value,
                           sizeof *value, MPI_MODE_STANDARD);
    } else {
        mpi_recv_start(&req, (uint16_t)(c->ctx + 1), peer, tag, value,
                       sizeof *value);
    }
    if (r == MPI_SUCCESS) {
        r = mpi_request_wait(fn, &req);
    }
    return r;
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                           MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_group";
    mpi_comm_t *c;
    mpi_group_t *g = NULL;
    uint16_t ctx = 0;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS && newcomm == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL newcomm", fn);
    }
    if (r == MPI_SUCCESS && tag < 0) {
        r = mpi_error(MPI_ERR_TAG, "%s: tag %d is negative", fn, tag);
    }
    if (r == MPI_SUCCESS && (g = mpi_group_get(group)) == NULL) {
        r = mpi_error(MPI_ERR_GROUP, "%s: group %d names no group", fn, group);
    }
    if (r == MPI_SUCCESS && !group_within(g, c)) {
        r = mpi_error(MPI_ERR_GROUP, "%s: the group has members outside the "
                                     "communicator",
                      fn);
    }
    if (r == MPI_SUCCESS && g->rank == MPI_UNDEFINED) {
        r = mpi_error(MPI_ERR_GROUP, "%s: called by a rank outside the group",
                      fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    /* Only the group's members call: they agree through its first member,
     * on the parent's collective context with a tag of their own. */
    int wtag = MPI_TAG_CREATE_GROUP | (tag & MPI_TAG_COLL_MASK);
    int agreed = mpi->next_ctx;
    if (g->rank == 0) {
        for (int i = 1; i < g->size && r == MPI_SUCCESS; i++) {
            int theirs;
            r = exchange_int(fn, c, g->world[i], wtag, 0, &theirs);
            agreed = theirs > agreed ? theirs : agreed;
        }
        for (int i = 1; i < g->size && r == MPI_SUCCESS; i++) {
            r = exchange_int(fn, c, g->world[i], wtag, 1, &agreed);
        }
    } else {
        r = exchange_int(fn, c, g->world[0], wtag, 1, &agreed);
        if (r == MPI_SUCCESS) {
            r = exchange_int(fn, c, g->world[0], wtag, 0, &agreed);
        }
    }
    if (r == MPI_SUCCESS) {
        r = ctx_take(fn, (unsigned)agreed, &ctx);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    g->refs++;
    *newcomm = MPI_COMM_NULL;
    mpi_comm_t *nc = comm_new(g, ctx, newcomm);
    if (nc == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    nc->errhandler = c->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    const char *fn = "MPI_Comm_free";
    mpi_comm_t *c;
    int r = comm == NULL ? mpi_error(MPI_ERR_ARG, "%s: NULL comm", fn)
                         : mpi_check_comm(fn, *comm, &c);
    if (r == MPI_SUCCESS &&
        (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)) {
        r = mpi_error(MPI_ERR_COMM, "%s: %s cannot be freed", fn, c->name);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    attrs_delete(c);
    mpi->comms[*comm] = NULL;
    c->handle = MPI_COMM_NULL;
    mpi_comm_release(c); /* operations under way hold their own */
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* ---- questions ----------------------------------------------------------- */

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    mpi_comm_t *c;
    int r = mpi_check_comm("MPI_Comm_rank", comm, &c);
    if (r == MPI_SUCCESS && rank == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Comm_rank: NULL rank");
    }
    if (r == MPI_SUCCESS) {
        *rank = c->rank;
    }
    return r;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    mpi_comm_t *c;
    int r = mpi_check_comm("MPI_Comm_size", comm, &c);
    if (r == MPI_SUCCESS && size == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Comm_size: NULL size");
    }
    if (r == MPI_SUCCESS) {
        *size = c->size;
    }
    return r;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    const char *fn = "MPI_Comm_compare";
    mpi_comm_t *a, *b;
    int r = mpi_check_comm(fn, comm1, &a);
    if (r == MPI_SUCCESS) {
        r = mpi_check_comm(fn, comm2, &b);
    }
    if (r == MPI_SUCCESS && result == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL result", fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    *result = mpi_group_compare(a->group, b->group);
    if (*result == MPI_IDENT) {
        *result = MPI_CONGRUENT; /* same members, another context */
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    mpi_comm_t *c;
    int r = mpi_check_comm("MPI_Comm_group", comm, &c);
    if (r == MPI_SUCCESS && group == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Comm_group: NULL group");
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    c->group->refs++;
    return mpi_group_handle("MPI_Comm_group", c->group, group);
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    int r = mpi_check_comm("MPI_Comm_test_inter", comm, NULL);
    if (r == MPI_SUCCESS && flag == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Comm_test_inter: NULL flag");
    }
    if (r == MPI_SUCCESS) {
        *flag = 0; /* only intracommunicators are offered */
    }
    return r;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    mpi_comm_t *c;
    int r = mpi_check_comm("MPI_Comm_set_name", comm, &c);
    if (r == MPI_SUCCESS && comm_name == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Comm_set_name: NULL name");
    }
    if (r == MPI_SUCCESS) {
        size_t n = strlen(comm_name);
        if (n >= MPI_MAX_OBJECT_NAME) {
            n = MPI_MAX_OBJECT_NAME - 1;
        }
        memcpy(c->name, comm_name, n);
        c->name[n] = '\0';
    }
    return r;
}

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    mpi_comm_t *c;
    int r = mpi_check_comm("MPI_Comm_get_name", comm, &c);
    if (r == MPI_SUCCESS && (comm_name == NULL || resultlen == NULL)) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Comm_get_name: NULL argument");
    }
    if (r == MPI_SUCCESS) {
        strcpy(comm_name, c->name);
        *resultlen = (int)strlen(c->name);
    }
    return r;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    mpi_comm_t *c;
    int r = mpi_check_comm("MPI_Comm_set_errhandler", comm, &c);
    if (r == MPI_SUCCESS && errhandler != MPI_ERRORS_ARE_FATAL &&
        errhandler != MPI_ERRORS_RETURN) {
        r = mpi_error(MPI_ERR_ARG,
                      "MPI_Comm_set_errhandler: %d; expected "
                      "MPI_ERRORS_ARE_FATAL or MPI_ERRORS_RETURN",
                      errhandler);
    }
    if (r == MPI_SUCCESS) {
        c->errhandler = errhandler;
        mpi->errhandler_now = errhandler;
    }
    return r;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    mpi_comm_t *c;
    int r = mpi_check_comm("MPI_Comm_get_errhandler", comm, &c);
    if (r == MPI_SUCCESS && errhandler == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Comm_get_errhandler: NULL argument");
    }
    if (r == MPI_SUCCESS) {
        *errhandler = c->errhandler;
    }
    return r;
}

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(comm, errhandler);
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (errhandler == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Errhandler_free: NULL argument");
    }
    *errhandler = MPI_ERRHANDLER_NULL; /* the predefined ones stay */
    return MPI_SUCCESS;
}

/* ---- attributes ------------------------------------------------------------- */

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                            int *comm_keyval, void *extra_state)
{
    int r = mpi_check_env("MPI_Comm_create_keyval");
    if (r == MPI_SUCCESS && comm_keyval == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Comm_create_keyval: NULL keyval");
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    mpi_keyval_t *k =
        realloc(mpi->keyvals, (size_t)(mpi->nkeyvals + 1) * sizeof *k);
    if (k == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "MPI_Comm_create_keyval: no memory");
    }
    mpi->keyvals = k;
    k[mpi->nkeyvals] = (mpi_keyval_t){.in_use = 1,
                                      .copy = comm_copy_attr_fn,
                                      .del = comm_delete_attr_fn,
                                      .extra = extra_state};
    *comm_keyval = MPI_KEYVAL_FIRST + mpi->nkeyvals++;
    return MPI_SUCCESS;
}

static int keyval_check(const char *fn, int keyval)
{
    int i = keyval - MPI_KEYVAL_FIRST;
    if (keyval < MPI_KEYVAL_FIRST || i >= mpi->nkeyvals ||
        !mpi->keyvals[i].in_use) {
        return mpi_error(MPI_ERR_KEYVAL, "%s: keyval %d was not made by "
                                         "MPI_Comm_create_keyval",
                         fn, keyval);
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    int r = mpi_check_env("MPI_Comm_free_keyval");
    if (r == MPI_SUCCESS && comm_keyval == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Comm_free_keyval: NULL keyval");
    }
    if (r == MPI_SUCCESS) {
        r = keyval_check("MPI_Comm_free_keyval", *comm_keyval);
    }
    if (r == MPI_SUCCESS) {
        /* Attributes set with it keep their delete function; the slot is
         * not reused. */
        *comm_keyval = MPI_KEYVAL_INVALID;
    }
    return r;
}

static mpi_attr_t **attr_find(mpi_comm_t *c, int keyval)
{
    mpi_attr_t **pp = &c->attrs;
    while (*pp != NULL && (*pp)->keyval != keyval) {
        pp = &(*pp)->next;
    }
    return pp;
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    const char *fn = "MPI_Comm_delete_attr";
    mpi_comm_t *c;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS) {
        r = keyval_check(fn, comm_keyval);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    mpi_attr_t **pp = attr_find(c, comm_keyval);
    if (*pp == NULL) {
        return mpi_error(MPI_ERR_KEYVAL, "%s: no attribute for keyval %d", fn,
                         comm_keyval);
    }
    mpi_attr_t *a = *pp;
    *pp = a->next;
    const mpi_keyval_t *k = &mpi->keyvals[comm_keyval - MPI_KEYVAL_FIRST];
    if (k->del != MPI_COMM_NULL_DELETE_FN) {
        r = k->del(comm, comm_keyval, a->value, k->extra);
    }
    free(a);
    return r;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    const char *fn = "MPI_Comm_set_attr";
    mpi_comm_t *c;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS) {
        r = keyval_check(fn, comm_keyval);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (*attr_find(c, comm_keyval) != NULL) {
        r = PMPI_Comm_delete_attr(comm, comm_keyval);
        if (r != MPI_SUCCESS) {
            return r;
        }
    }
    mpi_attr_t *a = malloc(sizeof *a);
    if (a == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    *a = (mpi_attr_t){
        .next = c->attrs, .keyval = comm_keyval, .value = attribute_val};
    c->attrs = a;
    return MPI_SUCCESS;
}

/* The predefined attributes: every node the same values. */
static int attr_tag_ub = MPI_TAG_UB_VALUE;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE; /* every rank can do I/O */
static int attr_wtime_is_global = 0; /* live nodes' clocks are their own */
static int attr_universe_size, attr_appnum = 0;

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
                       int *flag)
{
    const char *fn = "MPI_Comm_get_attr";
    mpi_comm_t *c;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS && (attribute_val == NULL || flag == NULL)) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL argument", fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    int *predefined = NULL;
    switch (comm_keyval) {
    case MPI_TAG_UB:
        predefined = &attr_tag_ub;
        break;
    case MPI_HOST:
        predefined = &attr_host;
        break;
    case MPI_IO:
        predefined = &attr_io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        predefined = &attr_wtime_is_global;
        break;
    case MPI_UNIVERSE_SIZE:
        attr_universe_size = mpi->size;
        predefined = &attr_universe_size;
        break;
    case MPI_APPNUM:
        predefined = &attr_appnum;
        break;
    default:
        break;
    }
    if (predefined != NULL) {
        *(int **)attribute_val = predefined;
        *flag = 1;
        return MPI_SUCCESS;
    }
    r = keyval_check(fn, comm_keyval);
    if (r != MPI_SUCCESS) {
        return r;
    }
    mpi_attr_t *a = *attr_find(c, comm_keyval);
    *flag = a != NULL;
    if (a != NULL) {
        *(void **)attribute_val = a->value;
    }
    return MPI_SUCCESS;
}

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

MPI_ALIAS(MPI_Comm_dup);
MPI_ALIAS(MPI_Comm_split);
MPI_ALIAS(MPI_Comm_create);
MPI_ALIAS(MPI_Comm_create_group);
MPI_ALIAS(MPI_Comm_free);
MPI_ALIAS(MPI_Comm_rank);
MPI_ALIAS(MPI_Comm_size);
MPI_ALIAS(MPI_Comm_compare);
MPI_ALIAS(MPI_Comm_group);
MPI_ALIAS(MPI_Comm_test_inter);
MPI_ALIAS(MPI_Comm_set_name);
MPI_ALIAS(MPI_Comm_get_name);
MPI_ALIAS(MPI_Comm_set_errhandler);
MPI_ALIAS(MPI_Comm_get_errhandler);
MPI_ALIAS(MPI_Errhandler_set);
MPI_ALIAS(MPI_Errhandler_get);
MPI_ALIAS(MPI_Errhandler_free);
MPI_ALIAS(MPI_Comm_create_keyval);
MPI_ALIAS(MPI_Comm_free_keyval);
MPI_ALIAS(MPI_Comm_delete_attr);
MPI_ALIAS(MPI_Comm_set_attr);
MPI_ALIAS(MPI_Comm_get_attr);
MPI_ALIAS(MPI_Attr_get);
