import Foundation
import Hummingbird
import RunAnywhere

/// `POST /v1/audio/speech`: text spoken by a voice model, as WAV or as OpenAI's raw PCM
/// (16-bit little-endian mono at 24 kHz).
struct SpeechEndpoint: Sendable {
    let state: ServerState

    /// The rate of OpenAI's `pcm` format.
    static let pcmSampleRate = 24_000

    struct Body: Decodable, Sendable {
        var model: String
        var input: String
        var voice: String
        var responseFormat: String?
        var speed: Double?

        enum CodingKeys: String, CodingKey {
            case model, input, voice, speed
            case responseFormat = "response_format"
        }
    }

    func handle(_ request: Request) async throws -> Response {
        let body = try await state.decode(Body.self, from: request)
        let model = try state.host.model(body.model, for: .speechSynthesis)
        guard !body.input.trimmed().isEmpty else {
            throw OpenAIError.invalid("'input' must not be empty", param: "input")
        }
        let limit = state.configuration.maxSpeechCharacters
        guard body.input.unicodeScalars.count <= limit else {
            throw OpenAIError.invalid("'input' is longer than \(limit) characters", param: "input")
        }
        let format = body.responseFormat ?? "wav"
        guard format == "wav" || format == "pcm" else {
            throw OpenAIError.invalid(
                "response_format '\(format)' is not supported; use wav or pcm",
                param: "response_format"
            )
        }
        let speed = body.speed ?? 1
        guard speed.isFinite, (0.25...4).contains(speed) else {
            throw OpenAIError.invalid("'speed' must be between 0.25 and 4", param: "speed")
        }
        let output = try await state.withModel(model) {
            // OpenAI's voice names (alloy, echo, …) mean nothing here: a name that is not one of
            // the loaded model's voices speaks with the model's own voice.
            let voices = try await state.sdk.availableTTSVoices()
            let voice = voices.first { $0.id == body.voice && !$0.isSystem }?.id
            return try await state.sdk.synthesize(body.input, options: TTSOptions(voice: voice, rate: Float(speed)))
        }
        let bytes: Data
        let type: String
        if format == "pcm" {
            bytes = output.audio.mono().resampled(to: Self.pcmSampleRate).pcm16Data
            type = "audio/pcm"
        } else {
            bytes = WAVFile.encode(output.audio)
            type = "audio/wav"
        }
        return Response(
            status: .ok,
            headers: [.contentType: type],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
