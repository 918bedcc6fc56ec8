/*
 * lci_send.c - send buffers in NI memory, unicast, multicast groups.
 */
#include <string.h>

#include "lci_host.h"
#include "lci_timeline.h"

/* Takes a free send buffer visible at the host's clock; returns 0, or the
 * time a buffer becomes free (LCI_TIME_INF if none is on its way). */
static uint64_t try_take(lci_packet_t **packet_p)
{
    lci_ni_t *ni = lci_host->ni;
    uint32_t buf;
    if (lci_host->nspare > 0) {
        buf = lci_host->spare[--lci_host->nspare];
    } else if (ni->h_free_cons != ni->ni_free_prod) {
        lci_free_entry_t *e = lci_ni_free_entry(ni, ni->h_free_cons);
        if (e->ni_time > lci_host->hs->clock) {
            return e->ni_time;
        }
        buf = e->buf;
        ni->h_free_cons++;
    } else {
        return LCI_TIME_INF;
    }
    lci_platform->send_buffer_reused(ni, buf);
    lci_host->packets[buf].in_use = 1;
    lci_host->packets[buf].ep = 0; /* the default endpoint, unless told */
    lci_host->packets[buf].src_ep = 0;
    *packet_p = &lci_host->packets[buf];
    return 0;
}

/* Spins until a buffer the NI is already returning comes back at time
 * when: the wait is bounded and needs nothing from anyone, so it neither
 * polls nor needs the turn. */
static void spin_until(uint64_t when)
{
    uint64_t now = lci_host->hs->clock;
    if (when > now) {
        lci_timeline_span(lci_host->rank, LCI_TRACK_HOST, "wait_buffer", now, when);
        lci_host->hs->clock = when;
        lci_host->hs->busy_ns += when - now;
        lci_host_timers_run(); /* a spinning host polls its soft timers */
    }
}

/* Takes in what has arrived so that send buffers can come back: delivers
 * it where deliveries may run, else passes it through the reliability
 * protocol only.  Returns the number of upcalls made. */
static int take_in(uint64_t *next_p)
{
    if (!lci_host->in_upcall && !lci_host->forwarding && !lci_host->delivering) {
        return lci_host_deliver(next_p);
    }
    lci_host_take_ahead(next_p);
    return 0;
}

lci_status_t lci_host_packet_get(lci_packet_t **packet_p, int wait)
{
    /* A buffer already visible, or already on its way back, is taken
     * without the turn: sending observes nothing of the other nodes, and
     * what a host posts lands no earlier than the doorbell latency from
     * now, after every event already executed.  So a sending host streams
     * on without a process switch. */
    lci_host_account();
    if (lci_host_rx_waiting()) {
        /* Reliability on the host: acknowledgements are processed by the
         * host, so a sender with packets in flight takes in the ones that
         * have arrived before it sends more; its window reopens. */
        uint64_t next;
        lci_host_enter();
        take_in(&next);
    }
    uint64_t when = try_take(packet_p);
    if (when != 0 && when != LCI_TIME_INF && wait) {
        spin_until(when);
        when = try_take(packet_p);
    }
    if (when == 0) {
        lci_host_charge("alloc", lci_host->prof->host_alloc_ns);
        return LCI_OK;
    }
    if (!wait) {
        return LCI_AGAIN;
    }
    /* No buffer is coming back yet (they wait behind closed windows):
     * poll, so that the traffic holding them can drain. */
    lci_host_enter();
    for (;;) {
        when = try_take(packet_p);
        if (when == 0) {
            lci_host_charge("alloc", lci_host->prof->host_alloc_ns);
            return LCI_OK;
        }
        if (when != LCI_TIME_INF) {
            spin_until(when);
            continue;
        }
        uint64_t next;
        if (take_in(&next) > 0) {
            continue;
        }
        lci_host_idle_step(next, LCI_HOST_WAITING);
    }
}

lci_status_t lci_packet_alloc(lci_packet_t **packet_p)
{
    LCI_CHECK_INIT();
    if (packet_p == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_packet_alloc: NULL packet_p");
    }
    lci_status_t st = lci_host_packet_get(packet_p, 1);
    lci_host_leave();
    return st;
}

lci_status_t lci_packet_try_alloc(lci_packet_t **packet_p)
{
    LCI_CHECK_INIT();
    if (packet_p == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_packet_try_alloc: NULL packet_p");
    }
    lci_status_t st = lci_host_packet_get(packet_p, 0);
    lci_host_leave();
    return st;
}

