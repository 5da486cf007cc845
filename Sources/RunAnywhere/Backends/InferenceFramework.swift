/// The engine family that runs a model: an open set of ids.
///
/// The core names no engine. Each backend module declares its own id as a static member
/// in an extension, so `.llamaCpp` reads naturally wherever that module is imported:
///
/// ```swift
/// extension InferenceFramework {
///     /// Models run by my engine.
///     public static let myEngine = InferenceFramework("my-engine")
/// }
/// ```
///
/// The raw value names the model's folder under `models/`, so it must be a valid model
/// id (see ``ModelInfo/validate(id:)``).
public struct InferenceFramework: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The id, e.g. `llamacpp`.
    public let rawValue: String

    /// Creates a framework id.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a framework id.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a framework id from a literal.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// Decodes the id from a plain string, as earlier registries stored it.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the id as a plain string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The raw value.
    public var description: String { rawValue }
}

extension InferenceFramework {
    /// Checks that the id can name a folder: the rules of ``ModelInfo/validate(id:)``.
    ///
    /// - Throws: `.invalidInput` naming the bad id.
    public func validate() throws(SDKException) {
        do {
            try ModelInfo.validate(id: rawValue)
        } catch {
            throw SDKException(
                .invalidInput,
                "Invalid framework id '\(rawValue)'",
                recovery: "Use 1–128 lowercase letters, digits, '.', '_' or '-', e.g. \"llamacpp\""
            )
        }
    }
}

extension InferenceFramework {
    /// The raw value as the wire carries it (the original SDK's name).
    public var wireString: String { rawValue }

    /// The raw value under the original SDK's analytics name.
    public var analyticsKey: String { rawValue }

    /// A name to show a user (the original SDK's): the raw value, as the engine module
    /// registers it (`llamacpp`); the module's ``EngineInfo`` carries its full name.
    public var displayName: String { rawValue }

    /// The frameworks the shared instance can run (the original SDK's list of known cases):
    /// those of its registered modules, in order. Frameworks are an open set, one per engine
    /// module, so this is what the app was built with, not a fixed list.
    public static var knownCases: [InferenceFramework] {
        var seen: Set<InferenceFramework> = []
        return RunAnywhere.registeredModules.flatMap(\.frameworks).filter { seen.insert($0).inserted }
    }

    /// The framework of a name, case-insensitively (the original SDK's initializer); `nil` for
    /// an empty name.
    public init?(caseInsensitive name: String) {
        let lowered = name.trimmed().lowercased()
        guard !lowered.isEmpty else { return nil }
        self.init(lowered)
    }
}
