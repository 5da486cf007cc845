#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The original SDK's name for an adapter and its scale: ``LoRAAdapterSelection``.
public typealias LoRAAdapterConfig = LoRAAdapterSelection

/// Adapters to apply, the original SDK's request for ``LoRA/apply(_:)-(LoRAApplyRequest)``.
public struct LoRAApplyRequest: Sendable, Codable, Equatable {
    /// The adapters and their scales.
    public var adapters: [LoRAAdapterConfig]
    /// Whether `adapters` become the whole applied set (in one step, all or none) rather
    /// than joining the adapters already applied.
    public var replaceExisting: Bool

    /// A request to apply `adapters`.
    public init(adapters: [LoRAAdapterConfig], replaceExisting: Bool = false) {
        self.adapters = adapters
        self.replaceExisting = replaceExisting
    }
}

/// What applying adapters left on the model.
public struct LoRAApplyResult: Sendable, Codable, Equatable {
    /// The applied adapters and their model after the request.
    public var state: LoRAState
    /// Whether every adapter of the request is applied at its scale.
    public var success: Bool

    /// A result.
    public init(state: LoRAState, success: Bool) {
        self.state = state
        self.success = success
    }
}

/// Adapters to take off the model: the original SDK's request for
/// ``LoRA/remove(_:)-(LoRARemoveRequest)``.
public struct LoRARemoveRequest: Sendable, Codable, Equatable {
    /// The adapters to remove.
    public var adapterIds: [String]
    /// Whether to remove every adapter (``adapterIds`` is then ignored).
    public var removeAll: Bool

    /// A request to remove `adapterIds`, or all of them.
    public init(adapterIds: [String] = [], removeAll: Bool = false) {
        self.adapterIds = adapterIds
        self.removeAll = removeAll
    }
}

/// The original SDK's request to list the adapter catalog; it takes no filter.
public struct LoraAdapterCatalogListRequest: Sendable, Codable, Equatable {
    /// A request for every registered adapter.
    public init() {}
}

/// A filter over the adapter catalog: the original SDK's query.
public struct LoraAdapterCatalogQuery: Sendable, Codable, Equatable {
    /// Only adapters made for this model (see ``LoRA/adaptersForModel(_:)``); `nil` for any.
    public var modelId: String?
    /// Only adapters of this framework; `nil` for any.
    public var framework: InferenceFramework?

    /// A query; with no filter it matches every adapter.
    public init(modelId: String? = nil, framework: InferenceFramework? = nil) {
        self.modelId = modelId
        self.framework = framework
    }
}

/// Adapters the catalog holds, for a list or a query.
public struct LoraAdapterCatalogListResult: Sendable, Codable, Equatable {
    /// The adapters, sorted by id.
    public var entries: [LoraAdapterCatalogEntry]
    /// How many there are.
    public var totalCount: Int { entries.count }

    /// A result of `entries`.
    public init(entries: [LoraAdapterCatalogEntry]) {
        self.entries = entries
    }
}

/// The original SDK's request for one catalog entry.
public struct LoraAdapterCatalogGetRequest: Sendable, Codable, Equatable {
    /// The adapter's id.
    public var adapterId: String

    /// A request for `adapterId`.
    public init(adapterId: String) {
        self.adapterId = adapterId
    }
}

/// One catalog entry, if registered.
public struct LoraAdapterCatalogGetResult: Sendable, Codable, Equatable {
    /// The entry; `nil` when no adapter has the id.
    public var entry: LoraAdapterCatalogEntry?
    /// Whether the adapter is registered.
    public var found: Bool { entry != nil }

    /// A result holding `entry`.
    public init(entry: LoraAdapterCatalogEntry?) {
        self.entry = entry
    }
}

extension LoRA {
    /// Applies the request's adapters: as the whole set when it replaces, otherwise one by
    /// one on top of those applied.
    ///
    /// - Throws: what ``apply(_:scale:)`` and ``apply(_:)-([LoRAAdapterSelection])`` throw.
    @discardableResult
    public func apply(_ request: LoRAApplyRequest) async throws(SDKException) -> LoRAApplyResult {
        var state: LoRAState
        if request.replaceExisting {
            state = try await apply(request.adapters)
        } else {
            state = await self.state()
            for adapter in request.adapters {
                state = try await apply(adapter.id, scale: adapter.scale)
            }
        }
        let applied = Set(state.adapters)
        return LoRAApplyResult(state: state, success: request.adapters.allSatisfy(applied.contains))
    }

