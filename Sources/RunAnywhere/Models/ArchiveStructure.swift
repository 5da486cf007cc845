#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a model archive is laid out inside (the original SDK's `ArchiveStructure`), so the
/// file engines open can be found once it is unpacked, when registration did not name it
/// (``ModelArchive/primaryFile`` empty).
public enum ArchiveStructure: String, Sendable, Codable, CaseIterable {
    /// One model file, at the top or up to two folders down.
    case singleFileNested
    /// The model's files side by side at the top of the archive.
    case directoryBased
    /// One folder at the top holding the model's files.
    case nestedDirectory
    /// Not known: the shallowest model file, up to two folders down.
    case unknown

    /// File suffixes of model weights, most telling first: a `.bin` counts only when nothing
    /// else does (voices and vocabularies are `.bin` files too).
    private static let weightSuffixes: [[String]] = [["gguf", "onnx", "ort", "ggml"], ["bin"]]

    /// The path, relative to `folder` (an unpacked archive), of the file engines open.
    ///
    /// Hidden entries and vision projectors (`mmproj` in the name) are never chosen.
    ///
    /// - Throws: `.invalidArchive` when the layout does not match, when there is no model
    ///   file, or when several are equally likely (the message lists them: name the one to
    ///   open with ``ModelArchive/primaryFile``).
    public func primaryFile(in folder: URL) throws(SDKException) -> String {
        var root = ""
        var depth = 2
        switch self {
        case .directoryBased:
            depth = 0
        case .nestedDirectory:
            let folders = Self.entries(in: folder).filter {
                FileSystem.status($0.path, followingLinks: false)?.isDirectory == true
            }
            guard folders.count == 1 else {
                throw SDKException(
                    .invalidArchive,
                    "The archive has \(folders.count) folders at its top, not the one a nested-directory archive has"
                )
            }
            root = folders[0].lastPathComponent + "/"
            depth = 0
        case .singleFileNested, .unknown:
            break
        }
        let candidates = Self.weights(in: folder.appendingPathComponent(root), prefix: root, depth: depth)
        for suffixes in Self.weightSuffixes {
            let matching = candidates.filter { suffixes.contains(Self.suffix(of: $0.path)) }
            guard let shallowest = matching.map(\.depth).min() else { continue }
            let chosen = matching.filter { $0.depth == shallowest }.map(\.path).sorted()
            guard chosen.count == 1 else {
                throw SDKException(
                    .invalidArchive,
                    "The archive holds several model files (\(chosen.joined(separator: ", ")))",
                    recovery: "Name the one to open with ModelArchive(url:primaryFile:)"
                )
            }
            return chosen[0]
        }
        throw SDKException(
            .invalidArchive,
            "The archive holds no model file (.gguf, .onnx, .ort, .ggml or .bin) where a \(rawValue) archive keeps it"
        )
    }

    /// The lower-cased suffix of a path's file name, without the dot; empty when there is none.
    private static func suffix(of path: String) -> String {
        let name = path.split(separator: "/").last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The visible entries of `folder`.
    private static func entries(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.map { folder.appendingPathComponent($0) }
    }

    /// Files that may be weights, up to `depth` folders below `folder`, as paths prefixed
    /// with `prefix`.
    private static func weights(in folder: URL, prefix: String, depth: Int) -> [(path: String, depth: Int)] {
        var found: [(path: String, depth: Int)] = []
        for entry in entries(in: folder) {
            let name = entry.lastPathComponent
            if FileSystem.status(entry.path, followingLinks: false)?.isDirectory == true {
                guard depth > 0 else { continue }
                found += weights(in: entry, prefix: prefix + name + "/", depth: depth - 1).map {
                    ($0.path, $0.depth + 1)
                }
            } else if ModelFileRole.role(ofFileNamed: name) != .visionProjector {
                found.append((prefix + name, 0))
            }
        }
        return found
    }
}
