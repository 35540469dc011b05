#define _GNU_SOURCE
#include "CTestIsolation.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define AF_TEST_PREFIX "AFNetworking-tests-"

static char af_directory[4096];
static pid_t af_owner;

const char *af_test_isolation_directory(void) {
    return af_directory[0] ? af_directory : NULL;
}

static int af_remove_entry(const char *path, const struct stat *info, int flag, struct FTW *walk) {
    (void)info; (void)flag; (void)walk;
    remove(path);
    return 0;
}

static void af_remove_tree(const char *path) {
    nftw(path, af_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/// At exit, in the process that made it (not in a forked child).
static void af_remove_directory(void) {
    if (af_directory[0] && getpid() == af_owner) af_remove_tree(af_directory);
}

/// Directories of earlier test processes that are gone (killed before their exit handler ran).
static void af_remove_stale(const char *base) {
    DIR *listing = opendir(base);
    if (listing == NULL) return;
    struct dirent *entry;
    uid_t user = geteuid();
    while ((entry = readdir(listing)) != NULL) {
        if (strncmp(entry->d_name, AF_TEST_PREFIX, strlen(AF_TEST_PREFIX)) != 0) continue;
        char *end = NULL;
        long pid = strtol(entry->d_name + strlen(AF_TEST_PREFIX), &end, 10);
        if (end == NULL || *end != '-' || pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
        char path[4096];
        struct stat info;
        if (snprintf(path, sizeof path, "%s/%s", base, entry->d_name) >= (int)sizeof path) continue;
        if (lstat(path, &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != user) continue;
        af_remove_tree(path);
    }
    closedir(listing);
}

__attribute__((constructor)) static void af_test_isolation_start(void) {
    // A test process started by a test process (Swift Testing's exit tests) shares its parent's directory,
    // which the parent removes.
    const char *inherited = getenv("AF_TEST_ISOLATION_DIR");
    struct stat info;
    if (inherited != NULL && strlen(inherited) < sizeof af_directory && lstat(inherited, &info) == 0
            && S_ISDIR(info.st_mode) && info.st_uid == geteuid()) {
        strcpy(af_directory, inherited);
        return;
    }
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] != '/') base = "/tmp";
    af_remove_stale(base);
    af_owner = getpid();
    if (snprintf(af_directory, sizeof af_directory, "%s/" AF_TEST_PREFIX "%d-XXXXXX", base, (int)af_owner)
            >= (int)sizeof af_directory || mkdtemp(af_directory) == NULL) {
        af_directory[0] = 0;
        return;
    }
    char path[4096 + 16];
    snprintf(path, sizeof path, "%s/cache", af_directory);
    setenv("XDG_CACHE_HOME", path, 1);
    snprintf(path, sizeof path, "%s/data", af_directory);
    setenv("XDG_DATA_HOME", path, 1);
    // The temporary directory too: a file a test (or the engine's download directory, or a tool a test
    // starts) puts there is removed with the rest, even when the test forgets it.
    snprintf(path, sizeof path, "%s/tmp", af_directory);
    if (mkdir(path, 0700) == 0) setenv("TMPDIR", path, 1);
    setenv("AF_TEST_ISOLATION_DIR", af_directory, 1);
    atexit(af_remove_directory);
}
