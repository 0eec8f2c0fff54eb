// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "aggctl",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "aggctl", targets: ["aggctl"]),
        // For the libFuzzer harnesses in Fuzz/ (a package of their own): the parsers of outside input, the
        // quick readers of aggctl's own state files, and the outputs a record reaches.
        .library(
            name: "AggctlParsers",
            targets: [
                "Portable", "Serialization", "Snapshots", "Stores", "Collectors", "Aggregator", "Notify", "Privacy",
                "AggctlCLI",
            ]),
    ],
    targets: [
        // Hostile text made safe for a terminal, a notification or an HTTP header: the one place.
        .target(name: "TextSafety"),
        // What every module imports instead of Foundation (FoundationEssentials on Linux, Foundation
        // elsewhere), the few helpers aggctl used from the rest of Foundation, and the plumbing several
        // modules share: atomic files, locked state files, whole writes to a descriptor, the parallel map,
        // time zones.
        .target(name: "Portable", dependencies: ["CShims"]),
        // Serialisation that the record and the kept files share: the JSON reader (`JSONScanner`, and the
        // small `JSONCursor`), the binary coding of kept files, RFC 3339 dates. Knows no record.
        .target(name: "Serialization", dependencies: ["Portable"]),
        // The record: its model and its one schema, from which the reader, the writer and the binary
        // coding of kept files follow, and validation. Links no HTTP.
        .target(name: "Snapshots", dependencies: ["Serialization", "TextSafety", "Portable"]),
        // Where records live: the store protocol, its registry and typed locations, one folder per store
        // (Directory, WebDAV, S3), and the one read layer above them (Reading/: listing, parallel reads,
        // decoding, the read caches, and the names of every file kept about a store).
        .target(name: "Stores", dependencies: ["Snapshots", "Serialization", "HTTP", "TextSafety", "Portable"]),
        // Merge, staleness, availability, history and transition detection: pure functions of records,
        // which it is handed (it knows no store).
        .target(name: "Aggregator", dependencies: ["Snapshots", "Serialization", "Portable"]),
        // Notification values, NotifierRegistry with one folder per backend, and the delivery ledger
        // (state, outbox, lock, journal) that delivers each event once; uses the record module only for
        // its JSON date coding, and knows nothing of stores.
        .target(
            name: "Notify", dependencies: ["Snapshots", "Serialization", "HTTP", "TextSafety", "CShims", "Portable"]),
        // C functions the toolchain's Glibc module does not declare (memmem, closing descriptors in a spawn,
        // the affinity mask), and the opening of a system library on first use that the loaders share.
        .target(name: "CShims"),
        // libcurl, the one system library, opened on first use (its headers: Debian libcurl4-openssl-dev,
        // which script/bootstrap installs; at run time libcurl4, needed only for HTTP).
        .target(name: "CCurl", dependencies: ["CShims"]),
        // libsodium's few functions for sealed records, opened with dlopen on first use.
        .target(name: "CSodium", dependencies: ["CShims"]),
        // Sealed records: the store's key, its file, and the envelope around a record (ChaCha20-Poly1305
        // from libsodium or CryptoKit); knows nothing of stores.
        .target(name: "Privacy", dependencies: ["CSodium", "Serialization", "TextSafety", "Portable"]),
        // libmicrohttpd for `serve`, opened with dlopen on first use (its header: Debian libmicrohttpd-dev,
        // which script/bootstrap installs; at run time libmicrohttpd12, needed only by `serve`).
        .target(name: "CMicroHTTPD", dependencies: ["CShims"]),
        // libsqlite3 for the agents' own databases, opened with dlopen on first use (its header: Debian
        // libsqlite3-dev, which script/bootstrap installs; at run time libsqlite3-0).
        .target(name: "CSQLite", dependencies: ["CShims"]),
        // Reading another program's database: read-only, immutable where it may be writing, never waited on.
        .target(name: "SQLite", dependencies: ["CSQLite", "Portable"]),
        // An HTTP server on libmicrohttpd: the listen address, the limits, requests answered by one handler.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "Portable"]),
        // HTTP through libcurl, for WebDAV stores, usage endpoints and webhooks.
        .target(name: "HTTP", dependencies: ["CCurl", "TextSafety", "Portable"]),
        // What a model's tokens cost: LiteLLM's table cut to the coding agents' models (a copy in the
        // repository with its date, or the one `prices update` kept), a user's overrides, cloud id
        // normalisation, the cache-write and long-prompt tiers.
        .target(name: "Pricing", dependencies: ["Portable"]),
        // This machine's agent logs and usage endpoints read into provider entries (`publish --source`):
        // CollectorRegistry and one folder per source.
        .target(
            name: "Collectors",
            dependencies: [
                "Snapshots", "Serialization", "Pricing", "CShims", "HTTP", "SQLite", "TextSafety", "Portable",
            ]),
        // The command line as a library: argument parsing, commands, output, console, exit codes; tested
        // in-process.
        .target(
            name: "AggctlCLI",
            dependencies: [
                "Snapshots", "Serialization", "Stores", "Aggregator", "Notify", "Collectors", "Pricing", "Privacy",
                "HTTP", "HTTPServer",
                "TextSafety", "Portable",
            ]),
        // The executable: its entry point only. A release build on Linux links the C++ runtime and the
        // unwinder that the static Swift runtime needs from their static archives (packaging/static-link):
        // loading libstdc++.so and libgcc_s.so, and binding their symbols, was a third of every start-up.
        .executableTarget(
            name: "aggctl", dependencies: ["AggctlCLI", "Portable"],
            linkerSettings: [
                .unsafeFlags(
                    ["-L", Context.packageDirectory + "/packaging/static-link"],
                    .when(platforms: [.linux], configuration: .release))
            ]),

        // Helpers the test targets share: temporary folders, record builders, the repository's paths.
        .target(
            name: "TestSupport", dependencies: ["Serialization", "Snapshots", "Stores", "HTTP", "Notify"],
            path: "Tests/TestSupport"),
        .testTarget(name: "TextSafetyTests", dependencies: ["TextSafety"]),
        .testTarget(name: "PortableTests", dependencies: ["Portable"]),
        .testTarget(name: "SerializationTests", dependencies: ["Serialization", "TestSupport"]),
        .testTarget(name: "SnapshotsTests", dependencies: ["Serialization", "Snapshots", "TestSupport"]),
        .testTarget(name: "StoresTests", dependencies: ["Serialization", "Stores", "Snapshots", "TestSupport"]),
        .testTarget(
            name: "AggregatorTests",
            dependencies: ["Serialization", "Aggregator", "Snapshots", "Stores", "TestSupport"]),
        .testTarget(name: "NotifyTests", dependencies: ["Notify", "TestSupport"]),
        .testTarget(name: "PricingTests", dependencies: ["Pricing", "TestSupport"]),
        .testTarget(name: "PrivacyTests", dependencies: ["Privacy", "TestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "TestSupport"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "TestSupport"]),
        .testTarget(
            name: "CollectorsTests",
            dependencies: ["Serialization", "Collectors", "Pricing", "Snapshots", "HTTP", "Portable", "TestSupport"],
            exclude: ["Fixtures", "RealWorld"]),
        .testTarget(
            name: "aggctlTests",
            dependencies: [
                "Serialization", "AggctlCLI", "Snapshots", "Stores", "Aggregator", "HTTPServer", "TestSupport",
            ]),
        // Runs the built binary as a user would; depends on it so `swift test` builds it first.
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["Serialization", "aggctl", "Snapshots", "Stores", "HTTP", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
