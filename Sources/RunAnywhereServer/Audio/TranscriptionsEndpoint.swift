import Foundation
import Hummingbird
import MultipartKit
import RunAnywhere

/// `POST /v1/audio/transcriptions`: a multipart upload of a WAV file, transcribed, answered
/// as JSON, plain text, verbose JSON with segments, SRT or WebVTT.
struct TranscriptionsEndpoint: Sendable {
    let state: ServerState

    struct Form: Decodable, Sendable {
        var file: Data?
        var model: String?
        var language: String?
        var prompt: String?
        var responseFormat: String?
        var temperature: Double?
        var timestampGranularities: [String]?

        enum CodingKeys: String, CodingKey {
            case file, model, language, prompt, temperature
            case responseFormat = "response_format"
            case timestampGranularities = "timestamp_granularities"
        }
    }

    static let formats: Set<String> = ["json", "text", "verbose_json", "srt", "vtt"]

    func handle(_ request: Request) async throws -> Response {
        let form = try await decodeForm(request)
        guard let modelId = form.model, !modelId.isEmpty else {
            throw OpenAIError.invalid("Missing required parameter: 'model'", param: "model")
        }
        let model = try state.host.model(modelId, for: .speechRecognition)
        guard let file = form.file, !file.isEmpty else {
            throw OpenAIError.invalid("Missing required parameter: 'file'", param: "file")
        }
        let format = form.responseFormat ?? "json"
        guard Self.formats.contains(format) else {
            throw OpenAIError.invalid(
                "'response_format' must be one of json, text, verbose_json, srt, vtt",
                param: "response_format"
            )
        }
        let granularities = form.timestampGranularities ?? []
        if let unknown = granularities.first(where: { $0 != "segment" && $0 != "word" }) {
            throw OpenAIError.invalid("Unknown timestamp granularity '\(unknown)'", param: "timestamp_granularities")
        }
        if granularities.contains("word") {
            throw OpenAIError.invalid(
                "Word timestamps are not supported; segment timestamps are",
                param: "timestamp_granularities"
            )
        }
        let audio: PCMAudio
        do {
            audio = try WAVFile.decode(file)
        } catch {
            throw OpenAIError.invalid(
                "The file is not a WAV recording we can read (\(error.message)); send PCM or float WAV",
                param: "file",
                code: "invalid_audio"
            )
        }
        let options = STTOptions(
            language: form.language.flatMap { $0.isEmpty ? nil : $0 },
            enableTimestamps: true,
            initialPrompt: form.prompt.flatMap { $0.isEmpty ? nil : $0 }
        )
        let output = try await state.withModel(model) {
            try await state.sdk.transcribe(audio, options: options)
        }
        return try Self.response(output, format: format)
    }

    private func decodeForm(_ request: Request) async throws -> Form {
        let contentType = request.headers[.contentType] ?? ""
        guard contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundary = Self.boundary(in: contentType)
        else {
            throw OpenAIError.invalid("Send the audio as multipart/form-data with a boundary", code: "invalid_form")
        }
        let body = try await state.body(of: request, limit: state.configuration.maxAudioBytes)
        // The parser keeps a few hundred bytes for each part: a body of empty parts would hold
        // about eight times its size. A transcription form has the file and a few fields.
        guard Self.delimiterCount(in: body, boundary: boundary, upTo: Self.maximumParts + 1) <= Self.maximumParts + 1
        else {
            throw OpenAIError.invalid(
                "The form has more than \(Self.maximumParts) parts; a transcription takes a file and a few fields",
                code: "invalid_form"
            )
        }
        guard Self.headerNamesAreASCII(in: body, boundary: boundary) else {
            throw OpenAIError.invalid("A part's header name is not ASCII", code: "invalid_form")
        }
        do {
            return try FormDataDecoder().decode(Form.self, from: body, boundary: boundary)
        } catch let error as DecodingError {
            throw OpenAIError(decoding: error)
        } catch {
            throw OpenAIError.invalid("The multipart form could not be read", code: "invalid_form")
        }
    }

