#ifndef CTESTSUPPORT_H
#define CTESTSUPPORT_H
/// Opens a pseudo-terminal primary; writes the secondary's path into `name`. Returns the fd or -1.
int rocket_pty_open(char *name, int length);
/// Sets the window size seen through the pseudo-terminal.
int rocket_pty_resize(int fd, int rows, int columns);
/// Encodes RGB pixels as a JPEG into a malloc'd buffer (free it with free); returns its size or 0.
unsigned long rocket_test_jpeg(const unsigned char *rgb, int width, int height, unsigned char **out);
/// The same, progressive when `progressive` is not 0.
unsigned long rocket_test_jpeg_mode(const unsigned char *rgb, int width, int height, int progressive, unsigned char **out);
/// Encodes 8-bit pixels of `channels` (1 gray, 2 gray and alpha, 3 RGB, 4 RGBA) as a PNG,
/// interlaced (Adam7) when `interlaced` is not 0, into a malloc'd buffer (free it with free);
/// returns its size or 0.
unsigned long rocket_test_png(const unsigned char *pixels, int width, int height, int channels, int interlaced, unsigned char **out);
/// A pipe whose two ends close on exec (pipe2 with O_CLOEXEC): a child started by another
/// thread meanwhile never holds them. 0, or -1.
int rocket_test_pipe(int ends[2]);
/// Whether the child `pid` has ended, seen without reaping it (waitid with WNOWAIT: whoever
/// started it still reaps it): 1 with `status` its exit code (or the signal that ended it), 0
/// while it runs, -1 when it is no child of ours to wait for (already reaped).
int rocket_test_exited(int pid, int *status);
/// Starts `/bin/sh -c command` with standard input from /dev/null, standard output into a pipe
/// (its read end, close-on-exec, in `output`) and every other descriptor above 2 closed, so that
/// a server it leaves running holds nothing of the tests'. The child's pid, or -1.
int rocket_test_spawn_shell(const char *command, int *output);
#endif
