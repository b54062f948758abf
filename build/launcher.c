/*
 * earshot's single-file launcher (docs/build.md, "The single file").
 *
 * The single file is this program followed by a payload, a manifest and a trailer
 * (build/onefile.py writes them):
 *
 *   [launcher][installer: a PyInstaller onefile][manifest][trailer: 128 bytes]
 *
 * The manifest lists every file of the folder (onedir) build: sha256, size, relative path.
 * Its first lines give the format and the modification time every unpacked file is set to.
 *
 * Warm start: the unpacked folder <cache>/<id>/ exists and every file in the manifest is a
 * regular file there with its size and that mtime -> exec <cache>/<id>/earshot. That costs one
 * stat per file (about 300: the Python modules are one archive inside earshot), nothing is
 * read or hashed. On Linux the launcher also hands earshot (a PyInstaller bootloader) the
 * environment the bootloader would otherwise set up by executing itself a second time.
 *
 * Anything else (first run, a file missing, truncated or modified): write the installer to
 * <cache> (or the system temp dir when <cache> is unusable) and run it. The installer is a
 * PyInstaller onefile of build/unpack.py carrying the folder build: it hashes that folder
 * against the manifest, moves (or copies) it to <cache>/<id>/ under a lock, prunes old
 * versions, and runs earshot from there (or, when the cache dir cannot be written, from its own
 * temporary unpack, with one warning).
 *
 * The cache dir: $EARSHOT_CACHE_DIR, else $XDG_CACHE_HOME/earshot or ~/.cache/earshot (Linux),
 * ~/Library/Caches/earshot (macOS), %LOCALAPPDATA%\earshot (Windows); unpacks go to its
 * onefile/ subdirectory.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
typedef wchar_t pchar;
#define P(s) L##s
#define SEP L'\\'
#define plen wcslen
#else
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif
#ifdef __linux__
#include <sys/syscall.h>
#endif
typedef char pchar;
#define P(s) s
#define SEP '/'
#define plen strlen
#endif

#define CAP 4096
#define TRAILER 128
#define MAGIC "EARSHOT-ONEFILE1"
#define SCAN (4u << 20) /* macOS: the code signature follows the trailer */

struct layout {
    char id[81];
    uint64_t payload_off, payload_len, manifest_off, manifest_len;
};

static void fail(const char *what) {
    fprintf(stderr, "earshot: %s\n", what);
    exit(1);
}

static uint64_t le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static void pcat(pchar *dst, const pchar *src) {
    size_t n = plen(dst), m = plen(src);
    if (n + m + 1 > CAP) fail("path too long");
    memcpy(dst + n, src, (m + 1) * sizeof(pchar));
}

static void pjoin(pchar *dst, const pchar *src) {
    pchar sep[2] = {SEP, 0};
    pcat(dst, sep);
    pcat(dst, src);
}

/* ---- files ---------------------------------------------------------------------------- */

#ifdef _WIN32
typedef HANDLE file_t;
static file_t open_read(const pchar *path) {
    HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) fail("cannot open its own executable");
    return h;
}
static uint64_t file_size(file_t f) {
    LARGE_INTEGER size;
    if (!GetFileSizeEx(f, &size)) fail("cannot read its own executable");
    return (uint64_t)size.QuadPart;
}
static int read_at(file_t f, uint64_t off, void *buf, size_t n) {
    OVERLAPPED at = {0};
    DWORD got = 0;
    at.Offset = (DWORD)off;
    at.OffsetHigh = (DWORD)(off >> 32);
    return ReadFile(f, buf, (DWORD)n, &got, &at) && got == n ? 0 : -1;
}
#else
typedef int file_t;
static file_t open_read(const pchar *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("cannot open its own executable");
    return fd;
}
static uint64_t file_size(file_t f) {
    off_t end = lseek(f, 0, SEEK_END);
    if (end < 0) fail("cannot read its own executable");
    return (uint64_t)end;
}
static int read_at(file_t f, uint64_t off, void *buf, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(f, (char *)buf + done, n - done, (off_t)(off + done));
        if (got <= 0) return -1;
        done += (size_t)got;
    }
    return 0;
}
#endif

