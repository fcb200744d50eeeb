// libnftnl builds nf_tables netlink messages expression by expression, which the connection
// check needs for its queue rule: an xtables NFQUEUE target (nft_compat) that neither nft(8)
// nor libnftables can write. libmnl sends the batch and reads the kernel's answers.
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <libnftnl/table.h>
#include <libnftnl/chain.h>
#include <libnftnl/rule.h>
#include <libnftnl/expr.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
