// Event streams outside libmicrohttpd: once a stream is admitted its socket is taken from the
// library (a duplicate descriptor; the daemon runs in turbo mode, so closing its own descriptor
// does not shut the socket down) and served by one epoll loop of ours, so an idle stream holds
// no connection memory of the library's.
#include "CMicroHTTPD.h"
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

int rocket_mhd_take_socket(struct MHD_Connection *connection, unsigned int unacknowledged_ms) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info == NULL) return -1;
    int fd = fcntl(info->connect_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return -1;
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        close(fd);
        return -1;
    }
    int on = 1, off = 0;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &unacknowledged_ms, sizeof unacknowledged_ms);
    return fd;
}

int rocket_poll_open(void) { return epoll_create1(EPOLL_CLOEXEC); }

int rocket_poll_watch(int poll, int fd, uint64_t id, int adding, int writable) {
    struct epoll_event e;
    e.events = EPOLLIN | EPOLLRDHUP | (writable ? EPOLLOUT : 0);
    e.data.u64 = id;
    return epoll_ctl(poll, adding ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &e);
}

int rocket_poll_forget(int poll, int fd) {
    struct epoll_event e = {0};
    return epoll_ctl(poll, EPOLL_CTL_DEL, fd, &e);
}

int rocket_poll_wait(int poll, uint64_t *ids, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event got[256];
    if (max > 256) max = 256;
    int n = epoll_wait(poll, got, max, timeout_ms);
    for (int k = 0; k < n; k++) {
        uint32_t e = got[k].events, out = 0;
        if (e & EPOLLIN) out |= 1;
        if (e & EPOLLOUT) out |= 2;
        if (e & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) out |= 4;
        ids[k] = got[k].data.u64;
        events[k] = out;
    }
    return n;
}
