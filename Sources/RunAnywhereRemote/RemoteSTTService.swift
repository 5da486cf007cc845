import AsyncHTTPClient
import Foundation
import NIOCore
@_spi(Backend) import RunAnywhere

/// A speech-recognition model on an OpenAI-compatible server (`/audio/transcriptions`).
///
/// The audio goes as a 16-bit WAV in a multipart form with `response_format=verbose_json`,
/// so segments and their timing come back; a segment's confidence is the exponential of
/// its `avg_logprob`, and the transcript's their mean.
final class RemoteSTTService: STTService {
    let model: ModelInfo
    private let http: RemoteHTTPClient

    private init(model: ModelInfo, http: RemoteHTTPClient) {
        self.model = model
        self.http = http
    }

    /// Connects and checks that the server serves the model.
    static func load(_ model: ModelInfo) async throws -> RemoteSTTService {
        try await RemoteHTTPClient.loading(model) { http, _ in RemoteSTTService(model: model, http: http) }
    }

    func transcribe(_ audio: PCMAudio, options: STTOptions) async throws -> STTServiceResult {
        var form = MultipartForm()
        form.add("model", http.endpoint.remoteModelName)
        form.add("response_format", "verbose_json")
        form.add("temperature", "0")
        if let language = options.language { form.add("language", language) }
        if let prompt = options.initialPrompt { form.add("prompt", prompt) }
        form.addFile("file", fileName: "audio.wav", contentType: "audio/wav", data: WAVFile.encode(audio))
        var request = http.request(options.translate ? "audio/translations" : "audio/transcriptions")
        request.headers.add(name: "Content-Type", value: form.contentType)
        request.body = .bytes(ByteBuffer(bytes: form.finished))
        let json = try http.parse(try await http.send(request, idempotent: true), what: "transcription")
        guard let text = json["text"]?.stringValue else {
            throw SDKException(.remoteBadResponse, "The server's transcription has no 'text'")
        }
        var segments: [STTSegment] = []
        var confidences: [Float] = []
        for segment in json["segments"]?.arrayValue ?? [] {
            guard let start = segment["start"]?.doubleValue, let end = segment["end"]?.doubleValue,
                let piece = segment["text"]?.stringValue
            else { continue }
            let confidence = segment["avg_logprob"]?.doubleValue.map { Float(exp(min(0, $0))) }
            if let confidence { confidences.append(confidence) }
            segments.append(
                STTSegment(
                    text: piece.trimmedSpaces(),
                    start: start,
                    end: end,
                    confidence: confidence
                )
            )
        }
        return STTServiceResult(
            text: text.trimmed(),
            segments: segments,
            language: json["language"]?.stringValue,
            confidence: confidences.isEmpty ? nil : confidences.reduce(0, +) / Float(confidences.count)
        )
    }

    func unload() async {
        await http.shutdown()
    }
}

/// A `multipart/form-data` body.
struct MultipartForm {
    let boundary = "runanywhere-" + UUID().uuidString
    private(set) var body = Data()

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func add(_ name: String, _ value: String) {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }

    mutating func addFile(_ name: String, fileName: String, contentType: String, data: Data) {
        body.append(
            Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(fileName)\"\r\n"
                    .utf8
            )
        )
        body.append(Data("Content-Type: \(contentType)\r\n\r\n".utf8))
        body.append(data)
        body.append(Data("\r\n".utf8))
    }

    /// The closing boundary; call once, last.
    var finished: Data { body + Data("--\(boundary)--\r\n".utf8) }
}
