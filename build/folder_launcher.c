/*
 * The folder build's front on Linux (docs/build.md, "The folder build on Linux").
 *
 * PyInstaller's bootloader, started as it is, sets LD_LIBRARY_PATH and executes itself a second
 * time before Python runs (pyi_restart.h): about 1.2 ms of CPU on every start. build/front.py
 * renames the folder build's `earshot` to `earshot.bin` and puts this program in its place; it
 * finds `earshot.bin` beside itself (through symlinks: Homebrew links bin/earshot to it), sets
 * what the bootloader's first start would hand its second, and executes it once with the same
 * arguments. Its exit code, signals and terminal are earshot's: nothing stays in between.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAP 4096

#include "pyi_restart.h"

int main(int argc, char **argv) {
    (void)argc;
    char self[CAP], exe[CAP];
    ssize_t n = readlink("/proc/self/exe", self, CAP - 1);
    if (n <= 0) {
        fprintf(stderr, "earshot: cannot find its own executable: %s\n", strerror(errno));
        return 1;
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash == NULL || snprintf(exe, sizeof exe, "%.*s/earshot.bin", (int)(slash - self), self)
                             >= (int)sizeof exe) {
        fprintf(stderr, "earshot: its path is too long: %s\n", self);
        return 1;
    }
    struct saved_env saved;
    set_restart_env(exe, &saved);
    argv[0] = exe;
    execv(exe, argv);
    fprintf(stderr, "earshot: cannot start %s: %s\n", exe, strerror(errno));
    return 1;
}
