// swift-tools-version:6.0
import Foundation
import PackageDescription

/// Every provider: a folder under Providers/ holding the target `<Name>Provider`, and, when it has
/// one, its unit tests in Providers/<Name>/Tests (the target `<Name>ProviderTests`). Adding a
/// provider is its name here, its folder, its Fixtures/<name>/, and one line in
/// Providers/Registry/StandardProviders.swift.
let providers = ["Flickr", "Placeholder", "Commons", "Openverse", "NASA"]

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
func hasTests(_ provider: String) -> Bool {
    FileManager.default.fileExists(atPath: "\(packageRoot)/Providers/\(provider)/Tests")
}
let providerTargets: [Target] = providers.flatMap { provider -> [Target] in
    var targets: [Target] = [
        .target(
            name: "\(provider)Provider", dependencies: ["PhotosCore"], path: "Providers/\(provider)",
            exclude: hasTests(provider) ? ["Tests"] : [])
    ]
    if hasTests(provider) {
        targets.append(
            .testTarget(
                name: "\(provider)ProviderTests",
                dependencies: [
                    .target(name: "\(provider)Provider"), "PhotosCore", "PhotosTransport", "FixtureServerKit", "PhotosTestSupport",
                ],
                path: "Providers/\(provider)/Tests"))
    }
    return targets
}
let providerDependencies: [Target.Dependency] = providers.map { .target(name: "\($0)Provider") }

/// The pkg-config name of an imaging library's headers: the target's headers.pc, which requires
/// the library's own package privately and so brings its cflags without its link flags
/// (ImagingShim loads the library with dlopen). SwiftPM splits the name at spaces: from a folder
/// whose path has one, the library's own package is used instead, which links it as well.
func headersOnly(_ target: String, package: String) -> String {
    packageRoot.contains(" ") ? package : "\(packageRoot)/Sources/\(target)/headers.pc"
}

