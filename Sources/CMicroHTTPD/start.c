#include "CMicroHTTPD.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

// Request deadlines. libmicrohttpd times a connection out only when it is idle, so a client that
// sends a byte now and then keeps one forever, headers included. Each connection gets a deadline
// for its request as a whole: `ready_ms` from when it is free for one (opened, or its last answer
// sent), and at most `request_ms` from its request line; it is cleared once the request is read
// whole. The ticker shuts down the sockets of connections past their deadline; the library then
// sees the end of the stream and closes the connection as it does any other.
struct rocket_deadline {
    struct rocket_deadline *prev, *next;
    MHD_socket fd;
    // The IPv6 /64 the connection counts against (struct rocket_network), when `counted`.
    uint64_t network;
    int counted;
    int64_t ready_ms;
    _Atomic int64_t due_ms; // 0: no request under way
    // The request target of the request under way holds "%00": the library decodes it into a
    // NUL that ends the path or value there, so "/v1/flows%00x" would be read as "/v1/flows".
    // Set and read on the connection's own thread.
    int encoded_nul;
};

// Connections per IPv6 /64. libmicrohttpd limits connections per exact address, and a client
// given a whole /64 (a subscriber's usual share) can take a new address in it for every
// connection; its connections are counted per network here, and a new one past the limit is
// refused when it is accepted.
#define ROCKET_NETWORK_BUCKETS 1024
struct rocket_network {
    struct rocket_network *next;
    uint64_t prefix;
    unsigned count;
};

struct rocket_deadlines {
    pthread_mutex_t lock; // over the list and the networks (entries come and go on the library's threads)
    struct rocket_deadline head;
    int64_t ready_ms;
    int64_t request_ms;
    unsigned per_network_limit; // 0: none
    struct rocket_network *networks[ROCKET_NETWORK_BUCKETS];
    // Answers the library made itself (a request line or headers over the connection's memory,
    // a malformed request, an HTTP version it does not speak), by status - 100: the access
    // handler never saw those requests. Counted on the library's threads, taken by the ticker.
    _Atomic unsigned long library_answers[ROCKET_LIBRARY_STATUSES];
};

// The /64 of `addr` when it is an IPv6 address that is not an IPv4 one written in IPv6.
static int rocket_network_of(const struct sockaddr *addr, uint64_t *prefix) {
    if (addr == NULL || addr->sa_family != AF_INET6) return 0;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)addr)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(a)) return 0;
    uint64_t p = 0;
    for (int i = 0; i < 8; i++) p = (p << 8) | a->s6_addr[i];
    *prefix = p;
    return 1;
}

// Where the entry of `prefix` is, or would be linked in (*result NULL when absent). Under the lock.
static struct rocket_network **rocket_network_slot(struct rocket_deadlines *d, uint64_t prefix) {
    struct rocket_network **at = &d->networks[(prefix ^ (prefix >> 29)) % ROCKET_NETWORK_BUCKETS];
    while (*at != NULL && (*at)->prefix != prefix) at = &(*at)->next;
    return at;
}

// Counts a connection of network `prefix` in (delta > 0) or out; an entry that falls to zero
// leaves the table. Under the lock.
static void rocket_network_add(struct rocket_deadlines *d, uint64_t prefix, int delta) {
    struct rocket_network **at = rocket_network_slot(d, prefix);
    if (delta > 0) {
        if (*at == NULL) {
            *at = calloc(1, sizeof **at);
            if (*at != NULL) (*at)->prefix = prefix;
        }
        if (*at != NULL) (*at)->count++;
    } else if (*at != NULL) {
        if ((*at)->count > 0) (*at)->count--;
        if ((*at)->count == 0) {
            struct rocket_network *gone = *at;
            *at = gone->next;
            free(gone);
        }
    }
}

int rocket_mhd_network_admits(struct rocket_deadlines *d, const struct sockaddr *addr) {
    uint64_t prefix;
    if (d->per_network_limit == 0 || !rocket_network_of(addr, &prefix)) return 1;
    pthread_mutex_lock(&d->lock);
    struct rocket_network *n = *rocket_network_slot(d, prefix);
    int admits = n == NULL || n->count < d->per_network_limit;
    pthread_mutex_unlock(&d->lock);
    return admits;
}

