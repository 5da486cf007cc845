import RealEngineTestSupport
import Testing

/// The tests that run several engines together, the CLI and the servers live under this suite;
/// each backend's own real-engine tests are in its test target. All of them hold the whole
/// machine (``wholeMachine``) while they run: their state does not need it (each test has its
/// own `RunAnywhereSDK`; see "Two SDK instances share nothing"), but on a 2-core machine the
/// engines use every core, and some tests measure latency (barge-in) or the process's memory
/// growth, which other tests running beside them would distort. The facade tests also share
/// its one instance.
@Suite("Real engine", .serialized, .wholeMachine, .tags(.realEngine))
struct RealEngineTests {}
