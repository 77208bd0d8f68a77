#include "CHTTPClient.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int fail(rocket_http_result *out, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(out->error, sizeof out->error, format, args);
    va_end(args);
    out->status = 0;
    return -1;
}

/// Waits until `fd` is ready for `events` or the deadline passes: 1 ready, 0 late, -1 error.
static int wait_for(int fd, short events, long long deadline) {
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0) return 0;
        struct pollfd p = {fd, events, 0};
        int n = poll(&p, 1, (int)(left > 1000000 ? 1000000 : left));
        if (n > 0) return 1;
        if (n == 0) return 0;
        if (errno != EINTR) return -1;
    }
}

/// A connected non-blocking socket to host:port, or -1 (the reason in `out`).
static int connect_to(const char *host, int port, long long deadline, rocket_http_result *out) {
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {0}, *list = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, service, &hints, &list);
    if (rc != 0) return fail(out, "cannot resolve %s: %s", host, gai_strerror(rc));
    int fd = -1;
    const char *why = "no address";
    for (struct addrinfo *a = list; a && fd < 0; a = a->ai_next) {
        int s = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (s < 0) { why = strerror(errno); continue; }
        // Requests are written whole: nothing to gain from holding a segment back.
        int on = 1;
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        if (connect(s, a->ai_addr, a->ai_addrlen) == 0) { fd = s; break; }
        if (errno != EINPROGRESS) { why = strerror(errno); close(s); continue; }
        int ready = wait_for(s, POLLOUT, deadline);
        int err = 0;
        socklen_t len = sizeof err;
        if (ready == 1 && getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0) { fd = s; break; }
        why = ready == 0 ? "timed out" : strerror(err ? err : errno);
        close(s);
    }
    freeaddrinfo(list);
    if (fd < 0) return fail(out, "cannot connect to %s:%d: %s", host, port, why);
    return fd;
}

/// Sends all of `data` (through `ssl` when given): 0, or -1 (the reason in `out`).
static int send_all(int fd, SSL *ssl, const unsigned char *data, size_t count, long long deadline, rocket_http_result *out) {
    size_t sent = 0;
    while (sent < count) {
        short want = POLLOUT;
        if (ssl) {
            int n = SSL_write(ssl, data + sent, (int)(count - sent > 65536 ? 65536 : count - sent));
            if (n > 0) { sent += (size_t)n; continue; }
            int e = SSL_get_error(ssl, n);
            if (e == SSL_ERROR_WANT_READ) want = POLLIN;
            else if (e != SSL_ERROR_WANT_WRITE) return fail(out, "the connection broke while sending (TLS error %d)", e);
        } else {
            ssize_t n = send(fd, data + sent, count - sent, MSG_NOSIGNAL);
            if (n > 0) { sent += (size_t)n; continue; }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return fail(out, "the connection broke while sending: %s", strerror(errno));
        }
        int ready = wait_for(fd, want, deadline);
        if (ready != 1) return fail(out, ready == 0 ? "timed out while sending" : "the connection broke while sending");
    }
    return 0;
}

/// The largest answer head read, and the most of an answer's body read to keep its connection.
enum { HEAD_LIMIT = 16384, BODY_LIMIT = 1 << 20 };

/// One open connection and what it is for.
struct rocket_http_session {
    int fd;
    SSL_CTX *ctx;
    SSL *ssl;
    /// "tls host port ca_file" of the connection.
    char *endpoint;
    /// When its last answer ended (monotonic milliseconds).
    long long used_ms;
    /// How long it may sit unused and still be used (milliseconds).
    int idle_limit_ms;
};

rocket_http_session *rocket_http_session_new(int idle_limit_ms) {
    rocket_http_session *s = calloc(1, sizeof *s);
    if (s) {
        s->fd = -1;
        s->idle_limit_ms = idle_limit_ms;
    }
    return s;
}

static void drop_connection(rocket_http_session *s) {
    if (s->ssl) SSL_free(s->ssl);
    if (s->ctx) SSL_CTX_free(s->ctx);
    if (s->fd >= 0) close(s->fd);
    free(s->endpoint);
    s->ssl = NULL;
    s->ctx = NULL;
    s->fd = -1;
    s->endpoint = NULL;
}

