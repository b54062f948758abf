/*
 * Starting PyInstaller's bootloader once on Linux, for build/launcher.c (the single file's
 * launcher) and build/folder_launcher.c (the folder build's front). Linux only; needs
 * <stdio.h>, <stdlib.h>, <string.h> and CAP (a path buffer's size) before it.
 */

#ifndef EARSHOT_PYI_RESTART_H
#define EARSHOT_PYI_RESTART_H

/* A PyInstaller (6.x) folder build started on Linux points LD_LIBRARY_PATH at its _internal/
 * (the user's value saved in LD_LIBRARY_PATH_ORIG) and executes itself again, for the dynamic
 * loader to see it; the second start finds _PYI_ARCHIVE_FILE naming itself and
 * _PYI_PARENT_PROCESS_LEVEL -1 (the first start's level) and goes on to Python. These are the
 * variables the first start hands the second, so earshot starts once: one exec of the
 * bootloader (and its reading of its own archive) less on every start. Should the
 * bootloader not accept them it restarts as before (build/rthook_env.py then still gives the
 * programs earshot runs the user's library path). build/earshot.spec pins PyInstaller;
 * tests/test_build.py runs both binaries, tests/test_launcher.py both launchers. */
struct saved_env {
    char *library_path; /* the user's LD_LIBRARY_PATH (NULL: unset) */
};

static inline void set_restart_env(const char *exe, struct saved_env *saved) {
    char real[CAP], lib[2 * CAP + 2];
    const char *orig = getenv("LD_LIBRARY_PATH");
    saved->library_path = orig != NULL ? strdup(orig) : NULL;
    if (realpath(exe, real) == NULL) return; /* the bootloader then starts as usual */
    char *slash = strrchr(real, '/');
    if (slash == NULL) return;
    snprintf(lib, sizeof lib, "%.*s/_internal", (int)(slash - real), real);
    if (orig != NULL) {
        setenv("LD_LIBRARY_PATH_ORIG", orig, 1);
        size_t n = strlen(lib);
        snprintf(lib + n, sizeof lib - n, ":%s", orig);
    }
    setenv("LD_LIBRARY_PATH", lib, 1);
    setenv("_PYI_ARCHIVE_FILE", real, 1);
    setenv("_PYI_PARENT_PROCESS_LEVEL", "-1", 1);
    unsetenv("_PYI_APPLICATION_HOME_DIR");
    unsetenv("_PYI_LINUX_PROCESS_NAME");
    unsetenv("_PYI_SPLASH_IPC");
}

static inline void undo_restart_env(struct saved_env *saved) {
    unsetenv("_PYI_ARCHIVE_FILE");
    unsetenv("_PYI_PARENT_PROCESS_LEVEL");
    unsetenv("LD_LIBRARY_PATH_ORIG");
    if (saved->library_path != NULL) {
        setenv("LD_LIBRARY_PATH", saved->library_path, 1);
    } else {
        unsetenv("LD_LIBRARY_PATH");
    }
}

#endif
