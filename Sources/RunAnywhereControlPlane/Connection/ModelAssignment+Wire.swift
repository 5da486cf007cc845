internal import Foundation
package import RunAnywhere

extension ModelAssignment {
    /// An assignment as the API sends it (and as `runanywhere control-plane serve` reads it
    /// from its file), checked: every file has an absolute URL and a well-formed checksum.
    ///
    /// - Throws: `.invalidInput` naming the model and the file at fault.
    package init(wire model: Components.Schemas.ModelAssignment) throws(SDKException) {
        var files: [RemoteFile] = []
        for entry in model.files {
            guard let url = URL(string: entry.url), url.scheme != nil else {
                throw SDKException(.invalidInput, "'\(entry.url)' of \(model.modelId) is not a URL")
            }
            let file = RemoteFile(url: url, fileName: entry.filename, sha256: entry.sha256, sizeBytes: entry.sizeBytes)
            try file.validate()
            files.append(file)
        }
        guard !files.isEmpty else { throw SDKException(.invalidInput, "\(model.modelId) has no files") }
        self.init(
            modelId: model.modelId,
            name: model.name,
            category: model.category,
            framework: model.framework,
            contextLength: model.contextLength,
            required: model.required ?? false,
            files: files
        )
    }
}
