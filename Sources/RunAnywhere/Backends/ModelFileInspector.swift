import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a backend knows about its model files, so the core need not.
///
/// The registry and the downloader hand every model's primary file to the first
/// inspector that applies to it before accepting the model: the inspector refuses a file
/// its engine could not load (with `.invalidModelFormat` or `.modelCorrupted`) and fills
/// in what the file tells (format, context length, chat template, name). At start-up it
/// also turns a lone model file dropped into its framework's store folder into an entry.
///
/// ```swift
/// registry.registerModelInspector(ModelFileInspector(
///     name: "my-format",
///     appliesTo: { model, file in file.pathExtension == "myf" },
///     inspect: { model, file in try MyFormat.check(file); return model }))
/// ```
@_spi(Backend) public struct ModelFileInspector: Sendable {
    /// Checks a primary file and returns the model with what the file tells filled in.
    public typealias Inspect = @Sendable (_ model: ModelInfo, _ file: URL) throws(SDKException) -> ModelInfo
    /// The entry a store folder without `model.json` makes, if this inspector recognizes its files.
    public typealias Discover = @Sendable (_ folder: URL, _ id: String, _ framework: InferenceFramework) -> ModelInfo?

    /// The inspector's name, for logs.
    public let name: String
    /// Whether this inspector is responsible for `model`'s primary file at `file`.
    public let appliesTo: @Sendable (_ model: ModelInfo, _ file: URL) -> Bool
    /// Checks the file; see ``Inspect``.
    public let inspect: Inspect
    /// Recognizes dropped-in files; see ``Discover``.
    public let discover: Discover

    /// Creates an inspector; `discover` defaults to recognizing nothing.
    public init(
        name: String,
        appliesTo: @escaping @Sendable (_ model: ModelInfo, _ file: URL) -> Bool,
        inspect: @escaping Inspect,
        discover: @escaping Discover = { _, _, _ in nil }
    ) {
        self.name = name
        self.appliesTo = appliesTo
        self.inspect = inspect
        self.discover = discover
    }
}

/// The inspectors the registered backends offer, in registration order.
final class ModelFileInspectors: Sendable {
    private let inspectors = Mutex<[ModelFileInspector]>([])
    init(_ inspectors: [ModelFileInspector] = []) {
        self.inspectors.withLock { $0 = inspectors }
    }

    func add(_ inspector: ModelFileInspector) {
        inspectors.withLock { $0.append(inspector) }
    }

    /// `model` as the first inspector that applies to `file` sees it; unchanged when none applies.
    func inspect(_ model: ModelInfo, file: URL) throws(SDKException) -> ModelInfo {
        guard let inspector = inspectors.withLock({ $0 }).first(where: { $0.appliesTo(model, file) }) else {
            return model
        }
        return try inspector.inspect(model, file)
    }

    /// The entry the first inspector recognizing `folder` makes of it.
    func discover(folder: URL, id: String, framework: InferenceFramework) -> ModelInfo? {
        inspectors.withLock { $0 }.lazy.compactMap { $0.discover(folder, id, framework) }.first
    }
}