static lci_status_t check_packet(const char *fn, const lci_packet_t *packet)
{
    if (packet == NULL) {
        return lci_error(LCI_ERR_INVAL, "%s: NULL packet", fn);
    }
    if (packet < lci_host->packets ||
        packet >= lci_host->packets + lci_seg()->cfg.nsend) {
        return lci_error(LCI_ERR_INVAL, "%s: not a packet of this node", fn);
    }
    if (!packet->in_use) {
        return lci_error(LCI_ERR_STATE,
                         "%s: packet is not allocated (already sent or "
                         "freed?)",
                         fn);
    }
    return LCI_OK;
}

/* Programmed I/O straight into NI memory, charged per piece. */
static void pio(lci_packet_t *packet, size_t offset, const void *src,
                size_t len)
{
    if (len > 0) {
        memcpy(lci_ni_buf(lci_host->ni, packet->buf) +
                   sizeof(lci_wire_hdr_t) + offset,
               src, len);
    }
    lci_host_charge("pio", lci_host->prof->host_pio_ns_per_byte * (double)len);
}

lci_status_t lci_packet_write(lci_packet_t *packet, size_t offset,
                              const void *src, size_t len)
{
    LCI_CHECK_INIT();
    lci_status_t st = check_packet(__func__, packet);
    if (st != LCI_OK) {
        return st;
    }
    if (src == NULL && len > 0) {
        return lci_error(LCI_ERR_INVAL, "lci_packet_write: NULL source");
    }
    size_t cap = lci_host->ni->payload_max;
    if (offset > cap || len > cap - offset) {
        return lci_error(LCI_ERR_SIZE,
                         "lci_packet_write: %zu bytes at offset %zu exceed "
                         "the packet capacity of %zu bytes",
                         len, offset, cap);
    }
    lci_host_account();
    pio(packet, offset, src, len);
    lci_host_leave();
    return LCI_OK;
}

/* Checks that the n pieces exist and fit from offset on; *end_p is where
 * they end. */
static lci_status_t check_pieces(const char *fn, size_t offset,
                                 const struct iovec *pieces, int n,
                                 size_t *end_p)
{
    if (n < 0 || (pieces == NULL && n > 0)) {
        return lci_error(LCI_ERR_INVAL, "%s: %d pieces at %p", fn, n,
                         (const void *)pieces);
    }
    size_t cap = lci_host->ni->payload_max, end = offset;
    for (int i = 0; i < n; i++) {
        if (pieces[i].iov_base == NULL && pieces[i].iov_len > 0) {
            return lci_error(LCI_ERR_INVAL, "%s: piece %d has no source", fn,
                             i);
        }
        if (end > cap || pieces[i].iov_len > cap - end) {
            return lci_error(LCI_ERR_SIZE,
                             "%s: pieces up to piece %d exceed the packet "
                             "capacity of %zu bytes at offset %zu",
                             fn, i, cap, offset);
        }
        end += pieces[i].iov_len;
    }
    *end_p = end;
    return LCI_OK;
}

static void pio_pieces(lci_packet_t *packet, size_t offset,
                       const struct iovec *pieces, int n)
{
    for (int i = 0; i < n; i++) {
        pio(packet, offset, pieces[i].iov_base, pieces[i].iov_len);
        offset += pieces[i].iov_len;
    }
}

lci_status_t lci_packet_writev(lci_packet_t *packet, size_t offset,
                               const struct iovec *pieces, int n)
{
    LCI_CHECK_INIT();
    lci_status_t st = check_packet(__func__, packet);
    size_t end;
    if (st == LCI_OK) {
        st = check_pieces(__func__, offset, pieces, n, &end);
    }
    if (st != LCI_OK) {
        return st;
    }
    lci_host_account();
    pio_pieces(packet, offset, pieces, n);
    lci_host_leave();
    return LCI_OK;
}

static void give_back(lci_packet_t *packet)
{
    packet->in_use = 0;
    lci_host->spare[lci_host->nspare++] = packet->buf;
}

lci_status_t lci_packet_free(lci_packet_t *packet)
{
    LCI_CHECK_INIT();
    lci_status_t st = check_packet(__func__, packet);
    if (st == LCI_OK) {
        give_back(packet);
    }
    return st;
}

void lci_host_post_command(lci_packet_t *packet, uint8_t op, uint16_t dst,
                           size_t len, uint8_t flags)
{
    lci_cmd_t *cmd = lci_host_cmd_slot();
    cmd->buf = packet->buf;
    cmd->len = (uint16_t)len;
    cmd->dst = dst;
    cmd->op = op;
    cmd->flags = flags;
    cmd->shares = 1;
    cmd->ep = packet->ep;
    cmd->src_ep = packet->src_ep;
    packet->in_use = 0;
    lci_host_post(cmd);
}

