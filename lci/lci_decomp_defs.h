/*
 * lci_decomp_defs.h - the descriptor of every decomposition, one
 * initialiser each.
 *
 * The same initialiser fills a line of the built-in table
 * (lci/lci_decomp.c) and the one symbol a loadable module exports
 * (lci/lci_decomp_export.c), so a decomposition is described once whether
 * it is built in, built as a module, or both.
 */
#ifndef LCI_DECOMP_DEFS_H
#define LCI_DECOMP_DEFS_H

#include "lci_decomp.h"

/* One line per framework: its component and where it runs. */
/* clang-format off */
#define LCI_DECOMP_RXNO_MNI_INIT                                               \
    {                                                                          \
        .name = "rxno-mni",                                                    \
        .description = "no retransmission (NI credits), multicast "            \
                       "forwarded by the NI",                                  \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_none_component, .rx_place = LCI_PLACE_NI,                \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_NI,                \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_NI,                  \
    }

#define LCI_DECOMP_RXNO_MH_INIT                                                \
    {                                                                          \
        .name = "rxno-mh",                                                     \
        .description = "no retransmission (NI credits), multicast "            \
                       "forwarded by the hosts",                               \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_none_component, .rx_place = LCI_PLACE_NI,                \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_HOST,              \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_NI,                  \
    }

#define LCI_DECOMP_RXNI_MNI_INIT                                               \
    {                                                                          \
        .name = "rxni-mni",                                                    \
        .description = "go-back-N between NIs, multicast forwarded "           \
                       "by the NI",                                            \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_gbn_component, .rx_place = LCI_PLACE_NI,                 \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_NI,                \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_NI,                  \
    }

#define LCI_DECOMP_RXNI_MH_INIT                                                \
    {                                                                          \
        .name = "rxni-mh",                                                     \
        .description = "go-back-N between NIs, multicast forwarded "           \
                       "by the hosts",                                         \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_gbn_component, .rx_place = LCI_PLACE_NI,                 \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_HOST,              \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_NI,                  \
    }

#define LCI_DECOMP_RXH_MH_INIT                                                 \
    {                                                                          \
        .name = "rxh-mh",                                                      \
        .description = "go-back-N between host processes, multicast "          \
                       "forwarded and fetch-and-add served by the hosts",      \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_gbn_component, .rx_place = LCI_PLACE_HOST,               \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_HOST,              \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_HOST,                \
    }
/* Beyond the paper: the other seed systems' protocols (doc/beyond.md). */
#define LCI_DECOMP_RXNI_MNI_VMMC2_INIT                                         \
    {                                                                          \
        .name = "rxni-mni-vmmc2",                                              \
        .description = "VMMC-2 reliability between NIs (acks every 6, "        \
                       "routes on demand), multicast forwarded by the NI",     \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_vmmc2_component, .rx_place = LCI_PLACE_NI,               \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_NI,                \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_NI,                     \
    }

#define LCI_DECOMP_RXNI_MH_VMMC2_INIT                                          \
    {                                                                          \
        .name = "rxni-mh-vmmc2",                                               \
        .description = "VMMC-2 reliability between NIs (acks every 6, "        \
                       "routes on demand), multicast forwarded by the hosts",  \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_vmmc2_component, .rx_place = LCI_PLACE_NI,               \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_HOST,              \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_NI,                     \
    }

#define LCI_DECOMP_RXH_MH_VMMC2_INIT                                           \
    {                                                                          \
        .name = "rxh-mh-vmmc2",                                                \
        .description = "VMMC-2 reliability between host processes, "           \
                       "multicast forwarded and fetch-and-add served by the "  \
                       "hosts",                                                \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_vmmc2_component, .rx_place = LCI_PLACE_HOST,             \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_HOST,              \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_HOST,                   \
    }

#define LCI_DECOMP_RXH_MH_SSAM_INIT                                            \
    {                                                                          \
        .name = "rxh-mh-ssam",                                                 \
        .description = "SSAM reliability between host processes (the reply "  \
                       "as the ack), multicast forwarded and fetch-and-add "   \
                       "served by the hosts",                                  \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_ssam_component, .rx_place = LCI_PLACE_HOST,              \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_HOST,              \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_HOST,                   \
    }

#define LCI_DECOMP_RXNI_MNI_AM2_INIT                                           \
    {                                                                          \
        .name = "rxni-mni-am2",                                                \
        .description = "AM-II transport between NIs (endpoints paged into NI " \
                       "frames, channels, ACK/NACK per packet), multicast "    \
                       "forwarded by the NI",                                  \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_am2_component, .rx_place = LCI_PLACE_NI,                 \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_NI,                \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_NI,                     \
    }

#define LCI_DECOMP_RXNI_MNI_SRD_INIT                                           \
    {                                                                          \
        .name = "rxni-mni-srd",                                                \
        .description = "reliable unordered datagrams between NIs (SRD), "     \
                       "FIFO restored by the hosts, multicast forwarded by "  \
                       "the NI",                                               \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_srd_component, .rx_place = LCI_PLACE_NI,                 \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_NI,                \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_NI,                     \
    }

#define LCI_DECOMP_RXH_MNI_INIT                                                \
    {                                                                          \
        .name = "rxh-mni",                                                     \
        .description = "go-back-N between host processes, multicast "          \
                       "forwarded early by the NI and reliably by the hosts",  \
        .abi = LCI_POLICY_ABI,                                                 \
        .rx = &lci_rx_gbn_component, .rx_place = LCI_PLACE_HOST,               \
        .mc = &lci_mc_tree_component, .mc_place = LCI_PLACE_NI,                \
        .fa = &lci_fa_component, .fa_place = LCI_PLACE_HOST,                   \
    }
/* clang-format on */

#endif
