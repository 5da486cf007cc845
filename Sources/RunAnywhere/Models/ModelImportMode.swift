import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How ``RunAnywhereSDK/importModel(from:id:name:category:framework:mode:primaryFile:)`` treats the source file.
public enum ModelImportMode: String, Sendable, Codable, CaseIterable {
    /// Copy the file into the store; the source stays.
    case copy
    /// Move the file into the store (a rename when on the same file system).
    case move
}
