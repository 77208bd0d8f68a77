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
        /// The client's port: requests on one kept connection share it.
        public let clientPort: Int
    }

    public let port: Int
    let process = Process()
    let log: String

    /// Listens on 127.0.0.1 and answers with `statuses` in turn; over TLS with `certificate` and
    /// `key` (PEM files) when given.
    public convenience init(statuses: [Int], certificate: String? = nil, key: String? = nil) throws {
        try self.init(answers: statuses.map(String.init), certificate: certificate, key: key, keepAlive: false)
    }

    /// Listens on 127.0.0.1 and answers with `answers` in turn, each `STATUS` or `STATUS:SHAPE`:
    /// `length` (a body of 5,000 bytes with its length; without a shape the body is empty),
    /// `chunked` (a body in chunks), `close` (`Connection: close`), `eof` (a body without length,
    /// ended by closing), `drop` (an empty body with its length, then the connection closed
    /// without saying so), `short` (a length of 5,000, then 100 bytes and the connection closed). With `keepAlive` it speaks HTTP/1.1 and keeps connections open.
    public init(answers: [String], certificate: String? = nil, key: String? = nil, keepAlive: Bool) throws {
        let dir = newScratchDirectory("receiver")
        log = dir + "/requests.jsonl"
        let portFile = dir + "/port"
        let script = """
            import base64, http.server, json, ssl, sys
            answers, log, port_file, cert, key, keep = sys.argv[1].split(","), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6] == "1"
            class Handler(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1" if keep else "HTTP/1.0"
                def do_POST(self):
                    body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                    with open(log, "a") as f:
                        f.write(json.dumps({"method": "POST", "path": self.path, "headers": {k: v for k, v in self.headers.items()},
                                            "body": base64.b64encode(body).decode(), "port": self.client_address[1]}) + "\\n")
                    answer = answers.pop(0) if len(answers) > 1 else answers[0]
                    status, _, shape = answer.partition(":")
                    self.send_response(int(status))
                    if shape == "length":
                        self.send_header("Content-Length", "5000")
                        self.end_headers()
                        self.wfile.write(b"x" * 5000)
                    elif shape == "chunked":
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        self.wfile.write(b"4;ext=1\\r\\nabcd\\r\\n10\\r\\n" + b"y" * 16 + b"\\r\\n0\\r\\nTrailer: t\\r\\n\\r\\n")
                    elif shape == "short":
                        self.send_header("Content-Length", "5000")
                        self.end_headers()
                        self.wfile.write(b"z" * 100)
                        self.close_connection = True
                    elif shape == "eof":
                        self.send_header("Connection", "close")
                        self.end_headers()
                        self.wfile.write(b"until the end")
                        self.close_connection = True
                    else:
                        self.send_header("Content-Length", "0")
                        if shape == "close":
                            self.send_header("Connection", "close")
                        self.end_headers()
                        if shape in ("close", "drop"):
                            self.close_connection = True
                def log_message(self, *args):
                    pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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
            "python3", "-c", script, answers.joined(separator: ","), log, portFile, certificate ?? "", key ?? "", keepAlive ? "1" : "0",
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
            return Request(
                method: o["method"] as? String ?? "", path: o["path"] as? String ?? "", headers: headers, body: body, clientPort: o["port"] as? Int ?? 0)
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
