#ifndef AF_CNETLINKSHIM_H
#define AF_CNETLINKSHIM_H
// Function forms of the rtnetlink macros (NLMSG_*, RTA_*, IFA_*), which Swift cannot import.
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/// The netlink multicast groups for link, IPv4/IPv6 address and route changes.
unsigned int afr_reachability_groups(void);

#endif
