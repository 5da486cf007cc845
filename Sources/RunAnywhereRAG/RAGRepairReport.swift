@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `RunAnywhereSDK.repairRAGIndex(_:)` found and did.
public struct RAGRepairReport: Sendable, Equatable, Codable {
    /// The index's name.
    public var name: String
    /// Problems SQLite's integrity check reported, or why the database could not be read.
    public var problems: [String]
    /// Whether the database was replaced by an empty one with the same settings (its
    /// documents must be ingested again).
    public var rebuilt: Bool
    /// Where the damaged database was moved, when it was replaced.
    public var damagedFile: String?

    /// Creates a report.
    public init(name: String, problems: [String], rebuilt: Bool, damagedFile: String?) {
        self.name = name
        self.problems = problems
        self.rebuilt = rebuilt
        self.damagedFile = damagedFile
    }
}
