#ifndef AF_CTESTISOLATION_H
#define AF_CTESTISOLATION_H
// Keeps the test process out of the user's home: linked into the test bundle, a constructor points
// XDG_CACHE_HOME and XDG_DATA_HOME at a directory of this run's own before any test (or Foundation)
// reads them, so URLCache.shared, the image downloader's default URL cache and HTTPCookieStorage.shared
// (and those of the `af` processes the tests start, which inherit the environment) write there, never
// under ~/.cache or ~/.local/share, and no later run is answered from what this one stored. TMPDIR
// points into it as well, so temporary files (download tasks' among them) go when the process ends.

/// The run's directory (`$TMPDIR/AFNetworking-tests-<pid>-XXXXXX`, mode 0700, removed at exit; those of
/// test processes that died before their exit handler are removed at start; a test process started by
/// one, as an exit test is, shares its parent's through `AF_TEST_ISOLATION_DIR`), or NULL when it could
/// not be made.
const char *af_test_isolation_directory(void);

#endif