/* Written field by field, as PIO into NI memory would: a command built
 * elsewhere and copied in whole was read back through store forwarding
 * that fails on a record of mixed-width fields (tens of cycles a send). */
lci_cmd_t *lci_host_cmd_slot(void)
{
    lci_ni_t *ni = lci_host->ni;
    lci_cmd_t *cmd = lci_ni_cmd(ni, ni->h_cmd_prod);
    memset(cmd, 0, sizeof *cmd);
    return cmd;
}

void lci_host_post(lci_cmd_t *cmd)
{
    lci_ni_t *ni = lci_host->ni;
    lci_host_charge("send", lci_host->prof->host_send_ns);
    cmd->h_time = lci_host->hs->clock +
                  (uint64_t)lci_host->prof->host_doorbell_ns;
    ni->h_cmd_prod++;
    /* The doorbell reaches the NI after the PCI latency (at arrives);
     * the platform decides whether it needs an event. */
    lci_host_post_ni(LCI_EV_DOORBELL, ni->h_cmd_prod);
}

/* Common checks of the send calls; on error the packet is returned to the
 * pool, since it belongs to LCI once handed over. */
static lci_status_t check_send(const char *fn, lci_packet_t *packet,
                               size_t len)
{
    lci_status_t st = check_packet(fn, packet);
    if (st != LCI_OK) {
        return st;
    }
    if (len > lci_host->ni->payload_max) {
        give_back(packet);
        return lci_error(LCI_ERR_SIZE,
                         "%s: length %zu exceeds the packet capacity of %u "
                         "bytes",
                         fn, len, lci_host->ni->payload_max);
    }
    return LCI_OK;
}

static lci_status_t check_dest(const char *fn, int dest)
{
    if (dest < 0 || (uint32_t)dest >= lci_host->size) {
        return lci_error(LCI_ERR_RANK,
                         "%s: destination %d is not a rank of 0..%u", fn, dest,
                         lci_host->size - 1);
    }
    return LCI_OK;
}

/* A send to dest is on its way: the platform may ready the path there
 * while the packet is written and handed to the NI. */
static void hint_send(int dest)
{
    if (lci_platform->will_send != NULL) {
        lci_platform->will_send(lci_host->rank, (uint32_t)dest);
    }
}

lci_status_t lci_host_send_to(const char *fn, lci_packet_t *packet, int dest,
                              uint16_t ep, uint16_t src_ep, size_t len)
{
    lci_status_t st = check_send(fn, packet, len);
    if (st != LCI_OK) {
        return st;
    }
    st = check_dest(fn, dest);
    if (st != LCI_OK) {
        give_back(packet);
        return st;
    }
    hint_send(dest);
    lci_host_account(); /* no turn needed: see lci_host_packet_get */
    packet->ep = ep;
    packet->src_ep = src_ep;
    lci_host_submit(packet, LCI_PKT_DATA, (uint16_t)dest, len, 0);
    lci_host_leave();
    return LCI_OK;
}

lci_status_t lci_send(lci_packet_t *packet, int dest, size_t len)
{
    LCI_CHECK_INIT();
    return lci_host_send_to(__func__, packet, dest, 0, 0, len);
}

lci_status_t lci_sendv(int dest, const struct iovec *pieces, int n)
{
    LCI_CHECK_INIT();
    size_t len;
    lci_status_t st = check_dest(__func__, dest);
    if (st == LCI_OK) {
        st = check_pieces(__func__, 0, pieces, n, &len);
    }
    if (st != LCI_OK) {
        return st;
    }
    hint_send(dest);
    lci_packet_t *packet;
    st = lci_host_packet_get(&packet, 1);
    if (st != LCI_OK) {
        lci_host_leave();
        return st;
    }
    /* Each step enters as its own call would: a fault due by then
     * (nopoll=, die=) strikes between the same steps. */
    lci_host_step();
    pio_pieces(packet, 0, pieces, n);
    lci_host_step();
    packet->ep = 0;
    packet->src_ep = 0;
    lci_host_submit(packet, LCI_PKT_DATA, (uint16_t)dest, len, 0);
    lci_host_leave();
    return LCI_OK;
}

/* ---- groups ----------------------------------------------------------- */