int rocket_mhd_network_count(struct rocket_deadlines *d, const struct sockaddr *addr, int delta, uint64_t *counted) {
    uint64_t prefix;
    if (d->per_network_limit == 0 || !rocket_network_of(addr, &prefix)) return 0;
    pthread_mutex_lock(&d->lock);
    rocket_network_add(d, prefix, delta);
    pthread_mutex_unlock(&d->lock);
    if (counted != NULL) *counted = prefix;
    return 1;
}

unsigned rocket_mhd_network_connections(struct rocket_deadlines *d, const struct sockaddr *addr) {
    uint64_t prefix;
    if (!rocket_network_of(addr, &prefix)) return 0;
    pthread_mutex_lock(&d->lock);
    struct rocket_network *n = *rocket_network_slot(d, prefix);
    unsigned count = n == NULL ? 0 : n->count;
    pthread_mutex_unlock(&d->lock);
    return count;
}

static enum MHD_Result rocket_accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen) {
    (void)addrlen;
    return rocket_mhd_network_admits(cls, addr) ? MHD_YES : MHD_NO;
}

static int64_t rocket_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static struct rocket_deadline *rocket_deadline_of(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

static void rocket_connection_notified(void *cls, struct MHD_Connection *connection, void **socket_context,
                                       enum MHD_ConnectionNotificationCode toe) {
    struct rocket_deadlines *d = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        struct rocket_deadline *e = calloc(1, sizeof *e);
        if (e == NULL) return;
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        e->fd = info == NULL ? MHD_INVALID_SOCKET : info->connect_fd;
        e->ready_ms = d->ready_ms;
        atomic_store(&e->due_ms, rocket_now_ms() + d->ready_ms);
        const union MHD_ConnectionInfo *peer = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (peer != NULL) e->counted = rocket_mhd_network_count(d, peer->client_addr, 1, &e->network);
        pthread_mutex_lock(&d->lock);
        e->prev = &d->head;
        e->next = d->head.next;
        d->head.next->prev = e;
        d->head.next = e;
        pthread_mutex_unlock(&d->lock);
        *socket_context = e;
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context != NULL) {
        // Called before the library closes the descriptor: once unlinked, the ticker can no
        // longer shut down a descriptor number another connection may be given next.
        struct rocket_deadline *e = *socket_context;
        pthread_mutex_lock(&d->lock);
        e->prev->next = e->next;
        e->next->prev = e->prev;
        if (e->counted) rocket_network_add(d, e->network, -1);
        pthread_mutex_unlock(&d->lock);
        free(e);
        *socket_context = NULL;
    }
}

static void *rocket_request_line(void *cls, const char *uri, struct MHD_Connection *connection) {
    struct rocket_deadlines *d = cls;
    struct rocket_deadline *e = rocket_deadline_of(connection);
    if (e != NULL) {
        // The target as sent, before the library decodes it.
        e->encoded_nul = uri != NULL && strstr(uri, "%00") != NULL;
        int64_t due = rocket_now_ms() + d->request_ms;
        int64_t was = atomic_load(&e->due_ms);
        if (was == 0 || due < was) atomic_store(&e->due_ms, due);
    }
    return NULL; // the access handler's first call still finds no request context
}

void rocket_mhd_request_read(struct MHD_Connection *connection) {
    struct rocket_deadline *e = rocket_deadline_of(connection);
    if (e != NULL) atomic_store(&e->due_ms, 0);
}

void rocket_mhd_request_done(struct MHD_Connection *connection) {
    struct rocket_deadline *e = rocket_deadline_of(connection);
    if (e != NULL) atomic_store(&e->due_ms, rocket_now_ms() + e->ready_ms);
}

unsigned int rocket_mhd_cut_late(struct rocket_deadlines *deadlines) {
    unsigned int cut = 0;
    int64_t now = rocket_now_ms();
    pthread_mutex_lock(&deadlines->lock);
    for (struct rocket_deadline *e = deadlines->head.next; e != &deadlines->head; e = e->next) {
        int64_t due = atomic_load(&e->due_ms);
        if (due != 0 && due < now && e->fd != MHD_INVALID_SOCKET) {
            shutdown(e->fd, SHUT_RDWR);
            atomic_store(&e->due_ms, 0);
            cut++;
        }
    }
    pthread_mutex_unlock(&deadlines->lock);
    return cut;
}

