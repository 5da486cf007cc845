/// The ids of the default models that `scripts/bootstrap` installs (see the README's table),
/// in one place for the CLI and the tests.
package enum DefaultModelIds {
    /// The language model (SmolLM2 135M Instruct on llama.cpp).
    package static let llm = "smollm2-135m-instruct"
    /// The speech recognizer (Whisper tiny.en on whisper.cpp).
    package static let stt = "whisper-tiny-en"
    /// The neural voice (Piper en_US joe, medium, on sherpa-onnx).
    package static let tts = "piper-en-us-joe-medium"
    /// The voice-activity detector (Silero on sherpa-onnx).
    package static let vad = "silero-vad"
    /// all-MiniLM-L6-v2, converted to GGUF (BERT, mean pooling, 384 dimensions).
    package static let embedding = "all-minilm-l6-v2"
    /// Resemblyzer's GE2E speaker encoder, converted to GGUF (diarization).
    package static let diarization = "resemblyzer-ge2e"
}
