#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketPlatform
import RocketServer

/// `rocket webhook-test --webhook URL --webhook-secret-file FILE`: one made-up result sent to a
/// webhook's endpoint as `rocket serve` sends results, to try the endpoint and its signature check.
enum WebhookTestCommand {
    static let spec = CommandSpec(
        name: "webhook-test", abstract: "Send a made-up result to a webhook endpoint, signed as rocket serve signs results, and say what it answered.",
        positionals: [], positionalCount: 0...0,
        options: [
            .value("--webhook", "URL", "The endpoint (http or https), as given to rocket serve."),
            .value("--webhook-secret-file", "FILE", "The secret the Rocket-Signature is made with, as given to rocket serve.").completing(.file),
            .value("--webhook-ca-file", "FILE", "The certificates (PEM) to trust for https (default: the system's).").completing(.file),
        ],
        discussion: """
            Sends one POST with the headers and the body a real delivery has (Rocket-Delivery,
            Rocket-Signature over the time and the body), so an endpoint can be tried before the
            first visitor answers: the connection, the certificate, the signature check and the
            answer. The result is made up and numbered 0 (real ones are numbered from 1), so an
            endpoint can tell it apart. The body sent is printed on standard output; what the
            endpoint answered, on standard error.
            """,
        exitStatus:
            "0 the endpoint answered 2xx (it would take results); 1 it answered something else; 64 usage error; 66 a file cannot be read; 69 no answer (it cannot be reached, its certificate is not trusted, it took more than 10 s).",
        examples: [
            "rocket webhook-test --webhook https://shop.example/hooks/rocket --webhook-secret-file hook-secret",
            "rocket webhook-test --webhook https://10.0.0.5:8443/rocket --webhook-secret-file hook-secret --webhook-ca-file internal-ca.pem",
        ], strayValue: .last("--webhook"))

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        guard let url = parsed.value("--webhook") else { throw UsageError(message: "--webhook URL is required", command: spec.name) }
        let target: HTTPTarget
        switch HTTPTarget.parse(url) {
        case .failure(let e): throw UsageError(message: "--webhook must be \(e.message)", command: spec.name)
        case .success(let t): target = t
        }
        guard let file = parsed.value("--webhook-secret-file") else {
            throw UsageError(message: "--webhook-secret-file FILE is required (openssl rand -hex 32 makes one)", command: spec.name)
        }
        let caFile = parsed.value("--webhook-ca-file")
        let configuration: WebhookConfiguration
        switch ServeCommand.webhook(target, secretFile: file, caFile: caFile) {
        case .failure(let failure):
            printError("rocket: error: \(failure.message)")
            return failure.status
        case .success(let w): configuration = w
        }
        let time = WallClock().now
        let body = WebhookConfiguration.testBody(at: time)
        let shown = Sanitizer.clean(target.url, keepNewlines: false)
        printOut(String(decoding: body, as: UTF8.self))
        if let warning = target.clearTextWarning("rocket webhook-test") { printError(warning) }
        let headers = configuration.headers(for: body, seq: 0, at: time)
        switch HTTPClient.post(target, headers: headers, body: body, caFile: caFile, timeout: configuration.timeout) {
        case .failure(let why):
            printError("rocket: error: no answer from \(shown): \(Sanitizer.clean(why.message, keepNewlines: false))")
            return ExitStatus.unavailable
        case .success(let status) where (200...299).contains(status):
            printError("rocket: \(shown) answered \(status): it takes results")
            return ExitStatus.ok
        case .success(let status):
            let hint = status == 401 || status == 403 ? " (does its signature check use the same secret?)" : ""
            printError("rocket: \(shown) answered \(status), not 2xx: rocket serve would send the result again\(hint)")
            return ExitStatus.notCompleted
        }
    }
}
