#ifndef CPSEUDOTERMINAL_H
#define CPSEUDOTERMINAL_H
/// Opens a pseudo-terminal primary; writes the secondary's path into `name`. Returns the fd or -1.
int rocket_pty_open(char *name, int length);
/// Sets the window size seen through the pseudo-terminal.
int rocket_pty_resize(int fd, int rows, int columns);
#endif
