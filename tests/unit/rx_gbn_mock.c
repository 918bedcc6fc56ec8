/* rx_gbn_mock.c - the mock environment for the rx policy tests (see
 * rx_gbn_mock.h).  Test code: malloc and stdio are fine here. */
#include "config.h"

#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "lci_seq.h"
#include "rx_gbn_mock.h"

const lci_rx_ops_t *mock_rx_ops = &lci_rx_gbn_component.ops;
mock_world_t W;

/* ---- buffers: one global table, ids unique across nodes ----------------- */

#define MOCK_MAXBUF 8192

typedef struct {
    uint32_t refs;
    uint32_t node;
    uint32_t tag;
    uint32_t dst; /* send buffers: where the client sent it */
    uint8_t is_send;
} mock_buf_t;

static mock_buf_t bufs[MOCK_MAXBUF];
static uint32_t buf_cursor;

static uint32_t buf_alloc(uint32_t node, uint32_t tag, int is_send)
{
    for (uint32_t k = 0; k < MOCK_MAXBUF; k++) {
        uint32_t b = (buf_cursor + k) % MOCK_MAXBUF;
        if (bufs[b].refs == 0) {
            buf_cursor = b + 1;
            bufs[b] = (mock_buf_t){1, node, tag, UINT32_MAX, (uint8_t)is_send};
            W.refs_taken++;
            return b;
        }
    }
    CU_FAIL_FATAL("mock: out of buffers");
    return LCI_BUF_NONE;
}

static void buf_ref(uint32_t b)
{
    CU_ASSERT_FATAL(b < MOCK_MAXBUF && bufs[b].refs > 0);
    bufs[b].refs++;
    W.refs_taken++;
}

static void buf_unref(uint32_t b)
{
    if (b >= MOCK_MAXBUF || bufs[b].refs == 0) {
        W.bad_releases++;
        return;
    }
    W.refs_dropped++;
    if (--bufs[b].refs == 0 && bufs[b].is_send) {
        W.node[bufs[b].node].send_inuse--;
    }
}

uint32_t mock_buf_new(uint32_t node)
{
    uint32_t b = buf_alloc(node, UINT32_MAX, 1);
    W.node[node].send_inuse++;
    return b;
}

uint32_t mock_bufs_in_use(void)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < MOCK_MAXBUF; b++) {
        n += bufs[b].refs > 0;
    }
    return n;
}

/* ---- events: a binary heap ordered by (time, insertion order) --------- */

enum { EV_ARRIVE, EV_RXFREE, EV_SEND, EV_MOVE };

typedef struct {
    uint64_t time, order;
    int type;
    uint32_t node, peer, buf, tag, status, count;
    lci_wire_hdr_t hdr;
} mock_ev_t;

static mock_ev_t *heap;
static size_t nheap, heapcap;
static uint64_t ev_order;

static int ev_before(const mock_ev_t *a, const mock_ev_t *b)
{
    return a->time < b->time || (a->time == b->time && a->order < b->order);
}

static void ev_push(mock_ev_t e)
{
    if (nheap == heapcap) {
        heapcap = heapcap ? 2 * heapcap : 256;
        heap = realloc(heap, heapcap * sizeof(*heap));
        CU_ASSERT_FATAL(heap != NULL);
    }
    e.order = ev_order++;
    size_t i = nheap++;
    while (i > 0 && ev_before(&e, &heap[(i - 1) / 2])) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = e;
}

static mock_ev_t ev_pop(void)
{
    mock_ev_t top = heap[0];
    mock_ev_t last = heap[--nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= nheap) {
            break;
        }
        if (c + 1 < nheap && ev_before(&heap[c + 1], &heap[c])) {
            c++;
        }
        if (!ev_before(&heap[c], &last)) {
            break;
        }
        heap[i] = heap[c];
        i = c;
    }
    if (nheap > 0) {
        heap[i] = last;
    }
    return top;
}

/* ---- PRNG: xorshift64*, seeded per test -------------------------------- */

