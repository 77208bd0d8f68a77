import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP (or HTTPS) endpoint on loopback that records every request it gets and answers each
/// with the next status of a list (the last one again once the list is used up): a webhook's
/// receiver for tests. It runs Python's http.server in a child process; the caller stops it.
public final class HTTPReceiver {
    /// A request it got.
    public struct Request: Sendable {
        public let method: String
        public let path: String
        public let headers: [String: String]
        public let body: [UInt8]
    }

    public let port: Int
    let process = Process()
    let log: String

    /// Listens on 127.0.0.1 and answers with `statuses` in turn; over TLS with `certificate` and
    /// `key` (PEM files) when given.
    public init(statuses: [Int], certificate: String? = nil, key: String? = nil) throws {
        let dir = newScratchDirectory("receiver")
        log = dir + "/requests.jsonl"
        let portFile = dir + "/port"
        let script = """
            import base64, http.server, json, ssl, sys
            statuses, log, port_file, cert, key = [int(s) for s in sys.argv[1].split(",")], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                    with open(log, "a") as f:
                        f.write(json.dumps({"method": "POST", "path": self.path, "headers": {k: v for k, v in self.headers.items()},
                                            "body": base64.b64encode(body).decode()}) + "\\n")
                    status = statuses.pop(0) if len(statuses) > 1 else statuses[0]
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                def log_message(self, *args):
                    pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            if cert:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(cert, key)
                server.socket = context.wrap_socket(server.socket, server_side=True)
            with open(port_file + ".tmp", "w") as f:
                f.write(str(server.server_address[1]))
            import os
            os.rename(port_file + ".tmp", port_file)
            server.serve_forever()
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", script, statuses.map(String.init).joined(separator: ","), log, portFile, certificate ?? "", key ?? "",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var found: Int?
        for _ in 0..<500 {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let p = Int(text) {
                found = p
                break
            }
            usleep(10_000)
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(.fileReadUnknown)
        }
        port = found
    }

    /// The requests so far, in order.
    public var requests: [Request] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let data = line.data(using: .utf8), let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
            let headers = (o["headers"] as? [String: String]) ?? [:]
            let body = Data(base64Encoded: (o["body"] as? String) ?? "").map { [UInt8]($0) } ?? []
            return Request(method: o["method"] as? String ?? "", path: o["path"] as? String ?? "", headers: headers, body: body)
        }
    }

    /// Stops it.
    public func stop() {
        // SIGKILL: a test process may hold SIGTERM blocked (a server's signal thread), and a child
        // inherits the mask.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