static void self_path(pchar *out) {
#ifdef _WIN32
    DWORD n = GetModuleFileNameW(NULL, out, CAP);
    if (n == 0 || n >= CAP) fail("cannot find its own executable");
#elif defined(__APPLE__)
    char raw[CAP];
    uint32_t size = CAP;
    if (_NSGetExecutablePath(raw, &size) != 0 || realpath(raw, out) == NULL)
        fail("cannot find its own executable");
#else
    ssize_t n = readlink("/proc/self/exe", out, CAP - 1);
    if (n <= 0) fail("cannot find its own executable");
    out[n] = 0;
#endif
}

static void read_layout(file_t f, struct layout *lay) {
    uint64_t size = file_size(f);
    unsigned char tail[TRAILER];
    const unsigned char *t = NULL;
    unsigned char *scan = NULL;
    if (size >= TRAILER && read_at(f, size - TRAILER, tail, TRAILER) == 0 &&
        memcmp(tail + TRAILER - 16, MAGIC, 16) == 0) {
        t = tail;
    } else { /* a signed macOS binary: the signature comes after the trailer */
        size_t n = size < SCAN ? (size_t)size : SCAN;
        scan = malloc(n);
        if (scan == NULL || read_at(f, size - n, scan, n) != 0) fail("cannot read its payload");
        for (size_t i = n; i >= TRAILER; i--) {
            if (memcmp(scan + i - 16, MAGIC, 16) == 0) {
                t = scan + i - TRAILER;
                break;
            }
        }
        if (t == NULL) fail("this executable has no payload (a damaged download?)");
    }
    memcpy(lay->id, t, 80);
    lay->id[80] = 0;
    lay->payload_off = le64(t + 80);
    lay->payload_len = le64(t + 88);
    lay->manifest_off = le64(t + 96);
    lay->manifest_len = le64(t + 104);
    free(scan);
    if (lay->payload_off + lay->payload_len > size || lay->manifest_off + lay->manifest_len > size)
        fail("this executable is truncated (a damaged download?)");
    for (const char *c = lay->id; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' ||
              *c == '+' || *c == '_'))
            fail("this executable's payload name is invalid");
}

/* ---- environment and the cache dir ---------------------------------------------------- */

#ifdef _WIN32
static const pchar *env(const pchar *name) {
    const pchar *v = _wgetenv(name);
    return v != NULL && *v ? v : NULL;
}
static void set_env(const pchar *name, const pchar *value) { _wputenv_s(name, value); }
static void unset_env(const pchar *name) { _wputenv_s(name, L""); }
#else
static const pchar *env(const pchar *name) {
    const pchar *v = getenv(name);
    return v != NULL && *v ? v : NULL;
}
static void set_env(const pchar *name, const pchar *value) { setenv(name, value, 1); }
static void unset_env(const pchar *name) { unsetenv(name); }
#endif

/* The earshot cache dir (no trailing separator); 0 when there is no home to put it in. */
static int cache_dir(pchar *out) {
    const pchar *v;
    out[0] = 0;
    if ((v = env(P("EARSHOT_CACHE_DIR"))) != NULL) {
        pcat(out, v);
        return 1;
    }
#ifdef _WIN32
    if ((v = env(P("LOCALAPPDATA"))) == NULL) return 0;
    pcat(out, v);
#elif defined(__APPLE__)
    if ((v = env(P("HOME"))) == NULL) return 0;
    pcat(out, v);
    pjoin(out, P("Library/Caches"));
#else
    if ((v = env(P("XDG_CACHE_HOME"))) != NULL && v[0] == '/') {
        pcat(out, v);
    } else {
        if ((v = env(P("HOME"))) == NULL) return 0;
        pcat(out, v);
        pjoin(out, P(".cache"));
    }
#endif
    pjoin(out, P("earshot"));
    return 1;
}

