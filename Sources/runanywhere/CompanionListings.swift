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

/// `runanywhere bench`, which `runanywhere-bench` runs.
struct BenchListing: CompanionCommandListing {
    static let command = CompanionCommand.bench
}
