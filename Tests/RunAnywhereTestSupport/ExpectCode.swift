import RunAnywhere
import Testing

/// Expects `body` to throw an `SDKException` with `code`, and returns it.
@discardableResult
public func expectCode<T>(
    _ code: SDKException.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> SDKException? {
    do {
        _ = try await body()
        Issue.record("Expected \(code), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as SDKException {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("Expected an SDKException, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
