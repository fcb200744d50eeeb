import Foundation
import Glibc
import Testing

@testable import LockEnforcement

@Suite("Unbound's control protocol over a Unix socket, against a stand-in that records what it is sent")
struct UnboundControlTests {
    /// Listens on a Unix socket; each connection's bytes are recorded and `answer` is sent back.
    final class StandIn: @unchecked Sendable {
        let path = NSTemporaryDirectory() + "ubct-\(UUID().uuidString.prefix(8)).ctl"
        private let fd: Int32
        private let lock = NSLock()
        private var requests: [String] = []
        var received: [String] {
            lock.lock()
            defer { lock.unlock() }
            return requests
        }

        init(answer: String, connections: Int) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(fd, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
            let listener = fd
            Thread.detachNewThread { [self] in
                for _ in 0..<connections {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { return }
                    var bytes: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    // A command ends at its newline; a bulk one at the end-of-transmission line.
                    while true {
                        let count = recv(client, &buffer, buffer.count, 0)
                        guard count > 0 else { break }
                        bytes += buffer[0..<count]
                        let text = String(decoding: bytes, as: UTF8.self)
                        let bulk = text.hasPrefix("UBCT1 local_zones")
                        if bulk ? text.hasSuffix("\u{4}\n") : text.hasSuffix("\n") { break }
                    }
                    lock.lock()
                    requests.append(String(decoding: bytes, as: UTF8.self))
                    lock.unlock()
                    _ = answer.withCString { send(client, $0, strlen($0), 0) }
                    close(client)
                }
            }
        }

        deinit {
            close(fd)
            unlink(path)
        }
    }

    @Test func aBulkCommandSendsOneLinePerEntryAndAnEndOfTransmissionLine() throws {
        let standIn = try StandIn(answer: "added 2 zones\n", connections: 1)
        let answer = try UnboundControl(path: standIn.path).run("local_zones", lines: ["a.test always_nxdomain", "b.test transparent"])
        #expect(answer == "added 2 zones\n")
        #expect(standIn.received == ["UBCT1 local_zones\na.test always_nxdomain\nb.test transparent\n\u{4}\n"])
    }

    @Test func errorsInTheAnswerAreThrownWithWhatUnboundSaid() throws {
        let standIn = try StandIn(answer: "error for input line: bad..name always_nxdomain\nadded 0 zones\n", connections: 2)
        let control = UnboundControl(path: standIn.path)
        #expect(throws: UnboundControlError.self) { _ = try control.run("local_zones", lines: ["bad..name always_nxdomain"]) }
        do {
            _ = try control.run("view_local_zone nowhere a.test always_nxdomain")
            Issue.record("an error answer was taken for success")
        } catch {
            #expect("\(error)".contains("Unbound refused view_local_zone: error for input line"))
        }
        #expect(standIn.received.last == "UBCT1 view_local_zone nowhere a.test always_nxdomain\n")
    }

    @Test func nothingListeningIsUnreachableAndNamesTheSocket() {
        let control = UnboundControl(path: "/nonexistent/unbound.ctl")
        do {
            _ = try control.run("status")
            Issue.record("a missing socket was reached")
        } catch {
            guard case .unreachable(let path, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(path == "/nonexistent/unbound.ctl")
            #expect(error.description.contains("control-interface: /nonexistent/unbound.ctl"))
        }
    }
}