void rocket_http_session_free(rocket_http_session *session) {
    if (!session) return;
    drop_connection(session);
    free(session);
    ERR_clear_error();
}

/// Reads what has come (waiting for some): the count, 0 at the end of the stream, -1 on a
/// failure (the reason in `out`).
static ssize_t read_some(int fd, SSL *ssl, char *into, size_t room, long long deadline, rocket_http_result *out) {
    for (;;) {
        short want = POLLIN;
        if (ssl) {
            int n = SSL_read(ssl, into, (int)(room > 65536 ? 65536 : room));
            if (n > 0) return n;
            int e = SSL_get_error(ssl, n);
            if (e == SSL_ERROR_ZERO_RETURN) return 0;
            if (e == SSL_ERROR_WANT_WRITE) want = POLLOUT;
            else if (e != SSL_ERROR_WANT_READ) return 0;
        } else {
            ssize_t n = recv(fd, into, room, 0);
            if (n > 0) return n;
            if (n == 0) return 0;
            if (errno == EINTR) continue;
            if (errno == ECONNRESET) return 0;
            if (errno != EAGAIN && errno != EWOULDBLOCK) return fail(out, "the connection broke while reading: %s", strerror(errno));
        }
        int ready = wait_for(fd, want, deadline);
        if (ready != 1) return fail(out, ready == 0 ? "timed out waiting for an answer" : "the connection broke while reading");
    }
}

/// The answer read so far, and where it is.
typedef struct {
    char data[HEAD_LIMIT];
    size_t start, end;
} reader;

/// Reads more into `r` (moving what is left to the front first): 1, 0 at the end of the
/// stream, -1 on a failure.
static int fill(reader *r, int fd, SSL *ssl, long long deadline, rocket_http_result *out) {
    if (r->start > 0) {
        memmove(r->data, r->data + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->end == sizeof r->data) return fail(out, "a line of the answer is longer than %d bytes", HEAD_LIMIT);
    ssize_t n = read_some(fd, ssl, r->data + r->end, sizeof r->data - r->end, deadline, out);
    if (n < 0) return -1;
    if (n == 0) return 0;
    r->end += (size_t)n;
    return 1;
}

/// The next line of `r` (its CR LF replaced by NUL), or NULL at the end of the stream or on a
/// failure (`out` says which when it is one). A line holding a NUL byte is a failure: the
/// string would hide the rest of it (from a bound on the head's size, from a chunk's size).
static char *next_line(reader *r, int fd, SSL *ssl, long long deadline, rocket_http_result *out, int *ended) {
    for (;;) {
        for (size_t i = r->start; i + 1 < r->end; i++) {
            if (r->data[i] == '\r' && r->data[i + 1] == '\n') {
                char *line = r->data + r->start;
                if (memchr(line, 0, i - r->start) != NULL) {
                    *ended = 0;
                    fail(out, "the answer holds a NUL byte in a line");
                    return NULL;
                }
                r->data[i] = 0;
                r->start = i + 2;
                return line;
            }
        }
        int got = fill(r, fd, ssl, deadline, out);
        if (got <= 0) {
            *ended = got == 0;
            return NULL;
        }
    }
}

/// An answer's body kept for the caller (a GET), at most `limit` bytes.
typedef struct {
    unsigned char *data;
    size_t length, capacity, limit;
} capture;

/// Adds `count` bytes to `keep`: 0, or -1 past its limit or out of memory.
static int keep_bytes(capture *keep, const char *bytes, size_t count, rocket_http_result *out) {
    if (count > keep->limit - keep->length) return fail(out, "the answer's body is longer than %zu bytes", keep->limit);
    if (keep->length + count > keep->capacity) {
        size_t grown = keep->capacity ? keep->capacity : 16384;
        while (grown < keep->length + count) grown *= 2;
        unsigned char *more = realloc(keep->data, grown);
        if (!more) return fail(out, "out of memory");
        keep->data = more;
        keep->capacity = grown;
    }
    memcpy(keep->data + keep->length, bytes, count);
    keep->length += count;
    return 0;
}

/// Reads `count` bytes of the answer's body, kept in `keep` when given, else dropped: 0, or -1.
static int skip_bytes(reader *r, unsigned long long count, int fd, SSL *ssl, long long deadline, rocket_http_result *out, capture *keep) {
    while (count > 0) {
        if (r->start == r->end) {
            r->start = r->end = 0;
            int got = fill(r, fd, ssl, deadline, out);
            if (got < 0) return -1;
            if (got == 0) return fail(out, "the connection closed inside the answer's body");
        }
        size_t here = r->end - r->start;
        size_t take = count < here ? (size_t)count : here;
        if (keep && keep_bytes(keep, r->data + r->start, take, out) != 0) return -1;
        r->start += take;
        count -= take;
    }
    return 0;
}

/// True when `value` (a header's, comma-separated) holds `token`, in any case.
static int has_token(const char *value, const char *token) {
    size_t n = strlen(token);
    for (const char *p = value; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',') p++;
        const char *start = p;
        while (*p && *p != ',') p++;
        const char *stop = p;
        while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t')) stop--;
        if ((size_t)(stop - start) == n && strncasecmp(start, token, n) == 0) return 1;
    }
    return 0;
}

