// Unit tests for AFMultipart land here.
import Testing
@testable import AFMultipart
