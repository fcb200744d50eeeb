// swift-tools-version: 6.1
// The baseline of the daemon's idle memory in scripts/bench-perf.sh: a bare SwiftNIO server
// that answers HTTP/1.1 on a Unix socket, with the same NIO version as simplylockd.
import PackageDescription

let package = Package(
    name: "nio-baseline",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "https://github.com/apple/swift-nio", from: "2.101.3")],
    targets: [
        .executableTarget(name: "NIOBaseline", dependencies: [
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
    ]
)
