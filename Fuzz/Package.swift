// swift-tools-version:6.0
// libFuzzer harnesses for aggctl's parsers of outside input, built apart from the product so that the
// product's build never needs the fuzzer runtime: `script/fuzz TARGET SECONDS` builds this package with
// `--sanitize=fuzzer` (and address) and runs one target.
import PackageDescription

let package = Package(
    name: "aggctl-fuzz",
    dependencies: [.package(name: "aggctl", path: "..")],
    targets: [
        .executableTarget(
            name: "aggctl-fuzz",
            dependencies: [
                .product(name: "AggctlParsers", package: "aggctl")
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    ],
    swiftLanguageModes: [.v6]
)
