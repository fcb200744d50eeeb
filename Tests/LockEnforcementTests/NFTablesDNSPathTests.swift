import Foundation
import Testing

@testable import LockEnforcement

/// Reading the DNS filter's path from libnftables' JSON: the exemption counters, and other
/// tables' NAT chains that run at or before the redirect's priority.
struct NFTablesDNSPathTests {
    @Test func exemptionCountersWithTheirHandles() {
        let json = """
            {"nftables": [{"metainfo": {"version": "1.0.6", "json_schema_version": 1}},
             {"counter": {"family": "inet", "name": "exemptudp", "table": "simplylock", "handle": 3, "packets": 17, "bytes": 900}},
             {"counter": {"family": "inet", "name": "exempttcp", "table": "simplylock", "handle": 4, "packets": 2, "bytes": 120}},
             {"counter": {"family": "inet", "name": "c1", "table": "simplylock", "handle": 5, "packets": 9, "bytes": 9}}]}
            """
        #expect(
            NFTablesDNSPath.exemption(fromCounters: json)
                == ExemptionAccount.Reading(traffic: ExemptedTraffic(datagrams: 17, connections: 2), identity: [3, 4]))
        #expect(NFTablesDNSPath.exemption(fromCounters: #"{"nftables": []}"#) == nil)
        #expect(NFTablesDNSPath.exemption(fromCounters: "not json") == nil)
    }

    @Test func natChainsAtOrBeforeTheRedirectOfOtherTables() {
        let json = """
            {"nftables": [
             {"chain": {"family": "inet", "table": "simplylock", "name": "dnsredirect", "handle": 2, "type": "nat", "hook": "output", "prio": -199, "policy": "accept"}},
             {"chain": {"family": "ip", "table": "rival", "name": "out", "handle": 1, "type": "nat", "hook": "output", "prio": -199, "policy": "accept"}},
             {"chain": {"family": "inet", "table": "late", "name": "out", "handle": 1, "type": "nat", "hook": "output", "prio": -100, "policy": "accept"}},
             {"chain": {"family": "inet", "table": "pre", "name": "pre", "handle": 1, "type": "nat", "hook": "prerouting", "prio": -199, "policy": "accept"}},
             {"chain": {"family": "inet", "table": "filt", "name": "out", "handle": 1, "type": "filter", "hook": "output", "prio": -300, "policy": "accept"}},
             {"chain": {"family": "inet", "table": "rival", "name": "helper", "handle": 3}}]}
            """
        #expect(
            NFTablesDNSPath.rivalCandidates(json, ownTable: "simplylock")
                == [NFTablesDNSPath.Chain(family: "ip", table: "rival", name: "out", priority: -199)])
    }

    private func rules(_ chains: [String: [String]]) -> [[String: Any]] {
        var objects: [[String: Any]] = []
        for (chain, expressions) in chains {
            for expression in expressions {
                let parsed = try! JSONSerialization.jsonObject(with: Data(expression.utf8))
                objects.append(["rule": ["family": "ip", "table": "rival", "chain": chain, "expr": parsed]])
            }
        }
        return objects
    }

    @Test func whichRulesCanSendDNSElsewhere() {
        let dnat53 =
            #"[{"match": {"op": "==", "left": {"payload": {"protocol": "udp", "field": "dport"}}, "right": 53}}, {"dnat": {"addr": "192.0.2.1"}}]"#
        let dnatAll = #"[{"dnat": {"addr": "192.0.2.1", "port": 53}}]"#
        let dnat80 =
            #"[{"match": {"op": "==", "left": {"payload": {"protocol": "tcp", "field": "dport"}}, "right": 80}}, {"dnat": {"addr": "192.0.2.1"}}]"#
        let webSet =
            #"[{"match": {"op": "==", "left": {"payload": {"protocol": "th", "field": "dport"}}, "right": {"set": [80, 443]}}}, {"redirect": {"port": 8080}}]"#
        let withRange =
            #"[{"match": {"op": "==", "left": {"payload": {"protocol": "th", "field": "dport"}}, "right": {"set": [{"range": [1, 1024]}]}}}, {"redirect": null}]"#
        let not53 =
            #"[{"match": {"op": "!=", "left": {"payload": {"protocol": "th", "field": "dport"}}, "right": 53}}, {"dnat": {"addr": "192.0.2.1"}}]"#
        let jump = #"[{"jump": {"target": "helper"}}]"#
        let counter = #"[{"counter": {"packets": 0, "bytes": 0}}]"#
        #expect(NFTablesDNSPath.rewritesDNS(chain: "out", in: rules(["out": [dnat53]]), visited: []) == "dnat")
        #expect(NFTablesDNSPath.rewritesDNS(chain: "out", in: rules(["out": [dnatAll]]), visited: []) == "dnat")
        #expect(NFTablesDNSPath.rewritesDNS(chain: "out", in: rules(["out": [withRange]]), visited: []) == "redirect")
        #expect(NFTablesDNSPath.rewritesDNS(chain: "out", in: rules(["out": [dnat80, webSet, not53, counter]]), visited: []) == nil)
        #expect(
            NFTablesDNSPath.rewritesDNS(chain: "out", in: rules(["out": [counter, jump], "helper": [dnatAll]]), visited: []) == "dnat")
        #expect(NFTablesDNSPath.rewritesDNS(chain: "out", in: rules(["out": [jump], "helper": [dnat80]]), visited: []) == nil)
        // A loop of jumps ends.
        let back = #"[{"jump": {"target": "out"}}]"#
        #expect(NFTablesDNSPath.rewritesDNS(chain: "out", in: rules(["out": [jump], "helper": [back]]), visited: []) == nil)
    }
}
