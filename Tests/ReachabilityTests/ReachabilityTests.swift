// Unit tests for AFReachability land here.
import Testing
@testable import AFReachability
