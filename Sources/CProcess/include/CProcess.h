#ifndef ROCKET_PROCESS_H
#define ROCKET_PROCESS_H

/// Keeps a secret typed into this process out of reach of others for the rest of its life: no
/// core file is written (RLIMIT_CORE 0, inherited by children), and the process is not dumpable
/// (PR_SET_DUMPABLE 0: processes of the same user cannot attach to it or read its memory, and a
/// crash handler such as systemd-coredump gets nothing). 0 when both took effect, else -1 with
/// errno from the one that failed. prctl(2) is variadic, which Swift cannot call: hence C.
int rocket_protect_secrets(void);

/// 1 when this process is dumpable, 0 when not, -1 on error: for tests.
int rocket_is_dumpable(void);

#endif
