/// The options of `rac_stt_ops.transcribe`, as the ABI spells them in JSON: the host writes
/// them, and a plugin built in Swift on this package reads them with the same type.
package struct PluginSTTRequest: Codable, Sendable {
    package var language: String?
    package var translate: Bool?
    package var threads: Int?
    package var initial_prompt: String?

    /// The ABI's spelling of `options`.
    package init(_ options: STTOptions) {
        language = options.language
        translate = options.translate
        threads = options.threads
        initial_prompt = options.initialPrompt
    }

    /// The options as the SDK's type (a key the host left out takes its default).
    package var options: STTOptions {
        STTOptions(language: language, translate: translate ?? false, threads: threads, initialPrompt: initial_prompt)
    }
}

/// The result of `rac_stt_ops.transcribe` in JSON: a Swift plugin writes it, the host reads it.
package struct PluginSTTResult: Codable, Sendable {
    package struct Segment: Codable, Sendable {
        package var text: String
        package var start: Double
        package var end: Double
        package var confidence: Float?
    }

    package var text: String
    package var language: String?
    package var confidence: Float?
    package var segments: [Segment]?

    /// The ABI's spelling of a service's result.
    package init(_ result: STTServiceResult) {
        text = result.text
        language = result.language
        confidence = result.confidence
        segments = result.segments.map {
            Segment(text: $0.text, start: $0.start, end: $0.end, confidence: $0.confidence)
        }
    }

    /// The result as a service result (timing is added by the capability).
    package var serviceResult: STTServiceResult {
        STTServiceResult(
            text: text,
            segments: (segments ?? []).map {
                STTSegment(text: $0.text, start: $0.start, end: $0.end, confidence: $0.confidence)
            },
            language: language,
            confidence: confidence
        )
    }
}