struct rocket_deadlines *rocket_mhd_deadlines_new(unsigned int ready_ms, unsigned int request_ms, unsigned int per_network_limit) {
    struct rocket_deadlines *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    if (pthread_mutex_init(&d->lock, NULL) != 0) {
        free(d);
        return NULL;
    }
    d->head.prev = d->head.next = &d->head;
    d->ready_ms = ready_ms;
    d->request_ms = request_ms;
    d->per_network_limit = per_network_limit;
    return d;
}

void rocket_mhd_deadlines_free(struct rocket_deadlines *deadlines) {
    if (deadlines == NULL) return;
    for (int b = 0; b < ROCKET_NETWORK_BUCKETS; b++) {
        for (struct rocket_network *n = deadlines->networks[b]; n != NULL;) {
            struct rocket_network *next = n->next;
            free(n);
            n = next;
        }
    }
    pthread_mutex_destroy(&deadlines->lock);
    free(deadlines);
}

// The library's messages: none is written (they would reach stderr unasked), but the one that
// says it answered a request with an error of its own is counted by status (see
// `library_answers`). Its text is libmicrohttpd's format string, the status its first argument.
static void rocket_mhd_log(void *cls, const char *fmt, va_list ap) {
    static const char answered[] = "Error processing request (HTTP response code is %u";
    struct rocket_deadlines *d = cls;
    if (d == NULL || fmt == NULL || strncmp(fmt, answered, sizeof answered - 1) != 0) return;
    va_list args;
    va_copy(args, ap);
    unsigned int status = va_arg(args, unsigned int);
    va_end(args);
    if (status >= 100 && status < 100 + ROCKET_LIBRARY_STATUSES) atomic_fetch_add_explicit(&d->library_answers[status - 100], 1, memory_order_relaxed);
}

unsigned long rocket_mhd_take_library_answers(struct rocket_deadlines *deadlines, unsigned long counts[ROCKET_LIBRARY_STATUSES]) {
    unsigned long total = 0;
    for (int i = 0; i < ROCKET_LIBRARY_STATUSES; i++) {
        counts[i] = deadlines == NULL ? 0 : atomic_exchange_explicit(&deadlines->library_answers[i], 0, memory_order_relaxed);
        total += counts[i];
    }
    return total;
}

