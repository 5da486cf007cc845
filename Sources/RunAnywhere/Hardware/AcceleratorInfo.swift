/// A processor or GPU the engines could run on, and which of them can.
public struct AcceleratorInfo: Sendable, Codable, Equatable {
    /// What kind of device it is.
    public enum Kind: String, Sendable, Codable {
        /// The processor.
        case cpu
        /// A graphics processor.
        case gpu
    }

    /// `cpu` or `gpu`.
    public var kind: Kind
    /// The device's name: the processor's model, or the GPU's.
    public var name: String
    /// The registered engines built to use it (every engine can use the processor).
    public var engines: [String]
    /// Whether models can run on it now: the processor always; a GPU when an engine can use it.
    public var usable: Bool { !engines.isEmpty }

    /// Creates a description.
    public init(kind: Kind, name: String, engines: [String]) {
        self.kind = kind
        self.name = name
        self.engines = engines
    }

    /// What to do when no engine can use a GPU.
    static let gpuRecovery =
        "Use .auto or .cpu, or install GPU builds of the engines (see \"Accelerators\" in the README)"
}