/* ---- the warm check: every manifest file present with its size and mtime -------------- */

#ifdef _WIN32
struct checker {
    const pchar *dir;
};

static int checker_open(struct checker *c, const pchar *dir) {
    c->dir = dir;
    return 1;
}

static void checker_close(struct checker *c) { (void)c; }

static int check_file(struct checker *c, const char *rel, uint64_t size, int64_t mtime) {
    pchar path[CAP];
    path[0] = 0;
    pcat(path, c->dir);
    size_t n = plen(path);
    path[n++] = SEP;
    int w = MultiByteToWideChar(CP_UTF8, 0, rel, -1, path + n, (int)(CAP - n));
    if (w == 0) return 0;
    for (pchar *p = path + n; *p; p++)
        if (*p == L'/') *p = SEP;
    WIN32_FILE_ATTRIBUTE_DATA data;
    if (!GetFileAttributesExW(path, GetFileExInfoStandard, &data)) return 0;
    if (data.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) return 0;
    uint64_t got = ((uint64_t)data.nFileSizeHigh << 32) | data.nFileSizeLow;
    uint64_t ticks = ((uint64_t)data.ftLastWriteTime.dwHighDateTime << 32) |
                     data.ftLastWriteTime.dwLowDateTime;
    int64_t seconds = (int64_t)(ticks / 10000000u) - 11644473600LL;
    return got == size && seconds == mtime;
}
#else
/* Each directory of the folder is opened once and its files are looked up by name in it: a
 * lookup of one name, not of the whole path from / (half the cost per file). The manifest
 * lists each directory's files together (build/unpack.py), so one open directory at a time
 * is enough; the order only changes how often a directory is opened. */
struct checker {
    int root, cur;
    char curdir[CAP]; /* the relative path `cur` is open on ("" for root) */
};

#ifdef O_PATH
#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)
#else
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#endif

static int checker_open(struct checker *c, const char *dir) {
    c->root = c->cur = open(dir, DIR_FLAGS);
    c->curdir[0] = 0;
    return c->root >= 0;
}

static void checker_close(struct checker *c) {
    if (c->cur >= 0 && c->cur != c->root) close(c->cur);
    if (c->root >= 0) close(c->root);
}

