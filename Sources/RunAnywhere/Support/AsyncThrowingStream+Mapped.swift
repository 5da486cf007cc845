#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AsyncThrowingStream where Failure == any Error {
    /// This stream with `transform` applied to each element; ending the iteration of the
    /// result ends this one.
    package func mapped<T: Sendable>(
        _ transform: @escaping @Sendable (Element) -> T
    ) -> AsyncThrowingStream<T, any Error>
    where Element: Sendable {
        let source = self
        return AsyncThrowingStream<T, any Error> { continuation in
            let task = Task {
                do {
                    for try await element in source {
                        continuation.yield(transform(element))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// This stream as a non-throwing one of `transform`'s elements, where an error is not lost
    /// but becomes the last element, `failure(error)`; ending the iteration of the result ends
    /// this one.
    package func endingWithFailure<T: Sendable>(
        _ transform: @escaping @Sendable (Element) -> T,
        failure: @escaping @Sendable (any Error) -> T
    ) -> AsyncStream<T> where Element: Sendable {
        let source = self
        return .relaying({ source }, transform: transform, onError: failure)
    }

    /// This stream as a non-throwing one (the shape of the original SDK's streams): an error
    /// ends it and is logged under `category`; ending the iteration of the result ends this one.
    package func endingOnError(category: String) -> AsyncStream<Element> where Element: Sendable {
        let source = self
        return .endingOnError(category: category) { source }
    }
}

extension AsyncStream where Element: Sendable {
    /// The elements of the stream `make` opens, as a non-throwing stream: an error, opening
    /// included, ends it and is logged under `category`; ending the iteration cancels the rest.
    package static func endingOnError(
        category: String,
        _ make: @escaping @Sendable () async throws -> AsyncThrowingStream<Element, any Error>
    ) -> AsyncStream<Element> {
        relaying(
            make,
            transform: { $0 },
            onError: { error in
                SDKLogger(category: category).error("The stream ended on an error: \(error)")
                return nil
            }
        )
    }

    /// The stream `make` opens, each element through `transform`, as a non-throwing stream.
    /// An error, opening included, ends it, after `onError`'s element when it gives one;
    /// ending the iteration cancels the rest.
    fileprivate static func relaying<Source: Sendable>(
        _ make: @escaping @Sendable () async throws -> AsyncThrowingStream<Source, any Error>,
        transform: @escaping @Sendable (Source) -> Element,
        onError: @escaping @Sendable (any Error) -> Element?
    ) -> AsyncStream<Element> {
        AsyncStream { continuation in
            let task = Task {
                do {
                    for try await element in try await make() {
                        continuation.yield(transform(element))
                    }
                } catch {
                    if let last = onError(error) { continuation.yield(last) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
