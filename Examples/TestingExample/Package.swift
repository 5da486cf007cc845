// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A package found by path is known by its folder's name; this example sits two levels
// below the SDK's clone, whatever the clone's folder is called. An app writes the name
// (or uses .package(url:…), known by the URL's last component).
let sdk = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent

// An app's own package, as a user of the SDK writes it: the app depends on RunAnywhere,
// its tests also on RunAnywhereTesting. No engine is linked, so it builds and its tests
// pass on a machine with no engine installed.
let package = Package(
    name: "TestingExample",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(path: "../..")
    ],
    targets: [
        .target(name: "Greeter", dependencies: [.product(name: "RunAnywhere", package: sdk)]),
        .testTarget(
            name: "GreeterTests",
            dependencies: [
                "Greeter",
                .product(name: "RunAnywhere", package: sdk),
                .product(name: "RunAnywhereTesting", package: sdk),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