    /// Removes the request's adapters, or all of them.
    ///
    /// - Throws: `.modelNotLoaded`, or `.invalidInput` for an adapter that is not applied.
    @discardableResult
    public func remove(_ request: LoRARemoveRequest) async throws(SDKException) -> LoRAState {
        if request.removeAll { return try await clear() }
        var state = await self.state()
        for id in request.adapterIds {
            state = try await remove(id)
        }
        return state
    }

    /// Whether the configured adapter fits the loaded language model.
    public func checkCompatibility(_ config: LoRAAdapterConfig) async -> LoraCompatibilityResult {
        await checkCompatibility(config.id)
    }

    /// Every registered adapter.
    public func listCatalog(
        _ request: LoraAdapterCatalogListRequest = LoraAdapterCatalogListRequest()
    ) async throws(SDKException)
        -> LoraAdapterCatalogListResult
    {
        LoraAdapterCatalogListResult(entries: try allRegistered())
    }

    /// The registered adapters the query matches.
    public func queryCatalog(
        _ query: LoraAdapterCatalogQuery
    ) async throws(SDKException)
        -> LoraAdapterCatalogListResult
    {
        var entries: [LoraAdapterCatalogEntry]
        if let modelId = query.modelId {
            entries = try await adaptersForModel(modelId)
        } else {
            entries = try allRegistered()
        }
        if let framework = query.framework { entries = entries.filter { $0.framework == framework } }
        return LoraAdapterCatalogListResult(entries: entries)
    }

    /// The catalog entry the request names, if registered.
    public func getCatalogEntry(
        _ request: LoraAdapterCatalogGetRequest
    ) async throws(SDKException)
        -> LoraAdapterCatalogGetResult
    {
        LoraAdapterCatalogGetResult(entry: try allRegistered().first { $0.id == request.adapterId })
    }
}

/// An adapter file the app fetched or picked itself, to record in the catalog (the
/// original SDK's request for ``LoRA/markDownloadCompleted(_:)``).
public struct LoraAdapterDownloadCompletedRequest: Sendable, Codable, Equatable {
    /// The registered adapter's id.
    public var adapterId: String
    /// Where its file is now.
    public var localPath: URL
    /// Whether it was imported (picked by the user) rather than downloaded.
    public var imported: Bool
    /// A note kept in the result.
    public var statusMessage: String

    /// A request recording `localPath` for `adapterId`.
    public init(adapterId: String, localPath: URL, imported: Bool = false, statusMessage: String = "") {
        self.adapterId = adapterId
        self.localPath = localPath
        self.imported = imported
        self.statusMessage = statusMessage
    }
}

/// The catalog entry after a completion was recorded.
public struct LoraAdapterDownloadCompletedResult: Sendable, Equatable {
    /// The updated entry.
    public var entry: LoraAdapterCatalogEntry
    /// Whether the file came from an import.
    public var imported: Bool
    /// The request's note.
    public var statusMessage: String
}

extension LoRA {
    /// Records that a registered adapter's file is at `request.localPath`: the file is checked
    /// as an adapter, then the catalog entry points at it (and the adapter can be applied).
    ///
    /// - Throws: `.modelNotFound` for an unregistered id, `.invalidInput` for an id that is not
    ///   an adapter, and what reading the file throws (`.modelFileNotFound`,
    ///   `.invalidModelFormat`, `.modelCorrupted`).
    @discardableResult
    public func markDownloadCompleted(
        _ request: LoraAdapterDownloadCompletedRequest
    ) async throws(SDKException) -> LoraAdapterDownloadCompletedResult {
        var model = try sdk.model(request.adapterId)
        guard model.category == .loraAdapter else {
            throw SDKException(
                .invalidInput,
                "'\(request.adapterId)' is a \(model.category.rawValue) model, not a LoRA adapter"
            )
        }
        _ = try LoRAAdapterFile(contentsOf: request.localPath)
        model.localPath = request.localPath
        model.sizeBytes = FileSystem.allocatedSize(of: request.localPath)
        model.downloadedAt = Date()
        try sdk.registerModel(model, replace: true)
        return LoraAdapterDownloadCompletedResult(
            entry: LoraAdapterCatalogEntry(try sdk.model(request.adapterId)),
            imported: request.imported,
            statusMessage: request.statusMessage
        )
    }

    /// ``markDownloadCompleted(_:)`` for a file the user picked: recorded as imported.
    @discardableResult
    public func markImportCompleted(
        _ request: LoraAdapterDownloadCompletedRequest
    ) async throws(SDKException) -> LoraAdapterDownloadCompletedResult {
        var imported = request
        imported.imported = true
        if imported.statusMessage.isEmpty { imported.statusMessage = "import completed" }
        return try await markDownloadCompleted(imported)
    }
}
