// AFReachability: the netlink-driven network reachability manager.
// (The module's types land here; this file only names the module's purpose.)
