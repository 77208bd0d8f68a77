#ifndef ROCKET_CMICROHTTPD_H
#define ROCKET_CMICROHTTPD_H
// GNU libmicrohttpd (Debian: libmicrohttpd-dev), linked statically from libmicrohttpd.a, and the
// calls Swift cannot make itself (MHD_start_daemon and MHD_get_daemon_info are variadic).
#if !__has_include(<microhttpd.h>)
#error "microhttpd.h is missing: install Debian's libmicrohttpd-dev (sh scripts/install-deps.sh)"
#endif
#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/// The deadlines of a daemon's requests (see ``rocket_mhd_start``).
struct rocket_deadlines;

/// Starts a daemon bound to `host` (an IPv4 or IPv6 literal) and `port` (0: any free port), or,
/// when `listen_fd` is not -1, accepting on that socket (one a service manager passed: a TCP
/// socket, bound and listening; `host` and `port` are then unused), with
/// an epoll thread pool of `threads`, suspend/resume on, and the given limits. Each request must
/// be read whole within `ready_ms` of its connection being free for it (opened, or the last
/// answer sent: ``rocket_mhd_request_done``) and within `request_ms` of its request line;
/// ``rocket_mhd_request_read`` says it was, ``rocket_mhd_cut_late`` ends connections past their
/// deadline. `*deadlines` is set to the table of them, freed with ``rocket_mhd_deadlines_free``
/// once the daemon has stopped. NULL on failure, with a sentence in `error`.
struct MHD_Daemon *rocket_mhd_start(const char *host, uint16_t port, int listen_fd, unsigned int threads,
                                    unsigned int connection_limit, unsigned int per_ip_limit,
                                    unsigned int timeout_seconds, size_t connection_memory,
                                    MHD_AccessHandlerCallback handler, void *handler_cls,
                                    MHD_RequestCompletedCallback completed, void *completed_cls,
                                    unsigned int ready_ms, unsigned int request_ms, struct rocket_deadlines **deadlines,
                                    char *error, size_t error_size);

/// The address a listening socket is bound to: its IP address written into `host` (at most
/// `host_size` bytes with the NUL) and its port into `*port`. 0 when `fd` is a TCP socket that
/// listens on an IPv4 or IPv6 address; otherwise -1, with a sentence saying what it is in `error`.
int rocket_mhd_listening_address(int fd, char *host, size_t host_size, uint16_t *port, char *error, size_t error_size);

/// The connection's request has been read whole: its deadline is lifted.
void rocket_mhd_request_read(struct MHD_Connection *connection);

/// The connection's answer is sent: its next request must come whole within the ready time.
void rocket_mhd_request_done(struct MHD_Connection *connection);

/// Shuts down the sockets of connections whose request is past its deadline (the library then
/// closes them); how many.
unsigned int rocket_mhd_cut_late(struct rocket_deadlines *deadlines);

/// The statuses counted among the library's own answers: 100 to 100 + this - 1.
#define ROCKET_LIBRARY_STATUSES 500

/// Takes the counts of the answers libmicrohttpd made itself since the last call (requests the
/// access handler never saw: a line or headers over the connection's memory, 414 and 431; a
/// malformed request, 400; an HTTP version it does not speak, 505): `counts[s - 100]` for status
/// `s`, each set back to 0. Returns their sum.
unsigned long rocket_mhd_take_library_answers(struct rocket_deadlines *deadlines, unsigned long counts[ROCKET_LIBRARY_STATUSES]);

/// Frees the table of deadlines (after MHD_stop_daemon; NULL is nothing).
void rocket_mhd_deadlines_free(struct rocket_deadlines *deadlines);

/// A table of deadlines on its own (``rocket_mhd_start`` makes the daemon's), with at most
/// `per_network_limit` connections per IPv6 /64 (0: no limit); NULL when out of memory.
struct rocket_deadlines *rocket_mhd_deadlines_new(unsigned int ready_ms, unsigned int request_ms, unsigned int per_network_limit);

