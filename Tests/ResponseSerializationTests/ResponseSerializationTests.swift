// Unit tests for AFResponseSerialization land here.
import Testing
@testable import AFResponseSerialization
