// AFRequestSerialization: HTTP (form/query), JSON and property-list request serializers.
// (The module's types land here; this file only names the module's purpose.)
