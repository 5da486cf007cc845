import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One model's download in flight, and everyone listening to it.
///
/// Asking for a model that is already downloading joins its job instead of starting a
/// second transfer. A late subscriber first gets the latest report. The job belongs to
/// the SDK, not to a listener: a stream that stops being read does not stop it,
/// ``cancel()`` does.
final class DownloadJob: Sendable {
    let modelId: String
    let cancelFlag = CancellationFlag()
    private let state = Mutex(State())
    private let meter = Mutex(SpeedMeter())

    private struct State {
        var subscribers: [UUID: AsyncStream<DownloadProgress>.Continuation] = [:]
        var latest: DownloadProgress?
        var finished = false
        var task: Task<Void, Never>?
    }

    init(modelId: String) {
        self.modelId = modelId
    }

    /// A stream of this job's reports, starting with the latest one.
    func subscribe() -> AsyncStream<DownloadProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: DownloadProgress.self,
            bufferingPolicy: .bufferingNewest(256)
        )
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        let replay = state.withLock { state -> (DownloadProgress?, Bool) in
            if !state.finished { state.subscribers[id] = continuation }
            return (state.latest, state.finished)
        }
        if let latest = replay.0 { continuation.yield(latest) }
        if replay.1 { continuation.finish() }
        return stream
    }

    /// Delivers a report to every subscriber; a final one ends their streams.
    func publish(_ progress: DownloadProgress) {
        let targets = state.withLock { state -> [AsyncStream<DownloadProgress>.Continuation] in
            guard !state.finished else { return [] }
            state.latest = progress
            if progress.isFinal { state.finished = true }
            let targets = Array(state.subscribers.values)
            if progress.isFinal { state.subscribers.removeAll() }
            return targets
        }
        for continuation in targets {
            continuation.yield(progress)
            if progress.isFinal { continuation.finish() }
        }
    }

    /// A downloading report with speed and time left worked out from recent bytes.
    func transferReport(bytes: Int64, total: Int64?, file: String, retry: Int) -> DownloadProgress {
        let speed = meter.withLock { $0.record(bytes) }
        var eta: Double?
        if let total, speed > 0 { eta = Double(max(0, total - bytes)) / speed }
        let fraction = total.map { $0 > 0 ? Double(bytes) / Double($0) : 0 } ?? 0
        return DownloadProgress(
            modelId: modelId,
            stage: .downloading,
            bytesDownloaded: bytes,
            totalBytes: total,
            bytesPerSecond: speed,
            estimatedTimeRemaining: eta,
            stageProgress: fraction,
            currentFile: file,
            retry: retry
        )
    }

    func attach(_ task: Task<Void, Never>) {
        state.withLock { $0.task = task }
    }

    /// Stops the transfer at once (the next byte, or the current retry wait).
    func cancel() {
        cancelFlag.cancel()
        state.withLock { $0.task }?.cancel()
    }

    /// Bytes per second over the last three seconds of samples.
    private struct SpeedMeter {
        var samples: [(time: ContinuousClock.Instant, bytes: Int64)] = []

        mutating func record(_ bytes: Int64) -> Double {
            let now = ContinuousClock.now
            if let last = samples.last, bytes < last.bytes { samples.removeAll() }  // a file started over
            samples.append((now, bytes))
            while samples.count > 2, samples[0].time.duration(to: now) > .seconds(3) { samples.removeFirst() }
            guard let first = samples.first, first.time != now else { return 0 }
            let seconds = first.time.duration(to: now).seconds
            return seconds > 0 ? Double(bytes - first.bytes) / seconds : 0
        }
    }
}
