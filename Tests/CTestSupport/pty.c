#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "CTestSupport.h"

int rocket_pty_open(char *name, int length) {
    int fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (fd < 0) return -1;
    if (grantpt(fd) != 0 || unlockpt(fd) != 0 || ptsname_r(fd, name, (size_t)length) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int rocket_pty_resize(int fd, int rows, int columns) {
    struct winsize ws = {0};
    ws.ws_row = (unsigned short)rows;
    ws.ws_col = (unsigned short)columns;
    return ioctl(fd, TIOCSWINSZ, &ws);
}

int rocket_test_pipe(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

int rocket_test_exited(int pid, int *status) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    int rc;
    do {
        rc = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT);
    } while (rc == -1 && errno == EINTR);
    if (rc == -1) return -1;
    if (info.si_pid != pid) return 0;
    *status = info.si_status;  /* the exit code, or the signal that ended it */
    return 1;
}
