// libnftnl builds nf_tables netlink messages expression by expression, which the connection
// check needs for its queue rule: an xtables NFQUEUE target (nft_compat) that neither nft(8)
// nor libnftables can write. Only libnftnl's own headers: the kernel's netfilter definitions
// come from CNFTables, and the socket from Glibc (a second module including the same headers
// hides their names from files that do not import it, in whole-module builds).
#include <libnftnl/common.h>
#include <libnftnl/table.h>
#include <libnftnl/chain.h>
#include <libnftnl/rule.h>
#include <libnftnl/expr.h>
