import AsyncHTTPClient
import NIOCore
@_spi(Backend) internal import RunAnywhere
import Synchronization

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Uploads the queued error reports of one instance to a Sentry-compatible collector, one
/// envelope per event, oldest first; an event leaves the queue only once the collector has
/// taken it (200), or refused it for good (400, 413: it could never be taken, and must not
/// block the queue). While reporting is on, a background loop uploads when a report is queued
/// and every 30 s, backing off from 1 s to 5 min while the collector cannot be reached.
actor ErrorReportUploader {
    let dsn: SentryDSN
    let queue: TelemetryQueue
    private let environment: String
    /// Seconds an upload may take in all, connecting included.
    private let timeout: TimeInterval
    private let logger = SDKLogger(category: "ErrorReporting")
    private var loop: Task<Void, Never>?
    private var ticker: Task<Void, Never>?
    /// The upload running now: a flush waits for it, then makes its own.
    private var running: Task<Int, any Error>?
    private let wakeUp: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>

    /// Events sent per flush at most.
    static let batchSize = 50

    init(dsn: SentryDSN, queue: TelemetryQueue, environment: String, timeout: TimeInterval = 30) {
        self.dsn = dsn
        self.queue = queue
        self.environment = environment
        self.timeout = timeout
        (wakes, wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks the background loop to upload now.
    nonisolated func wake() { wakeUp.yield() }

    /// Starts the background loop.
    func start() {
        guard loop == nil else { return }
        let wakes = self.wakes
        // Wakes come from every queued report and, for the ones another process queued, every
        // 30 s; a burst of them is one upload (the stream keeps only the newest).
        loop = Task { [weak self] in
            var delay: Duration = .seconds(1)
            for await _ in wakes {
                guard let self, !Task.isCancelled else { return }
                do {
                    _ = try await self.flush()
                    delay = .seconds(1)
                } catch {
                    try? await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(300))
                    self.wake()
                }
            }
        }
        ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(30))
                self?.wake()
            }
        }
        wake()
    }

    /// Stops the background loop; queued reports stay on disk for the next start.
    func stop() {
        loop?.cancel()
        ticker?.cancel()
        loop = nil
        ticker = nil
        wakeUp.finish()
    }

    /// Uploads every queued report; returns how many the collector took.
    ///
    /// - Throws: `.remoteUnreachable`, `.remoteTimeout`, `.remoteRateLimited` or
    ///   `.remoteServerError` when the collector could not take them now (they stay queued).
    func flush() async throws(SDKException) -> Int {
        // Chained behind the upload in progress, so two never run at once.
        let previous = running
        let upload = Task {
            _ = try? await previous?.value
            return try await self.upload()
        }
        running = upload
        defer { if running == upload { running = nil } }
        do {
            return try await upload.value
        } catch let error as SDKException {
            throw error
        } catch {
            throw SDKException(.internalError, "Uploading error reports failed", underlying: error)
        }
    }

    private func upload() async throws(SDKException) -> Int {
        // One uploader per home at a time: another process's flush sends these itself.
        guard let lock = queue.uploadLock() else { return 0 }
        defer { lock.release() }
        var sent = 0
        while true {
            let batch = try queue.oldest(Self.batchSize)
            if batch.isEmpty { return sent }
            for event in batch {
                switch try await send(event) {
                case .taken:
                    sent += 1
                case .refused(let status):
                    logger.warning("The collector refused error report \(event.id) (HTTP \(status)); dropped")
                }
                try queue.remove([event.id])
            }
        }
    }

    private enum Outcome {
        case taken
        case refused(Int)
    }

    private func send(_ event: TelemetryEvent) async throws(SDKException) -> Outcome {
        var request = HTTPClientRequest(url: dsn.envelopeURL.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-sentry-envelope")
        request.headers.add(name: "X-Sentry-Auth", value: dsn.authHeader)
        request.headers.add(name: "User-Agent", value: "RunAnywhere-Swift/\(RunAnywhere.version)")
        request.body = .bytes(ByteBuffer(bytes: SentryEnvelope(event, dsn: dsn, environment: environment).body))
        let status: Int
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
            status = Int(response.status.code)
            // The answer says nothing the status does not; read (a little of) it so the
            // connection can be used again.
            _ = try? await response.body.collect(upTo: 64 * 1024)
        } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .connectTimeout].contains(error) {
            throw SDKException(.remoteTimeout, "The error collector at \(dsn) did not answer in time")
        } catch {
            throw SDKException(.remoteUnreachable, "Cannot reach the error collector at \(dsn): \(error)")
        }
        switch status {
        case 200..<300: return .taken
        case 400, 413: return .refused(status)
        case 429: throw SDKException(.remoteRateLimited, "The error collector at \(dsn) asks to slow down (429)")
        default: throw SDKException(.remoteServerError, "The error collector at \(dsn) answered HTTP \(status)")
        }
    }
}
