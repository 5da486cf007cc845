import Foundation

extension Int64 {
    /// A byte count for people: "2.2 MB", and "0 bytes" rather than Foundation's "Zero KB".
    ///
    /// `.file` counts in powers of 1000 (what file managers and the CLI show); `.binary`
    /// in powers of 1024 (what the SDK's storage messages use).
    package func formattedBytes(_ style: ByteCountFormatter.CountStyle = .file) -> String {
        self == 0 ? "0 bytes" : ByteCountFormatter.string(fromByteCount: self, countStyle: style)
    }
}
