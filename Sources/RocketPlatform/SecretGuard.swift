import CProcess

/// Keeps what is typed into a secret prompt out of reach of other processes for the rest of
/// this process's life: no core file (RLIMIT_CORE 0, inherited by child processes) and not
/// dumpable (PR_SET_DUMPABLE 0: processes of the same user cannot attach to it or read its
/// memory, and a crash handler gets nothing). What gpg-agent and ssh-agent do. Hosts call it
/// before the first secret is asked for; it cannot be undone.
package enum SecretGuard {
    /// Protects this process; true when both settings took effect.
    @discardableResult
    package static func protectProcess() -> Bool { rocket_protect_secrets() == 0 }

    /// Whether this process may be dumped (false once ``protectProcess()`` ran): for tests.
    package static var isDumpable: Bool { rocket_is_dumpable() == 1 }
}
