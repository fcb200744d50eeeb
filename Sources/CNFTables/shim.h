// libnftables for committing rulesets, plus the kernel's netlink/nf_tables definitions that the
// event monitor and the generation query need (they speak netlink directly, see NFTablesMonitor).
#include <nftables/libnftables.h>
#include <malloc.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
