import Foundation
import Glibc
import LockCore
import Logging
import Synchronization
import Testing

@testable import LockEnforcement

/// The forwarder under load: a thousand queries at once, junk, and policy swaps in a storm.
extension DNSForwarderTests {
    @Test func aThousandQueriesInFlightAllAnsweredCorrectly() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { forwarder, client in
            let count = 1_000
            for number in 0..<count {
                let name = number % 10 == 0 ? "n\(number).blocked.test" : "n\(number).allowed.test"
                client.send(DNSTestClient.query(id: UInt16(number), name: name, type: 1))
            }
            var answers: [UInt16: [UInt8]] = [:]
            while answers.count < count, let answer = client.receive(timeout: 5) {
                answers[UInt16(answer[0]) << 8 | UInt16(answer[1])] = answer
            }
            #expect(answers.count == count)
            var wrong: [Int] = []
            for number in 0..<count {
                guard let answer = answers[UInt16(number)], let message = DNSMessage(bytes: answer) else {
                    wrong.append(number)
                    continue
                }
                let expected = number % 10 == 0 ? "0.0.0.0" : "10.0.\(number / 256).\(number % 256)"
                let expectedName = number % 10 == 0 ? "n\(number).blocked.test" : "n\(number).allowed.test"
                let addresses =
                    number % 10 == 0
                    ? message.answers.map { $0.data.map(String.init).joined(separator: ".") }
                    : message.addresses.map(\.description)
                if addresses != [expected] || message.questionName != expectedName { wrong.append(number) }
            }
            #expect(wrong.isEmpty, "wrong or missing answers: \(wrong.prefix(10))")
            let statistics = await forwarder.statistics()
            #expect(statistics.blocked == 100)
            #expect(statistics.answered == 900)
            #expect(statistics.failed == 0)
        }
    }

    @Test func malformedPacketsNeverStopIt() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { forwarder, client in
            client.send([1, 2, 3])
            client.send(DNSTestClient.query(id: 61, name: "allowed.test", type: 1, flags: 0x8180))  // a response
            var noQuestion = DNSTestClient.query(id: 62, name: "allowed.test", type: 1)
            noQuestion[5] = 0
            let formerr = try #require(client.ask(noQuestion))
            #expect(formerr == [0, 62, 0x81, 0x81, 0, 0, 0, 0, 0, 0, 0, 0])
            let notimp = try #require(client.ask(DNSTestClient.query(id: 63, name: "allowed.test", type: 1, flags: 0x2100)))
            #expect(notimp[3] & 0x0f == 4)
            var random = SystemRandomNumberGenerator()
            for _ in 0..<2_000 {
                client.send((0..<Int.random(in: 0...600, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            }
            while client.receive(timeout: 0.3) != nil {}
            let answer = try #require(client.ask(DNSTestClient.query(id: 64, name: "allowed.test", type: 1)))
            #expect(DNSMessage(bytes: answer)?.addresses.map(\.description) == ["198.18.0.3"])
            // TCP: a frame of junk, then a good query on another connection.
            let port = try #require(forwarder.port)
            _ = DNSTestClient.askOverTCP(port: port, [0xff, 0xff, 0xff], timeout: 0.5)
            #expect(DNSTestClient.askOverTCP(port: port, DNSTestClient.query(id: 65, name: "blocked.test", type: 1)) != nil)
            let statistics = await forwarder.statistics()
            #expect(statistics.dropped >= 2)
            #expect(statistics.refused >= 2)
        }
        #expect(!server.names.contains("blocked.test"))
    }

    @Test func policySwapsDuringAQueryStormFailNoQuery() async throws {
        let server = try Self.upstream()
        try await withForwarder([server]) { forwarder, client in
            // Both policies block blocked.test; they differ in a large set of other names, so
            // every swap builds and frees real sets.
            let bulk = (0..<20_000).map { "bulk\($0).example" }
            let policies = [
                DNSFilterPolicy(DNSFilterPolicyTests.desired([Self.rules, BlockRules(block: DomainSet(bulk))])),
                Self.policy,
            ]
            // A thread of its own: the query loop below blocks a thread of the cooperative pool.
            let control = Mutex((stop: false, swaps: 0))
            let swapping = Thread {
                while !control.withLock({ $0.stop }) {
                    let swaps = control.withLock { state -> Int in
                        state.swaps += 1
                        return state.swaps
                    }
                    forwarder.setPolicy(policies[swaps % 2])
                    if swaps % 20 == 0 {
                        forwarder.setPolicy(
                            DNSFilterPolicy(DNSFilterPolicyTests.desired([Self.rules, BlockRules(block: DomainSet(bulk.prefix(2_000)))])))
                    }
                    usleep(1_000)
                }
            }
            swapping.start()
            var failures: [String] = []
            for round in 0..<6 {
                for number in 0..<500 {
                    let blocked = number % 2 == 0
                    let name = blocked ? "s\(round).n\(number).blocked.test" : "n\(number).allowed.test"
                    client.send(DNSTestClient.query(id: UInt16(round * 500 + number), name: name, type: 1))
                }
                var answered = 0
                while answered < 500, let answer = client.receive(timeout: 5) {
                    answered += 1
                    let id = Int(answer[0]) << 8 | Int(answer[1])
                    let number = id % 500
                    guard let message = DNSMessage(bytes: answer), message.rcode == 0 else {
                        failures.append("\(id): bad answer")
                        continue
                    }
                    let data = message.answers.first?.data ?? []
                    if number % 2 == 0, data != [0, 0, 0, 0] { failures.append("\(id) not blocked") }
                    if number % 2 == 1, data != [10, 0, UInt8(number / 256), UInt8(number % 256)] {
                        failures.append("\(id) wrong address")
                    }
                }
                if answered < 500 { failures.append("round \(round): only \(answered) answers") }
            }
            let swaps = control.withLock { state -> Int in
                state.stop = true
                return state.swaps
            }
            #expect(swaps > 10)
            #expect(failures.isEmpty, "\(failures.prefix(10))")
        }
    }
}