/// Whether a connection from `addr` may be accepted: always for IPv4 (libmicrohttpd counts those
/// per address), for IPv6 while its /64 holds fewer connections than the limit. The daemon's
/// accept policy.
int rocket_mhd_network_admits(struct rocket_deadlines *deadlines, const struct sockaddr *addr);

/// Counts a connection from `addr` in (`delta` > 0) or out against its /64; 1 when `addr` is one
/// the table counts (then `*counted`, when not NULL, is its /64), 0 otherwise. The daemon counts
/// each connection as it starts and ends.
int rocket_mhd_network_count(struct rocket_deadlines *deadlines, const struct sockaddr *addr, int delta, uint64_t *counted);

/// The connections counted against the /64 of `addr`.
unsigned rocket_mhd_network_connections(struct rocket_deadlines *deadlines, const struct sockaddr *addr);

/// The port the daemon listens on (useful after binding port 0); 0 when unknown.
uint16_t rocket_mhd_port(struct MHD_Daemon *daemon);

/// The connections the daemon holds now (accepted and not yet closed).
unsigned int rocket_mhd_connections(struct MHD_Daemon *daemon);

/// Stops accepting new connections; open ones are served to the end. Returns the listening
/// socket (-1 when there is none), which the caller closes only after `MHD_stop_daemon`: the
/// library's threads may still use it until then, and a number closed early can be given to
/// another file while they do.
int rocket_mhd_quiesce(struct MHD_Daemon *daemon);

/// How the request's header block frames it: 0 sound; 1 both Transfer-Encoding and
/// Content-Length; 2 a framing header given twice; 3 a folded header line (obs-fold: the
/// library joins it into the header's name, found as a name outside the block it read); 4 no
/// Host in an HTTP/1.1 request, or more than one in any; 5 a Transfer-Encoding other than exactly chunked (in any case) that
/// does not end in it either (the body's length cannot be known); 6 codings before chunked (not
/// implemented here); 7 the request target holds an encoded NUL (`%00`), which the library's
/// decoding would turn into the end of the path or of a query value; 8 a header's name that is
/// no token (empty, or with a space before its colon or another byte a name may not hold; a
/// NUL in a name the library refuses itself). Called with the method and version pointers the access handler
/// was given.
int rocket_mhd_framing(struct MHD_Connection *connection, const char *method, const char *version);

/// The address of the connection's peer as text (IPv4 dotted, IPv6 colon form; an IPv4-mapped
/// IPv6 address as IPv4) in `out`; 0 when it is not known.
int rocket_mhd_client_address(struct MHD_Connection *connection, char *out, size_t size);

/// The connection's socket, duplicated (close-on-exec, non-blocking, no delay, unsent data given
/// up after `unacknowledged_ms`), for an event stream served outside the library: the access
/// handler then returns MHD_NO and the daemon lets go of its own descriptor without shutting the
/// socket down (turbo mode). -1 on failure.
int rocket_mhd_take_socket(struct MHD_Connection *connection, unsigned int unacknowledged_ms);

/// A new epoll instance (close-on-exec), or -1.
int rocket_poll_open(void);

/// Watches `fd` (adding it when `adding`, else changing its watch) for input and hang-ups, and
/// for room to write when `writable`; its events carry `id`. 0 or -1.
int rocket_poll_watch(int poll, int fd, uint64_t id, int adding, int writable);

/// Stops watching `fd`. 0 or -1.
int rocket_poll_forget(int poll, int fd);

/// Waits up to `timeout_ms` for at most `max` (≤ 256) events: their ids, and for each a set of
/// 1 (readable), 2 (writable), 4 (hung up or failed). The number of events, or -1.
int rocket_poll_wait(int poll, uint64_t *ids, uint32_t *events, int max, int timeout_ms);

#endif
