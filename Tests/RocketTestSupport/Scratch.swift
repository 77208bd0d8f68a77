import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The one folder a test process keeps its scratch files in, under the system's temporary
/// folder; it goes, with everything in it, when the process exits. (Each test once made its own
/// folder there and left it: a few hundred per run, gigabytes after a few weeks of runs.)
public let testScratchRoot: String = {
    let root = NSTemporaryDirectory() + "rocket-tests-\(getpid())-" + UUID().uuidString.prefix(8)
    try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: testScratchRoot) }
    return root
}()

/// A new, empty folder for one test (`prefix` names it), inside ``testScratchRoot``.
public func newScratchDirectory(_ prefix: String = "scratch") -> String {
    let dir = testScratchRoot + "/" + prefix + "-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// A path for a new file (`prefix`, a unique part, then `suffix`) inside ``testScratchRoot``.
public func newScratchPath(_ prefix: String, suffix: String = "") -> String {
    testScratchRoot + "/" + prefix + "-" + UUID().uuidString + suffix
}
