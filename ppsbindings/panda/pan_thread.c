/*
 * pan_thread.c - Panda-MT: threads that block, one running at a time.
 *
 * Each Panda thread is one of LCI's threads of the node (lci_thread_*),
 * which run one at a time and hand the node on explicitly: threads of the
 * process, or fibers of the node under the simulator's fiber engine.  A
 * thread gives the node away only inside a blocking Panda call (or
 * pan_yield), to the thread that became runnable first, so the order of
 * LCI calls does not depend on the operating system's scheduler and runs
 * stay deterministic.  While a thread runs, network interrupts are on;
 * when no thread can run, the blocking thread turns them off and polls on
 * behalf of all (lci_poll_wait), running handlers, until one can.
 */
#include <stdlib.h>

#include "pan_internal.h"

static void runq_push(struct pan_thread *t)
{
    t->next = NULL;
    if (pan->runq_tail != NULL) {
        pan->runq_tail->next = t;
    } else {
        pan->runq_head = t;
    }
    pan->runq_tail = t;
}

static struct pan_thread *runq_pop(void)
{
    struct pan_thread *t = pan->runq_head;
    if (t != NULL) {
        pan->runq_head = t->next;
        if (pan->runq_head == NULL) {
            pan->runq_tail = NULL;
        }
        t->next = NULL;
    }
    return t;
}

static void set_intr(int on)
{
    if (pan->intr_on == on) {
        return;
    }
    lci_status_t st = on ? lci_intr_enable() : lci_intr_disable();
    if (st != LCI_OK) {
        lci_abort(1, "Panda-MT: cannot switch network interrupts");
    }
    pan->intr_on = on;
}

void pan_mt_wake(struct pan_thread *t)
{
    if (!t->runnable) {
        t->runnable = 1;
        runq_push(t);
    }
}

/* Hands the node to the next runnable thread, polling while there is none.
 * Returns when me runs again; a finished me hands the node on for good. */
static void schedule(struct pan_thread *me)
{
    for (;;) {
        struct pan_thread *next = runq_pop();
        if (next == me) {
            set_intr(1);
            return;
        }
        if (next != NULL) {
            set_intr(1);
            pan->current = next;
            if (me->finished) {
                lci_thread_exit_to(next->lt);
            }
            if (lci_thread_switch(next->lt) != LCI_OK) {
                lci_abort(1, "Panda-MT: cannot switch threads");
            }
            return;
        }
        set_intr(0);
        /* Turning interrupts off is an LCI call: an interrupt taken in it
         * may have completed messages that wake a thread. */
        if (pan_dispatch() > 0 || pan->runq_head != NULL) {
            continue;
        }
        int r = lci_poll_wait();
        if (r < 0) {
            lci_abort(1, "Panda-MT: every thread is blocked and polling "
                         "failed (deadlock?)");
        }
        pan_dispatch();
    }
}

static void cond_push(struct pan_cond *c, struct pan_thread *t)
{
    t->next = NULL;
    if (c->tail != NULL) {
        c->tail->next = t;
    } else {
        c->head = t;
    }
    c->tail = t;
}

static struct pan_thread *cond_pop(struct pan_cond *c)
{
    struct pan_thread *t = c->head;
    if (t != NULL) {
        c->head = t->next;
        if (c->head == NULL) {
            c->tail = NULL;
        }
    }
    return t;
}

void pan_cond_wake_all(struct pan_cond *cond)
{
    struct pan_thread *t;
    while ((t = cond_pop(cond)) != NULL) {
        pan_mt_wake(t);
    }
}

int pan_cond_wait_internal(struct pan_cond *cond)
{
    if (pan->in_handler) {
        return pan_error(PAN_ERR_STATE, "Panda: a handler may not block");
    }
    struct pan_thread *me = pan->current;
    me->runnable = 0;
    cond_push(cond, me);
    schedule(me);
    return PAN_OK;
}

int pan_mt_init(void)
{
    pan->main_thread.lt = lci_thread_self();
    pan->main_thread.runnable = 1;
    pan->current = &pan->main_thread;
    set_intr(1);
    return PAN_OK;
}

void pan_mt_fini(void)
{
    set_intr(0);
}

/* ---- the public thread calls ---------------------------------------- */

