#ifndef AF_CNETLINKSHIM_H
#define AF_CNETLINKSHIM_H
// Function forms of the rtnetlink macros (NLMSG_*, RTA_*) that Swift cannot import, and builders for
// the few requests the reachability manager sends.
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_addr.h>
#include <sys/eventfd.h>

/// The netlink multicast groups for link, IPv4/IPv6 address and route changes.
unsigned int afr_reachability_groups(void);

// MARK: Alignment and header sizes (NLMSG_ALIGN, NLMSG_HDRLEN, RTA_ALIGN, RTA_LENGTH)

/// NLMSG_ALIGN(len).
size_t afr_nlmsg_align(size_t len);
/// NLMSG_HDRLEN.
size_t afr_nlmsg_hdrlen(void);
/// RTA_ALIGN(len).
size_t afr_rta_align(size_t len);
/// RTA_LENGTH(payload).
size_t afr_rta_length(size_t payload);

// MARK: Requests

/// Writes a dump request (NLM_F_REQUEST | NLM_F_DUMP) of `type` (RTM_GETLINK, RTM_GETADDR or RTM_GETROUTE)
/// for `family` into `buffer`. Returns the message length, or 0 if `type` is unsupported or `capacity` is
/// too small.
size_t afr_build_dump_request(void *buffer, size_t capacity, uint16_t type, uint8_t family, uint32_t sequence);

/// Writes an RTM_GETROUTE query for one destination (`address` of `address_length` bytes: 4 for AF_INET,
/// 16 for AF_INET6) into `buffer`. Returns the message length, or 0 if the family/length pair is invalid or
/// `capacity` is too small.
size_t afr_build_route_query(void *buffer, size_t capacity, uint8_t family, const void *address,
                             size_t address_length, uint32_t sequence);

#endif
