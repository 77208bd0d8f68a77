#ifndef ROCKET_HTTP_CLIENT_H
#define ROCKET_HTTP_CLIENT_H

#include <stddef.h>

/// What a request came to: the status of the answer, or why there was none.
typedef struct {
    /// The answer's status code (100–599), or 0 when there was none.
    int status;
    /// Why there was no answer (a sentence), when `status` is 0.
    char error[256];
} rocket_http_result;

/// POSTs `body` to `host`:`port` `path` over HTTP, or HTTPS when `tls` is 1, and reads the answer's
/// status line; everything after it is left unread and the connection closed. `headers` are
/// extra header lines, each ending in CR LF (Host, Content-Length and Connection: close are
/// written here). HTTPS verifies the server's certificate against `ca_file` (PEM), or the system's
/// certificates when it is NULL, and its name (or IP address) against `host`; TLS 1.2 at least.
/// Connecting, the handshake, sending and reading the status line share one deadline,
/// `timeout_ms` from the call (name resolution runs before it, as the system's resolver allows).
/// Returns 0 when an answer came (its status in `out`), -1 otherwise (the reason in `out`).
int rocket_http_post(const char *host, int port, int tls, const char *path, const char *headers,
                     const unsigned char *body, size_t body_len, const char *ca_file, int timeout_ms,
                     rocket_http_result *out);

#endif
