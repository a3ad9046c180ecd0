// swift-tools-version:6.1
import Foundation
import PackageDescription

// libFuzzer targets for Stratus's parsers of untrusted input. Build and run them with
// `scripts/fuzz` (see README.md): the flags that make these executables fuzzers
// (`-sanitize=fuzzer,address -parse-as-library`) are passed there, never to the root package.

// The root package is a dependency by path; its identity is its folder's name, which differs
// between clones, so it is read from this manifest's location.
let rootFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let root = rootFolder.lastPathComponent

/// One fuzz target: an executable whose entry point hands a test function to libFuzzer.
func fuzzTarget(_ name: String, _ products: [String], extra: [Target.Dependency] = []) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: root) } + extra)
}

let package = Package(
    name: "stratus-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        // Declares libFuzzer's driver entry point for Swift.
        .target(name: "CLibFuzzer"),
        // The driver call and the fixtures the targets share (a schema, a store, a record).
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer",
                .product(name: "StratusEngine", package: root), .product(name: "StratusModel", package: root),
            ]),
        fuzzTarget("fuzz-json", ["StratusModel"]),
        fuzzTarget("fuzz-modify", ["StratusWire", "StratusEngine", "StratusModel"]),
        fuzzTarget("fuzz-query", ["StratusWire", "StratusEngine", "StratusModel"]),
        fuzzTarget("fuzz-lookup", ["StratusWire", "StratusEngine", "StratusModel"]),
        fuzzTarget("fuzz-changes", ["StratusEngine", "StratusModel"]),
        fuzzTarget("fuzz-subscriptions", ["StratusEngine", "StratusModel"]),
        fuzzTarget("fuzz-tokens", ["StratusEngine", "StratusModel"], extra: [.product(name: "Crypto", package: "swift-crypto")]),
        fuzzTarget("fuzz-schema", ["StratusEngine"]),
        fuzzTarget("fuzz-predicate", ["StratusKit", "StratusModel"]),
    ],
    // The targets run single-threaded: their fixtures are plain globals.
    swiftLanguageModes: [.v5]
)
