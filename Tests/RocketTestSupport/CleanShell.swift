import CTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `/bin/sh -c command` with standard input from /dev/null and nothing else of this process
/// but its standard error: its standard output without the last newline, nil when it failed.
/// Not popen: its child, and a server the command leaves running (the test database), would
/// hold every descriptor the tests had open then (a test's pipe to a rocket's standard input
/// kept that rocket waiting for its end until the test gave up after 300 s).
public func cleanShell(_ command: String) -> String? {
    var fd: Int32 = -1
    let pid = rocket_test_spawn_shell(command, &fd)
    guard pid > 0 else { return nil }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n < 0, errno == EINTR { continue }
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    close(fd)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    guard status == 0 else { return nil }
    while out.last == 0x0A { out.removeLast() }
    return String(decoding: out, as: UTF8.self)
}
