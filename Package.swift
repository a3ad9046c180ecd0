// swift-tools-version:6.1
import PackageDescription

// Module layout and dependency direction: see docs/ARCHITECTURE.md.

// Linux stand-ins for the Apple frameworks CloudKit code imports beside CloudKit: `os` / `OSLog`
// on swift-log, `CoreLocation` on StratusKit's location types, `Combine` on OpenCombine
// (docs/stratuskit-api.md). They exist only when the manifest is read on Linux: SwiftPM lets every
// target of a build find every module in it, so a module named `os` or `Combine` in an Apple
// platform's build would stand in front of Apple's own. Elsewhere the product is empty.
#if os(Linux)
let linuxFrameworkPackages: [Package.Dependency] = [
    .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0")
]
let linuxFrameworkModules: [Target.Dependency] = ["os", "osLogSubmodule", "OSLog", "CoreLocation", "Combine"]
    .map { .target(name: $0, condition: .when(platforms: [.linux])) }
let linuxFrameworkTargets: [Target] = [
    .target(
        name: "os", dependencies: [.product(name: "Logging", package: "swift-log")],
        path: "Sources/LinuxFrameworks/os"),
    // C: declares the Clang module `os` with the submodule `log`, so `import os.log` resolves.
    .target(name: "osLogSubmodule", path: "Sources/LinuxFrameworks/osLogSubmodule"),
    .target(name: "OSLog", dependencies: ["os"], path: "Sources/LinuxFrameworks/OSLog"),
    .target(name: "CoreLocation", dependencies: ["StratusKit"], path: "Sources/LinuxFrameworks/CoreLocation"),
    .target(
        name: "Combine",
        dependencies: [
            .product(name: "OpenCombine", package: "OpenCombine"),
            .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            .product(name: "OpenCombineFoundation", package: "OpenCombine"),
        ], path: "Sources/LinuxFrameworks/Combine"),
]
#else
let linuxFrameworkPackages: [Package.Dependency] = []
let linuxFrameworkModules: [Target.Dependency] = []
let linuxFrameworkTargets: [Target] = []
#endif

