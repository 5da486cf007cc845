internal import CCurl
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Uploads the queued error reports of one instance to a Sentry-compatible collector, one
/// envelope per event, oldest first; an event leaves the queue only once the collector has
/// taken it (200), or refused it for good (400, 413: it could never be taken, and must not
/// block the queue). While reporting is on, a background loop uploads when a report is queued
/// and every 30 s, backing off from 1 s to 5 min while the collector cannot be reached.
actor ErrorReportUploader {
    let dsn: SentryDSN
    let queue: any TelemetryQueue
    private let environment: String
    /// Seconds to connect, and to get an answer once connected (three times that in all).
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

    init(dsn: SentryDSN, queue: any TelemetryQueue, environment: String, timeout: TimeInterval = 10) {
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
        // On libcurl like downloads (URLSession would link FoundationNetworking, and with it
        // libcurl, into every process that links the SDK).
        var options = HTTPTransfer.Options(connectTimeout: timeout, stallTimeout: timeout)
        options.totalTimeout = timeout * 3
        options.headers = [
            "Content-Type": "application/x-sentry-envelope",
            "X-Sentry-Auth": dsn.authHeader,
        ]
        _ = try CurlLibrary.load()  // without libcurl nothing can be sent: say why, typed
        let url = dsn.envelopeURL
        let body = SentryEnvelope(event, dsn: dsn, environment: environment).body
        let result = await runOnDetachedThread(name: "runanywhere-error-report") { [options] in
            HTTPTransfer.post(url, body: body, options: options)
        }
        let status: Int
        switch result {
        case .success(let code):
            status = code
        case .failure(let failure) where failure.code == Int(CURLE_OPERATION_TIMEDOUT.rawValue):
            throw SDKException(.remoteTimeout, "The error collector at \(dsn) did not answer in time")
        case .failure(let failure):
            throw SDKException(.remoteUnreachable, "Cannot reach the error collector at \(dsn): \(failure.message)")
        }
        switch status {
        case 200..<300: return .taken
        case 400, 413: return .refused(status)
        case 429: throw SDKException(.remoteRateLimited, "The error collector at \(dsn) asks to slow down (429)")
        default: throw SDKException(.remoteServerError, "The error collector at \(dsn) answered HTTP \(status)")
        }
    }
}
