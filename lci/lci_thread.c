/* lci_thread.c - threads of a node, one running at a time (lci.h): the
 * checks, then the engine's own threads (core/sim/lci_engine.h). */
#include "lci_engine.h"
#include "lci_host.h"

lci_status_t lci_thread_create(lci_thread_t **thread_p,
                               void (*func)(void *arg), void *arg)
{
    if (thread_p == NULL || func == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_thread_create: NULL argument");
    }
    lci_status_t st = lci_engine->thread_create(thread_p, func, arg);
    return st == LCI_OK
               ? LCI_OK
               : lci_error(st, "lci_thread_create: no memory for a thread");
}

lci_thread_t *lci_thread_self(void)
{
    return lci_engine->thread_self();
}

lci_status_t lci_thread_switch(lci_thread_t *to)
{
    if (to == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_thread_switch: NULL thread");
    }
    if (to != lci_engine->thread_self()) {
        lci_engine->thread_switch(to);
    }
    return LCI_OK;
}

void lci_thread_exit_to(lci_thread_t *to)
{
    if (to == NULL || to == lci_engine->thread_self()) {
        lci_abort(1, "lci_thread_exit_to: no other thread to run");
    }
    lci_engine->thread_exit_to(to);
}

lci_status_t lci_thread_free(lci_thread_t *thread)
{
    if (thread == NULL || thread == lci_engine->thread_self()) {
        return lci_error(LCI_ERR_INVAL,
                         "lci_thread_free: NULL or the running thread");
    }
    lci_engine->thread_free(thread);
    return LCI_OK;
}