/// Reads one whole answer (a 1xx one is passed over): its status in `out`, its body into `keep`
/// when given (else dropped), and whether its connection may carry another request in
/// `*reusable`. 0, or -1 (the reason in `out`; `*ended` when the stream ended before an answer
/// began). A body that cannot be read whole is a failure when it is kept; when it is dropped,
/// the status stands.
static int read_answer(int fd, SSL *ssl, long long deadline, rocket_http_result *out, int *reusable, int *ended, capture *keep) {
    reader *r = malloc(sizeof *r);
    if (!r) return fail(out, "out of memory");
    r->start = r->end = 0;
    int result = -1, status_code = 0;
    *reusable = 0;
    *ended = 0;
    for (;;) {
        int end = 0;
        char *status = next_line(r, fd, ssl, deadline, out, &end);
        if (!status) {
            // Nothing at all on a kept connection: the server had closed it.
            if (end) {
                *ended = r->end == 0;
                // Bytes that never made a line: say whether they could have been HTTP.
                size_t have = r->end - r->start, n = have < 5 ? have : 5;
                if (have > 0 && strncmp(r->data + r->start, "HTTP/", n) != 0) fail(out, "the answer is not HTTP");
                else fail(out, "the connection closed before an answer");
            }
            goto done;
        }
        // "HTTP/1.x NNN …"
        size_t len = strlen(status);
        if (len < 12 || strncmp(status, "HTTP/1.", 7) != 0 || status[8] != ' ' || (len > 12 && status[12] != ' ')) {
            fail(out, "the answer is not HTTP");
            goto done;
        }
        int code = 0;
        for (int k = 9; k < 12; k++) {
            if (status[k] < '0' || status[k] > '9') { fail(out, "the answer's status is not a number"); goto done; }
            code = code * 10 + (status[k] - '0');
        }
        if (code < 100 || code > 599) { fail(out, "the answer's status %d is not one", code); goto done; }
        int keep_alive = status[7] == '1';
        long long length = -1;
        int chunked = 0, framing_bad = 0;
        size_t head = len + 2;
        for (;;) {
            char *line = next_line(r, fd, ssl, deadline, out, &end);
            if (!line) {
                if (end) fail(out, "the connection closed inside the answer's head");
                goto done;
            }
            head += strlen(line) + 2;
            if (head > HEAD_LIMIT) { fail(out, "the answer's head is longer than %d bytes", HEAD_LIMIT); goto done; }
            if (!*line) break;
            char *colon = strchr(line, ':');
            if (!colon) continue;
            *colon = 0;
            char *value = colon + 1;
            while (*value == ' ' || *value == '\t') value++;
            if (strcasecmp(line, "Content-Length") == 0) {
                long long v = 0;
                const char *p = value;
                if (!*p) framing_bad = 1;
                for (; *p >= '0' && *p <= '9'; p++) {
                    if (v > (long long)1 << 50) { framing_bad = 1; break; }
                    v = v * 10 + (*p - '0');
                }
                while (*p == ' ' || *p == '\t') p++;
                if (*p || (length >= 0 && length != v)) framing_bad = 1;
                length = v;
            } else if (strcasecmp(line, "Transfer-Encoding") == 0) {
                if (has_token(value, "chunked")) chunked = 1;
                else framing_bad = 1;
            } else if (strcasecmp(line, "Connection") == 0) {
                if (has_token(value, "close")) keep_alive = 0;
                else if (has_token(value, "keep-alive")) keep_alive = 1;
            }
        }
        if (code >= 100 && code < 200) continue;  // an interim answer: the real one follows
        out->status = code;
        status_code = code;
        result = 0;
        size_t limit = keep ? keep->limit : BODY_LIMIT;
        // Framing unclear: never reused (and a body that was asked for cannot be trusted).
        if (framing_bad || (chunked && length >= 0)) {
            if (keep) result = fail(out, "the answer's length is unclear");
            goto done;
        }
        if (code == 204 || code == 304) {
            *reusable = keep_alive;
        } else if (chunked) {
            unsigned long long total = 0;
            for (;;) {
                char *size_line = next_line(r, fd, ssl, deadline, out, &end);
                if (!size_line) goto body_failed;
                unsigned long long size = 0;
                int digits = 0;
                for (const char *p = size_line; *p && *p != ';' && *p != ' '; p++, digits++) {
                    int d = (*p >= '0' && *p <= '9') ? *p - '0' : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10 : (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10 : -1;
                    if (d < 0 || digits >= 15) goto body_failed;
                    size = size * 16 + (unsigned long long)d;
                }
                if (!digits) goto body_failed;
                total += size;
                if (total > limit) {
                    if (keep) fail(out, "the answer's body is longer than %zu bytes", limit);
                    goto body_failed;
                }
                if (size == 0) break;
                if (skip_bytes(r, size, fd, ssl, deadline, out, keep) != 0) goto body_failed;
                char *crlf = next_line(r, fd, ssl, deadline, out, &end);
                if (!crlf || *crlf) goto body_failed;
            }
            // Trailers, up to the empty line.
            for (size_t trailers = 0;; trailers++) {
                char *line = next_line(r, fd, ssl, deadline, out, &end);
                if (!line || trailers > 64) goto body_failed;
                if (!*line) break;
            }
            *reusable = keep_alive;
        } else if (length >= 0) {
            if ((unsigned long long)length > limit) {
                if (keep) fail(out, "the answer's body is longer than %zu bytes", limit);
                goto body_failed;
            }
            if (skip_bytes(r, (unsigned long long)length, fd, ssl, deadline, out, keep) != 0) goto body_failed;
            *reusable = keep_alive;
        } else if (keep) {
            // No length and no chunks: the body runs to the end of the stream (read when kept).
            if (keep_bytes(keep, r->data + r->start, r->end - r->start, out) != 0) goto body_failed;
            r->start = r->end = 0;
            for (;;) {
                int got = fill(r, fd, ssl, deadline, out);
                if (got < 0) goto body_failed;
                if (got == 0) break;
                if (keep_bytes(keep, r->data, r->end, out) != 0) goto body_failed;
                r->start = r->end = 0;
            }
        }
        // Bytes past the answer mean the server sent something unasked: never reused.
        if (r->start != r->end) *reusable = 0;
        goto done;
    body_failed:
        // A body asked for and not read whole is no answer; a body to drop leaves the status.
        if (keep) {
            if (!out->error[0]) fail(out, "the answer's body cannot be read");
            result = -1;
        }
        goto done;
    }
done:
    free(r);
    // The status is what counts: a failure while dropping its body (which clears it) keeps it.
    if (result == 0) {
        out->error[0] = 0;
        out->status = status_code;
    } else {
        out->status = 0;
    }
    return result;
}

/// Opens a connection to the endpoint into `s` (TLS set up and verified): 0, or -1.
static int open_connection(rocket_http_session *s, const char *host, int port, int tls, const char *ca_file, long long deadline, rocket_http_result *out) {
    s->fd = connect_to(host, port, deadline, out);
    if (s->fd < 0) return -1;
    if (!tls) return 0;
    s->ctx = SSL_CTX_new(TLS_client_method());
    if (!s->ctx) return fail(out, "TLS is not available");
    SSL_CTX_set_min_proto_version(s->ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(s->ctx, SSL_VERIFY_PEER, NULL);
    if (ca_file ? SSL_CTX_load_verify_locations(s->ctx, ca_file, NULL) != 1 : SSL_CTX_set_default_verify_paths(s->ctx) != 1) {
        return fail(out, ca_file ? "cannot read the certificates in %s" : "cannot read the system's certificates%s", ca_file ? ca_file : "");
    }
    s->ssl = SSL_new(s->ctx);
    if (!s->ssl || SSL_set_fd(s->ssl, s->fd) != 1) return fail(out, "TLS is not available");
    // The name (or address) the certificate must be for.
    unsigned char ip[16];
    int literal = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
    X509_VERIFY_PARAM *param = SSL_get0_param(s->ssl);
    if (literal) {
        if (X509_VERIFY_PARAM_set1_ip_asc(param, host) != 1) return fail(out, "cannot check the address %s", host);
    } else {
        SSL_set_tlsext_host_name(s->ssl, host);
        if (SSL_set1_host(s->ssl, host) != 1) return fail(out, "cannot check the name %s", host);
    }
    for (;;) {
        int n = SSL_connect(s->ssl);
        if (n == 1) return 0;
        int e = SSL_get_error(s->ssl, n);
        short want = e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
        if (!want) {
            long verify = SSL_get_verify_result(s->ssl);
            if (verify != X509_V_OK) return fail(out, "the certificate of %s is not trusted: %s", host, X509_verify_cert_error_string(verify));
            return fail(out, "the TLS handshake with %s failed", host);
        }
        int ready = wait_for(s->fd, want, deadline);
        if (ready != 1) return fail(out, ready == 0 ? "timed out in the TLS handshake" : "the connection broke in the TLS handshake");
    }
}

static int request(rocket_http_session *session, const char *method, const char *host, int port, int tls, const char *path,
                   const char *headers, const unsigned char *body, size_t body_len, const char *ca_file, int timeout_ms,
                   rocket_http_result *out, capture *keep);

/// `request` with SIGPIPE held on this thread: OpenSSL writes with write(), and to a connection
/// the server has closed that raises SIGPIPE, which would end the process. One this call caused
/// is taken before the signal is let go (one pending before is left alone).
static int without_sigpipe(rocket_http_session *session, const char *method, const char *host, int port, int tls, const char *path,
                           const char *headers, const unsigned char *body, size_t body_len, const char *ca_file, int timeout_ms,
                           rocket_http_result *out, capture *keep) {
    memset(out, 0, sizeof *out);
    sigset_t pipe_only, before, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sigemptyset(&pending);
    sigpending(&pending);
    int pipe_was_pending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_only, &before);
    int result = request(session, method, host, port, tls, path, headers, body, body_len, ca_file, timeout_ms, out, keep);
    sigemptyset(&pending);
    if (!pipe_was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_only, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    return result;
}

int rocket_http_post(rocket_http_session *session, const char *host, int port, int tls, const char *path, const char *headers,
                     const unsigned char *body, size_t body_len, const char *ca_file, int timeout_ms,
                     rocket_http_result *out) {
    return without_sigpipe(session, "POST", host, port, tls, path, headers, body, body_len, ca_file, timeout_ms, out, NULL);
}

int rocket_http_get(rocket_http_session *session, const char *host, int port, int tls, const char *path, const char *headers,
                    const char *ca_file, int timeout_ms, size_t max_body, rocket_http_result *out, unsigned char **body,
                    size_t *body_len) {
    capture keep = {NULL, 0, 0, max_body};
    int result = without_sigpipe(session, "GET", host, port, tls, path, headers, NULL, 0, ca_file, timeout_ms, out, &keep);
    if (result != 0) {
        free(keep.data);
        keep.data = NULL;
        keep.length = 0;
    }
    *body = keep.data;
    *body_len = keep.length;
    return result;
}

void rocket_http_free(void *data) { free(data); }

int rocket_http_read(int fd, int keep_body, size_t max_body, int timeout_ms, rocket_http_result *out, unsigned char **body,
                     size_t *body_len, int *reusable) {
    memset(out, 0, sizeof *out);
    capture keep = {NULL, 0, 0, max_body};
    int ended = 0;
    int result = read_answer(fd, NULL, now_ms() + (timeout_ms > 0 ? timeout_ms : 1), out, reusable, &ended, keep_body ? &keep : NULL);
    if (result != 0) {
        free(keep.data);
        keep.data = NULL;
        keep.length = 0;
    }
    *body = keep.data;
    *body_len = keep.length;
    return result;
}

/// One request: a kept connection used when it can be, a new one made when not.
static int request(rocket_http_session *session, const char *method, const char *host, int port, int tls, const char *path,
                   const char *headers, const unsigned char *body, size_t body_len, const char *ca_file, int timeout_ms,
                   rocket_http_result *out, capture *keep) {
    long long deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 1);
    rocket_http_session local = {.fd = -1};
    rocket_http_session *s = session ? session : &local;
    // The endpoint this request is for: a kept connection to another one is closed.
    size_t key_size = strlen(host) + (ca_file ? strlen(ca_file) : 0) + 32;
    char *key = malloc(key_size);
    if (!key) return fail(out, "out of memory");
    snprintf(key, key_size, "%d %s %d %s", tls, host, port, ca_file ? ca_file : "");
    if (s->fd >= 0 && (!s->endpoint || strcmp(s->endpoint, key) != 0 || now_ms() - s->used_ms >= s->idle_limit_ms)) drop_connection(s);
    // The request's head: the target, the host as the URL named it, the body's length.
    // Head and body go in one write (one TLS record, one segment where it fits): written apart,
    // the body waited for the head's acknowledgement on a kept connection (Nagle's algorithm
    // against delayed ACKs: 20 ms a delivery).
    size_t head_size = strlen(path) + strlen(host) + strlen(headers) + 160 + body_len;
    char *head = malloc(head_size);
    if (!head) {
        free(key);
        return fail(out, "out of memory");
    }
    int is_default = (tls && port == 443) || (!tls && port == 80);
    int v6 = strchr(host, ':') != NULL;
    // A POST says its body's length; a GET has none.
    char length_line[48] = "";
    if (body) snprintf(length_line, sizeof length_line, "Content-Length: %zu\r\n", body_len);
    char port_part[16] = "";
    if (!is_default) snprintf(port_part, sizeof port_part, ":%d", port);
    int n = snprintf(head, head_size, "%s %s HTTP/1.1\r\nHost: %s%s%s%s\r\n%s%s%s\r\n", method, path, v6 ? "[" : "", host,
                     v6 ? "]" : "", port_part, length_line, session ? "" : "Connection: close\r\n", headers);
    int result = -1;
    if (n <= 0 || (size_t)n + body_len >= head_size) {
        fail(out, "cannot write the request");
    } else {
        if (body_len) memcpy(head + n, body, body_len);
        size_t request_len = (size_t)n + body_len;
        // A kept connection first; if the server had closed it (nothing came back), one new one.
        for (int attempt = 0; attempt < 2; attempt++) {
            int kept = s->fd >= 0;
            if (!kept && open_connection(s, host, port, tls, ca_file, deadline, out) != 0) {
                drop_connection(s);
                break;
            }
            int reusable = 0, ended = 0;
            int sent = send_all(s->fd, s->ssl, (const unsigned char *)head, request_len, deadline, out) == 0;
            if (keep) keep->length = 0;  // a second try starts its body again
            if (sent) result = read_answer(s->fd, s->ssl, deadline, out, &reusable, &ended, keep);
            if (result == 0 && reusable && session) {
                s->used_ms = now_ms();
                if (!s->endpoint) s->endpoint = strdup(key);
                if (!s->endpoint) drop_connection(s);
                break;
            }
            drop_connection(s);
            if (result == 0) break;
            // Only a kept connection that broke before any answer is tried again.
            if (!kept || !(ended || !sent) || now_ms() >= deadline) break;
            memset(out, 0, sizeof *out);
        }
    }
    if (s->fd >= 0 && !s->endpoint) drop_connection(s);
    free(head);
    free(key);
    ERR_clear_error();
    return result;
}
