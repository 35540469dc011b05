// The module's API is written in swift-http-types' types: importing AFHTTPTypes brings them.
@_exported import HTTPTypes
