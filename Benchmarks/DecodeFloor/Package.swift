// swift-tools-version:6.0
// How fast a record can be read and validated on this machine, against what a cold `status` spends on
// it: `script/bench-decode` builds this package (release) and runs it on a generated store. Built apart
// from the product, like Fuzz/, so that its passes never ship.
import PackageDescription

let package = Package(
    name: "aggctl-decode-floor",
    dependencies: [.package(name: "aggctl", path: "../..")],
    targets: [
        .executableTarget(
            name: "decode-floor",
            dependencies: [.product(name: "AggctlParsers", package: "aggctl")])
    ],
    swiftLanguageModes: [.v6]
)
