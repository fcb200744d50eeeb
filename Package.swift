// swift-tools-version: 6.1
import PackageDescription

// Layering (dependencies only point downwards):
//   LockCore → LockProtocol → LockEnforcement / LockStore → LockDaemon → simplylockd
//   LockCore → LockProtocol → LockClient → LockCommands → lockctl
// lockctl never links the daemon, the enforcers or SQLite.
let package = Package(
    name: "simplylock",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "simplylockd", targets: ["simplylockd"]),
        .executable(name: "lockctl", targets: ["lockctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        .target(name: "LockCore"),
        .target(name: "LockProtocol", dependencies: ["LockCore"]),
        .target(name: "CLinux"),
        .target(name: "LockPlatform", dependencies: ["LockCore", "CLinux"]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CNFTables", pkgConfig: "libnftables", providers: [.apt(["libnftables-dev"])]),
        .target(name: "LockEnforcement", dependencies: [
            "LockCore", "LockProtocol", "LockPlatform", "CNFTables", "CLinux",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .target(name: "LockStore", dependencies: [
            "LockCore", "LockProtocol", "LockPlatform",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "TOMLKit", package: "TOMLKit"),
        ]),
        .target(name: "LockDaemon", dependencies: [
            "LockCore", "LockProtocol", "LockPlatform", "LockEnforcement", "LockStore", "CSystemd",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(name: "LockClient", dependencies: [
            "LockCore", "LockProtocol",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        .target(name: "LockCommands", dependencies: [
            "LockCore", "LockProtocol", "LockClient",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "simplylockd", dependencies: ["LockDaemon"]),
        .executableTarget(name: "lockctl", dependencies: ["LockCommands"]),
        // Drives the DNS filter's parts for scripts/bench-dns.sh; not installed.
        .executableTarget(name: "dns-bench", dependencies: [
            "LockCore", "LockEnforcement", "CLinux", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "LockCoreTests", dependencies: ["LockCore", "TestSupport"]),
        .testTarget(name: "LockDaemonTests", dependencies: [
            "LockCore", "LockProtocol", "LockPlatform", "LockEnforcement", "LockStore", "LockDaemon",
        ]),
        .testTarget(name: "LockEnforcementTests", dependencies: [
            "LockCore", "LockProtocol", "LockEnforcement", "TestSupport",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .target(name: "TestSupport", dependencies: ["CLinux"], path: "Tests/TestSupport"),
        .testTarget(name: "IntegrationTests", dependencies: ["LockCore", "LockProtocol", "LockClient", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
