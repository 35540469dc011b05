// Where the test process keeps what Foundation would put in the user's home (see CTestIsolation).
import CTestIsolation
import Foundation

/// The run's own directory, set up before any test runs: `XDG_CACHE_HOME` (URLCache.shared, the image
/// downloader's default cache) and `XDG_DATA_HOME` (HTTPCookieStorage.shared) point inside it.
package enum TestIsolation {
    /// `$TMPDIR/AFNetworking-tests-<pid>-XXXXXX`, removed when the process exits; nil if it could not be made.
    package static var directory: String? { af_test_isolation_directory().map { String(cString: $0) } }
}
