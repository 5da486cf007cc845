/// Reads a solution's YAML into a ``SolutionConfig``.
///
/// `RunAnywhereYAML`'s module offers one on Yams; a parser is registered with
/// ``ServiceRegistry/registerSolutionParser(name:priority:parser:)``.
@_spi(Backend) public protocol SolutionParser: Sendable {
    /// The configuration `yaml` describes.
    ///
    /// - Throws: `.invalidConfiguration` naming the line and the key at fault: YAML that
    ///   does not parse, an unknown key, a missing one, a value of the wrong type or out of range.
    func parse(_ yaml: String) throws(SDKException) -> SolutionConfig
}
