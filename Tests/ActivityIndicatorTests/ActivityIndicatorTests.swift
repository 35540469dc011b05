// Unit tests for AFActivityIndicator land here.
import Testing
@testable import AFActivityIndicator
