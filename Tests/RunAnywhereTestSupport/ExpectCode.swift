import RunAnywhere
import Testing

/// Expects `body` to throw an `SDKException` with `code`, and returns it.
@discardableResult
public func expectCode(
    _ code: SDKException.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> SDKException? {
    do {
        try await body()
        Issue.record("Expected \(code), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as SDKException {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("Expected an SDKException, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Expects `body` to throw an `SDKException` with `code`, and returns it.
@discardableResult
public func expectCode(
    _ code: SDKException.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> SDKException? {
    do {
        try body()
        Issue.record("Expected \(code), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as SDKException {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("Expected an SDKException, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
