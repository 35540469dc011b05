// Unit tests for AFImageLoading land here.
import Testing
@testable import AFImageLoading
