// swift-tools-version:6.0
// Peer implementations that the benchmarks in run.sh time side by side with photos.
// A separate package so that the root package never depends on them.
import PackageDescription

let package = Package(
    name: "photos-benchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "urlsession-fetch", targets: ["urlsession-fetch"]),
        .executable(name: "rusage-exec", targets: ["rusage-exec"]),
        .executable(name: "transport-fetch", targets: ["transport-fetch"]),
    ],
    // photos' transport library, for transport-fetch.
    dependencies: [.package(name: "photos", path: "..")],
    targets: [
        .executableTarget(name: "transport-fetch", dependencies: [.product(name: "PhotosTransport", package: "photos")]),
        .executableTarget(name: "urlsession-fetch"),
        .executableTarget(name: "rusage-exec"),
    ]
)