struct MHD_Daemon *rocket_mhd_start(const char *host, uint16_t port, int listen_fd, unsigned int threads,
                                    unsigned int connection_limit, unsigned int per_ip_limit,
                                    unsigned int timeout_seconds, size_t connection_memory,
                                    MHD_AccessHandlerCallback handler, void *handler_cls,
                                    MHD_RequestCompletedCallback completed, void *completed_cls,
                                    unsigned int ready_ms, unsigned int request_ms, struct rocket_deadlines **deadlines,
                                    char *error, size_t error_size) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    // Turbo: among other things, a closed connection's socket is not shut down, so an event stream
    // taken over (rocket_mhd_take_socket) lives on in its duplicate descriptor.
    // Error log: the library's messages go to rocket_mhd_log, which counts its own answers.
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO | MHD_USE_ERROR_LOG;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    char passed[INET6_ADDRSTRLEN];
    uint16_t passed_port = 0;
    if (listen_fd >= 0) {
        // A socket a service manager passed: checked here, since the library would take any
        // descriptor. It becomes non-blocking (the pool's threads share it: one must never wait
        // in accept for a connection another took) and is closed on exec.
        if (rocket_mhd_listening_address(listen_fd, passed, sizeof passed, &passed_port, error, error_size) != 0) return NULL;
        int fl = fcntl(listen_fd, F_GETFL);
        if (fl < 0 || fcntl(listen_fd, F_SETFL, fl | O_NONBLOCK) != 0 || fcntl(listen_fd, F_SETFD, FD_CLOEXEC) != 0) {
            snprintf(error, error_size, "the socket passed (descriptor %d) cannot be used: %s", listen_fd, strerror(errno));
            return NULL;
        }
        if (strchr(passed, ':') != NULL) flags |= MHD_USE_IPv6;
        address = NULL;
        host = passed;
        port = passed_port;
    } else if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(error, error_size, "'%s' is not an IPv4 or IPv6 address", host);
        return NULL;
    }
    struct rocket_deadlines *d = rocket_mhd_deadlines_new(ready_ms, request_ms, per_ip_limit);
    if (d == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    errno = 0;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, port, rocket_accept_policy, d, handler, handler_cls,
        listen_fd >= 0 ? MHD_OPTION_LISTEN_SOCKET : MHD_OPTION_SOCK_ADDR,
        listen_fd >= 0 ? (intptr_t)listen_fd : (intptr_t)address,
        MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_NOTIFY_CONNECTION, rocket_connection_notified, d,
        MHD_OPTION_URI_LOG_CALLBACK, rocket_request_line, d,
        MHD_OPTION_EXTERNAL_LOGGER, rocket_mhd_log, d,
        MHD_OPTION_END);
    if (daemon == NULL) {
        int e = errno;
        rocket_mhd_deadlines_free(d);
        d = NULL;
        if (e == EADDRINUSE) snprintf(error, error_size, "the address %s port %u is already in use", host, (unsigned)port);
        else if (e == EACCES) snprintf(error, error_size, "no permission to listen on %s port %u", host, (unsigned)port);
        else if (e == EADDRNOTAVAIL) snprintf(error, error_size, "%s is not an address of this machine", host);
        else if (e != 0) snprintf(error, error_size, "cannot listen on %s port %u: %s", host, (unsigned)port, strerror(e));
        else snprintf(error, error_size, "cannot listen on %s port %u", host, (unsigned)port);
    }
    *deadlines = d;
    return daemon;
}

int rocket_mhd_listening_address(int fd, char *host, size_t host_size, uint16_t *port, char *error, size_t error_size) {
    int type = 0, listening = 0;
    socklen_t n = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &n) != 0) {
        snprintf(error, error_size, "descriptor %d is no socket%s", fd, errno == EBADF ? " (it is not open)" : "");
        return -1;
    }
    n = sizeof listening;
    if (type != SOCK_STREAM || getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &n) != 0 || !listening) {
        snprintf(error, error_size, "socket %d is no stream socket that listens (ListenStream=)", fd);
        return -1;
    }
    struct sockaddr_storage a;
    socklen_t size = sizeof a;
    memset(&a, 0, sizeof a);
    if (getsockname(fd, (struct sockaddr *)&a, &size) != 0) {
        snprintf(error, error_size, "socket %d has no address: %s", fd, strerror(errno));
        return -1;
    }
    const void *ip;
    if (a.ss_family == AF_INET) {
        ip = &((struct sockaddr_in *)&a)->sin_addr;
        *port = ntohs(((struct sockaddr_in *)&a)->sin_port);
    } else if (a.ss_family == AF_INET6) {
        ip = &((struct sockaddr_in6 *)&a)->sin6_addr;
        *port = ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
    } else {
        snprintf(error, error_size, "socket %d listens on no IP address (a Unix socket?): give ListenStream= an address and port, such as 127.0.0.1:8080", fd);
        return -1;
    }
    if (inet_ntop(a.ss_family, ip, host, (socklen_t)host_size) == NULL) {
        snprintf(error, error_size, "socket %d: %s", fd, strerror(errno));
        return -1;
    }
    return 0;
}

uint16_t rocket_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

unsigned int rocket_mhd_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

int rocket_mhd_quiesce(struct MHD_Daemon *daemon) {
    MHD_socket fd = MHD_quiesce_daemon(daemon);
    return fd == MHD_INVALID_SOCKET ? -1 : (int)fd;
}

