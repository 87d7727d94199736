// swift-tools-version:6.0
import Foundation
import PackageDescription

/// libFuzzer targets for photos' decoders and parsers, one executable per target, each linking
/// only the modules it exercises. Built and run by `make fuzz` (see README.md, "Fuzzing"):
///
///     swift build --package-path Fuzz -c release --sanitize=fuzzer --sanitize=address
///
/// A package of its own so that the sanitizer build never touches the main package's build
/// folder, and builds none of the test bed (NIO).

/// The main package is the parent folder; SwiftPM names a path dependency after its folder.
let photosFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let photos = photosFolder.lastPathComponent

func photosModule(_ name: String) -> Target.Dependency { .product(name: name, package: photos) }

let package = Package(
    name: "photos-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(name: "FuzzSupport"),
        // Every provider of ProviderRegistry.standard, one at a time (PHOTOS_FUZZ_PROVIDER).
        .executableTarget(
            name: "fuzz-provider", dependencies: ["FuzzSupport", photosModule("PhotosCore"), photosModule("PhotosProviders")]),
        .executableTarget(name: "fuzz-terminal", dependencies: ["FuzzSupport", photosModule("PhotosTerminal")]),
        .executableTarget(name: "fuzz-image", dependencies: ["FuzzSupport", photosModule("PhotosCore"), photosModule("PhotosImaging")]),
        .executableTarget(name: "fuzz-config", dependencies: ["FuzzSupport", photosModule("PhotosCLI")]),
        .executableTarget(
            name: "fuzz-cache",
            dependencies: [
                "FuzzSupport", photosModule("PhotosCore"), photosModule("PhotosCache"), .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ]
)