static double rng_unit(void)
{
    W.rng ^= W.rng >> 12;
    W.rng ^= W.rng << 25;
    W.rng ^= W.rng >> 27;
    return (double)((W.rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* ---- the environment ops ------------------------------------------------ */

static mock_node_t *me(lci_env_t *env)
{
    return env->ctx;
}

static uint64_t m_now(lci_env_t *env)
{
    return W.now;
}

static void m_charge(lci_env_t *env, lci_cost_t what)
{
    W.charge_calls++; /* the placement maps each operation to a cost */
}

/* For mc modules (forwarding through rx); an rx policy never calls it. */
static void m_send(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr)
{
    W.env_send_calls++;
}

static int idx_in(const uint64_t *v, uint32_t n, uint64_t k)
{
    for (uint32_t i = 0; i < n; i++) {
        if (v[i] == k) {
            return 1;
        }
    }
    return 0;
}

/* Whether data packet seq is one the link drops the first time. */
static int first_of_seq_dropped(mock_link_t *l, uint16_t seq)
{
    for (uint32_t i = 0; i < l->ndrop_seq; i++) {
        if (l->drop_seq[i] == seq && !l->drop_seq_done[i]) {
            l->drop_seq_done[i] = 1;
            return 1;
        }
    }
    return 0;
}

/* ---- deliveries ---------------------------------------------------------- */

/* The messages from src delivered to n without a gap, were tag delivered
 * too. */
static uint32_t prefix_with(const mock_node_t *n, uint32_t src, uint32_t tag)
{
    uint32_t p = n->prefix[src];
    if (tag != p) {
        return p;
    }
    p++;
    while (p < n->arrival_cap[src] && n->arrival[src][p] != 0) {
        p++;
    }
    return p;
}

/* Message tag from src delivered to node n (counted in delivered[]). */
static void note_delivery(mock_node_t *n, uint32_t src, uint32_t tag)
{
    n->delivered[src]++;
    if (!n->unordered) {
        if (tag != n->delivered[src] - 1) {
            n->order_errors++;
        }
        return;
    }
    if (tag >= n->arrival_cap[src]) {
        uint32_t cap = n->arrival_cap[src] ? n->arrival_cap[src] : 1024;
        while (cap <= tag) {
            cap *= 2;
        }
        uint32_t *a = realloc(n->arrival[src], cap * sizeof *a);
        CU_ASSERT_FATAL(a != NULL);
        memset(a + n->arrival_cap[src], 0,
               (cap - n->arrival_cap[src]) * sizeof *a);
        n->arrival[src] = a;
        n->arrival_cap[src] = cap;
    }
    if (n->arrival[src][tag] != 0) {
        n->dup_errors++;
        return;
    }
    n->prefix[src] = prefix_with(n, src, tag);
    n->arrival[src][tag] = n->delivered[src];
}

uint32_t mock_arrival(uint32_t node, uint32_t src, uint32_t tag)
{
    const mock_node_t *n = &W.node[node];
    return tag < n->arrival_cap[src] ? n->arrival[src][tag] : 0;
}

/* Checks what every transmission must satisfy, then puts it on the link. */
static void m_transmit(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr)
{
    mock_node_t *n = me(env);
    uint32_t src = env->node, dst = hdr->dst;
    CU_ASSERT_FATAL(dst < W.nnodes);
    CU_ASSERT(hdr->hop_src == src);
    int control = lci_pkt_is_control(hdr->type);
    CU_ASSERT((buf == LCI_BUF_NONE) == control);
    if (W.per_packet_acks) {
        goto wire; /* no piggybacked ack; sequence numbers per channel */
    }
    /* The piggybacked ack is exactly the last in-order packet delivered
     * (or being accepted right now) from dst: on an unordered node, the
     * last of those delivered without a gap. */
    CU_ASSERT(hdr->flags & LCI_HF_ACK);
    if (n->unordered) {
        uint16_t e = (uint16_t)n->prefix[dst];
        uint16_t e_now = n->cur_src == (int)dst
                             ? (uint16_t)prefix_with(n, dst, n->cur_tag)
                             : e;
        if (hdr->ack != (uint16_t)(e - 1) &&
            hdr->ack != (uint16_t)(e_now - 1)) {
            W.ack_violations++;
        }
    } else {
        uint16_t e = (uint16_t)n->delivered[dst];
        if (!(hdr->ack == (uint16_t)(e - 1) ||
              (n->cur_src == (int)dst && n->cur_seq == e && hdr->ack == e))) {
            W.ack_violations++;
        }
    }
    if (!control) {
        /* Sequence numbers without gaps; never beyond the window. */
        int32_t ahead = lci_seq_diff(n->next_new[dst], hdr->seq);
        if (ahead == 0) {
            if (hdr->seq == UINT16_MAX) {
                n->seq_wrapped[dst] = 1;
            }
            n->next_new[dst] = (uint16_t)(hdr->seq + 1);
        } else if (ahead > 0) {
            W.seq_gaps++;
        }
        int32_t inflight = lci_seq_diff(n->ack_seen[dst], hdr->seq);
        if (inflight < 1 || (uint32_t)inflight > W.params.window) {
            W.window_violations++;
        }
    }
wire:;
    mock_link_t *l = &W.link[src][dst];
    uint64_t k = l->count++;
    mock_tx_t t = {.time = W.now,
                   .src = (uint16_t)src,
                   .dst = (uint16_t)dst,
                   .type = hdr->type,
                   .flags = hdr->flags,
                   .seq = hdr->seq,
                   .ack = hdr->ack,
                   .credits = hdr->credits,
                   .tag = control ? UINT32_MAX : bufs[buf].tag};
    int drop = l->cut || idx_in(l->drop_idx, l->ndrop, k) ||
               (!control && first_of_seq_dropped(l, hdr->seq)) ||
               (l->loss > 0 && rng_unit() < l->loss);
    t.dropped = (uint8_t)drop;
    if (W.ntx == W.txcap) {
        W.txcap = W.txcap ? 2 * W.txcap : 4096;
        W.txlog = realloc(W.txlog, W.txcap * sizeof(*W.txlog));
        CU_ASSERT_FATAL(W.txlog != NULL);
    }
    W.txlog[W.ntx++] = t;
    if (drop) {
        return;
    }
    /* The wire holds its own reference until the packet has arrived. */
    if (!control) {
        buf_ref(buf);
    }
    uint64_t depart = W.now > l->free_at ? W.now : l->free_at;
    l->free_at = depart + W.gap_ns;
    mock_ev_t ev = {0};
    ev.time = depart + W.gap_ns + W.delay_ns;
    ev.type = EV_ARRIVE;
    ev.node = dst;
    ev.peer = src;
    ev.buf = buf;
    ev.tag = t.tag;
    ev.status = idx_in(l->crc_idx, l->ncrc, k) ? LCI_HW_CRC : LCI_HW_OK;
    ev.hdr = *hdr;
    ev_push(ev);
}

static void m_hold(lci_env_t *env, uint32_t buf)
{
    buf_ref(buf);
}

static void m_release(lci_env_t *env, uint32_t buf)
{
    buf_unref(buf);
}

static void m_deliver(lci_env_t *env, uint32_t buf)
{
    W.deliver_calls++; /* accept()'s return value does this for rx */
}

/* The client gets the packet back; it takes a reference and lets go. */
static void m_bounce(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr,
                     lci_status_t reason)
{
    CU_ASSERT_EQUAL(hdr->dst, bufs[buf].dst);
    buf_ref(buf);
    CU_ASSERT_FATAL(W.nbounce < MOCK_MAXBOUNCE);
    W.bounce[W.nbounce++] = (mock_bounce_t){W.now, env->node, bufs[buf].dst,
                                            bufs[buf].tag, reason};
    buf_unref(buf);
}

static void m_timer_start(lci_env_t *env, uint32_t id, uint64_t expiry)
{
    CU_ASSERT_FATAL(id < 2 * W.nnodes);
    CU_ASSERT(expiry >= W.now);
    me(env)->timer_armed[id] = 1;
    me(env)->timer_at[id] = expiry;
}

static void m_timer_cancel(lci_env_t *env, uint32_t id)
{
    CU_ASSERT_FATAL(id < 2 * W.nnodes);
    me(env)->timer_armed[id] = 0;
}

static void m_fail(lci_env_t *env, uint32_t fault, uint32_t a, uint32_t b)
{
    me(env)->fails++;
    me(env)->last_fault = fault;
}

static lci_counters_t *m_counters(lci_env_t *env)
{
    return &me(env)->ctr;
}

static const lci_env_ops_t mock_ops = {
    .now = m_now,
    .charge = m_charge,
    .transmit = m_transmit,
    .send = m_send,
    .hold = m_hold,
    .release = m_release,
    .deliver = m_deliver,
    .bounce = m_bounce,
    .timer_start = m_timer_start,
    .timer_cancel = m_timer_cancel,
    .fail = m_fail,
    .counters = m_counters,
};

/* ---- set-up ------------------------------------------------------------- */

void mock_setup(uint32_t nnodes, const lci_rx_params_t *p, uint64_t delay_ns,
                uint64_t seed)
{
    CU_ASSERT_FATAL(nnodes <= MOCK_MAXN && p->nnodes == nnodes);
    memset(&W, 0, sizeof(W));
    memset(bufs, 0, sizeof(bufs));
    nheap = 0;
    ev_order = 0;
    buf_cursor = 0;
    W.nnodes = nnodes;
    W.params = *p;
    W.delay_ns = delay_ns;
    W.gap_ns = 100;
    W.rng = seed ? seed : 1;
    W.ops = mock_rx_ops;
    for (uint32_t i = 0; i < nnodes; i++) {
        mock_node_t *n = &W.node[i];
        n->env = (lci_env_t){&mock_ops, n, i, nnodes};
        n->state_size = W.ops->state_size(p);
        n->state = malloc(n->state_size);
        CU_ASSERT_FATAL(n->state != NULL);
        memset(n->state, 0xA5, n->state_size); /* init must set it all */
        W.ops->init(n->state, p);
        n->nsend = p->nbufs;
        n->rx_limit = MOCK_UNLIMITED;
        n->cur_src = -1;
        for (uint32_t j = 0; j < MOCK_MAXN; j++) {
            n->ack_seen[j] = UINT16_MAX; /* nothing acknowledged yet */
        }
    }
}

void mock_teardown(void)
{
    for (uint32_t i = 0; i < W.nnodes; i++) {
        free(W.node[i].state);
        W.node[i].state = NULL;
        for (uint32_t j = 0; j < MOCK_MAXN; j++) {
            free(W.node[i].arrival[j]);
            W.node[i].arrival[j] = NULL;
            W.node[i].arrival_cap[j] = 0;
        }
    }
    free(W.txlog);
    W.txlog = NULL;
    free(heap);
    heap = NULL;
    nheap = heapcap = 0;
}

void mock_send_at(uint64_t t, uint32_t src, uint32_t dst, uint32_t count)
{
    mock_ev_t ev = {0};
    ev.time = t;
    ev.type = EV_SEND;
    ev.node = src;
    ev.peer = dst;
    ev.count = count;
    ev_push(ev);
}

void mock_move_state_at(uint64_t t, uint32_t node)
{
    mock_ev_t ev = {0};
    ev.time = t;
    ev.type = EV_MOVE;
    ev.node = node;
    ev_push(ev);
}

void mock_run_moving_state(uint32_t n)
{
    W.link[A][B].loss = 0.1;
    W.link[B][A].loss = 0.1;
    mock_send_at(0, A, B, n);
    mock_send_at(0, B, A, n);
    for (uint64_t t = 1; t <= 40; t++) {
        mock_move_state_at(t * 37 * US, (uint32_t)(t % 2));
    }
    mock_run(FOREVER);
}

void mock_pump(void)
{
    for (uint32_t i = 0; i < W.nnodes; i++) {
        mock_node_t *n = &W.node[i];
        int more = 1;
        /* Round-robin over destinations while send buffers last. */
        while (more && n->send_inuse < n->nsend) {
            more = 0;
            for (uint32_t d = 0; d < W.nnodes; d++) {
                if (n->to_send[d] == 0 || n->send_inuse >= n->nsend) {
                    continue;
                }
                n->to_send[d]--;
                n->send_inuse++;
                uint32_t b = buf_alloc(i, n->next_tag[d]++, 1);
                bufs[b].dst = d;
                lci_wire_hdr_t h = {0};
                h.type = LCI_PKT_DATA;
                h.len = 64;
                h.dst = (uint16_t)d;
                h.origin = (uint16_t)i;
                W.ops->send(n->state, &n->env, b, &h);
                more = 1;
            }
        }
    }
}

/* ---- running ------------------------------------------------------------ */

static void rx_free(uint32_t node, uint32_t buf, uint32_t peer)
{
    mock_node_t *n = &W.node[node];
    buf_unref(buf);
    n->rx_used--;
    W.ops->released(n->state, &n->env, peer);
}

static void arrive(const mock_ev_t *ev)
{
    mock_node_t *n = &W.node[ev->node];
    int control = lci_pkt_is_control(ev->hdr.type);
    uint32_t rbuf = LCI_BUF_NONE;
    if (!control) {
        buf_unref(ev->buf); /* off the wire */
        if (n->rx_used < n->rx_limit) {
            rbuf = buf_alloc(ev->node, ev->tag, 0);
            n->rx_used++;
        }
    }
    if (ev->status == LCI_HW_OK && (ev->hdr.flags & LCI_HF_ACK) &&
        lci_seq_lt(n->ack_seen[ev->peer], ev->hdr.ack)) {
        n->ack_seen[ev->peer] = ev->hdr.ack;
    }
    n->cur_src = (int)ev->peer;
    n->cur_seq = ev->hdr.seq;
    n->cur_tag = ev->tag;
    int r = W.ops->accept(n->state, &n->env, rbuf, &ev->hdr, ev->status);
    n->cur_src = -1;
    if (r) {
        CU_ASSERT(rbuf != LCI_BUF_NONE && !control);
        note_delivery(n, ev->peer, ev->tag);
        W.last_deliver_at = W.now;
        /* The client's handler runs at once; an echoing one replies. */
        if (n->echo) {
            n->to_send[ev->peer]++;
            mock_pump();
        }
        W.ops->handled(n->state, &n->env, ev->peer);
    }
    if (rbuf == LCI_BUF_NONE) {
        return;
    }
    if (n->rx_hold_ns == 0) {
        rx_free(ev->node, rbuf, ev->peer);
    } else {
        mock_ev_t f = {0};
        f.time = W.now + n->rx_hold_ns;
        f.type = EV_RXFREE;
        f.node = ev->node;
        f.peer = ev->peer;
        f.buf = rbuf;
        ev_push(f);
    }
}

static void move_state(uint32_t node)
{
    mock_node_t *n = &W.node[node];
    void *fresh = malloc(n->state_size);
    CU_ASSERT_FATAL(fresh != NULL);
    memcpy(fresh, n->state, n->state_size);
    memset(n->state, 0x5A, n->state_size);
    free(n->state);
    n->state = fresh;
}

/* The earliest armed timer (node, id), or 0 if none. */
static int next_timer(uint32_t *node, uint32_t *id, uint64_t *at)
{
    int found = 0;
    for (uint32_t i = 0; i < W.nnodes; i++) {
        for (uint32_t t = 0; t < 2 * W.nnodes; t++) {
            if (W.node[i].timer_armed[t] &&
                (!found || W.node[i].timer_at[t] < *at)) {
                found = 1;
                *node = i;
                *id = t;
                *at = W.node[i].timer_at[t];
            }
        }
    }
    return found;
}

void mock_run(uint64_t until)
{
    mock_pump();
    for (;;) {
        uint32_t tn = 0, tid = 0;
        uint64_t tat = 0;
        int have_t = next_timer(&tn, &tid, &tat);
        if (nheap == 0 && !have_t) {
            return;
        }
        /* Events at the same time as a timer go first. */
        if (nheap > 0 && (!have_t || heap[0].time <= tat)) {
            if (heap[0].time > until) {
                return;
            }
            mock_ev_t ev = ev_pop();
            CU_ASSERT_FATAL(ev.time >= W.now);
            W.now = ev.time;
            switch (ev.type) {
            case EV_ARRIVE:
                arrive(&ev);
                break;
            case EV_RXFREE:
                rx_free(ev.node, ev.buf, ev.peer);
                break;
            case EV_SEND:
                W.node[ev.node].to_send[ev.peer] += ev.count;
                break;
            default:
                move_state(ev.node);
                break;
            }
        } else {
            if (tat > until) {
                return;
            }
            CU_ASSERT_FATAL(tat >= W.now);
            W.now = tat;
            mock_node_t *n = &W.node[tn];
            n->timer_armed[tid] = 0;
            if (tid < W.nnodes) {
                n->rto_fires++;
            } else {
                n->ack_fires++;
            }
            W.ops->timer(n->state, &n->env, tid);
        }
        mock_pump();
        CU_ASSERT_FATAL(++W.steps < 100000000ull);
    }
}

int mock_inject(uint32_t node, const lci_wire_hdr_t *hdr, int with_buf,
                uint32_t status)
{
    mock_node_t *n = &W.node[node];
    uint32_t b = with_buf ? buf_alloc(node, UINT32_MAX, 0) : LCI_BUF_NONE;
    n->cur_src = hdr->hop_src;
    n->cur_seq = hdr->seq;
    n->cur_tag = hdr->seq; /* injected messages are numbered by seq */
    int r = W.ops->accept(n->state, &n->env, b, hdr, status);
    n->cur_src = -1;
    if (r && hdr->hop_src < MOCK_MAXN) {
        if (n->unordered) {
            note_delivery(n, hdr->hop_src, hdr->seq);
        } else {
            n->delivered[hdr->hop_src]++;
        }
    }
    if (b != LCI_BUF_NONE) {
        buf_unref(b);
    }
    return r;
}

uint32_t mock_count_tx(uint32_t src, uint32_t dst, uint8_t type)
{
    uint32_t c = 0;
    for (size_t i = 0; i < W.ntx; i++) {
        const mock_tx_t *t = &W.txlog[i];
        c += t->src == src && t->dst == dst && (type == 0 || t->type == type);
    }
    return c;
}

long mock_find_tx(uint32_t src, uint32_t dst, uint8_t type, uint32_t n)
{
    for (size_t i = 0; i < W.ntx; i++) {
        const mock_tx_t *t = &W.txlog[i];
        if (t->src == src && t->dst == dst && (type == 0 || t->type == type)) {
            if (n-- == 0) {
                return (long)i;
            }
        }
    }
    return -1;
}

void mock_check_clean(void)
{
    CU_ASSERT_EQUAL(W.ack_violations, 0);
    CU_ASSERT_EQUAL(W.window_violations, 0);
    CU_ASSERT_EQUAL(W.seq_gaps, 0);
    CU_ASSERT_EQUAL(W.bad_releases, 0);
    CU_ASSERT_EQUAL(W.deliver_calls, 0);
    CU_ASSERT_EQUAL(W.env_send_calls, 0);
    CU_ASSERT_EQUAL(mock_bufs_in_use(), 0);
    CU_ASSERT_EQUAL(W.refs_taken, W.refs_dropped);
    for (uint32_t i = 0; i < W.nnodes; i++) {
        CU_ASSERT_EQUAL(W.node[i].order_errors, 0); /* an ordered rx */
        CU_ASSERT_EQUAL(W.node[i].dup_errors, 0);   /* an unordered one */
        CU_ASSERT_EQUAL(W.node[i].fails, 0);
        for (uint32_t t = 0; t < 2 * W.nnodes; t++) {
            CU_ASSERT_EQUAL(W.node[i].timer_armed[t], 0);
        }
    }
}