let package = Package(
    name: "photos",
    // Synchronization's Mutex needs macOS 15.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "photos", targets: ["photos"]),
        .executable(name: "photos-fixture-server", targets: ["photos-fixture-server"]),
        .library(name: "PhotosTransport", targets: ["PhotosTransport"]),
        .library(name: "FixtureServerKit", targets: ["FixtureServerKit"]),
        // For the fuzz targets in Fuzz/ (a package of their own that builds only what each needs).
        .library(name: "PhotosCore", targets: ["PhotosCore"]),
        .library(name: "PhotosProviders", targets: ["PhotosProviders"]),
        .library(name: "PhotosTerminal", targets: ["PhotosTerminal"]),
        .library(name: "PhotosImaging", targets: ["PhotosImaging"]),
        .library(name: "PhotosCache", targets: ["PhotosCache"]),
        .library(name: "PhotosCLI", targets: ["PhotosCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // MARK: C edge
        // libcurl's headers (apt: libcurl4-openssl-dev). No pkg-config link flags on purpose:
        // CurlShim loads libcurl at run time, so offline commands start without it.
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // Typed, non-variadic wrappers over libcurl, which it loads with dlopen on first use.
        .target(
            name: "CurlShim", dependencies: ["CCurl"],
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // SQLite's variadic calls, wrapped for PhotosCache (SQLite itself comes with GRDBSQLite).
        .target(name: "SQLiteShim", dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // Extended attributes, where photos save records what a file or a .part holds.
        .systemLibrary(name: "CXattr"),
        // The imaging libraries' headers (module maps without link flags, see headersOnly), for
        // ImagingShim, which loads the libraries on first use: only a command that draws a
        // picture pays for loading libchafa, GLib and the decoders.
        .systemLibrary(
            name: "CChafa", pkgConfig: headersOnly("CChafa", package: "chafa"),
            providers: [.apt(["libchafa-dev", "libglib2.0-dev"]), .brew(["chafa"])]),
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: headersOnly("CTurboJPEG", package: "libturbojpeg"),
            providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(
            name: "CPNG", pkgConfig: headersOnly("CPNG", package: "libpng"), providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(
            name: "CWebP", pkgConfig: headersOnly("CWebP", package: "libwebp"), providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        // Typed wrappers over libchafa, GLib, TurboJPEG, libpng and libwebp, which it loads with
        // dlopen on first use.
        .target(
            name: "ImagingShim", dependencies: ["CChafa", "CTurboJPEG", "CPNG", "CWebP"],
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),

        // Keeps descriptors 0 to 2 taken when photos is started with one closed (`>&-`), so that
        // no file it opens gets a standard stream's number.
        .target(name: "StandardStreams"),

        // MARK: Core and infrastructure
        .target(name: "PhotosCore"),
        .target(name: "PhotosTransport", dependencies: ["PhotosCore", "CurlShim", "CXattr"]),
        .target(name: "PhotosTerminal", dependencies: ["PhotosCore"]),
        // Thumbnail grid and previews: decoders + libchafa (kept out of PhotosTerminal's C-free build).
        .target(name: "PhotosImaging", dependencies: ["PhotosCore", "PhotosTerminal", "ImagingShim"]),
        .target(
            name: "PhotosCache",
            dependencies: [
                "PhotosCore", .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C calls, for statements run by the hundred (BoundStatement).
                .product(name: "GRDBSQLite", package: "GRDB.swift"), "SQLiteShim",
            ]),

        // MARK: Providers (each depends on the core only; see `providers` above)
        .target(name: "PhotosProviders", dependencies: ["PhotosCore"] + providerDependencies, path: "Providers/Registry"),

        // MARK: CLI
        .target(
            name: "PhotosCLI",
            dependencies: [
                "PhotosCore", "PhotosTransport", "PhotosTerminal", "PhotosCache", "PhotosImaging", "PhotosProviders", "StandardStreams",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .executableTarget(name: "photos", dependencies: ["PhotosCLI"]),

        // MARK: Test bed
        .target(
            name: "FixtureServerKit",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "photos-fixture-server",
            dependencies: [
                "FixtureServerKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Test tool (not shipped): prints a thumbnail grid or a preview of image files; used by
        // PhotosImagingTests under tmux and by the grid section of Benchmarks/run.sh.
        .executableTarget(name: "photos-grid-sample", dependencies: ["PhotosImaging"]),

        // MARK: Tests
        .testTarget(
            name: "PhotosTransportTests",
            dependencies: ["PhotosTransport", "FixtureServerKit", "PhotosTestSupport"]
        ),
        .testTarget(name: "PhotosTerminalTests", dependencies: ["PhotosTerminal", "PhotosTestSupport"]),
        .testTarget(name: "FixtureServerKitTests", dependencies: ["FixtureServerKit"]),
        .testTarget(
            name: "PhotosImagingTests", dependencies: ["PhotosImaging", "ImagingShim", "PhotosTestSupport", "photos-grid-sample"]),
        .target(name: "PhotosTestSupport", dependencies: ["FixtureServerKit"], path: "Tests/PhotosTestSupport"),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "FixtureServerKit", "PhotosTestSupport", "PhotosProviders", "PhotosCore", "PhotosCache", "photos",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(name: "PhotosCLITests", dependencies: ["PhotosCLI", "PhotosCache", "PhotosCore", "PhotosProviders", "PhotosTestSupport"]),
        .testTarget(
            name: "PhotosCacheTests",
            dependencies: [
                "PhotosCache", "PhotosTransport", "PlaceholderProvider", "FlickrProvider", "FixtureServerKit",
                "PhotosTestSupport",
            ]
        ),
        .testTarget(
            name: "ProviderTests",
            dependencies: ["FlickrProvider", "PlaceholderProvider", "PhotosTransport", "FixtureServerKit", "PhotosTestSupport"]
        ),
    ] + providerTargets
)