static int check_file(struct checker *c, const char *rel, uint64_t size, int64_t mtime) {
    const char *slash = strrchr(rel, '/');
    size_t n = slash != NULL ? (size_t)(slash - rel) : 0;
    if (n >= CAP) return 0;
    if (strncmp(c->curdir, rel, n) != 0 || c->curdir[n] != 0) {
        if (c->cur != c->root) close(c->cur);
        memcpy(c->curdir, rel, n);
        c->curdir[n] = 0;
        c->cur = n == 0 ? c->root : openat(c->root, c->curdir, DIR_FLAGS);
        if (c->cur < 0) {
            c->curdir[0] = 0;
            c->cur = c->root; /* nothing left open but root; the check fails */
            return 0;
        }
    }
    const char *name = slash != NULL ? slash + 1 : rel;
    struct stat st;
#ifdef __linux__
    /* The raw syscall: glibc's stat/lstat symbols are versioned 2.33, which would raise the
     * oldest glibc the single file runs on. */
    if (syscall(SYS_newfstatat, c->cur, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
#else
    if (fstatat(c->cur, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
#endif
    return S_ISREG(st.st_mode) && (uint64_t)st.st_size == size && (int64_t)st.st_mtime == mtime;
}
#endif

static int check_all(struct checker *c, char *manifest, size_t len) {
    /* "earshot-manifest 1\nmtime <seconds>\n" then "<sha256> <size> <path>\n" per file */
    char *line = manifest, *end = manifest + len;
    int64_t mtime;
    int files = 0;
    if (len < 20 || strncmp(line, "earshot-manifest 1\nmtime ", 25) != 0) return 0;
    mtime = strtoll(line + 25, &line, 10);
    if (line >= end || *line != '\n') return 0;
    line++;
    while (line < end) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        if (nl == NULL || nl - line < 68 || line[64] != ' ') return 0;
        char *rest;
        uint64_t size = strtoull(line + 65, &rest, 10);
        if (*rest != ' ') return 0;
        rest++;
        *nl = 0;
        int ok = check_file(c, rest, size, mtime);
        *nl = '\n';
        if (!ok) return 0;
        files++;
        line = nl + 1;
    }
    return files > 0;
}

static int unpacked_ok(const pchar *dir, char *manifest, size_t len) {
    struct checker c;
    int ok = checker_open(&c, dir) && check_all(&c, manifest, len);
    checker_close(&c);
    return ok;
}

/* ---- running a program with our arguments --------------------------------------------- */

#ifdef _WIN32
/* Our own command line with its first argument (the program) replaced by `exe`. */
static wchar_t *command_line(const wchar_t *exe) {
    const wchar_t *rest = GetCommandLineW();
    int quoted = 0;
    while (*rest && (quoted || (*rest != L' ' && *rest != L'\t'))) {
        if (*rest == L'"') quoted = !quoted;
        rest++;
    }
    size_t n = wcslen(exe) + wcslen(rest) + 3;
    wchar_t *line = malloc(n * sizeof(wchar_t));
    if (line == NULL) fail("out of memory");
    _snwprintf(line, n, L"\"%ls\"%ls", exe, rest);
    line[n - 1] = 0;
    return line;
}

static BOOL WINAPI ignore_ctrl(DWORD type) {
    (void)type;
    return TRUE; /* the child shares our console and handles Ctrl+C itself */
}

static int run(const pchar *exe, char **argv) {
    (void)argv;
    STARTUPINFOW si;
    PROCESS_INFORMATION pi;
    DWORD code = 1;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    SetConsoleCtrlHandler(ignore_ctrl, TRUE);
    if (!CreateProcessW(exe, command_line(exe), NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi))
        return -1;
    WaitForSingleObject(pi.hProcess, INFINITE);
    GetExitCodeProcess(pi.hProcess, &code);
    return (int)code;
}
#else
static int run(const pchar *exe, char **argv) {
    argv[0] = (char *)exe;
    execv(exe, argv);
    return -1;
}
#endif

/* ---- Linux: start PyInstaller's bootloader once, not twice ------------------------------ */

#ifdef __linux__
/* A PyInstaller (6.x) folder build started on Linux points LD_LIBRARY_PATH at its _internal/
 * (the user's value saved in LD_LIBRARY_PATH_ORIG) and executes itself again, for the dynamic
 * loader to see it; the second start finds _PYI_ARCHIVE_FILE naming itself and
 * _PYI_PARENT_PROCESS_LEVEL -1 (the first start's level) and goes on to Python. These are the
 * variables the first start hands the second, so earshot starts once: one exec of the
 * bootloader (and its reading of its own archive) less on every warm start. Should the
 * bootloader not accept them it restarts as before (build/rthook_env.py then still gives the
 * programs earshot runs the user's library path). build/earshot.spec pins PyInstaller;
 * tests/test_build.py runs the single file. */
struct saved_env {
    char *library_path; /* the user's LD_LIBRARY_PATH (NULL: unset) */
};

static void set_restart_env(const char *exe, struct saved_env *saved) {
    char real[CAP], lib[2 * CAP + 2];
    const char *orig = env("LD_LIBRARY_PATH");
    saved->library_path = orig != NULL ? strdup(orig) : NULL;
    if (realpath(exe, real) == NULL) return; /* the bootloader then starts as usual */
    char *slash = strrchr(real, '/');
    if (slash == NULL) return;
    snprintf(lib, sizeof lib, "%.*s/_internal", (int)(slash - real), real);
    if (orig != NULL) {
        set_env("LD_LIBRARY_PATH_ORIG", orig);
        size_t n = strlen(lib);
        snprintf(lib + n, sizeof lib - n, ":%s", orig);
    }
    set_env("LD_LIBRARY_PATH", lib);
    set_env("_PYI_ARCHIVE_FILE", real);
    set_env("_PYI_PARENT_PROCESS_LEVEL", "-1");
    unset_env("_PYI_APPLICATION_HOME_DIR");
    unset_env("_PYI_LINUX_PROCESS_NAME");
    unset_env("_PYI_SPLASH_IPC");
}

static void undo_restart_env(struct saved_env *saved) {
    unset_env("_PYI_ARCHIVE_FILE");
    unset_env("_PYI_PARENT_PROCESS_LEVEL");
    unset_env("LD_LIBRARY_PATH_ORIG");
    if (saved->library_path != NULL) {
        set_env("LD_LIBRARY_PATH", saved->library_path);
    } else {
        unset_env("LD_LIBRARY_PATH");
    }
}
#endif

/* ---- the cold path: write the installer out and run it -------------------------------- */

static int write_installer(file_t self, const struct layout *lay, const pchar *dir,
                           pchar *out) {
    static unsigned counter;
    out[0] = 0;
    pcat(out, dir);
#ifdef _WIN32
    pchar name[96];
    _snwprintf(name, 96, L".installer-%lu-%u.exe", (unsigned long)GetCurrentProcessId(),
               counter++);
    pjoin(out, name);
    HANDLE h = CreateFileW(out, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) return -1;
#else
    char name[96];
    snprintf(name, sizeof name, ".installer-%ld-%u", (long)getpid(), counter++);
    pjoin(out, name);
    int h = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    if (h < 0) return -1;
#endif
    static char buf[1 << 20];
    uint64_t done = 0;
    int ok = 1;
    while (ok && done < lay->payload_len) {
        size_t n = lay->payload_len - done < sizeof buf ? (size_t)(lay->payload_len - done)
                                                         : sizeof buf;
        if (read_at(self, lay->payload_off + done, buf, n) != 0) fail("cannot read its payload");
#ifdef _WIN32
        DWORD put = 0;
        ok = WriteFile(h, buf, (DWORD)n, &put, NULL) && put == n;
#else
        size_t put = 0;
        while (ok && put < n) {
            ssize_t w = write(h, buf + put, n - put);
            ok = w > 0;
            put += ok ? (size_t)w : 0;
        }
#endif
        done += n;
    }
#ifdef _WIN32
    ok = CloseHandle(h) && ok;
    if (!ok) DeleteFileW(out);
#else
    ok = close(h) == 0 && ok;
    if (!ok) unlink(out);
#endif
    return ok ? 0 : -1;
}

static int make_dirs(pchar *path) {
    for (pchar *c = path + 1; *c; c++) {
        if (*c != SEP && *c != P('/')) continue;
        pchar saved = *c;
        *c = 0;
#ifdef _WIN32
        CreateDirectoryW(path, NULL);
#else
        mkdir(path, 0700);
#endif
        *c = saved;
    }
#ifdef _WIN32
    return CreateDirectoryW(path, NULL) || GetLastError() == ERROR_ALREADY_EXISTS ? 0 : -1;
#else
    return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -1;
#endif
}

static void system_temp(pchar *out) {
    out[0] = 0;
#ifdef _WIN32
    DWORD n = GetTempPathW(CAP, out);
    if (n == 0 || n >= CAP) fail("no temporary directory");
    if (out[n - 1] == SEP) out[n - 1] = 0;
#else
    const char *t = env("TMPDIR");
    pcat(out, t != NULL ? t : "/tmp");
#endif
}

static uint64_t free_space(const pchar *dir) {
#ifdef _WIN32
    ULARGE_INTEGER avail;
    return GetDiskFreeSpaceExW(dir, &avail, NULL, NULL) ? (uint64_t)avail.QuadPart : 0;
#else
    struct statvfs st;
    return statvfs(dir, &st) == 0 ? (uint64_t)st.f_bavail * st.f_frsize : 0;
#endif
}

#ifdef _WIN32
#define TMPVAR L"TMP"
int wmain(int argc, wchar_t **wargv) {
    (void)argc;
    (void)wargv;
    char **argv = NULL;
#else
#define TMPVAR "TMPDIR"
int main(int argc, char **argv) {
    (void)argc;
#endif
    pchar self[CAP], root[CAP], dir[CAP], exe[CAP], installer[CAP], id[81];
    struct layout lay;
    self_path(self);
    file_t f = open_read(self);
    read_layout(f, &lay);
#ifdef _WIN32
    MultiByteToWideChar(CP_UTF8, 0, lay.id, -1, id, 81);
#else
    memcpy(id, lay.id, 81);
#endif
    int have_root = cache_dir(root);
    if (have_root) pjoin(root, P("onefile"));
    dir[0] = 0;
    pcat(dir, root);
    pjoin(dir, id);

    char *manifest = malloc(lay.manifest_len + 1);
    if (manifest == NULL || read_at(f, lay.manifest_off, manifest, lay.manifest_len) != 0)
        fail("cannot read its manifest");
    manifest[lay.manifest_len] = 0;
    set_env(P("EARSHOT_ONEFILE"), self);

    if (have_root && unpacked_ok(dir, manifest, lay.manifest_len)) {
        exe[0] = 0;
        pcat(exe, dir);
        pjoin(exe, P("earshot"));
#ifdef _WIN32
        pcat(exe, L".exe");
#endif
#ifdef __linux__
        struct saved_env saved;
        set_restart_env(exe, &saved);
#endif
        int code = run(exe, argv);
        if (code >= 0) return code;
        /* could not start it: fall through and unpack again */
#ifdef __linux__
        undo_restart_env(&saved);
#endif
    }

    /* Cold path: the installer goes to the cache dir (or the temp dir when that fails). With
     * room to spare there, the installer unpacks there too (TMPDIR/TMP, restored for earshot),
     * so moving the folder into place is a rename rather than a copy. */
    int in_cache = have_root && make_dirs(root) == 0 && write_installer(f, &lay, root, installer) == 0;
    int redirected = in_cache && free_space(root) > 4 * lay.payload_len;
    if (redirected) {
        const pchar *saved = env(TMPVAR);
        if (saved != NULL) set_env(P("EARSHOT_ONEFILE_TMP"), saved);
        set_env(TMPVAR, root);
    } else if (!in_cache) {
        pchar tmp[CAP];
        system_temp(tmp);
        if (write_installer(f, &lay, tmp, installer) != 0)
            fail("cannot write to the cache dir or the temporary dir (is the disk full?)");
    }
    set_env(P("EARSHOT_ONEFILE_ID"), id);
    set_env(P("EARSHOT_ONEFILE_ROOT"), have_root ? root : P(""));
    set_env(P("EARSHOT_ONEFILE_INSTALLER"), installer);
    int code = run(installer, argv);
#ifdef _WIN32
    DeleteFileW(installer);
#else
    unlink(installer);
#endif
    if (code < 0 && in_cache) {
        /* the cache dir's filesystem may not allow running programs (noexec): the temp dir */
        if (redirected) {
            const pchar *saved = env(P("EARSHOT_ONEFILE_TMP"));
            unset_env(TMPVAR);
            if (saved != NULL) set_env(TMPVAR, saved);
        }
        pchar tmp[CAP];
        system_temp(tmp);
        if (write_installer(f, &lay, tmp, installer) == 0) {
            set_env(P("EARSHOT_ONEFILE_INSTALLER"), installer);
            code = run(installer, argv);
#ifdef _WIN32
            DeleteFileW(installer);
#else
            unlink(installer);
#endif
        }
    }
    if (code < 0) fail("cannot start its installer");
    return code;
}
