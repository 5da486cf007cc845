// The floor of `runanywhere bench startup`: the least a Swift program that links what the CLI
// links for every command (Foundation, Swift concurrency with an async main, Dispatch) costs in
// start-up time and peak memory, before any SDK code runs.
import Foundation

@main
struct FoundationHello {
    static func main() async {
        print("hello from \(ProcessInfo.processInfo.processName)")
    }
}
