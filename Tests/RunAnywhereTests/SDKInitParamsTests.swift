import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Environment validation")
struct SDKInitParamsTests {
    @Test("Development needs neither key nor URL")
    func developmentIsOpen() throws {
        let params = try SDKInitParams(apiKey: nil, baseURL: nil, environment: .development)
        #expect(params.configuredAPIKey == nil)
        #expect(params.configuredBaseURL == nil)
        // The original SDK's fields are never missing: an empty key and its placeholder URL.
        #expect(params.apiKey.isEmpty)
        #expect(params.baseURL == SDKInitParams.developmentPlaceholderURL)
        #expect(SDKInitParams().environment == .development)
        #expect(SDKInitParams().apiKey.isEmpty)
    }

    @Test("Staging and production need an API key", arguments: [SDKEnvironment.staging, .production])
    func keyRequired(environment: SDKEnvironment) {
        #expect(throws: SDKException.self) {
            try SDKInitParams(apiKey: nil, baseURL: "https://api.example.com", environment: environment)
        }
        do {
            _ = try SDKInitParams(apiKey: "  ", baseURL: "https://api.example.com", environment: environment)
            Issue.record("blank key accepted")
        } catch { #expect(error.code == .invalidAPIKey) }
        do {
            _ = try SDKInitParams(apiKey: "short", baseURL: "https://api.example.com", environment: environment)
            Issue.record("short key accepted")
        } catch { #expect(error.code == .invalidAPIKey) }
    }

    @Test("Staging and production need an https base URL", arguments: [SDKEnvironment.staging, .production])
    func httpsRequired(environment: SDKEnvironment) throws {
        for url in [nil, "http://api.example.com", "not a url", "ftp://api.example.com"] {
            do {
                _ = try SDKInitParams(apiKey: "sk-12345678", baseURL: url, environment: environment)
                Issue.record("accepted base URL \(url ?? "nil")")
            } catch { #expect(error.code == .invalidBaseURL) }
        }
        let ok = try SDKInitParams(apiKey: "sk-12345678", baseURL: "https://api.example.com", environment: environment)
        #expect(ok.baseURL.host == "api.example.com")
        #expect(ok.configuredBaseURL == ok.baseURL)
        #expect(ok.apiKey == "sk-12345678")
    }

    @Test("Each environment has its own default log level")
    func logLevels() {
        #expect(SDKEnvironment.development.defaultLogLevel == .debug)
        #expect(SDKEnvironment.staging.defaultLogLevel == .info)
        #expect(SDKEnvironment.production.defaultLogLevel == .warning)
    }

    @Test("Every error code belongs to a category and prints on one line")
    func errorCodes() {
        for code in SDKException.Code.allCases {
            let error = SDKException(code, "message", recovery: "do this")
            #expect(error.category == code.category)
            #expect(!error.description.contains("\n"))
            #expect(error.description.contains(code.rawValue))
        }
    }
}
