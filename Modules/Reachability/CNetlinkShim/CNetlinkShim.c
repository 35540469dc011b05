#include "CNetlinkShim.h"
#include <string.h>
#include <sys/socket.h>

unsigned int afr_reachability_groups(void) {
    return RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
}

size_t afr_nlmsg_align(size_t len) { return NLMSG_ALIGN(len); }
size_t afr_nlmsg_hdrlen(void) { return NLMSG_HDRLEN; }
size_t afr_rta_align(size_t len) { return RTA_ALIGN(len); }
size_t afr_rta_length(size_t payload) { return RTA_LENGTH(payload); }

/// The fixed family header that follows the netlink header for each request type.
static size_t afr_family_header_size(uint16_t type) {
    switch (type) {
    case RTM_GETLINK: return sizeof(struct ifinfomsg);
    case RTM_GETADDR: return sizeof(struct ifaddrmsg);
    case RTM_GETROUTE: return sizeof(struct rtmsg);
    default: return 0;
    }
}

size_t afr_build_dump_request(void *buffer, size_t capacity, uint16_t type, uint8_t family, uint32_t sequence) {
    size_t header = afr_family_header_size(type);
    size_t length = NLMSG_LENGTH(header);
    if (header == 0 || buffer == NULL || capacity < length) return 0;
    memset(buffer, 0, length);
    struct nlmsghdr *message = buffer;
    message->nlmsg_len = (uint32_t)length;
    message->nlmsg_type = type;
    message->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    message->nlmsg_seq = sequence;
    // Every family header starts with its one-byte family field.
    *(uint8_t *)NLMSG_DATA(message) = family;
    return length;
}

size_t afr_build_route_query(void *buffer, size_t capacity, uint8_t family, const void *address,
                             size_t address_length, uint32_t sequence) {
    if (!((family == AF_INET && address_length == 4) || (family == AF_INET6 && address_length == 16))) return 0;
    size_t length = NLMSG_LENGTH(sizeof(struct rtmsg)) + RTA_LENGTH(address_length);
    if (buffer == NULL || address == NULL || capacity < length) return 0;
    memset(buffer, 0, length);
    struct nlmsghdr *message = buffer;
    message->nlmsg_len = (uint32_t)length;
    message->nlmsg_type = RTM_GETROUTE;
    message->nlmsg_flags = NLM_F_REQUEST;
    message->nlmsg_seq = sequence;
    struct rtmsg *route = NLMSG_DATA(message);
    route->rtm_family = family;
    route->rtm_dst_len = (unsigned char)(address_length * 8);
    struct rtattr *destination = RTM_RTA(route);
    destination->rta_type = RTA_DST;
    destination->rta_len = (unsigned short)RTA_LENGTH(address_length);
    memcpy(RTA_DATA(destination), address, address_length);
    return length;
}
