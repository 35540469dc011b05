// Unit tests for AFCore land here.
import Testing
@testable import AFCore
