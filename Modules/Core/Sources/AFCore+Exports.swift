// AFCore's public API is written in AFProtocols' types (serializers, body sources, task states,
// interceptors) and swift-http-types' (the lean path's HTTPRequest and HTTPResponse): importing AFCore
// brings them, so a consumer of AFCore alone names them without importing their modules.
@_exported import AFProtocols
@_exported import HTTPTypes
