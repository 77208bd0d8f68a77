#include "CHTTPClient.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
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

/// Reads until the status line is whole and parses it: 0 (the status in `out`), or -1.
static int read_status(int fd, SSL *ssl, long long deadline, rocket_http_result *out) {
    char line[512];
    size_t have = 0;
    for (;;) {
        for (size_t i = 0; i + 1 < have; i++) {
            if (line[i] == '\r' && line[i + 1] == '\n') {
                // "HTTP/1.x NNN …"
                if (i < 12 || strncmp(line, "HTTP/1.", 7) != 0 || line[8] != ' ') return fail(out, "the answer is not HTTP");
                int code = 0;
                for (int k = 9; k < 12; k++) {
                    if (line[k] < '0' || line[k] > '9') return fail(out, "the answer's status is not a number");
                    code = code * 10 + (line[k] - '0');
                }
                if (code < 100 || code > 599) return fail(out, "the answer's status %d is not one", code);
                out->status = code;
                return 0;
            }
        }
        if (have == sizeof line) return fail(out, "the answer's status line is longer than %zu bytes", sizeof line);
        short want = POLLIN;
        if (ssl) {
            int n = SSL_read(ssl, line + have, (int)(sizeof line - have));
            if (n > 0) { have += (size_t)n; continue; }
            int e = SSL_get_error(ssl, n);
            if (e == SSL_ERROR_WANT_WRITE) want = POLLOUT;
            else if (e != SSL_ERROR_WANT_READ) return fail(out, "the connection closed before an answer");
        } else {
            ssize_t n = recv(fd, line + have, sizeof line - have, 0);
            if (n > 0) { have += (size_t)n; continue; }
            if (n == 0) return fail(out, "the connection closed before an answer");
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) return fail(out, "the connection broke while reading: %s", strerror(errno));
        }
        int ready = wait_for(fd, want, deadline);
        if (ready != 1) return fail(out, ready == 0 ? "timed out waiting for an answer" : "the connection broke while reading");
    }
}

int rocket_http_post(const char *host, int port, int tls, const char *path, const char *headers,
                     const unsigned char *body, size_t body_len, const char *ca_file, int timeout_ms,
                     rocket_http_result *out) {
    memset(out, 0, sizeof *out);
    long long deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 1);
    int fd = connect_to(host, port, deadline, out);
    if (fd < 0) return -1;
    SSL_CTX *ctx = NULL;
    SSL *ssl = NULL;
    int result = -1;
    if (tls) {
        ctx = SSL_CTX_new(TLS_client_method());
        if (!ctx) { fail(out, "TLS is not available"); goto done; }
        SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        if (ca_file ? SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1 : SSL_CTX_set_default_verify_paths(ctx) != 1) {
            fail(out, ca_file ? "cannot read the certificates in %s" : "cannot read the system's certificates%s", ca_file ? ca_file : "");
            goto done;
        }
        ssl = SSL_new(ctx);
        if (!ssl || SSL_set_fd(ssl, fd) != 1) { fail(out, "TLS is not available"); goto done; }
        // The name (or address) the certificate must be for.
        unsigned char ip[16];
        int literal = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
        X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
        if (literal) {
            if (X509_VERIFY_PARAM_set1_ip_asc(param, host) != 1) { fail(out, "cannot check the address %s", host); goto done; }
        } else {
            SSL_set_tlsext_host_name(ssl, host);
            if (SSL_set1_host(ssl, host) != 1) { fail(out, "cannot check the name %s", host); goto done; }
        }
        for (;;) {
            int n = SSL_connect(ssl);
            if (n == 1) break;
            int e = SSL_get_error(ssl, n);
            short want = e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
            if (!want) {
                long verify = SSL_get_verify_result(ssl);
                if (verify != X509_V_OK) fail(out, "the certificate of %s is not trusted: %s", host, X509_verify_cert_error_string(verify));
                else fail(out, "the TLS handshake with %s failed", host);
                goto done;
            }
            int ready = wait_for(fd, want, deadline);
            if (ready != 1) { fail(out, ready == 0 ? "timed out in the TLS handshake" : "the connection broke in the TLS handshake"); goto done; }
        }
    }
    {
        // The request's head: the target, the host as the URL named it, the body's length.
        size_t head_size = strlen(path) + strlen(host) + strlen(headers) + 160;
        char *head = malloc(head_size);
        if (!head) { fail(out, "out of memory"); goto done; }
        int is_default = (tls && port == 443) || (!tls && port == 80);
        int v6 = strchr(host, ':') != NULL;
        int n = is_default
            ? snprintf(head, head_size, "POST %s HTTP/1.1\r\nHost: %s%s%s\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n",
                       path, v6 ? "[" : "", host, v6 ? "]" : "", body_len, headers)
            : snprintf(head, head_size, "POST %s HTTP/1.1\r\nHost: %s%s%s:%d\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n",
                       path, v6 ? "[" : "", host, v6 ? "]" : "", port, body_len, headers);
        int sent = n > 0 && (size_t)n < head_size && send_all(fd, ssl, (const unsigned char *)head, (size_t)n, deadline, out) == 0
                   && send_all(fd, ssl, body, body_len, deadline, out) == 0;
        free(head);
        if (!sent) {
            if (!out->error[0]) fail(out, "cannot write the request");
            goto done;
        }
    }
    result = read_status(fd, ssl, deadline, out);
done:
    if (ssl) SSL_free(ssl);
    if (ctx) SSL_CTX_free(ctx);
    close(fd);
    ERR_clear_error();
    return result;
}
