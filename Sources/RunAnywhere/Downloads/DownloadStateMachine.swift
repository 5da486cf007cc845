/// The steps of one model download, decided without I/O.
///
/// ``DownloadManager`` runs the I/O (asking a strategy for a size, measuring free space,
/// transferring, verifying, staging, installing) and reports each outcome here; the machine
/// answers with the next ``Action``. What to do next, how much room the files need, whether a
/// strategy's report holds together and when a cancellation ends the download are decided
/// here, so they are tested without a network or a disk (async-http-client's connection-pool
/// state machine is the model).
struct DownloadStateMachine: Sendable {
    /// What the manager does next.
    enum Action: Equatable, Sendable {
        /// Ask file `index`'s strategy for its size.
        case resolveSize(index: Int)
        /// Compare `needed` bytes with the space the SDK may use; report ``spaceAvailable(_:)``.
        case checkSpace(needed: Int64)
        /// Transfer file `index`; its progress counts from `downloadedBefore` bytes.
        case fetch(index: Int, downloadedBefore: Int64)
        /// Compare the files with their registered SHA-256 digests.
        case verifyChecksums(downloaded: Int64)
        /// Rename the files or unpack the archive into the stage folder.
        case stage(downloaded: Int64)
        /// Inspect the staged model and move it into the store.
        case install
        /// Delete file `index`'s partial download, then fail with `error`.
        case discardPartAndFail(index: Int, error: SDKException)
        /// Fail with `error`.
        case fail(SDKException)
        /// The model is installed.
        case finished
    }

    private enum State: Equatable, Sendable {
        case initial
        case resolvingSize(index: Int)
        case checkingSpace(needed: Int64)
        case fetching(index: Int, downloaded: Int64)
        case verifying(downloaded: Int64)
        case staging
        case installing
        case done
    }

    private let modelId: String
    private let fileNames: [String]
    private let strategyNames: [String]
    private let isArchive: Bool
    private let bytesOnDisk: Int64
    private var sizes: [Int64?]
    private var state = State.initial

    /// A download of `files` (name and registered size each, with the name of the strategy
    /// that fetches it); `bytesOnDisk` is what partial files from an earlier run already hold.
    init(
        modelId: String,
        files: [(name: String, size: Int64?, strategy: String)],
        isArchive: Bool,
        bytesOnDisk: Int64
    ) {
        self.modelId = modelId
        self.fileNames = files.map(\.name)
        self.strategyNames = files.map(\.strategy)
        self.sizes = files.map(\.size)
        self.isArchive = isArchive
        self.bytesOnDisk = bytesOnDisk
    }

    /// The first step.
    mutating func start() -> Action {
        guard state == .initial else { return unexpected("start") }
        return nextSize(after: -1)
    }

    /// File `index`'s strategy reported `size` (nil: it cannot tell).
    mutating func sizeResolved(index: Int, size: Int64?) -> Action {
        guard state == .resolvingSize(index: index) else { return unexpected("a size for file \(index)") }
        sizes[index] = size
        return nextSize(after: index)
    }

    /// The space check's answer: how many bytes the SDK may still use.
    mutating func spaceAvailable(_ available: Int64) -> Action {
        guard case .checkingSpace(let needed) = state else { return unexpected("the free space") }
        guard needed <= available else {
            state = .done
            return .fail(
                SDKException(
                    .insufficientStorage,
                    "Model '\(modelId)' needs \(needed.formattedBytes(.binary)) but only \(available.formattedBytes(.binary)) may be used",
                    recovery:
                        "Free space (RunAnywhere.deleteModel, cleanTempFiles) or raise DownloadConfiguration.storageLimitBytes"
                )
            )
        }
        return fetch(index: 0, downloaded: 0)
    }

    /// File `index`'s strategy reported a transfer of `reported` bytes; its partial file holds
    /// `written` (nil: none).
    mutating func fetched(index: Int, reported: Int64, written: Int64?) -> Action {
        guard case .fetching(index, let downloaded) = state else { return unexpected("a transfer of file \(index)") }
        let name = fileNames[index]
        guard written == reported else {
            state = .done
            return .discardPartAndFail(
                index: index,
                error: SDKException(
                    .downloadFailed,
                    "The \(strategyNames[index]) strategy reported \(reported) bytes of \(name) but wrote \(written ?? -1)"
                )
            )
        }
        if let expected = sizes[index], reported != expected {
            state = .done
            return .discardPartAndFail(
                index: index,
                error: SDKException(
                    .downloadFailed,
                    "\(name) is \(reported) bytes from \(strategyNames[index]), but \(expected) were expected",
                    recovery: "Correct the registered size, or register the model without one"
                )
            )
        }
        return fetch(index: index + 1, downloaded: downloaded + reported)
    }

    /// The digests matched.
    mutating func verified() -> Action {
        guard case .verifying(let downloaded) = state else { return unexpected("verified checksums") }
        state = .staging
        return .stage(downloaded: downloaded)
    }

    /// The files are staged.
    mutating func staged() -> Action {
        guard state == .staging else { return unexpected("staged files") }
        state = .installing
        return .install
    }

    /// The model is in the store.
    mutating func installed() -> Action {
        guard state == .installing else { return unexpected("an installed model") }
        state = .done
        return .finished
    }

    /// The caller cancelled; the manager reports this after any step that noticed it.
    mutating func cancelled() -> Action {
        state = .done
        return .fail(SDKException(.downloadCancelled, "The download was cancelled"))
    }

    /// The total size when every file's is known.
    var totalBytes: Int64? {
        sizes.allSatisfy { $0 != nil } ? sizes.reduce(0) { $0 + ($1 ?? 0) } : nil
    }

    /// File `index`'s size, registered or resolved.
    func size(of index: Int) -> Int64? { sizes[index] }

    private mutating func nextSize(after index: Int) -> Action {
        if let next = sizes.indices.first(where: { $0 > index && sizes[$0] == nil }) {
            state = .resolvingSize(index: next)
            return .resolveSize(index: next)
        }
        // Without every size the room needed is unknown: the transfer finds out.
        guard let total = totalBytes else { return fetch(index: 0, downloaded: 0) }
        // An archive is unpacked beside itself: its content needs room too.
        let needed = total - bytesOnDisk + (isArchive ? total : 0)
        state = .checkingSpace(needed: needed)
        return .checkSpace(needed: needed)
    }

    private mutating func fetch(index: Int, downloaded: Int64) -> Action {
        guard index < fileNames.count else {
            state = .verifying(downloaded: downloaded)
            return .verifyChecksums(downloaded: downloaded)
        }
        state = .fetching(index: index, downloaded: downloaded)
        return .fetch(index: index, downloadedBefore: downloaded)
    }

    private mutating func unexpected(_ event: String) -> Action {
        let error = SDKException(.internalError, "The download of '\(modelId)' got \(event) in state \(state)")
        state = .done
        return .fail(error)
    }
}
