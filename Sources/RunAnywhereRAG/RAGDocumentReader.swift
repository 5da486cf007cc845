@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the documents of files and folders for ``RAGIndex/ingest(files:progress:)``, and
/// checks every one before anything is ingested.
enum RAGDocumentReader {
    /// One document to ingest.
    struct Document: Sendable, Equatable {
        var id: String
        var title: String?
        var text: String
        var metadata: [String: String]
    }

    /// Extensions read as one plain-text document each.
    static let textExtensions: Set<String> = ["txt", "text", "md", "markdown"]

    static func read(_ urls: [URL]) throws(SDKException) -> [Document] {
        var documents: [Document] = []
        for url in urls {
            guard let status = FileSystem.status(url.path) else {
                throw SDKException(.invalidInput, "\(url.path) does not exist")
            }
            if status.isDirectory {
                let root = url.standardizedFileURL
                // By path: the URL enumerator and its resource values are full Foundation's.
                let files = ((try? FileManager.default.subpathsOfDirectory(atPath: root.path)) ?? [])
                    .map { root.appendingPathComponent($0) }
                    .filter { isIngestible($0) }
                    .sorted { $0.path < $1.path }
                for file in files {
                    let relative = String(file.standardizedFileURL.path.dropFirst(root.path.count + 1))
                    documents += try readFile(file, id: relative)
                }
            } else {
                guard isIngestible(url) else {
                    throw SDKException(
                        .invalidDocument,
                        "\(url.lastPathComponent) is not a .txt, .md or .jsonl file",
                        recovery: "Extract its text into a .txt file first"
                    )
                }
                documents += try readFile(url, id: url.lastPathComponent)
            }
        }
        var seen: [String: Int] = [:]
        for document in documents {
            seen[document.id, default: 0] += 1
            if seen[document.id] == 2 {
                throw SDKException(.invalidDocument, "Two documents have the id '\(document.id)'")
            }
        }
        return documents
    }

    private static func isIngestible(_ url: URL) -> Bool {
        let ext = url.pathExtension.lowercased()
        let isFile = FileSystem.status(url.path)?.isRegularFile ?? false
        return isFile && (textExtensions.contains(ext) || ext == "jsonl")
    }

    private static func readFile(_ url: URL, id: String) throws(SDKException) -> [Document] {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw SDKException(.fileSystemError, "Cannot read \(url.path)", underlying: error)
        }
        let text = try decode(data, name: url.path)
        if url.pathExtension.lowercased() == "jsonl" { return try readJSONLines(text, name: url.path) }
        try RAGIndex.validateDocument(id: id, text: text)
        return [Document(id: id, title: title(of: text), text: text, metadata: ["source": url.lastPathComponent])]
    }

    /// UTF-8 text, or `.invalidDocument` for binary data (NUL bytes) and other encodings.
    static func decode(_ data: Data, name: String) throws(SDKException) -> String {
        guard !data.contains(0) else {
            throw SDKException(.invalidDocument, "\(name) contains NUL bytes: it looks binary, not text")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SDKException(
                .invalidDocument,
                "\(name) is not valid UTF-8 text",
                recovery: "Convert it first, e.g. `iconv -f latin1 -t utf-8`"
            )
        }
        return text
    }

    /// The first Markdown heading, if the text starts with one.
    private static func title(of text: String) -> String? {
        guard let first = text.split(separator: "\n", omittingEmptySubsequences: true).first,
            first.hasPrefix("#")
        else { return nil }
        let title = first.drop(while: { $0 == "#" }).trimmedSpaces()
        return title.isEmpty ? nil : title
    }

    private struct Line: Decodable {
        var id: String?
        var title: String?
        var text: String?
        var metadata: [String: String]?
    }

    private static func readJSONLines(_ text: String, name: String) throws(SDKException) -> [Document] {
        var documents: [Document] = []
        // Line by line as found, not split up front: a file of newlines would otherwise be an
        // array of 32 bytes for each byte of it.
        var start = text.startIndex
        var number = -1
        while start < text.endIndex {
            let end = text[start...].firstIndex(of: "\n") ?? text.endIndex
            let line = text[start..<end]
            number += 1
            start = end < text.endIndex ? text.index(after: end) : end
            guard !line.trimmedSpaces().isEmpty else { continue }
            let parsed: Line
            do {
                parsed = try JSONDecoder().decode(Line.self, from: Data(line.utf8))
            } catch {
                throw SDKException(
                    .invalidDocument,
                    "\(name) line \(number + 1) is not an object with string id, title, text (and metadata)"
                )
            }
            guard let id = parsed.id, let body = parsed.text else {
                throw SDKException(.invalidDocument, "\(name) line \(number + 1) lacks \"id\" or \"text\"")
            }
            try RAGIndex.validateDocument(id: id, text: body)
            documents.append(Document(id: id, title: parsed.title, text: body, metadata: parsed.metadata ?? [:]))
        }
        return documents
    }
}
