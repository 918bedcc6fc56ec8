/*
 * lci_live_pmix.c - starting live nodes through an existing launcher
 * (Open MPI's mpirun, Slurm's srun) by PMIx: rank and size come from the
 * launcher, and the nodes' UDP addresses are exchanged with
 * put/commit/fence/get.  No bootstrap protocol and no host files of ours.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lci_live.h"

int lci_live_pmix_launched(void)
{
    return getenv("PMIX_RANK") != NULL && getenv("PMIX_NAMESPACE") != NULL;
}

#if LCI_HAVE_PMIX
#include <pmix.h>

#define LCI_PMIX_KEY "lci.udp.addr"

static pmix_proc_t me;
static int pmix_up;

lci_status_t lci_live_pmix_init(uint32_t *rank_p, uint32_t *size_p, char *err,
                                size_t errlen)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        snprintf(err, errlen, "PMIx_Init: %s", PMIx_Error_string(rc));
        return LCI_ERR_PLATFORM;
    }
    pmix_up = 1;
    pmix_proc_t job;
    PMIX_PROC_CONSTRUCT(&job);
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *val = NULL;
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val == NULL || val->type != PMIX_UINT32) {
        snprintf(err, errlen, "PMIx_Get(job size): %s",
                 PMIx_Error_string(rc));
        return LCI_ERR_PLATFORM;
    }
    *size_p = val->data.uint32;
    *rank_p = me.rank;
    PMIX_VALUE_RELEASE(val);
    return LCI_OK;
}

lci_status_t lci_live_pmix_exchange(uint32_t size, const void *mine,
                                    size_t len, void *all, char *err,
                                    size_t errlen)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)mine;
    v.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, LCI_PMIX_KEY, &v);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Commit();
    }
    if (rc == PMIX_SUCCESS) {
        /* Everyone's address is published before anyone reads one; the
         * fence is also the start barrier. */
        pmix_proc_t job;
        pmix_info_t info;
        bool collect = true;
        PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
        rc = PMIx_Fence(&job, 1, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    }
    for (uint32_t r = 0; r < size && rc == PMIX_SUCCESS; r++) {
        pmix_proc_t peer;
        pmix_value_t *val = NULL;
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        rc = PMIx_Get(&peer, LCI_PMIX_KEY, NULL, 0, &val);
        if (rc == PMIX_SUCCESS &&
            (val->type != PMIX_BYTE_OBJECT || val->data.bo.size != len)) {
            rc = PMIX_ERR_BAD_PARAM;
        }
        if (rc == PMIX_SUCCESS) {
            memcpy((char *)all + r * len, val->data.bo.bytes, len);
        }
        if (val != NULL) {
            PMIX_VALUE_RELEASE(val);
        }
    }
    if (rc != PMIX_SUCCESS) {
        snprintf(err, errlen, "PMIx address exchange: %s",
                 PMIx_Error_string(rc));
        return LCI_ERR_PLATFORM;
    }
    return LCI_OK;
}

void lci_live_pmix_fini(void)
{
    if (pmix_up) {
        pmix_up = 0;
        PMIx_Finalize(NULL, 0);
    }
}

#else /* built without PMIx (configure found no pmix.pc) */

lci_status_t lci_live_pmix_init(uint32_t *rank_p, uint32_t *size_p, char *err,
                                size_t errlen)
{
    (void)rank_p;
    (void)size_p;
    snprintf(err, errlen,
             "this build has no PMIx support (install libpmix-dev and "
             "reconfigure)");
    return LCI_ERR_UNSUPPORTED;
}

lci_status_t lci_live_pmix_exchange(uint32_t size, const void *mine,
                                    size_t len, void *all, char *err,
                                    size_t errlen)
{
    (void)size;
    (void)mine;
    (void)len;
    (void)all;
    snprintf(err, errlen, "this build has no PMIx support");
    return LCI_ERR_UNSUPPORTED;
}

void lci_live_pmix_fini(void)
{
}

#endif
