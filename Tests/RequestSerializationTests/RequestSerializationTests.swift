// Unit tests for AFRequestSerialization land here.
import Testing
@testable import AFRequestSerialization