// libmicrohttpd 0.9.75 parses the header block in place, in its read buffer, from the request
// line on; a folded line (obs-fold) is joined onto the previous header's name in memory newly
// taken from the connection's pool, outside that block. So a header whose name or value lies
// outside [request line, request line + header size) was folded. The library gives no other
// sign of it (newer versions refuse obs-fold themselves).
struct rocket_framing_scan {
    const char *low;
    const char *high;
    unsigned content_lengths;
    unsigned transfer_encodings;
    unsigned hosts;
    int outside;
    // A header's name is no token: empty, or holding a space, a tab or another byte a name may
    // not have ("Transfer-Encoding : chunked" is the smuggling shape: the library keeps the
    // space in the name, so it would not see the coding a proxy in front may have seen).
    int malformed;
    // 0: no Transfer-Encoding, or exactly chunked; 1: codings that end in chunked but name
    // others too (not implemented here); 2: codings that do not end in chunked (the body's
    // length cannot be known).
    int coding;
};

// The Transfer-Encoding codings `value` lists, judged as the scan's `coding` is.
static int rocket_framing_coding(const char *value) {
    if (value == NULL) return 2;
    // What the library reads as chunked: the whole value, in any case (anything else, a space
    // after it too, it would read as no coding at all and wait for a body it cannot measure).
    if (strcasecmp(value, "chunked") == 0) return 0;
    // A list that ends in chunked names codings this server does not decode; anything else
    // leaves the body's length unknown.
    const char *last = strrchr(value, ',');
    const char *start = last ? last + 1 : value;
    while (*start == ' ' || *start == '\t') start++;
    size_t n = strlen(start);
    while (n > 0 && (start[n - 1] == ' ' || start[n - 1] == '\t')) n--;
    if (n != 7 || strncasecmp(start, "chunked", 7) != 0) return 2;
    return last ? 1 : 2;
}

// Whether `c` may be in a header's name (RFC 9110's tchar).
static int rocket_token_byte(unsigned char c) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return 1;
    return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static enum MHD_Result rocket_framing_visit(
    void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size, const char *value, size_t value_size) {
    (void)kind;
    struct rocket_framing_scan *scan = cls;
    if (key == NULL) return MHD_YES;
    (void)value_size;
    if (key_size == 0) scan->malformed = 1;
    for (size_t i = 0; i < key_size; i++) {
        if (!rocket_token_byte((unsigned char)key[i])) scan->malformed = 1;
    }
    if (key < scan->low || key >= scan->high || (value != NULL && (value < scan->low || value > scan->high))) scan->outside = 1;
    if (strcasecmp(key, "Content-Length") == 0) scan->content_lengths++;
    if (strcasecmp(key, "Transfer-Encoding") == 0) {
        scan->transfer_encodings++;
        int coding = rocket_framing_coding(value);
        if (coding > scan->coding) scan->coding = coding;
    }
    if (strcasecmp(key, "Host") == 0) scan->hosts++;
    return MHD_YES;
}

int rocket_mhd_framing(struct MHD_Connection *connection, const char *method, const char *version) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    struct rocket_framing_scan scan = {method, method + (info ? info->header_size : 0), 0, 0, 0, 0, 0, 0};
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, rocket_framing_visit, &scan);
    if (scan.outside) return 3;
    if (scan.malformed) return 8;
    if (scan.transfer_encodings > 0 && scan.content_lengths > 0) return 1;
    if (scan.content_lengths > 1 || scan.transfer_encodings > 1) return 2;
    // HTTP/1.1 requires exactly one Host; an HTTP/1.0 request may have none (a load
    // balancer's health check often sends none), never two.
    if (scan.hosts > 1 || (scan.hosts == 0 && (version == NULL || strcmp(version, "HTTP/1.0") != 0))) return 4;
    if (scan.coding == 2) return 5;
    if (scan.coding == 1) return 6;
    struct rocket_deadline *e = rocket_deadline_of(connection);
    if (e != NULL && e->encoded_nul) return 7;
    return 0;
}

int rocket_mhd_client_address(struct MHD_Connection *connection, char *out, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size == 0) return 0;
    const struct sockaddr *sa = info->client_addr;
    const char *done = NULL;
    if (sa->sa_family == AF_INET) {
        done = inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)size);
    } else if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        // An IPv4 client on a dual-stack socket is named as IPv4.
        if (IN6_IS_ADDR_V4MAPPED(a6)) done = inet_ntop(AF_INET, &a6->s6_addr[12], out, (socklen_t)size);
        else done = inet_ntop(AF_INET6, a6, out, (socklen_t)size);
    }
    return done != NULL;
}
