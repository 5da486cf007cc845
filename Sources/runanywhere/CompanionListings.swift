import ArgumentParser
import RunAnywhereCommandLine

/// `runanywhere serve`, which `runanywhere-http` runs.
struct ServeListing: CompanionCommandListing {
    static let command = CompanionCommand.serve
}

/// `runanywhere control-plane`, which `runanywhere-http` runs.
struct ControlPlaneListing: CompanionCommandListing {
    static let command = CompanionCommand.controlPlane
}

extension BenchCommand {
    /// `runanywhere bench serve`, which `runanywhere-http` runs.
    struct ServeListing: CompanionCommandListing {
        static let command = CompanionCommand.benchServe
    }

    /// `runanywhere bench remote`, which `runanywhere-http` runs.
    struct RemoteListing: CompanionCommandListing {
        static let command = CompanionCommand.benchRemote
    }

    /// `runanywhere bench download`, which `runanywhere-http` runs.
    struct DownloadListing: CompanionCommandListing {
        static let command = CompanionCommand.benchDownload
    }

    /// `runanywhere bench file-server`, which `runanywhere-http` runs.
    struct FileServerListing: CompanionCommandListing {
        static let command = CompanionCommand.benchFileServer
    }

    /// `runanywhere bench tools`, which `runanywhere-http` runs.
    struct ToolsListing: CompanionCommandListing {
        static let command = CompanionCommand.benchTools
    }
}
