/// What a structured generation stream delivers.
public enum StructuredOutputStreamEvent: Sendable, Equatable {
    /// The JSON text so far (it grows with every token; it parses only at the end).
    case partial(text: String)
    /// The generation ended; always the last event of a stream that did not fail.
    case completed(StructuredOutputResult)
}
