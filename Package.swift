// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

// Products are split so the core library carries no inference engine: an app that only
// wants the registry, downloads or a remote engine never links llama.cpp, and each engine
// backend is its own opt-in product. The core links no native library: it opens libcurl and
// libarchive, which every Linux distribution ships, on the first download and the first archive.
// What needs full Foundation (GRDB, Yams) sits in the modules that use it: RAG, solutions and
// the control plane, each complete when imported.
// Every backend is a Swift module compiled into the products that use it; each opens its native
// library on first use (a typed table of C functions), so a program maps no engine until it runs
// a model. Nothing goes to the linker beyond the libraries themselves.
let package = Package(
    name: "RunAnywhere",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "RunAnywhere", targets: ["RunAnywhere"]),
        // `@Generable` and `@Guide`; a product of its own so only apps that use them build swift-syntax.
        .library(name: "RunAnywhereGenerable", targets: ["RunAnywhereGenerable"]),
        // RAG indexes on SQLite; solutions from YAML. Importing them is enough.
        .library(name: "RunAnywhereRAG", targets: ["RunAnywhereRAG"]),
        .library(name: "RunAnywhereSolutions", targets: ["RunAnywhereSolutions"]),
        .library(name: "RunAnywhereLlamaCPP", targets: ["RunAnywhereLlamaCPP"]),
        .library(name: "RunAnywhereWhisperCPP", targets: ["RunAnywhereWhisperCPP"]),
        // The same backend as a plugin a host loads at run time (PluginLoader), across a C ABI.
        .library(name: "RunAnywhereWhisperPlugin", type: .dynamic, targets: ["RunAnywhereWhisperPlugin"]),
        .library(name: "RunAnywhereSystemVoice", targets: ["RunAnywhereSystemVoice"]),
        .library(name: "RunAnywhereSherpa", targets: ["RunAnywhereSherpa"]),
        .library(name: "RunAnywherePocketSphinx", targets: ["RunAnywherePocketSphinx"]),
        .library(name: "RunAnywhereResemblyzer", targets: ["RunAnywhereResemblyzer"]),
        // Tools of MCP servers in the tool registry; a product of its own so only apps that use
        // MCP build its SDK.
        .library(name: "RunAnywhereMCP", targets: ["RunAnywhereMCP"]),
        // For apps' test targets: a deterministic backend and a fault-injecting file server.
        .library(name: "RunAnywhereTesting", targets: ["RunAnywhereTesting"]),
        .library(name: "RunAnywhereTestingFileServer", targets: ["RunAnywhereTestingFileServer"]),
        // Models served by any OpenAI-compatible server (vLLM, llama-server, Ollama, `runanywhere
        // serve`) behind the same Swift API; routing between them and this device is in the core.
        .library(name: "RunAnywhereRemote", targets: ["RunAnywhereRemote"]),
        // The OpenAI-compatible HTTP server behind `runanywhere serve`, for apps that embed it.
        .library(name: "RunAnywhereServer", targets: ["RunAnywhereServer"]),
        // The fleet features: phase 2 against a RunAnywhere control plane (authentication, device
        // registration, model assignments, telemetry queued in SQLite and uploaded) over the client
        // generated from its OpenAPI document, and remote error reporting (Sentry envelopes).
        .library(name: "RunAnywhereControlPlane", targets: ["RunAnywhereControlPlane"]),
        // The reference control-plane server (Hummingbird) behind `runanywhere control-plane serve`.
        .library(name: "RunAnywhereControlPlaneServer", targets: ["RunAnywhereControlPlaneServer"]),
        .executable(name: "runanywhere", targets: ["runanywhere"]),
        .executable(name: "runanywhere-bench", targets: ["runanywhere-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Without its default traits Hummingbird skips swift-configuration, which nothing here uses.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // `swift package generate-documentation --target RunAnywhere` (DocC); CI keeps its links sound.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // RAG indexes and the telemetry queue: SQLite (Debian's libsqlite3) through GRDB.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Solutions (pipelines configured in YAML), with line numbers for every error.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // The server: Prometheus exposition for /metrics, multipart forms for audio uploads.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        // Graceful shutdown of the server (Hummingbird runs as a service of a ServiceGroup).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The HTTP client of `runanywhere bench serve` and the server tests (streaming bodies).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The Model Context Protocol client, for RunAnywhereMCP only.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
        // The control plane's client and server stubs, generated from its OpenAPI document.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        // For the `@Generable` macros only; 603 is the release that matches the Swift 6.3 toolchain.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        // MARK: Core
        // Downloads run on libcurl and archives open with libarchive (both from Debian, see
        // scripts/bootstrap); checksums use swift-crypto. Only their headers are used at build
        // time (no pkgConfig: it would link them): CurlLibrary and ArchiveLibrary open them on
        // first use, so a process that downloads and unpacks nothing maps neither.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CArchive", providers: [.apt(["libarchive-dev"])]),
        // The plugin ABI: rac_plugin.h, what a plugin library exports, in C.
        .systemLibrary(name: "CRunAnywherePlugin"),
        // RunAnywhereGBNF: llama.cpp's grammar format as a tree: printer, parser, analysis, matcher
        // and sampler; what the schema compiler writes and the deterministic backend reads.
        .target(name: "RunAnywhereGBNF"),
        // RunAnywhereJSON: JSONValue (integers apart, member order kept) and a strict parser with
        // positions in its errors; the core re-exports it and adds the SDK's errors.
        .target(name: "RunAnywhereJSON", swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
        // RunAnywhereJSONSchema: JSON Schema (draft 2020-12): checker, validator, and the compiler to
        // GBNF grammars; the core re-exports it and adds the SDK's errors.
        .target(
            name: "RunAnywhereJSONSchema",
            dependencies: ["RunAnywhereJSON", "RunAnywhereGBNF"],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // RunAnywhere: The SDK: registry, downloads, every capability's API, events, the plugin loader; no engine.
        .target(
            name: "RunAnywhere",
            dependencies: [
                "RunAnywhereGBNF",
                "RunAnywhereJSON",
                "RunAnywhereJSONSchema",
                "CCurl",
                "CArchive",
                "CRunAnywherePlugin",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Each file sees only the members of modules it imports itself: without it, one file
            // importing full Foundation would lend its String methods to every file of the core.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),

        // MARK: RAG and solutions
        // Modules of their own because both need full Foundation (GRDB, Yams): a program that
        // keeps no index and reads no YAML maps neither it nor ICU. Importing one is enough.
        // RunAnywhereRAG: RAG indexes (chunking, embedding, hybrid search) kept in SQLite through GRDB.
        .target(
            name: "RunAnywhereRAG",
            dependencies: [
                "RunAnywhere",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // RunAnywhereSolutions: the SDK's pipelines (voice agent, RAG answers, agent loop), from YAML (Yams) or code.
        .target(
            name: "RunAnywhereSolutions",
            dependencies: ["RunAnywhere", "RunAnywhereRAG", .product(name: "Yams", package: "Yams")]
        ),

        // MARK: Generable macros
        // `@Generable` derives a type's JSON Schema at compile time; `@Guide` narrows a property's.
        // The expansions are a plain library that the macro tests link: a test target that
        // depends on a `.macro` target moves every test target to the host build, which would
        // compile the whole package twice. The macro target only forwards to it.
        .target(
            name: "RunAnywhereMacrosImplementation",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .macro(
            name: "RunAnywhereMacros",
            dependencies: [
                "RunAnywhereMacrosImplementation",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        // RunAnywhereGenerable: `@Generable` and `@Guide`, the macros' public face.
        .target(name: "RunAnywhereGenerable", dependencies: ["RunAnywhere", "RunAnywhereMacros"]),

        // MARK: MCP
        // Servers started as child processes and spoken to over stdio by the MCP SDK's client;
        // their tools register in a ToolRegistry like any other.
        .target(
            name: "RunAnywhereMCP",
            dependencies: [
                "RunAnywhere",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: HTTP serving
        // Starting a Hummingbird application and stopping it, shared by the servers below.
        .target(
            name: "RunAnywhereHTTPServing",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Testing
        // What apps add to their test targets: DeterministicBackend (seeded, weight-free
        // services for every capability) and LocalFileServer, a real HTTP server on
        // 127.0.0.1 with Range support and injectable faults, which our download tests and
        // `runanywhere bench download` also use. No engine, so it builds anywhere.
        .target(
            name: "RunAnywhereTesting",
            dependencies: ["RunAnywhere", "RunAnywhereGBNF"]
        ),
        // A file server on 127.0.0.1 with byte ranges and injected faults, for download tests: apart
        // from RunAnywhereTesting so that an app's tests need no HTTP stack.
        .target(
            name: "RunAnywhereTestingFileServer",
            dependencies: [
                "RunAnywhere", "RunAnywhereHTTPServing", .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),

        // MARK: Remote engines
        // LLM, embeddings and STT services that speak the OpenAI API over async-http-client.
        .target(
            name: "RunAnywhereRemote",
            dependencies: [
                "RunAnywhere",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),

        // MARK: Control plane
        // RunAnywhereControlPlane: the fleet features (control-plane agent, telemetry queue, remote error reports).
        // Generated/ holds the code swift-openapi-generator makes from openapi.yaml, committed
        // (scripts/generate_control_plane.sh regenerates it; CI checks its stamp).
        .target(
            name: "RunAnywhereControlPlane",
            dependencies: [
                "RunAnywhere",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: [
                "openapi.yaml", "openapi-generator-config.yaml", "Generated/openapi.sha256",
                "Generated/internal-imports.txt",
            ]
        ),
        // RunAnywhereControlPlaneServer: The reference control plane, served with Hummingbird from the generated stubs.
        .target(
            name: "RunAnywhereControlPlaneServer",
            dependencies: [
                "RunAnywhereControlPlane",
                "RunAnywhereHTTPServing",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["openapi-generator-config.yaml"]
        ),

        // MARK: OpenAI-compatible server
        // Hummingbird routes over the public SDK API only: any backend the app registers serves.
        .target(
            name: "RunAnywhereServer",
            dependencies: [
                "RunAnywhere",
                "RunAnywhereHTTPServing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.embedInCode("Resources/openapi.json")]
        ),

        // MARK: llama.cpp backend
        // Headers and libraries come from scripts/bootstrap, which writes runanywhere-llama.pc.
        .systemLibrary(name: "CLlama", pkgConfig: "runanywhere-llama"),
        // RunAnywhereLlamaCPP: Text generation, embeddings, vision and LoRA on llama.cpp.
        .target(
            name: "RunAnywhereLlamaCPP",
            dependencies: ["RunAnywhere", "CLlama"]
        ),
        // What the raw C baselines share (a clock, reading a file).
        .target(name: "RawBenchSupport"),
        // Wall time and peak memory of a whole process, for `runanywhere bench startup`.
        .executableTarget(name: "process-meter", dependencies: ["RawBenchSupport"]),
        // The Swift floor of `bench startup`: a Foundation hello world with an async main.
        .executableTarget(name: "foundation-hello"),
        // The raw-engine baseline of `runanywhere bench llm`: plain C against the same libllama.
        .executableTarget(
            name: "raw-llama-bench",
            dependencies: ["CLlama", "RawBenchSupport"],
            linkerSettings: [.linkedLibrary("llama")]
        ),

        // The raw-engine baseline of the adapter switch in `runanywhere bench lora`.
        .executableTarget(
            name: "raw-lora-bench",
            dependencies: ["CLlama", "RawBenchSupport"],
            linkerSettings: [.linkedLibrary("llama")]
        ),

        // The raw-engine baseline of `runanywhere bench embed`.
        .executableTarget(
            name: "raw-embed-bench",
            dependencies: ["CLlama", "RawBenchSupport"],
            linkerSettings: [.linkedLibrary("llama"), .linkedLibrary("m")]
        ),

        // MARK: whisper.cpp backend
        // pywhispercpp's hash-renamed libwhisper (runanywhere-whisper.pc from scripts/bootstrap):
        // its ggml never collides with llama.cpp's in one process.
        .systemLibrary(name: "CWhisper", pkgConfig: "runanywhere-whisper"),
        // RunAnywhereWhisperCPP: Speech recognition on whisper.cpp.
        .target(
            name: "RunAnywhereWhisperCPP",
            dependencies: ["RunAnywhere", "CWhisper", "RunAnywhereWhisperWindow"]
        ),
        // The decoding window the backend and `runanywhere bench stt`'s raw baseline share.
        .target(name: "RunAnywhereWhisperWindow"),
        // The whisper.cpp backend as a plugin across the C ABI of rac_plugin.h: a dynamic library
        // (libRunAnywhereWhisperPlugin) that any host can load at run time; it carries its own
        // copy of what it is built from, since no Swift type crosses.
        .target(
            name: "RunAnywhereWhisperPlugin",
            dependencies: ["RunAnywhere", "RunAnywhereWhisperCPP", "CRunAnywherePlugin"]
        ),
        // The raw-engine baseline of `runanywhere bench stt`.
        .executableTarget(
            name: "raw-whisper-bench",
            dependencies: ["CWhisper", "RawBenchSupport"],
            linkerSettings: [.linkedLibrary("whisper-runanywhere")]
        ),

        // MARK: system voice (espeak-ng from Debian)
        // Headers only (pkg-config would add -lespeak-ng): the backend opens it on first use.
        .systemLibrary(name: "CESpeak", providers: [.apt(["libespeak-ng-dev"])]),
        // RunAnywhereSystemVoice: Speech synthesis with espeak-ng, the voice every Linux has.
        .target(
            name: "RunAnywhereSystemVoice",
            dependencies: ["RunAnywhere", "CESpeak"]
        ),

        // MARK: sherpa-onnx backend (Piper voices, Silero VAD)
        // Piper voices take espeak-ng phonemes, which the system voice module provides.
        .systemLibrary(name: "CSherpa", pkgConfig: "runanywhere-sherpa"),
        // RunAnywhereSherpa: Piper voices and Silero VAD on sherpa-onnx.
        .target(
            name: "RunAnywhereSherpa",
            dependencies: ["RunAnywhere", "RunAnywhereSystemVoice", "CSherpa"]
        ),

        // MARK: pocketsphinx backend (wake words, from Debian)
        // Its include folders from runanywhere-pocketsphinx.pc (scripts/bootstrap), with no -l.
        .systemLibrary(
            name: "CPocketSphinx",
            pkgConfig: "runanywhere-pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "pocketsphinx-en-us"])]
        ),
        // RunAnywherePocketSphinx: Wake words by pocketsphinx keyword spotting.
        .target(
            name: "RunAnywherePocketSphinx",
            dependencies: ["RunAnywhere", "CPocketSphinx"]
        ),

        // MARK: Resemblyzer speaker encoder (diarization), on OpenBLAS from Debian
        // cblas.h only, from the default include path (pkg-config would add -lopenblas).
        .systemLibrary(name: "COpenBLAS", providers: [.apt(["libopenblas-dev"])]),
        // RunAnywhereResemblyzer: speaker embeddings for diarization (Resemblyzer GE2E on OpenBLAS).
        .target(
            name: "RunAnywhereResemblyzer",
            dependencies: ["RunAnywhere", "COpenBLAS"]
        ),

        // MARK: Plugin host
        // A program with the core and no engine backend: it transcribes through a plugin it loads
        // (the plugin tests compare it with the linked backend).
        .executableTarget(name: "runanywhere-plugin-host", dependencies: ["RunAnywhere"]),

        // MARK: CLI
        // What the executables share: the SDK's start with every backend, common options,
        // output, child processes, and the table of the commands `runanywhere` hands over.
        .target(
            name: "RunAnywhereCommandLine",
            dependencies: [
                "RunAnywhere", "RunAnywhereLlamaCPP", "RunAnywhereWhisperCPP", "RunAnywhereSystemVoice",
                "RunAnywhereSherpa", "RunAnywherePocketSphinx", "RunAnywhereResemblyzer",
                "RunAnywhereRemote", "RunAnywhereControlPlane",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // It links every backend (each maps its engine on first use), RAG, solutions and the MCP client.
        .executableTarget(
            name: "runanywhere",
            dependencies: [
                "RunAnywhere",
                "RunAnywhereCommandLine",
                "RunAnywhereControlPlane",
                "RunAnywhereLlamaCPP",
                "RunAnywhereMCP",
                "RunAnywhereRAG",
                "RunAnywhereSolutions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // As in the core: each file sees only the members of modules it imports itself.
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // Every `runanywhere bench …` command, apart from the product: `runanywhere` runs this in
        // its own place for them (CompanionCommand). It links what the benches drive: the HTTP
        // client and server, the remote engines, and the simulated rooms of RunAnywhereTesting.
        .executableTarget(
            name: "runanywhere-bench",
            dependencies: [
                "RunAnywhere",
                "RunAnywhereCommandLine",
                "RunAnywhereTesting",
                "RunAnywhereTestingFileServer",
                "RunAnywhereRAG",
                "RunAnywhereServer",
                "RunAnywhereRemote",
                "RunAnywhereWhisperWindow",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        // The commands that serve HTTP (`serve`, `control-plane`): `runanywhere` runs this in its
        // own place for them (CompanionCommand). It links the HTTP stack, the remote engines and
        // the control plane.
        .executableTarget(
            name: "runanywhere-http",
            dependencies: [
                "RunAnywhere",
                "RunAnywhereCommandLine",
                "RunAnywhereServer",
                "RunAnywhereRemote",
                "RunAnywhereControlPlane",
                "RunAnywhereControlPlaneServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),

        // MARK: Tests
        // The server's routes on the deterministic backend: in process through the router where they can
        // be, over real HTTP on 127.0.0.1 where a socket matters.
        .testTarget(
            name: "RunAnywhereServerTests",
            dependencies: [
                "RunAnywhereServer", "RunAnywhere", "RunAnywhereTesting", "RunAnywhereTestSupport",
                "RunAnywhereTestingFileServer",
                "RunAnywhereHTTPServing",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The remote engines against a real OpenAI-compatible server (ours, on the deterministic
        // backend) and against a scripted one that breaks in every way a server can.
        .testTarget(
            name: "RunAnywhereRemoteTests",
            dependencies: [
                "RunAnywhereRemote", "RunAnywhereServer", "RunAnywhere", "RunAnywhereTesting", "RunAnywhereTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What the test targets share: typed-error expectations, SDK instances on the deterministic backend.
        .target(
            name: "RunAnywhereTestSupport",
            dependencies: ["RunAnywhere", "RunAnywhereTesting"],
            path: "Tests/RunAnywhereTestSupport"
        ),
        .testTarget(name: "RunAnywhereGBNFTests", dependencies: ["RunAnywhereGBNF", "RunAnywhere"]),
        .testTarget(name: "RunAnywhereJSONTests", dependencies: ["RunAnywhereJSON"]),
        .testTarget(
            name: "RunAnywhereJSONSchemaTests",
            dependencies: ["RunAnywhereJSONSchema", "RunAnywhereJSON", "RunAnywhereGBNF"]
        ),
        .testTarget(
            name: "RunAnywhereTests",
            dependencies: [
                "RunAnywhere", "RunAnywhereGBNF", "RunAnywhereTesting", "RunAnywhereTestSupport",
                // The hostile-input suite reaches the RAG chunker and the solutions' YAML reader too.
                "RunAnywhereRAG", "RunAnywhereSolutions",
            ]
        ),
        // The control plane's agent against the reference server, the telemetry queue, error reports.
        .testTarget(
            name: "RunAnywhereControlPlaneTests",
            dependencies: [
                "RunAnywhereControlPlane", "RunAnywhereControlPlaneServer", "RunAnywhere", "RunAnywhereTesting",
                "RunAnywhereTestSupport", "RunAnywhereTestingFileServer", "RunAnywhereHTTPServing",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "RunAnywhereRAGTests",
            dependencies: [
                "RunAnywhereRAG", "RunAnywhere", "RunAnywhereTesting", "RunAnywhereTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "RunAnywhereSolutionsTests",
            dependencies: [
                "RunAnywhereSolutions", "RunAnywhereRAG", "RunAnywhere", "RunAnywhereTesting", "RunAnywhereTestSupport",
            ]
        ),
        // Expansions and diagnostics, checked on source text without compiling it.
        .testTarget(
            name: "RunAnywhereMacrosTests",
            dependencies: [
                "RunAnywhereMacrosImplementation",
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
        // `@Generable` types compiled for real: their schemas and their JSON round trips.
        .testTarget(name: "RunAnywhereGenerableTests", dependencies: ["RunAnywhereGenerable"]),
        // An app's calls written from the original SDK's public API (seed 000 §5): it has to compile.
        .testTarget(
            name: "SeedPortTests",
            dependencies: [
                "RunAnywhere", "RunAnywhereControlPlane", "RunAnywhereJSONSchema", "RunAnywhereLlamaCPP",
                "RunAnywhereRAG", "RunAnywhereSolutions",
            ]
        ),
        // Against scripts/mcp_test_server.py, on the Python `mcp` package of scripts/env.sh's tools folder.
        .testTarget(
            name: "RunAnywhereMCPTests",
            dependencies: [
                "RunAnywhereMCP", "RunAnywhere", "RunAnywhereTestSupport", .product(name: "MCP", package: "swift-sdk"),
            ]
        ),
        // Every backend on the real engines with the default models from scripts/bootstrap.
        // What the real-engine test targets share: the default models, an SDK with every backend,
        // the CLI run as a user runs it, the lane tags, and the trait that gives a test the whole
        // machine across targets.
        .target(
            name: "RealEngineTestSupport",
            dependencies: [
                "RunAnywhere", "RunAnywhereLlamaCPP", "RunAnywhereWhisperCPP", "RunAnywhereSherpa",
                "RunAnywhereSystemVoice", "RunAnywherePocketSphinx", "RunAnywhereResemblyzer", "RunAnywhereRemote",
            ],
            path: "Tests/RealEngineTestSupport"
        ),
        // Each backend's tests on its real engine and models.
        .testTarget(
            name: "RunAnywhereLlamaCPPTests",
            dependencies: [
                "RunAnywhereLlamaCPP", "RunAnywhere", "RealEngineTestSupport", "RunAnywhereTestSupport",
                "RunAnywhereTesting", "RunAnywhereTestingFileServer", "RunAnywhereRAG",
            ]
        ),
        .testTarget(
            name: "RunAnywhereWhisperCPPTests",
            dependencies: ["RunAnywhereWhisperCPP", "RunAnywhere", "RealEngineTestSupport"]
        ),
        .testTarget(
            name: "RunAnywhereSherpaTests",
            dependencies: ["RunAnywhereSherpa", "RunAnywhere", "RealEngineTestSupport"]
        ),
        .testTarget(
            name: "RunAnywhereSystemVoiceTests",
            dependencies: ["RunAnywhereSystemVoice", "RunAnywhere", "RealEngineTestSupport"]
        ),
        .testTarget(
            name: "RunAnywherePocketSphinxTests",
            dependencies: ["RunAnywherePocketSphinx", "RunAnywhere", "RealEngineTestSupport"]
        ),
        .testTarget(
            name: "RunAnywhereResemblyzerTests",
            dependencies: ["RunAnywhereResemblyzer", "RunAnywhere", "RealEngineTestSupport"]
        ),
        // The whisper plugin through the plugin host and the loader, as built beside the tests.
        .testTarget(
            name: "RunAnywhereWhisperPluginTests",
            dependencies: ["RunAnywhere", "RealEngineTestSupport"]
        ),
        // Engines together, the CLI and the servers on real models.
        .testTarget(
            name: "RealEngineTests",
            dependencies: [
                "RunAnywhere", "RunAnywhereLlamaCPP", "RunAnywhereWhisperCPP", "RunAnywhereSherpa",
                "RunAnywhereSystemVoice", "RunAnywherePocketSphinx", "RunAnywhereResemblyzer", "RunAnywhereTesting",
                "RunAnywhereTestSupport", "RealEngineTestSupport",
                "RunAnywhereTestingFileServer", "RunAnywhereServer", "RunAnywhereRemote",
                "RunAnywhereControlPlaneServer", "RunAnywhereRAG", "RunAnywhereSolutions",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
