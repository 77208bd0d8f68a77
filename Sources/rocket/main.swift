// The `rocket` command: everything is in RocketCLI, so that parsing, help, completions and the
// man page are tested in-process.
#if canImport(Glibc)
    import Glibc
#endif
import RocketCLI

exit(await RocketCommandLine.main(Array(CommandLine.arguments.dropFirst())).code)