let package = Package(
    name: "stratus",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .executable(name: "stratus", targets: ["stratus"]),
        .library(name: "StratusModel", targets: ["StratusModel"]),
        .library(name: "StratusEngine", targets: ["StratusEngine"]),
        .library(name: "StratusWire", targets: ["StratusWire"]),
        .library(name: "StratusStore", targets: ["StratusStore"]),
        .library(name: "StratusSQLite", targets: ["StratusSQLite"]),
        .library(name: "StratusPostgres", targets: ["StratusPostgres"]),
        .library(name: "StratusServer", targets: ["StratusServer"]),
        .library(name: "StratusKit", targets: ["StratusKit"]),
        .library(name: "StratusS3", targets: ["StratusS3"]),
        .library(name: "StratusSync", targets: ["StratusSync"]),
        // The `stratus` command as a library: an app's own server with its hooks and functions.
        .library(name: "StratusApp", targets: ["StratusApp"]),
        // Added beside StratusKit by apps whose CloudKit code imports os, CoreLocation or Combine.
        .library(name: "StratusLinuxFrameworks", targets: ["StratusLinuxFrameworks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // OTLP export of traces over HTTP only: the gRPC exporter (a large build) stays off.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ] + linuxFrameworkPackages,
    targets: [
        .target(name: "StratusModel"),
        .target(
            name: "StratusEngine",
            dependencies: [
                "StratusModel",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                // Spans around authentication, operations and storage transactions (see TraceSpans).
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        // SQL values (SQLValue, SQLRow), shared by the portable store and the SQLite wrapper.
        // CloudKit Web Services on the wire: request decoders and response renderers over the
        // engine's typed operations.
        .target(name: "StratusWire", dependencies: ["StratusEngine", "StratusModel"]),
        .target(name: "StratusSQLValue"),
        .target(
            name: "StratusStore",
            dependencies: [
                "StratusEngine", "StratusModel", "StratusSQLValue",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        // C: SQLite's default page cache with a cheaper end of transaction (see its source).
        .target(
            name: "StratusPageCache",
            dependencies: [
                .product(name: "SQLiteNIO", package: "sqlite-nio")
            ]),
        // C: a VFS that writes a commit's write-ahead-log frames in one write (see its source).
        .target(
            name: "StratusWALBuffer",
            dependencies: [
                .product(name: "SQLiteNIO", package: "sqlite-nio")
            ]),
        // The thin synchronous wrapper over sqlite-nio's bundled C SQLite, used by the server's
        // store and the sync engine's local cache.
        .target(
            name: "StratusSQLiteCore",
            dependencies: [
                "StratusSQLValue", "StratusModel", "StratusPageCache", "StratusWALBuffer",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]),
        .target(
            name: "StratusSQLite",
            dependencies: [
                "StratusStore", "StratusSQLiteCore",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // The PostgreSQL backend: the same SQL layer on postgres-nio, for many instances on one database.
        .target(
            name: "StratusPostgres",
            dependencies: [
                "StratusStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "StratusServer",
            dependencies: [
                "StratusEngine", "StratusWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                // Webhook deliveries: HTTP out, HMAC-SHA256 signatures.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [
                // Served at GET /openapi.yaml; docs/openapi.yaml links to it.
                .embedInCode("API/openapi.yaml")
            ]),
        .target(
            name: "StratusKit",
            dependencies: [
                "StratusModel",
                // Encrypted fields: AES-GCM on the device (see docs/stratuskit-api.md).
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Push delivery to APNs (HTTP/2, ES256 provider tokens) and Web Push (RFC 8291/8292).
        .target(
            name: "StratusPush",
            dependencies: [
                "StratusEngine", "StratusModel",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Asset blobs in an S3-compatible bucket (Signature V4 written here, swift-crypto).
        .target(
            name: "StratusS3",
            dependencies: [
                "StratusEngine",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The offline-first sync engine: StratusKit for the server, SQLite for the local cache.
        .target(name: "StratusSync", dependencies: ["StratusKit", "StratusModel", "StratusSQLiteCore", "StratusSQLValue"]),
        // Every command of `stratus`, and the API an app's own server registers hooks and
        // functions with (docs/server-logic.md).
        .target(
            name: "StratusApp",
            dependencies: [
                "StratusServer", "StratusSQLite", "StratusPostgres", "StratusS3", "StratusPush",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OTel", package: "swift-otel"),
            ]),
        .executableTarget(name: "stratus", dependencies: ["StratusApp"]),
        // A server with its own logic, built on StratusApp (scripts/run-examples runs it).
        .executableTarget(name: "server-hooks", dependencies: ["StratusApp"], path: "Examples/server-hooks"),
        // On Linux: os, OSLog, CoreLocation and Combine (see linuxFrameworkTargets); elsewhere nothing.
        .target(
            name: "StratusLinuxFrameworks", dependencies: linuxFrameworkModules,
            path: "Sources/LinuxFrameworks/StratusLinuxFrameworks"),
        // The SDK examples (scripts/run-examples runs them against a live server).
        .executableTarget(name: "whistles", dependencies: ["StratusKit"], path: "Examples/whistles"),
        .executableTarget(name: "notes", dependencies: ["StratusKit"], path: "Examples/notes"),
        .executableTarget(name: "movies", dependencies: ["StratusKit"], path: "Examples/movies"),
        .executableTarget(name: "restaurants", dependencies: ["StratusKit"], path: "Examples/restaurants"),
        .executableTarget(name: "sync-notes", dependencies: ["StratusKit", "StratusSync"], path: "Examples/sync-notes"),
        .executableTarget(name: "sync-engine-contacts", dependencies: ["StratusKit"], path: "Examples/sync-engine-contacts"),
        .executableTarget(name: "shared-list", dependencies: ["StratusKit"], path: "Examples/shared-list"),
        .testTarget(name: "StratusModelTests", dependencies: ["StratusModel"]),
        .testTarget(
            name: "StratusEngineTests",
            dependencies: [
                "StratusEngine", "StratusWire", "StratusStore", "StratusSQLite", "StratusPostgres", "StratusTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        // The smallest SwiftNIO HTTP server: the floor Benchmarks/README.md compares against.
        .executableTarget(
            name: "nio-floor",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ], path: "Benchmarks/NIOFloor"),
        // `stratus` with empty hooks, for what hooks cost (Benchmarks/hooks).
        .executableTarget(name: "hook-bench", dependencies: ["StratusApp"], path: "Benchmarks/HookBench"),
        // One measurement of the sync benchmark per process (Benchmarks/sync runs it).
        .executableTarget(name: "sync-bench", dependencies: ["StratusKit", "StratusSync"], path: "Benchmarks/SyncBench"),
        // A sync engine in its own process, killed by StratusKitTests mid-send.
        .executableTarget(name: "sync-kill-helper", dependencies: ["StratusKit", "StratusSync"], path: "Tests/SyncKillHelper"),
        // A server with an after hook, killed by StratusServerTests while hook events are queued.
        .executableTarget(name: "hook-kill-helper", dependencies: ["StratusApp"], path: "Tests/HookKillHelper"),
        // Starts child processes for the tests (posix_spawn; Foundation's Process crashed here)
        // and opens the storage backend the suites run on (SQLite, or PostgreSQL when asked).
        .target(
            name: "StratusTestSupport",
            dependencies: [
                "StratusEngine", "StratusSQLite", "StratusPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ], path: "Tests/StratusTestSupport"),
        .testTarget(
            name: "StratusKitTests",
            dependencies: [
                "StratusKit", "StratusModel", "StratusSync", "sync-kill-helper", "StratusTestSupport",
                // Live tests run a real server in the test process.
                "StratusServer", "StratusSQLite", "StratusEngine",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // CloudKit-style code as tutorials and Apple's samples write it: must compile on Linux with
        // only `import CloudKit` changed to `import StratusKit` (os, CoreLocation and Combine too).
        .testTarget(
            name: "StratusKitCompileTests",
            dependencies: [
                "StratusKit", "StratusLinuxFrameworks",
                // The Linux `os` module's tests read what it wrote through swift-log.
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "StratusServerTests",
            dependencies: [
                "StratusServer", "StratusSQLite", "stratus", "StratusApp", "hook-kill-helper", "StratusS3", "StratusTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // Push tests: a fake APNs (HTTP/2 over TLS) and a Web Push receiver.
                "StratusPush",
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Server-to-server signature tests generate P-256 keys.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // Tracing tests: an OTLP/HTTP receiver answering on NIO's event loops.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
    ] + linuxFrameworkTargets
)
