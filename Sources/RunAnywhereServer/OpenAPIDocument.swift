// The OpenAPI document of what `runanywhere serve` serves, at `GET /openapi.json`: it lives in
// Resources/openapi.json, compiled into the module (no bundle to ship beside a program). Shapes
// follow OpenAI's API reference (openai/openai-openapi), trimmed to what the server supports;
// optional request fields are nullable because the server treats null as absent, and ignored
// fields carry no type. The server adds the offered model ids as each request's `model` enum.
// OpenAPIDocumentTests checks that its paths and the server's routes agree.

/// The server's OpenAPI 3.0.3 document.
enum OpenAPIDocument {
    static let json = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}
