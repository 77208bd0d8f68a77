#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
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

extern char **environ;

int rocket_test_spawn_shell(const char *command, int *output) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1);
    // Nothing else the tests have open (pipes, sockets, files) goes into the child, nor into a
    // server it leaves running: a pipe's end held there would keep another test waiting.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    char *argv[] = {"/bin/sh", "-c", (char *)command, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(ends[1]);
    if (rc != 0) {
        close(ends[0]);
        return -1;
    }
    *output = ends[0];
    return pid;
}
