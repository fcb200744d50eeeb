// swift-tools-version: 6.1
// A floor for simplylockd's idle memory in scripts/bench-perf.sh: the bare SwiftNIO server that
// also starts the libraries the daemon is built on (Foundation, GRDB with SQLite, TOMLKit,
// swift-crypto, the system ICU), at the daemon's versions, linked as `make` links the daemon
// (static Swift standard library).
import PackageDescription

let package = Package(
    name: "nio-stack",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .target(name: "CICUShim", linkerSettings: [.linkedLibrary("icuuc")]),
        .executableTarget(name: "NIOStackBaseline", dependencies: [
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "TOMLKit", package: "TOMLKit"),
            .product(name: "Crypto", package: "swift-crypto"),
            "CICUShim",
        ]),
    ]
)
