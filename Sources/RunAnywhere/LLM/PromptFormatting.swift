/// How a generation's conversation became the prompt text the model read.
public enum PromptFormatting: String, Sendable, Codable, Equatable, CaseIterable {
    /// The model's own chat template (its Jinja program, or one the app supplied), rendered
    /// the way the model was trained to read it.
    case modelTemplate = "model_template"
    /// llama.cpp's built-in list of chat formats, picked by heuristics, because the model
    /// carries no Jinja template or its template could not be rendered; the SDK's log says why.
    /// The prompt may differ from what the model was trained on.
    case builtIn = "built_in"
    /// No template: the prompt went to the model as given (`applyChatTemplate: false`).
    case raw
}
