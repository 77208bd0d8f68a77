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

/// A connection kept open between requests to one endpoint (HTTP/1.1 keep-alive), for one
/// thread at a time.
typedef struct rocket_http_session rocket_http_session;

/// A session with no connection yet; NULL when out of memory. A connection unused for
/// `idle_limit_ms` or more is not used again: a middlebox (a NAT, a load balancer) may have
/// forgotten it without a word, and a request sent on it would wait for its whole deadline.
rocket_http_session *rocket_http_session_new(int idle_limit_ms);

/// Closes the session's connection, if any, and frees it.
void rocket_http_session_free(rocket_http_session *session);

/// POSTs `body` to `host`:`port` `path` over HTTP, or HTTPS when `tls` is 1, and reads the whole
/// answer (its status kept, its body read and dropped). `headers` are extra header lines, each
/// ending in CR LF (Host and Content-Length are written here). HTTPS verifies the server's
/// certificate against `ca_file` (PEM), or the system's certificates when it is NULL, and its
/// name (or IP address) against `host`; TLS 1.2 at least. Connecting, the handshake, sending and
/// reading the answer share one deadline, `timeout_ms` from the call (name resolution runs
/// before it, as the system's resolver allows).
///
/// With a `session`, the connection stays open for the next request to the same endpoint when
/// the answer allows it (its body framed by a length or chunks, and no `Connection: close`); a
/// kept connection the server has closed meanwhile (or one unused too long) is replaced by a new one, and the request
/// sent again, when no byte of an answer came on it. Without one (NULL), each request has a
/// connection of its own, closed after it. An answer whose head passes 16 KiB, or whose body
/// passes 1 MiB, is cut short (its status kept) and its connection closed.
/// Returns 0 when an answer came (its status in `out`), -1 otherwise (the reason in `out`).
int rocket_http_post(rocket_http_session *session, const char *host, int port, int tls, const char *path, const char *headers,
                     const unsigned char *body, size_t body_len, const char *ca_file, int timeout_ms,
                     rocket_http_result *out);

/// GETs `path` from `host`:`port` as `rocket_http_post` POSTs (the same session, TLS checks and
/// deadline) and keeps the answer's body: its status in `out`, the body in `*body` (`*body_len`
/// bytes; free it with `rocket_http_free`). A body longer than `max_body`, or one that cannot be
/// read whole (the connection closed early, unclear framing), is a failure.
/// Returns 0 when an answer came whole, -1 otherwise (the reason in `out`; `*body` NULL).
int rocket_http_get(rocket_http_session *session, const char *host, int port, int tls, const char *path, const char *headers,
                    const char *ca_file, int timeout_ms, size_t max_body, rocket_http_result *out, unsigned char **body,
                    size_t *body_len);

/// Reads one answer from `fd`, a plain connection already open (the fuzzing harness's socket
/// pair), as `rocket_http_get` reads it when `keep_body` is 1 and as `rocket_http_post` does when
/// it is 0, within `timeout_ms`: its status in `out`, its body in `*body` (when kept; free it with
/// `rocket_http_free`), and in `*reusable` whether another answer could follow on `fd`.
/// Returns 0 when an answer came (whole, when its body is kept), -1 otherwise.
int rocket_http_read(int fd, int keep_body, size_t max_body, int timeout_ms, rocket_http_result *out, unsigned char **body,
                     size_t *body_len, int *reusable);

/// Frees a body `rocket_http_get` or `rocket_http_read` returned.
void rocket_http_free(void *data);

#endif