lci_status_t lci_group_create(const int *ranks, int nranks,
                              lci_group_t **group_p)
{
    LCI_CHECK_INIT();
    if (ranks == NULL || group_p == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_group_create: NULL argument");
    }
    if (nranks < 1 || (uint32_t)nranks > lci_host->size) {
        return lci_error(LCI_ERR_GROUP,
                         "lci_group_create: %d members; expected 1..%u",
                         nranks, lci_host->size);
    }
    for (int i = 0; i < nranks; i++) {
        if (ranks[i] < 0 || (uint32_t)ranks[i] >= lci_host->size) {
            return lci_error(LCI_ERR_RANK,
                             "lci_group_create: member %d is rank %d, not "
                             "in 0..%u",
                             i, ranks[i], lci_host->size - 1);
        }
        for (int j = 0; j < i; j++) {
            if (ranks[j] == ranks[i]) {
                return lci_error(LCI_ERR_GROUP,
                                 "lci_group_create: rank %d appears twice",
                                 ranks[i]);
            }
        }
    }
    lci_ni_t *ni = lci_host->ni;
    uint32_t id = lci_host->ngroups_used;
    uint32_t cap = lci_seg()->cfg.group_members;
    if (id >= ni->ngroups || id >= sizeof lci_host->groups /
                                       sizeof lci_host->groups[0] ||
        lci_host->members_used + (uint32_t)nranks > cap) {
        return lci_error(LCI_ERR_CONFIG,
                         "lci_group_create: the NI has room for %u groups "
                         "and %u members in all",
                         ni->ngroups - 1, cap);
    }
    /* The NI's copy: the member list in SRAM and this node's position. */
    lci_ni_group_t *g = lci_ni_group(ni, id);
    uint16_t *members = LCI_NI_AT(ni, ni->off_members, uint16_t) +
                        lci_host->members_used;
    g->self = -1;
    for (int i = 0; i < nranks; i++) {
        members[i] = (uint16_t)ranks[i];
        if ((uint32_t)ranks[i] == lci_host->rank) {
            g->self = i;
        }
    }
    g->members = ni->off_members + 2 * lci_host->members_used;
    g->nmembers = (uint32_t)nranks;
    lci_host->members_used += (uint32_t)nranks;
    lci_host->ngroups_used++;
    lci_host->groups[id].id = id;
    lci_host->groups[id].live = 1;
    *group_p = &lci_host->groups[id];
    return LCI_OK;
}

lci_status_t lci_group_free(lci_group_t *group)
{
    LCI_CHECK_INIT();
    if (group == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_group_free: NULL group");
    }
    if (group < lci_host->groups ||
        group >= lci_host->groups + lci_host->ngroups_used || !group->live ||
        group->id == 0) {
        return lci_error(LCI_ERR_GROUP, "lci_group_free: not a live group");
    }
    group->live = 0; /* ids are never reused: they must agree cluster-wide */
    return LCI_OK;
}

static lci_status_t multicast(const char *fn, lci_packet_t *packet,
                              uint32_t gid, size_t len, uint8_t flags)
{
    lci_status_t st = check_send(fn, packet, len);
    if (st != LCI_OK) {
        return st;
    }
    const lci_ni_group_t *g = lci_ni_group(lci_host->ni, gid);
    if (g->self < 0) {
        give_back(packet);
        return lci_error(LCI_ERR_GROUP,
                         "%s: node %u is not a member of group %u", fn,
                         lci_host->rank, gid);
    }
    if (g->nmembers == 1) {
        give_back(packet); /* nobody else to send to */
        return LCI_OK;
    }
    lci_host_account();
    packet->ep = 0;
    packet->src_ep = 0;
    lci_host_submit(packet, LCI_PKT_MCAST, (uint16_t)gid, len, flags);
    lci_host_leave();
    return LCI_OK;
}

lci_status_t lci_multicast(lci_packet_t *packet, lci_group_t *group,
                           size_t len)
{
    LCI_CHECK_INIT();
    if (group == NULL || group < lci_host->groups ||
        group >= lci_host->groups + lci_host->ngroups_used || !group->live) {
        lci_status_t st = check_packet(__func__, packet);
        if (st == LCI_OK) {
            give_back(packet);
        }
        return lci_error(LCI_ERR_GROUP, "lci_multicast: not a live group");
    }
    return multicast(__func__, packet, group->id, len, 0);
}

lci_status_t lci_broadcast(lci_packet_t *packet, size_t len)
{
    LCI_CHECK_INIT();
    return multicast(__func__, packet, 0, len, 0);
}

/* Internal broadcast of the library's own protocols. */
lci_status_t lci_host_broadcast_internal(lci_packet_t *packet, size_t len);
lci_status_t lci_host_broadcast_internal(lci_packet_t *packet, size_t len)
{
    return multicast(__func__, packet, 0, len, LCI_HF_INTERNAL);
}