static int check_mt(const char *fn)
{
    int r = pan_check_usable(fn);
    if (r != PAN_OK) {
        return r;
    }
    if (pan->mode != PAN_MT) {
        return pan_error(PAN_ERR_STATE,
                         "%s: only in Panda-MT (pan_init "
                         "with PAN_MT)",
                         fn);
    }
    return PAN_OK;
}

static void thread_main(void *arg)
{
    struct pan_thread *t = arg;
    t->result = t->func(t->arg);
    t->finished = 1;
    t->runnable = 0;
    pan_cond_wake_all(&t->joiners);
    schedule(t); /* hands the node on for good */
    lci_abort(1, "Panda-MT: a finished thread ran again");
}

int pan_thread_create(pan_thread_t **thread_p, void *(*func)(void *), void *arg)
{
    int r = check_mt("pan_thread_create");
    if (r != PAN_OK) {
        return r;
    }
    if (thread_p == NULL || func == NULL) {
        return pan_error(PAN_ERR_INVAL, "pan_thread_create: NULL argument");
    }
    struct pan_thread *t = calloc(1, sizeof *t);
    if (t == NULL) {
        return pan_error(PAN_ERR_NOMEM, "pan_thread_create: no memory");
    }
    t->func = func;
    t->arg = arg;
    lci_status_t st = lci_thread_create(&t->lt, thread_main, t);
    if (st != LCI_OK) {
        free(t);
        return pan_lci_error(st, "pan_thread_create");
    }
    pan_mt_wake(t);
    *thread_p = t;
    return PAN_OK;
}

int pan_thread_join(pan_thread_t *thread, void **result_p)
{
    int r = check_mt("pan_thread_join");
    if (r != PAN_OK) {
        return r;
    }
    if (thread == NULL || thread == pan->current) {
        return pan_error(PAN_ERR_INVAL, "pan_thread_join: NULL or own thread");
    }
    while (!thread->finished) {
        r = pan_cond_wait_internal(&thread->joiners);
        if (r != PAN_OK) {
            return r;
        }
    }
    /* It has handed the node on for good. */
    lci_thread_free(thread->lt);
    if (result_p != NULL) {
        *result_p = thread->result;
    }
    free(thread);
    return PAN_OK;
}

int pan_yield(void)
{
    int r = check_mt("pan_yield");
    if (r != PAN_OK) {
        return r;
    }
    if (pan->in_handler) {
        return pan_error(PAN_ERR_STATE, "pan_yield: called from a handler");
    }
    r = pan_poll();
    if (r < 0) {
        return r;
    }
    runq_push(pan->current);
    schedule(pan->current);
    return PAN_OK;
}

int pan_cond_create(pan_cond_t **cond_p)
{
    int r = check_mt("pan_cond_create");
    if (r != PAN_OK) {
        return r;
    }
    if (cond_p == NULL) {
        return pan_error(PAN_ERR_INVAL, "pan_cond_create: NULL argument");
    }
    *cond_p = calloc(1, sizeof **cond_p);
    return *cond_p != NULL ? PAN_OK
                           : pan_error(PAN_ERR_NOMEM, "pan_cond_create: no "
                                                      "memory");
}

int pan_cond_free(pan_cond_t *cond)
{
    if (cond != NULL && cond->head != NULL) {
        return pan_error(PAN_ERR_STATE, "pan_cond_free: threads wait on it");
    }
    free(cond);
    return PAN_OK;
}

/* The checks every public condition call makes. */
static int check_cond(const char *fn, const pan_cond_t *cond)
{
    int r = check_mt(fn);
    if (r != PAN_OK) {
        return r;
    }
    if (cond == NULL) {
        return pan_error(PAN_ERR_INVAL, "%s: NULL condition", fn);
    }
    return PAN_OK;
}

int pan_cond_wait(pan_cond_t *cond)
{
    int r = check_cond("pan_cond_wait", cond);
    return r != PAN_OK ? r : pan_cond_wait_internal(cond);
}

int pan_cond_signal(pan_cond_t *cond)
{
    int r = check_cond("pan_cond_signal", cond);
    if (r != PAN_OK) {
        return r;
    }
    struct pan_thread *t = cond_pop(cond);
    if (t != NULL) {
        pan_mt_wake(t);
    }
    return PAN_OK;
}

int pan_cond_broadcast(pan_cond_t *cond)
{
    int r = check_cond("pan_cond_broadcast", cond);
    if (r != PAN_OK) {
        return r;
    }
    pan_cond_wake_all(cond);
    return PAN_OK;
}
