#include "CNetlinkShim.h"

unsigned int afr_reachability_groups(void) {
    return RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
}
