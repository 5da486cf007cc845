import Foundation
@_spi(Backend) import RunAnywhere

/// What a server's `GET /models` says about the endpoint's model.
struct RemoteModelList {
    /// The context length the server reports for the model, when it reports one (vLLM's
    /// `max_model_len`, llama.cpp's `meta.n_ctx_train`, `context_length`).
    var contextLength: Int?

    /// Lists the server's models and checks that the endpoint's model is among them.
    ///
    /// - Returns: `nil` when the server has no `/models` endpoint (404): nothing to check.
    /// - Throws: `.remoteNotFound` naming the models the server serves, and the errors of
    ///   ``RemoteHTTPClient/send(_:idempotent:)``.
    static func fetch(_ http: RemoteHTTPClient) async throws(SDKException) -> RemoteModelList? {
        let body: Data
        do {
            body = try await http.send(http.request("models", method: .GET), idempotent: true)
        } catch  where error.code == .remoteNotFound {
            return nil
        }
        let json = try http.parse(body, what: "model list")
        guard let entries = json["data"]?.arrayValue else {
            throw SDKException(.remoteBadResponse, "The server's model list has no 'data' array")
        }
        let name = http.endpoint.remoteModelName
        guard let entry = entries.first(where: { $0["id"]?.stringValue == name }) else {
            let served = entries.compactMap { $0["id"]?.stringValue }.prefix(20)
            throw SDKException(
                .remoteNotFound,
                "The server at \(http.endpoint.baseURL.absoluteString) does not serve '\(name)'",
                recovery: served.isEmpty
                    ? "The server lists no models" : "It serves: \(served.joined(separator: ", "))"
            )
        }
        let reported = [entry["max_model_len"], entry["context_length"], entry["meta"]?["n_ctx_train"]]
            .compactMap { $0?.integerValue }
            .first { $0 > 0 }
        return RemoteModelList(contextLength: reported.map(Int.init))
    }
}
