// swift-tools-version: 6.0
import PackageDescription

// Products are split so the core library carries no native dependency: an app that only
// wants the registry or a remote engine never links llama.cpp, and each engine backend is
// its own opt-in product.
let package = Package(
    name: "RunAnywhere",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "RunAnywhere", targets: ["RunAnywhere"]),
        .library(name: "RunAnywhereLlamaCPP", targets: ["RunAnywhereLlamaCPP"]),
        .executable(name: "runanywhere", targets: ["runanywhere"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // MARK: Core
        .target(
            name: "RunAnywhere",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),

        // MARK: llama.cpp backend
        // Headers and libraries come from scripts/bootstrap, which writes runanywhere-llama.pc.
        .systemLibrary(name: "CLlama", pkgConfig: "runanywhere-llama"),
        .target(
            name: "RunAnywhereLlamaCPP",
            dependencies: ["RunAnywhere", "CLlama"]
        ),
        // The raw-engine baseline of `runanywhere bench llm`: plain C against the same libllama.
        .executableTarget(
            name: "raw-llama-bench",
            dependencies: ["CLlama"]
        ),

        // MARK: CLI
        .executableTarget(
            name: "runanywhere",
            dependencies: [
                "RunAnywhere",
                "RunAnywhereLlamaCPP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Tests
        .testTarget(name: "RunAnywhereTests", dependencies: ["RunAnywhere"]),
        .testTarget(
            name: "RunAnywhereLlamaCPPTests",
            dependencies: ["RunAnywhere", "RunAnywhereLlamaCPP"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
