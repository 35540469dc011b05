// Unit tests for AFSecurity land here.
import Testing
@testable import AFSecurity
