import Testing
@testable import AFProtocols