    /// Whether every header name in every part is ASCII. multipart-kit 4.7.1 looks each
    /// header-name byte up in a 128-entry table and traps on a byte of 128 or more, which
    /// would take the whole server down with one request; this finds such bytes first.
    /// It checks the header lines after every `--boundary` followed by CRLF, a superset of
    /// the places where the parser reads header names, stopping at the blank line that
    /// ends each header block.
    static func headerNamesAreASCII(in body: ByteBuffer, boundary: String) -> Bool {
        let bytes = body.readableBytesView
        let delimiter = Array("--\(boundary)\r\n".utf8)
        var start = bytes.startIndex
        while let found = bytes[start...].firstRange(of: delimiter) {
            var index = found.upperBound
            var inName = true
            var lineIsEmpty = true
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\r") {
                    if lineIsEmpty {
                        break
                    }
                    inName = true
                    lineIsEmpty = true
                } else if byte != UInt8(ascii: "\n") {
                    if inName && byte >= 0x80 {
                        return false
                    }
                    if byte == UInt8(ascii: ":") {
                        inName = false
                    }
                    lineIsEmpty = false
                }
                index += 1
            }
            // A delimiter inside lines already checked starts a line that was checked too, so
            // the search goes on after them and the check stays linear in the body's size.
            start = max(found.upperBound, index)
        }
        return true
    }

    /// The most parts a transcription form may have.
    static let maximumParts = 32

    /// The delimiter lines in `body` (`--boundary` at its start or after a line break; the
    /// closing one included), counted up to one past `limit`.
    static func delimiterCount(in body: ByteBuffer, boundary: String, upTo limit: Int) -> Int {
        let bytes = body.readableBytesView
        let delimiter = Array("\r\n--\(boundary)".utf8)
        var count = bytes.starts(with: delimiter.dropFirst(2)) ? 1 : 0
        var start = bytes.startIndex
        while count <= limit, let found = bytes[start...].firstRange(of: delimiter) {
            count += 1
            start = found.upperBound
        }
        return count
    }

    static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map {
                $0.trimmedSpaces()
            }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value = pair[1].trimmed { $0 == "\"" }
            return value.isEmpty ? nil : value
        }
        return nil
    }

    static func response(_ output: STTOutput, format: String) throws -> Response {
        let text = output.text.trimmed()
        switch format {
        case "text":
            return plain(text + "\n", type: "text/plain; charset=utf-8")
        case "srt":
            return plain(subtitles(output, srt: true), type: "text/plain; charset=utf-8")
        case "vtt":
            return plain(subtitles(output, srt: false), type: "text/vtt; charset=utf-8")
        case "verbose_json":
            let segments: [JSONValue] = output.segments.enumerated().map { index, segment in
                [
                    "id": .integer(Int64(index)),
                    "seek": 0,
                    "start": .number(segment.start),
                    "end": .number(segment.end),
                    "text": .string(segment.text),
                    "tokens": [],
                    "temperature": 0.0,
                    "avg_logprob": .null,
                    "compression_ratio": .null,
                    "no_speech_prob": .null,
                ]
            }
            return .json([
                "task": "transcribe",
                "language": .string(output.language ?? "en"),
                "duration": .number(output.audioDuration),
                "text": .string(text),
                "segments": .array(segments),
            ])
        default:
            return .json(["text": .string(text)])
        }
    }

    private static func plain(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// SRT (`00:00:01,500`, numbered cues) or WebVTT (`WEBVTT` header, `00:00:01.500`).
    static func subtitles(_ output: STTOutput, srt: Bool) -> String {
        func stamp(_ seconds: TimeInterval) -> String {
            let total = Int((max(0, seconds) * 1000).rounded())
            let (hours, minutes, secs, millis) = (
                total / 3_600_000, total / 60_000 % 60, total / 1000 % 60, total % 1000
            )
            let separator = srt ? "," : "."
            return String(format: "%02d:%02d:%02d%@%03d", hours, minutes, secs, separator, millis)
        }
        var segments = output.segments
        if segments.isEmpty, !output.text.isEmpty {
            segments = [STTSegment(text: output.text, start: 0, end: output.audioDuration)]
        }
        var lines: [String] = srt ? [] : ["WEBVTT", ""]
        for (index, segment) in segments.enumerated() {
            if srt { lines.append(String(index + 1)) }
            lines.append("\(stamp(segment.start)) --> \(stamp(segment.end))")
            lines.append(segment.text.trimmed())
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }
}
