// AFCore's public API is written in AFProtocols' types (serializers, body sources, task states,
// interceptors, plugins): importing AFCore brings them, so a consumer of AFCore alone names them without
// importing AFProtocols.
@_exported import AFProtocols
